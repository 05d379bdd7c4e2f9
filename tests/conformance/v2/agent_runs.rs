//! v2.7 agent-runs.json: whole runs of the v2 loop. For each run, every turn:
//! 1. the encoder in the v2 dialect, fed the turn's recorded events, sends the
//!    recorded envelopes (see [`encoder_args`] for what each event gives it);
//! 2. every envelope decodes with no error and no warning;
//! 3. a `Session` fed the whole run (one JSONL batch) shows one execution per
//!    turn with the view the run implies: its status (a closing `stopped`
//!    after `completed`/`failed` set aside and named), the error message of
//!    the failure event, the steps the state recorded (a failed attempt and a
//!    step a guard stopped before it ran are not counted), the tool runs of
//!    the tool events, the streamed text = the text deltas of the events (and
//!    ending in the final response), the raw provider frames counted;
//! 4. `parseAgentState(finalState)` reads it as v2 with the recorded `derived`.

use stepline::envelope::config::Dialect;
use stepline::envelope::decode::decode_value;
use stepline::envelope::{BroadcastConfig, Encoder};
use stepline::json::{self, Value};
use stepline::model::time::Timestamp;
use stepline::session::Session;

use crate::compare::matches;

pub fn check(_name: &str, case: &Value) -> Option<Result<(), String>> {
    let input = &case["input"];
    let now: Timestamp = chrono::DateTime::parse_from_rfc3339(input["now"].as_str()?).ok()?;
    let turns = case["expected"].as_array()?;
    let config = config(&input["broadcastConfig"])?;
    Some((|| {
        encodes(input, turns, config, &now)?;
        let mut jsonl = String::new();
        for (t, turn) in turns.iter().enumerate() {
            for (i, b) in envelopes(turn).iter().enumerate() {
                let d = decode_value(b).map_err(|e| format!("turn {t} envelope {i}: {e}"))?;
                if !d.warnings.is_empty() {
                    return Err(format!("turn {t} envelope {i}: {:?}", d.warnings));
                }
                jsonl.push_str(&json::to_string(&later(b, t)));
                jsonl.push('\n');
            }
            derived(turn, &now).map_err(|e| format!("turn {t}: {e}"))?;
        }
        let mut session = Session::new(None);
        let out = session.ingest_jsonl(&jsonl);
        if out.errors.count > 0 || out.duplicates > 0 {
            return Err(format!("ingest: {}", stepline::json::to_text(&out.view())));
        }
        let view = session.view();
        let execs = view["executions"].as_array().cloned().unwrap_or_default();
        let broadcasting: Vec<&Value> = turns.iter().filter(|t| !envelopes(t).is_empty()).collect();
        if execs.len() != broadcasting.len() {
            return Err(format!(
                "{} executions for {} turns",
                execs.len(),
                broadcasting.len()
            ));
        }
        for (t, (turn, exec)) in broadcasting.iter().zip(&execs).enumerate() {
            viewed(turn, exec).map_err(|e| format!("turn {t} view: {e}"))?;
        }
        Ok(())
    })())
}

fn config(v: &Value) -> Option<BroadcastConfig> {
    let base = match v.as_str()? {
        "minimal" => BroadcastConfig::minimal(),
        "standard" => BroadcastConfig::standard(),
        "debug" => BroadcastConfig::debug(),
        // The corpus's custom config: `standard` with `autoStatusTracking: false`.
        "no-auto-status" => BroadcastConfig {
            auto_status_tracking: false,
            ..BroadcastConfig::standard()
        },
        _ => return None,
    };
    // `compat`: these are the producer's own runs, recorded without the seed
    // adapter's fields stepline adds by default (step_count, tool_call_id,
    // result_summary); their clock is UTC, so compat's local-time-with-`Z`
    // timestamps are the true ones.
    Some(BroadcastConfig {
        dialect: Dialect::V2,
        compat: chrono::FixedOffset::east_opt(0),
        ..base
    })
}

