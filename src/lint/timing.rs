//! Step timing and durations: steps that end before they start, starts taken
//! from the step object's creation time, and durations that disagree with the
//! timestamps around them.

use crate::json::Value;

use super::{
    instant, items, millis, ms_text, text, Diagnostic, Envelope, Severity, Slots,
    DURATION_INCONSISTENT, STEP_TIMING_FROM_CREATION, STEP_TIMING_INVERTED,
};
use crate::json::{index, obj};

/// Runs the timing detectors: inverted steps (envelopes, then the state's step
/// results, with starts taken from creation time), then durations.
pub(super) fn check(envs: &[Envelope], state: Option<&Value>, out: &mut Vec<Diagnostic>) {
    let pairs = step_pairs(envs);
    inverted_steps(envs, &pairs, out);
    let results = items(state.and_then(|s| s.get("stepResults")));
    for (i, r) in results.iter().enumerate() {
        state_step_result(r, &index("/state/stepResults", i), out);
    }
    durations(envs, &pairs, out);
}

/// `agent.step.completed` stamped before its `agent.step.started`.
fn inverted_steps(envs: &[Envelope], pairs: &[(usize, usize)], out: &mut Vec<Diagnostic>) {
    for &(s, c) in pairs {
        let (Some(started), Some(completed)) = (envs.get(s), envs.get(c)) else {
            continue;
        };
        let (Some(a), Some(b)) = (&started.at, &completed.at) else {
            continue;
        };
        if b >= a {
            continue;
        }
        out.push(Diagnostic {
            code: STEP_TIMING_INVERTED,
            severity: Severity::Error,
            path: completed.path("/timestamp"),
            message: format!(
                "step {} completed {} ms before it started (its agent.step.started is /envelopes/{})",
                started.step_number().unwrap_or_default(),
                ms_text(-millis(a, b)),
                started.index
            ),
            evidence: pair_evidence(started, completed, Vec::new()),
        });
    }
}

/// One state step result: `startedAt <= completedAt`, and the start no later
/// than the step's own tools.
fn state_step_result(r: &Value, path: &str, out: &mut Vec<Diagnostic>) {
    let step = r.get("step");
    let step_id = text(
        step.and_then(|s| s.get("stepInfo"))
            .and_then(|i| i.get("id")),
    );
    let Some(started) = instant(r.get("startedAt")) else {
        return;
    };
    if let Some(completed) = instant(r.get("completedAt")) {
        if completed < started {
            out.push(Diagnostic {
                code: STEP_TIMING_INVERTED,
                severity: Severity::Error,
                path: format!("{path}/completedAt"),
                message: format!(
                    "the step result completes {} ms before it starts",
                    ms_text(millis(&completed, &started))
                ),
                evidence: obj([
                    ("step_id", step_id.clone()),
                    ("started_at", text(r.get("startedAt"))),
                    ("completed_at", text(r.get("completedAt"))),
                ]),
            });
        }
    }
    // Tool times may be whole seconds (DATE_ATOM): a start at least a second after
    // one is after the tool's real start whatever fraction was dropped.
    let executions = items(step.and_then(|s| s.get("toolExecutions")));
    let earliest = executions
        .iter()
        .filter_map(|e| Some((instant(e.get("startedAt"))?, e)))
        .min_by_key(|(t, _)| *t);
    if let Some((tool_start, execution)) = earliest {
        if millis(&tool_start, &started) >= 1000.0 {
            let call_id = execution.get("toolCall").and_then(|c| c.get("id"));
            out.push(Diagnostic {
                code: STEP_TIMING_FROM_CREATION,
                severity: Severity::Error,
                path: format!("{path}/startedAt"),
                message: format!(
                    "the step starts {} ms after one of its own tools started: its start is \
                     the step object's creation time, not when the loop began the step",
                    ms_text(millis(&tool_start, &started))
                ),
                evidence: obj([
                    ("step_id", step_id),
                    ("started_at", text(r.get("startedAt"))),
                    ("tool_started_at", text(execution.get("startedAt"))),
                    ("tool_call_id", text(call_id)),
                    (
                        "step_created_at",
                        text(
                            step.and_then(|s| s.get("stepInfo"))
                                .and_then(|i| i.get("createdAt")),
                        ),
                    ),
                ]),
            });
        }
    }
}

