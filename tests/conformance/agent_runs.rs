//! agent-runs.json: whole runs of the reference agent loop. Each turn records
//! the final full state and its slim snapshots with the default (`standard`)
//! and `full` configs; a case passes when, for every turn, the state reads
//! and both snapshots of it are the recorded ones, in
//! `compat` mode as recorded and with the fixes against the adjusted
//! expectation (the runs hold no cut inside a character and keep tool
//! results, so the fixes change nothing there unless a run says otherwise
//! in `invalid_utf8`). Both ways of reading the state (parsed whole, and
//! selectively from the document) must give the same snapshot.

use stepline::json::Value;
use stepline::model::time::Timestamp;
use stepline::model::AgentState;
use stepline::snapshot::serialize::slim;
use stepline::snapshot::source::SlimSource;
use stepline::snapshot::SlimConfig;

use crate::compare::matches;
use crate::slim::{cut_at_boundary, decode_hex, pointer};

pub fn check(_name: &str, case: &Value) -> Option<Result<(), String>> {
    let now: Timestamp =
        chrono::DateTime::parse_from_rfc3339(case["input"]["now"].as_str()?).ok()?;
    let turns = case["expected"].as_array()?;
    let invalid = case["invalid_utf8"].as_array().cloned().unwrap_or_default();
    Some((|| {
        if turns.is_empty() {
            return Err("no turns recorded".to_string());
        }
        for (t, turn) in turns.iter().enumerate() {
            let doc = &turn["finalState"];
            let state = AgentState::from_value(doc, &now)
                .map_err(|e| format!("turn {t}: finalState does not read: {e}"))?;
            for (key, preset) in [
                ("slim", SlimConfig::standard()),
                ("slimFull", SlimConfig::full()),
            ] {
                let expected = &turn[key];
                for compat in [true, false] {
                    let config = SlimConfig { compat, ..preset };
                    let from_state = slim(&SlimSource::from_state(&state, &config), &config);
                    let source = SlimSource::from_doc(&doc, &config, &now)
                        .map_err(|e| format!("turn {t} {key}: from_doc failed: {e}"))?;
                    if slim(&source, &config) != from_state {
                        return Err(format!("turn {t} {key}: the selective read differs"));
                    }
                    let want = if compat {
                        expected.clone()
                    } else {
                        fixed(expected, &invalid, &format!("$.expected[{t}].{key}"))
                    };
                    let mode = if compat { "compat" } else { "fixed" };
                    matches(&want, &from_state)
                        .map_err(|e| format!("turn {t} {key}, {mode} mode: {e}"))?;
                }
            }
        }
        Ok(())
    })())
}

/// The recorded snapshot with fix 1 applied to the cuts `invalid_utf8` marks
/// under `prefix` (the snapshot's own path in the case).
fn fixed(expected: &Value, invalid: &[Value], prefix: &str) -> Value {
    let mut out = expected.clone();
    for entry in invalid {
        let (Some(path), Some(hex)) = (entry["path"].as_str(), entry["hex"].as_str()) else {
            continue;
        };
        let Some(rest) = path.strip_prefix(prefix) else {
            continue;
        };
        if let Some(slot) = out.pointer_mut(&pointer(&format!("$.expected{rest}"))) {
            *slot = Value::String(cut_at_boundary(&decode_hex(hex)));
        }
    }
    crate::slim::with_step_durations(&mut out);
    out
}
