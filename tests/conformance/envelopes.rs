//! envelopes.json: the broadcast adapter, every config, checked twice: in
//! `compat` mode against the reference's envelopes as recorded, and with the
//! fixes (true UTC timestamps; truncation at character boundaries; step
//! durations as the real interval) against the expectation adjusted
//! accordingly.
//!
//! Every step in the vectors lasts under a minute, where the reference's
//! duration (its interval's seconds and fraction, quirk 4) is the real one.
//! So each case runs a second time with every step started two minutes
//! earlier: the reference drops whole minutes, so its expectation is the
//! recorded one, while the fixed expectation is computed from the interval.

use stepline::envelope::config::Dialect;
use stepline::envelope::{BroadcastConfig, Encoder};
use stepline::json::Value;
use stepline::model::time::{format_utc_millis, Timestamp};

use crate::compare::matches;

/// The offsets of the default timezones the vectors use, at the vectors' instant (January 2026).
fn offset_minutes(zone: Option<&str>) -> Option<i32> {
    match zone {
        None | Some("UTC") => Some(0),
        Some("Europe/Warsaw") => Some(60),
        Some("America/New_York") => Some(-300),
        Some("Asia/Kolkata") => Some(330),
        Some(_) => None,
    }
}

pub fn check(_name: &str, case: &Value) -> Option<Result<(), String>> {
    check_as(case, Dialect::V1_22, offset_minutes)
}

/// Runs an envelopes.json case through the encoder in `dialect`; `offsets`
/// gives the UTC offset (minutes) of the vector's PHP default timezone at the
/// vector's instant.
pub fn check_as(
    case: &Value,
    dialect: Dialect,
    offsets: fn(Option<&str>) -> Option<i32>,
) -> Option<Result<(), String>> {
    let input = &case["input"];
    let now: Timestamp = chrono::DateTime::parse_from_rfc3339(input["now"].as_str()?).ok()?;
    let base = BroadcastConfig {
        dialect,
        ..BroadcastConfig::from_reference(&input["config"])?
    };
    let offset =
        chrono::FixedOffset::east_opt(offsets(input["phpDefaultTimezone"].as_str())? * 60)?;
    let run = |input: &Value, config: BroadcastConfig| -> Result<Value, String> {
        let mut encoder = Encoder::new(
            input["sessionId"].as_str().unwrap_or(""),
            input["executionId"].as_str().unwrap_or(""),
            config,
        );
        let mut out = Vec::new();
        for op in input["ops"].as_array().into_iter().flatten() {
            if let Some(event) = op["event"].as_str() {
                let sent = encoder
                    .push(event, &op["args"], &now)
                    .map_err(|e| format!("unexpected error: {e}"))?;
                out.extend(sent.iter().map(|b| b.to_value()));
            } else if op["call"] == "reset" {
                encoder.reset(None);
            } else if op["call"] == "onAgentStatusChanged" {
                let a = &op["args"];
                let b = encoder.set_status(
                    a["status"].as_str().unwrap_or(""),
                    a["error"].as_str(),
                    a["lastResponse"].as_str(),
                    &now,
                );
                out.push(b.map_err(|e| e.to_string())?.to_value());
            } else {
                return Err(format!("unknown op {op}"));
            }
        }
        Ok(Value::Array(out))
    };
    let expected = &case["expected"];
    let both = |input: &Value, what: &str| -> Result<(), String> {
        let compat = run(
            input,
            BroadcastConfig {
                compat: Some(offset),
                ..base
            },
        )?;
        matches(expected, &compat).map_err(|e| format!("{what}compat mode: {e}"))?;
        let fixed = run(input, base)?;
        let intervals = step_intervals(input, &now)?;
        matches(
            &fixed_expectation(expected, case, &format_utc_millis(&now), &intervals)?,
            &fixed,
        )
        .map_err(|e| format!("{what}fixed mode: {e}"))
    };
    let outcome = both(input, "").and_then(|()| {
        let earlier = started_earlier(input, chrono::Duration::minutes(2))?;
        both(&earlier, "steps started 2 min earlier, ")
    });
    Some(outcome)
}

/// The real interval, in ms, of each `AgentStepCompleted` op whose duration
/// the adapter computes (from `startedAt` to now), in op order; `None` for an
/// op that gives its own `durationMs`. Computed here from the op, not by the
/// encoder under test.
fn step_intervals(input: &Value, now: &Timestamp) -> Result<Vec<Option<f64>>, String> {
    let ops = input["ops"].as_array().into_iter().flatten();
    ops.filter(|op| op["event"] == "AgentStepCompleted")
        .map(|op| {
            if op["args"].get("durationMs").is_some_and(|d| !d.is_null()) {
                return Ok(None);
            }
            let Some(started) = op["args"]["startedAt"].as_str() else {
                return Ok(None);
            };
            let started = chrono::DateTime::parse_from_rfc3339(started)
                .map_err(|e| format!("startedAt {started:?}: {e}"))?;
            let micros = (*now - started)
                .num_microseconds()
                .ok_or("interval out of range")?;
            Ok(Some(micros as f64 / 1000.0))
        })
        .collect()
}

/// `input` with every step's `startedAt` moved back by `by`.
fn started_earlier(input: &Value, by: chrono::Duration) -> Result<Value, String> {
    let mut out = input.clone();
    let ops = out.get_mut("ops").and_then(Value::as_array_mut);
    for op in ops.into_iter().flatten() {
        if op["event"] != "AgentStepCompleted" {
            continue;
        }
        if let Some(slot) = op.pointer_mut("/args/startedAt") {
            if let Some(s) = slot.as_str() {
                let t = chrono::DateTime::parse_from_rfc3339(s)
                    .map_err(|e| format!("startedAt {s:?}: {e}"))?;
                *slot = Value::from((t - by).to_rfc3339());
            }
        }
    }
    Ok(out)
}

/// The reference's envelopes with the fixes: timestamps in true UTC, cuts
/// that split a character moved back to the character boundary, and each
/// step's `duration_ms` the real interval (fix 4; the adapter emits one
/// `agent.step.completed` per `AgentStepCompleted` op, in order).
fn fixed_expectation(
    expected: &Value,
    case: &Value,
    utc: &str,
    intervals: &[Option<f64>],
) -> Result<Value, String> {
    let mut fixed = expected.clone();
    let completed: Vec<&mut Value> = fixed
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter(|item| item.pointer("/envelope/type") == Some(&Value::from("agent.step.completed")))
        .collect();
    if completed.len() != intervals.len() {
        return Err(format!(
            "{} step completions expected for {} AgentStepCompleted ops",
            completed.len(),
            intervals.len()
        ));
    }
    for (item, interval) in completed.into_iter().zip(intervals) {
        if let (Some(ms), Some(slot)) =
            (interval, item.pointer_mut("/envelope/payload/duration_ms"))
        {
            *slot = Value::from(*ms);
        }
    }
    for item in fixed.as_array_mut().into_iter().flatten() {
        if let Some(t) = item.pointer_mut("/envelope/timestamp") {
            *t = Value::from(utc);
        }
    }
    for entry in case["invalid_utf8"].as_array().into_iter().flatten() {
        let (Some(path), Some(hex)) = (entry["path"].as_str(), entry["hex"].as_str()) else {
            continue;
        };
        if let Some(slot) = fixed.pointer_mut(&crate::slim::pointer(path)) {
            *slot = Value::String(crate::slim::cut_at_boundary(&crate::slim::decode_hex(hex)));
        }
    }
    Ok(fixed)
}
