//! A slim snapshot (v1.22's, or v2's) read into the neutral final run the
//! foreign forms are read into too (`dialects/final_form.rs`): one turn
//! whose steps are the snapshot's listed steps, with what the state records
//! of them and of the run beside. Unreadable parts read as absent.
//!
//! What only one state version keeps (v1.22's `last_continuation`, v2's
//! stop signal and run duration) is read by that version's hook in
//! `session/reconcile/formats.rs`.

use crate::json::{child, index, Map, Value};

use crate::dialects::final_form::{FinalStep, FinalTool, FinalTurn, RunRecord, StepRecord};

/// The turn a slim snapshot records: its listed steps (the run's last ones,
/// see [`Window`](crate::session::window::Window)) at `/steps/<i>`.
pub(crate) fn read_slim(snap: &Map) -> FinalTurn {
    let listed = snap
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let messages = snap
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice);
    let role = |m: &Value, r: &str| m.get("role").and_then(Value::as_str) == Some(r);
    let text = |m: &Value| m.get("content").and_then(Value::as_str).map(String::from);
    let last = |r: &str| messages.and_then(|ms| ms.iter().rev().find(|m| role(m, r)));
    FinalTurn {
        steps: listed
            .iter()
            .enumerate()
            .map(|(i, st)| step(st, index("/steps", i)))
            .collect(),
        steps_known: true,
        record: Some(RunRecord {
            status: snap.get("status").and_then(Value::as_str).map(String::from),
            last_text: messages.and_then(|ms| {
                ms.iter()
                    .enumerate()
                    .rev()
                    .find_map(|(i, m)| Some((i, text(m).filter(|_| role(m, "assistant"))?)))
            }),
            answer: last("assistant").and_then(text).filter(|c| !c.is_empty()),
            user_message: last("user").and_then(text),
        }),
        ..FinalTurn::default()
    }
}

fn step(st: &Value, path: String) -> FinalStep {
    let field = |k: &str| st.get(k).cloned();
    let calls = st.get("tool_calls").and_then(Value::as_array);
    let calls_path = child(&path, "tool_calls");
    FinalStep {
        tools: calls
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(j, call)| {
                let id = call.get("id").and_then(Value::as_str);
                FinalTool {
                    call_id: id.unwrap_or_default().to_string(),
                    id_missing: id.is_none(),
                    name: call
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    args: call.get("args").filter(|v| !v.is_null()).cloned(),
                    path: index(&calls_path, j),
                    kept: Some(call.clone()),
                    ..FinalTool::default()
                }
            })
            .collect(),
        record: Some(StepRecord {
            has_tool_calls: field("has_tool_calls"),
            finish_reason: field("finish_reason"),
            errors: field("errors"),
            step_type: field("type"),
            usage_total: st.get("usage").and_then(|u| u.get("total")).cloned(),
            duration_ms: field("duration_ms"),
            lists_calls: calls.is_some(),
        }),
        ..FinalStep::at(path)
    }
}