fn envelopes(turn: &Value) -> Vec<Value> {
    turn["envelopes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| b["envelope"].clone())
        .collect()
}

/// The envelope sent `ms` milliseconds after its recorded time. Under the
/// corpus's frozen clock a later turn can repeat an earlier turn's opening
/// status byte for byte (`processing` after `stopped`, or after `idle`
/// following `reset()`), which no reader can tell from a redelivery; a
/// real clock separates them, so the session is fed turn `t` `t` ms later.
fn later(env: &Value, ms: usize) -> Value {
    let mut env = env.clone();
    if let Some(Value::String(ts)) = env.get_mut("timestamp") {
        if let Some(millis) = ts.get(20..23).and_then(|m| m.parse::<usize>().ok()) {
            *ts = format!("{}{:03}{}", &ts[..20], (millis + ms) % 1000, &ts[23..]);
        }
    }
    env
}

/// Feeds each turn's events to the encoder and compares what it sends. The
/// wiretapped broadcaster lives across turns (`resetBroadcaster` resets it);
/// the `UseAgentBroadcasting` observer keys one per execution and listens
/// to neither `AgentExecutionStopped` nor `StreamEventParsed` (README item 16).
fn encodes(
    input: &Value,
    turns: &[Value],
    config: BroadcastConfig,
    now: &Timestamp,
) -> Result<(), String> {
    let observer = input["broadcastVia"] == "capability";
    let session = input["sessionId"].as_str().unwrap_or("");
    // The observer's execution id is the execution's uuid, which the
    // vectors record as `<uuid>` (any uuid matches it).
    let execution = input["executionId"]
        .as_str()
        .unwrap_or("c1000000-0000-4000-8000-000000000001");
    let mut encoder = Encoder::new(session, execution, config);
    let script = input["turns"].as_array().cloned().unwrap_or_default();
    for (t, turn) in turns.iter().enumerate() {
        if observer {
            encoder = Encoder::new(session, execution, config);
        } else if script.get(t).is_some_and(|s| s["resetBroadcaster"] == true) {
            encoder.reset(None);
        }
        let mut sent = Vec::new();
        let mut failed = false;
        let mut tool_calls = false;
        for e in turn["events"].as_array().into_iter().flatten() {
            let name = e["event"].as_str().unwrap_or("");
            if observer && matches!(name, "AgentExecutionStopped" | "StreamEventParsed") {
                continue;
            }
            failed |= name == "AgentExecutionFailed";
            if name == "AgentStepCompleted" {
                tool_calls = e["data"]["hasToolCalls"] == true;
            }
            let Some(args) = encoder_args(e, failed, tool_calls) else {
                continue;
            };
            let out = encoder
                .push(name, &args, now)
                .map_err(|err| format!("turn {t}: {name}: {err}"))?;
            sent.extend(out.iter().map(|b| b.to_value()));
        }
        matches(&turn["envelopes"], &Value::Array(sent))
            .map_err(|e| format!("turn {t} encoded: {e}"))?;
    }
    Ok(())
}

/// The encoder's arguments for a recorded event (`None`: an event the
/// broadcaster does not listen to). Every value comes from the event's own
/// data but one: `ContinuationEvaluated` carries `explain()` of the execution
/// state, not the state, so the state the encoder reads is rebuilt from that
/// text (its stop signals with their reason and message, the requested flag),
/// `resolvedBy` (the signals' source), whether the turn's execution failed
/// before (`AgentExecutionFailed`, status `failed`), and whether the step just
/// completed requested tool calls (`AgentStepCompleted.hasToolCalls`).
fn encoder_args(e: &Value, failed: bool, tool_calls: bool) -> Option<Value> {
    let d = &e["data"];
    Some(match e["event"].as_str()? {
        "AgentStepStarted" => stepline::json!({
            "stepNumber": d["step"].clone(), "messageCount": d["messages"].clone(), "availableTools": d["tools"].clone()
        }),
        "ToolCallStarted" => {
            stepline::json!({"tool": d["tool"].clone(), "args": d["args"].clone()})
        }
        "ToolCallCompleted" => stepline::json!({
            "tool": d["tool"].clone(), "success": d["success"].clone(), "error": d["error"].clone(),
            "startedAt": d["started"].clone(), "completedAt": d["completed"].clone()
        }),
        "AgentStepCompleted" => stepline::json!({
            "stepNumber": d["step"].clone(), "hasToolCalls": d["hasToolCalls"].clone(), "errorCount": d["errors"].clone(),
            "finishReason": d["finishReason"].clone(), "usage": d["usage"].clone(), "durationMs": d["durationMs"].clone()
        }),
        "PartialInferenceDeltaCreated" => d.clone(),
        "StreamEventParsed" => stepline::json!({"content": e["content"].clone()}),
        "AgentExecutionStopped" => {
            stepline::json!({"stopReason": d["stopReason"].clone(), "stopMessage": d["stopMessage"].clone()})
        }
        "AgentExecutionFailed" => stepline::json!({"message": d["error"].clone()}),
        "ContinuationEvaluated" => {
            let (signals, requested) = explained(d["status"].as_str()?, &d["resolvedBy"])?;
            let step = tool_calls.then(|| stepline::json!({
                "id": "d0000000-0000-4000-8000-000000000001", "inputMessages": [], "outputMessages": [],
                "toolExecutions": [], "errors": [],
                "inferenceResponse": {"content": "", "finishReason": "tool_calls",
                    "toolCalls": [{"id": "call_1", "name": "t", "arguments": {}}]}
            }));
            stepline::json!({
                "stepNumber": d["step"].clone(),
                "executionState": {
                    "executionId": "e0000000-0000-4000-8000-000000000001",
                    "status": if failed { "failed" } else { "in_progress" },
                    "startedAt": "2026-08-10T12:00:00+00:00", "stepExecutions": [],
                    "continuation": {"stop_signals": signals, "is_continuation_requested": requested},
                    "currentStep": step.unwrap_or(Value::Null)
                }
            })
        }
        _ => return None,
    })
}

/// `ExecutionContinuation::explain()` read back: `No Stop Signals` or
/// `Stop Signals: reason: message | reason: message`, then `; Continuation
/// Requested: Yes|No`.
fn explained(text: &str, source: &Value) -> Option<(Value, bool)> {
    let (signals, requested) = text.rsplit_once("; Continuation Requested: ")?;
    let list = match signals.strip_prefix("Stop Signals: ") {
        None if signals == "No Stop Signals" => Vec::new(),
        None => return None,
        Some(list) => list
            .split(" | ")
            .map(|s| {
                let (reason, message) = s.split_once(": ").unwrap_or((s, ""));
                stepline::json!({"reason": reason, "message": message, "context": [], "source": source.clone()})
            })
            .collect(),
    };
    Some((Value::Array(list), requested == "Yes"))
}

/// `parseAgentState(finalState)`: read as v2, with the recorded derived values.
fn derived(turn: &Value, now: &Timestamp) -> Result<(), String> {
    let mut n = 0;
    let state = with_uuids(&turn["finalState"], &mut n);
    let read = stepline::state_formats::read(&state, now, true);
    match read
        .as_ref()
        .map(|s| s.downcast_ref::<stepline::model::v2::AgentState>())
    {
        Ok(Some(state)) => {
            let v = stepline::model::v2::view::view(state, now);
            // Each recorded value under its name (the view derives a few more).
            let want = turn["derived"].as_object().ok_or("no derived values")?;
            for (k, expected) in want.iter() {
                matches(expected, &v["derived"][k.as_ref()])
                    .map_err(|e| format!("derived {k}: {e}"))?;
            }
            Ok(())
        }
        Ok(_) => Err("finalState read as another version".into()),
        Err(e) => Err(format!("finalState: {e}")),
    }
}

/// The state with each `<uuid>` the vectors put for a generated id replaced
/// by a distinct valid one (v2 refuses ids that are not uuids).
fn with_uuids(v: &Value, n: &mut u32) -> Value {
    match v {
        Value::String(s) if s.contains("<uuid>") => {
            *n += 1;
            Value::from(s.replace("<uuid>", &format!("c2000000-0000-4000-8000-{:012}", n)))
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| with_uuids(x, n)).collect()),
        Value::Object(m) => {
            let mut out = m.clone();
            for (_, x) in out.iter_mut() {
                *x = with_uuids(x, n);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// The view of one turn's execution against what the turn implies.
fn viewed(turn: &Value, exec: &Value) -> Result<(), String> {
    let envs = envelopes(turn);
    let events: Vec<&Value> = turn["events"].as_array().into_iter().flatten().collect();
    let named = |n: &'static str| events.iter().filter(move |e| e["event"] == n);
    // Status: the last status broadcast, unless it is the closing `stopped`
    // after `completed`/`failed` (README item 6), which the view names apart.
    let last = envs.iter().rev().find(|e| e["type"] == "agent.status");
    let (status, from) = last.map_or((Value::Null, Value::Null), |e| {
        (
            e["payload"]["status"].clone(),
            e["payload"]["previous_status"].clone(),
        )
    });
    let closing = status == "stopped" && (from == "completed" || from == "failed");
    let want = if closing {
        from.clone()
    } else {
        status.clone()
    };
    if exec["status"] != want {
        return Err(format!(
            "status {} (broadcast ended {from} -> {status})",
            exec["status"]
        ));
    }
    let want_closing = if closing { status } else { Value::Null };
    if exec["closing_status"] != want_closing {
        return Err(format!("closing_status {}", exec["closing_status"]));
    }
    if let Some(f) = named("AgentExecutionFailed").next() {
        if exec["error_message"] != f["data"]["error"] {
            return Err(format!("error_message {}", exec["error_message"]));
        }
    }
    // Steps: completed, not failed attempts = the state's steps; a started
    // step without completion is the one a guard stopped before it ran.
    let steps = exec["steps"].as_array().cloned().unwrap_or_default();
    let recorded = steps
        .iter()
        .filter(|s| s["seen"]["completed"] == true && s["attempt_failed"] == false)
        .count();
    if turn["derived"]["stepCount"] != recorded {
        return Err(format!(
            "{recorded} steps, the state has {}",
            turn["derived"]["stepCount"]
        ));
    }
    for s in &steps {
        if s["seen"]["completed"] == false && exec["never_ran_step"] != s["number"] {
            return Err(format!(
                "step {} started, never completed, not named as never run",
                s["number"]
            ));
        }
    }
    // Tool runs: one per ToolCallStarted, in order, with its outcome.
    let tools: Vec<(Value, Value)> = steps
        .iter()
        .flat_map(|s| s["tools"].as_array().cloned().unwrap_or_default())
        .map(|t| (t["name"].clone(), t["status"].clone()))
        .collect();
    let completed: Vec<&Value> = named("ToolCallCompleted").copied().collect();
    let want: Vec<(Value, Value)> = named("ToolCallStarted")
        .map(|e| {
            let done = completed
                .iter()
                .find(|c| c["data"]["toolCallId"] == e["data"]["toolCallId"]);
            let status = match done.map(|c| c["data"]["success"] == true) {
                None => "running",
                Some(true) => "succeeded",
                Some(false) => "failed",
            };
            (e["data"]["tool"].clone(), Value::from(status))
        })
        .collect();
    if tools != want {
        return Err(format!("tool runs {tools:?}, the events say {want:?}"));
    }
    // Streamed text: the text deltas, nothing of the raw frames.
    let chunks = envs
        .iter()
        .filter(|e| e["type"] == "agent.stream.chunk")
        .count();
    if chunks > 0 {
        let deltas: String = named("PartialInferenceDeltaCreated")
            .filter_map(|e| e["data"]["contentDelta"].as_str())
            .collect();
        if exec["text"] != deltas.as_str() {
            return Err(format!("text {} , the deltas say {deltas:?}", exec["text"]));
        }
        let answer = turn["derived"]["finalResponse"]
            .as_str()
            .unwrap_or("")
            .trim_end_matches('\n');
        if !deltas.ends_with(answer) {
            return Err(format!(
                "text {deltas:?} does not end in the answer {answer:?}"
            ));
        }
        let frames = envs
            .iter()
            .filter(|e| e["type"] == "agent.stream.chunk")
            .filter(|e| {
                e["payload"]["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("{\"id\":\"chatcmpl-"))
            })
            .count();
        if exec["provider_frames"] != frames {
            return Err(format!(
                "provider_frames {}, {frames} sent",
                exec["provider_frames"]
            ));
        }
    }
    // v2 as soon as one envelope is v2's own (a four-key status, a
    // `should_stop` continuation); else the shapes both versions send.
    let own = envs.iter().any(|e| {
        let p = &e["payload"];
        p.get("should_stop").is_some() || p.get("error_message").is_some()
    });
    let dialect = if own { "v2" } else { "instructor" };
    if exec["dialect"] != dialect {
        return Err(format!("dialect {}, expected {dialect}", exec["dialect"]));
    }
    Ok(())
}
