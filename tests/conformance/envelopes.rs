//! envelopes.json: the broadcast adapter, every config, checked twice: in
//! `compat` mode against the reference's envelopes as recorded, and with the
//! fixes (true UTC timestamps; truncation at character boundaries; step
//! durations as the real interval) against the expectation adjusted
//! accordingly.
//!
//! Each case runs a second time with every step started two minutes earlier,
//! where the reference's duration and the real one part: the reference keeps
//! only its interval's seconds and fraction and drops the sign (v1.22 quirk
//! 4), so its expectation for the moved steps is that rule applied to the
//! moved interval (the recorded value when the step started under a minute
//! before now, not when it started after now), while the fixed expectation is
//! the interval itself. Both are computed here from the ops, not by the
//! encoder under test.

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
    let run = |input: &Value, config: BroadcastConfig| -> Result<(Value, Vec<usize>), String> {
        let mut encoder = Encoder::new(
            input["sessionId"].as_str().unwrap_or(""),
            input["executionId"].as_str().unwrap_or(""),
            config,
        );
        let mut out = Vec::new();
        // Which op each envelope came from (for the seed's step_count below).
        let mut from = Vec::new();
        for (i, op) in input["ops"].as_array().into_iter().flatten().enumerate() {
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
            from.resize(out.len(), i);
        }
        Ok((Value::Array(out), from))
    };
    let expected = &case["expected"];
    let both = |input: &Value, what: &str| -> Result<(), String> {
        let (compat, _) = run(
            input,
            BroadcastConfig {
                compat: Some(offset),
                ..base
            },
        )?;
        let reference = step_intervals(input, &now)?
            .into_iter()
            .map(|ms| ms.map(reference_step_duration))
            .collect::<Vec<_>>();
        let compat_expected = with_step_durations(expected.clone(), &reference)?;
        if what.is_empty() {
            // The rule must reproduce what the reference recorded, or the
            // moved expectation below would be made up.
            matches(expected, &compat_expected)
                .map_err(|e| format!("the duration rule disagrees with the recording: {e}"))?;
        }
        matches(&compat_expected, &compat).map_err(|e| format!("{what}compat mode: {e}"))?;
        let (fixed, from) = run(input, base)?;
        let intervals = step_intervals(input, &now)?;
        let seed = seed_fields(
            fixed_expectation(expected, case, &format_utc_millis(&now), &intervals)?,
            input,
            &from,
        )?;
        matches(&seed, &fixed).map_err(|e| format!("{what}fixed mode: {e}"))
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

/// The reference's step duration for a real interval of `ms`: its
/// `DateInterval`'s seconds and fraction fields only, so whole minutes and the
/// sign are dropped (v1.22 quirk 4; `AgentStepCompleted::calculateDurationMs`
/// in both producers, v2.7 item 12).
fn reference_step_duration(ms: f64) -> f64 {
    let micros = (ms.abs() * 1000.0).round() as i64;
    ((micros / 1_000_000) % 60) as f64 * 1000.0 + (micros % 1_000_000) as f64 / 1000.0
}

/// `expected` with each `agent.step.completed`'s `duration_ms` replaced by
/// the matching entry of `durations` (one per `AgentStepCompleted` op, in
/// order; `None` keeps the recorded value).
fn with_step_durations(mut expected: Value, durations: &[Option<f64>]) -> Result<Value, String> {
    let completed: Vec<&mut Value> = expected
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter(|item| item.pointer("/envelope/type") == Some(&Value::from("agent.step.completed")))
        .collect();
    if completed.len() != durations.len() {
        return Err(format!(
            "{} step completions expected for {} AgentStepCompleted ops",
            completed.len(),
            durations.len()
        ));
    }
    for (item, duration) in completed.into_iter().zip(durations) {
        if let (Some(ms), Some(slot)) =
            (duration, item.pointer_mut("/envelope/payload/duration_ms"))
        {
            *slot = Value::from(*ms);
        }
    }
    Ok(expected)
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
    let mut fixed = with_step_durations(expected.clone(), intervals)?;
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

/// The reference's envelopes with the seed adapter's fields that stepline
/// writes unless `compat` (docs/seeds/000-slim-serialization-and-adapter.md,
/// §Event Types and Payloads and `ReverbAgentEventAdapter`), each derived
/// here from the ops and the recorded envelopes, not by the encoder:
/// - `agent.status` carries `step_count`, the highest `stepNumber` of the
///   ops of its execution up to the one that sent it (`from[i]` is the op of
///   envelope `i`, only used to place it);
/// - tool envelopes carry the op's `toolCallId` and the seed's
///   `summarizeResult` of its `result`;
/// - with `includeContinuationTrace`, a step's completion carries the
///   decision of the recorded `agent.continuation` for the same step before
///   it (`should_continue`, v2's `!should_stop`; `stop_reason`; `resolved_by`).
fn seed_fields(mut expected: Value, input: &Value, from: &[usize]) -> Result<Value, String> {
    let ops: Vec<&Value> = input["ops"].as_array().into_iter().flatten().collect();
    let mut steps_upto = Vec::with_capacity(ops.len());
    let mut steps = 0u64;
    for op in &ops {
        if op["call"] == "reset" {
            steps = 0;
        }
        if let Some(n) = op["args"]["stepNumber"].as_u64() {
            steps = steps.max(n);
        }
        steps_upto.push(steps);
    }
    let mut tool_ops = ops.iter().filter(|op| {
        matches!(
            op["event"].as_str(),
            Some("ToolCallStarted" | "ToolCallCompleted")
        )
    });
    let trace_on = input["config"]["includeContinuationTrace"] == Value::Bool(true);
    let mut decision: Option<(Value, Value)> = None;
    let list = expected.as_array_mut().ok_or("expected is not a list")?;
    if list.len() != from.len() {
        // The match below reports the difference.
        return Ok(expected);
    }
    for (i, item) in list.iter_mut().enumerate() {
        let kind = item["envelope"]["type"].as_str().unwrap_or("").to_string();
        let Some(p) = item
            .pointer_mut("/envelope/payload")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        match kind.as_str() {
            "agent.status" => {
                p.insert("step_count", Value::from(steps_upto[from[i]]));
            }
            "agent.tool.started" | "agent.tool.completed" => {
                let op = tool_ops.next().ok_or("more tool envelopes than tool ops")?;
                if let Some(Value::String(id)) = op["args"].get("toolCallId") {
                    p.insert("tool_call_id", Value::from(id.as_str()));
                }
                if kind == "agent.tool.completed" {
                    let summary = match op["args"].get("result") {
                        None | Some(Value::Null) => Value::Null,
                        Some(Value::String(s)) => Value::from(seed_cut(s)),
                        Some(other) => Value::from(seed_cut(&stepline::php::json_encode(other))),
                    };
                    p.insert("result_summary", summary);
                }
            }
            "agent.continuation" => {
                let should_continue = match p.get("should_stop").and_then(Value::as_bool) {
                    Some(stop) => !stop,
                    None => p["should_continue"].as_bool().unwrap_or(false),
                };
                decision = Some((
                    p["step_number"].clone(),
                    stepline::json!({
                        "should_continue": should_continue,
                        "stop_reason": p["stop_reason"].clone(),
                        "resolved_by": p["resolved_by"].clone(),
                    }),
                ));
            }
            "agent.step.completed" if trace_on => {
                if let Some((_, d)) = decision.as_ref().filter(|(n, _)| *n == p["step_number"]) {
                    p.insert("continuation", d.clone());
                }
            }
            _ => {}
        }
    }
    Ok(expected)
}

/// The seed's cut: over 100 bytes, 97 of them (back to a character boundary) and `...`.
fn seed_cut(s: &str) -> String {
    if s.len() <= 100 {
        return s.to_string();
    }
    let end = (0..=97).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
    format!("{}...", &s[..end])
}