/// Step `duration_ms` against the envelope timestamps, and negative tool durations.
fn durations(envs: &[Envelope], pairs: &[(usize, usize)], out: &mut Vec<Diagnostic>) {
    for &(s, c) in pairs {
        let (Some(started), Some(completed)) = (envs.get(s), envs.get(c)) else {
            continue;
        };
        let Some(reported) = completed.payload.get("duration_ms").and_then(Value::as_f64) else {
            continue;
        };
        let (Some(a), Some(b)) = (&started.at, &completed.at) else {
            continue;
        };
        let real = millis(a, b);
        if real < 0.0 {
            continue; // step_timing_inverted already says so
        }
        let diff = real - reported;
        // Broadcast timestamps are taken a little after the producer's own clock reads.
        if diff.abs() <= 1000.0 + real * 0.01 {
            continue;
        }
        // v1.22 quirk 4: the reference keeps only the seconds field of the interval, so
        // the shortfall is a whole number of minutes and the duration under a minute.
        let minutes = (diff / 60_000.0).round();
        let dropped = minutes >= 1.0
            && (0.0..60_000.0).contains(&reported)
            && (diff - minutes * 60_000.0).abs() <= 1000.0;
        let mut message = format!(
            "step {} reports duration_ms {} but its agent.step.started and agent.step.completed \
             envelopes are {} ms apart",
            started.step_number().unwrap_or_default(),
            ms_text(reported),
            ms_text(real)
        );
        if dropped {
            message.push_str(&format!(
                "; the difference is {} whole minute(s): the producer dropped the minutes and \
                 hours of the interval (reference quirk 4)",
                minutes as i64
            ));
        }
        let cause = if dropped {
            Value::from("reference_minutes_dropped")
        } else {
            Value::Null
        };
        out.push(Diagnostic {
            code: DURATION_INCONSISTENT,
            severity: Severity::Error,
            path: completed.path("/payload/duration_ms"),
            message,
            evidence: pair_evidence(
                started,
                completed,
                vec![
                    ("duration_ms", Value::from(reported)),
                    ("interval_ms", Value::from(real)),
                    ("likely_cause", cause),
                ],
            ),
        });
    }
    for e in envs.iter().filter(|e| e.kind == "agent.tool.completed") {
        let Some(d) = e.payload.get("duration_ms").and_then(Value::as_f64) else {
            continue;
        };
        if d >= 0.0 {
            continue;
        }
        out.push(Diagnostic {
            code: DURATION_INCONSISTENT,
            severity: Severity::Error,
            path: e.path("/payload/duration_ms"),
            message: format!(
                "tool {} reports a negative duration_ms ({}): the producer subtracted whole \
                 seconds and microseconds separately (reference quirk 4)",
                crate::json::quote(
                    e.payload
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                ),
                ms_text(d)
            ),
            evidence: obj([
                ("execution_id", e.execution.map_or(Value::Null, Value::from)),
                ("tool_name", text(e.payload.get("tool_name"))),
                ("tool_call_id", text(e.payload.get("tool_call_id"))),
                ("duration_ms", Value::from(d)),
            ]),
        });
    }
}

fn pair_evidence(started: &Envelope, completed: &Envelope, extra: Vec<(&str, Value)>) -> Value {
    let mut m = match obj([
        (
            "execution_id",
            completed.execution.map_or(Value::Null, Value::from),
        ),
        (
            "step_number",
            completed.step_number().map_or(Value::Null, Value::from),
        ),
        ("started_index", Value::from(started.index)),
        ("completed_index", Value::from(completed.index)),
        ("started_at", started.stamp.map_or(Value::Null, Value::from)),
        (
            "completed_at",
            completed.stamp.map_or(Value::Null, Value::from),
        ),
    ]) {
        Value::Object(m) => m,
        _ => crate::json::Map::new(),
    };
    for (k, v) in extra {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// `agent.step.started`/`agent.step.completed` pairs (positions in `envs`) with the
/// same session, execution and step number. A completion pairs with the latest open start
/// before it (a later turn reusing the execution id starts again at step 1);
/// one that arrived before its start pairs with the earliest start left over.
fn step_pairs(envs: &[Envelope]) -> Vec<(usize, usize)> {
    let mut open: Slots<Vec<usize>> = Slots::new();
    let mut early = Vec::new();
    let mut pairs = Vec::new();
    for (pos, e) in envs.iter().enumerate() {
        let Some(n) = e.step_number() else {
            continue;
        };
        let key = e.run_key(Some(n));
        match e.kind {
            "agent.step.started" => open.get_or_insert_with(key, Vec::new).push(pos),
            "agent.step.completed" => match open.get_mut(&key).and_then(Vec::pop) {
                Some(s) => pairs.push((s, pos)),
                None => early.push((key, pos)),
            },
            _ => {}
        }
    }
    for (key, pos) in early {
        if let Some(starts) = open.get_mut(&key).filter(|s| !s.is_empty()) {
            pairs.push((starts.remove(0), pos));
        }
    }
    pairs
}
