//! A decoded envelope as the session's [`Event`]: the one place that reads
//! instructor-php's normalised payload fields (and the seed-003 objects in
//! them) for the view. What the view keeps is moved out of the payload, not
//! copied.
//!
//! ```
//! use stepline::envelope::event::to_event;
//! use stepline::event::Body;
//! let payload = stepline::json::from_str(r#"{"step_number": 3, "content": "Hi", "chunk_index": 0}"#).unwrap();
//! let e = to_event("agent.stream.chunk", None, payload.as_object().unwrap().clone());
//! assert_eq!(e.step, Some(3));
//! assert!(matches!(e.body, Body::StreamChunk(ref c) if c.content == "Hi" && c.index == Some(0)));
//! ```

use crate::event::{
    Body, Chunk, Data, Event, ReportedUsage, Status, StepCompleted, StepFailed, StepObject,
    StepStarted, ToolEvent, ToolKind,
};
use crate::json::{Map, Value};
use crate::model::annotations::Annotations;
use crate::model::usage::Usage;

/// The payload member under which a translated `agent.data` envelope carries
/// a patch to the value held under its name instead of the whole value. The
/// session adds it after decoding (an envelope on the wire cannot carry it:
/// the decoder keeps unknown payload fields under `extra`), and applies it in
/// place (src/session/data.rs).
pub(crate) const DATA_PATCH: &str = "patch";

/// The event an envelope of type `kind` sent at `timestamp` with `payload`
/// (as the decoder normalised it) is.
pub fn to_event(kind: &str, timestamp: Option<&str>, mut payload: Map) -> Event {
    let p = &mut payload;
    let step = own_step(p);
    let body = match kind {
        "agent.status" => Body::Status(Status {
            error_message: p.get("error_message").and_then(as_string),
            last_response: p.get("last_response").and_then(as_string),
            step_count: p.get("step_count").and_then(Value::as_i64),
            status: str_of(p, "status"),
            previous: str_of(p, "previous_status"),
        }),
        "agent.step.started" | "agent.llm.started" => Body::StepStarted(StepStarted {
            step_id: str_of(p, "step_id"),
            message_count: int_of(p, "message_count"),
            available_tools: int_of(p, "available_tools"),
        }),
        "agent.step.completed" | "agent.llm.completed" => {
            Body::StepCompleted(Box::new(step_completed(kind == "agent.llm.completed", p)))
        }
        "agent.step.failed" | "agent.run.failed" => Body::StepFailed(Box::new(StepFailed {
            run: kind == "agent.run.failed",
            error: str_of(p, "error"),
            reason: str_of(p, "reason"),
            step_object: step_object(p),
        })),
        "agent.run.completed" => Body::RunCompleted {
            final_answer: str_of(p, "final_answer"),
            reason: str_of(p, "reason"),
        },
        "agent.run.interrupted" => Body::RunInterrupted {
            reason: str_of(p, "reason"),
        },
        "agent.data" => data(p),
        "agent.llm.reasoning.delta" => {
            Body::ReasoningDelta(str_of(p, "text_delta").unwrap_or_default())
        }
        "agent.llm.output_text.delta" => {
            Body::TextDelta(str_of(p, "text_delta").unwrap_or_default())
        }
        "agent.continuation" => {
            let mut c = Map::new();
            for k in [
                "should_continue",
                "stop_reason",
                "resolved_by",
                "evaluations",
            ] {
                c.insert(k, p.remove(k).unwrap_or(Value::Null));
            }
            Body::Continuation(Value::Object(c))
        }
        "agent.tool.started" => tool(ToolKind::Started, p),
        "agent.tool.completed" => tool(ToolKind::Completed, p),
        "agent.tool.failed" => tool(ToolKind::Failed, p),
        "agent.tool.approval" => tool(ToolKind::Approval, p),
        "agent.tool.output" => tool(ToolKind::Output, p),
        "agent.stream.chunk" => {
            let provider_frame = p.contains_key("provider_frame");
            Body::StreamChunk(Chunk {
                index: int_of(p, "chunk_index"),
                content: match provider_frame {
                    true => String::new(),
                    false => str_of(p, "content").unwrap_or_default(),
                },
                provider_frame,
                is_complete: p.get("is_complete").and_then(Value::as_bool) == Some(true),
            })
        }
        _ => Body::Other,
    };
    // A tool event's annotations stay in the log: its run keeps none.
    let annotations = match body.is_tool() {
        true => Vec::new(),
        false => annotations(p),
    };
    Event {
        step,
        timestamp: timestamp.map(str::to_string),
        annotations,
        body,
    }
}

/// The step number a payload carries itself: `step_index`, else
/// `step_number` (a `step_index` that is not a number hides `step_number`).
pub fn own_step(p: &Map) -> Option<i64> {
    p.get("step_index")
        .or_else(|| p.get("step_number"))
        .and_then(Value::as_i64)
}

fn step_completed(llm: bool, p: &mut Map) -> StepCompleted {
    StepCompleted {
        llm,
        attempt_failed: !llm && p.contains_key("recorded_steps"),
        step_id: str_of(p, "step_id"),
        has_tool_calls: p.get("has_tool_calls").and_then(Value::as_bool),
        errors: int_of(p, "errors"),
        finish_reason: str_of(p, "finish_reason"),
        usage: p.get("usage").and_then(reported_usage),
        duration_ms: p.remove("duration_ms").filter(|v| !v.is_null()),
        continuation: p.remove("continuation").filter(Value::is_object),
        step_object: step_object(p),
    }
}

/// A seed-003 `step` object: `{llm_response: {text, usage, finish_reason, tool_calls}, tool_results}`.
fn step_object(p: &mut Map) -> Option<StepObject> {
    let s = p.get_mut("step").and_then(Value::as_object_mut)?;
    let mut o = StepObject {
        step_id: str_of(s, "step_id"),
        timestamp: str_of(s, "timestamp"),
        ..StepObject::default()
    };
    if let Some(r) = s.get_mut("llm_response").and_then(Value::as_object_mut) {
        o.finish_reason = str_of(r, "finish_reason");
        o.usage = r.get("usage").and_then(reported_usage);
        o.has_tool_calls = r
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| !calls.is_empty());
        o.text = str_of(r, "text");
    }
    Some(o)
}

fn data(p: &mut Map) -> Body {
    let Some(name) = str_of(p, "name") else {
        return Body::Other;
    };
    // Only the foreign dialects' translators (full package) send patches.
    #[cfg(feature = "full")]
    if let Some(patch) = p.remove(DATA_PATCH) {
        return Body::Data(Data::Patch { name, patch });
    }
    let value = p.remove("data").unwrap_or(Value::Null);
    Body::Data(Data::Put { name, value })
}

fn tool(kind: ToolKind, p: &mut Map) -> Body {
    let mut call = match p.remove("tool_call") {
        Some(Value::Object(c)) => Some(c),
        _ => None,
    };
    let mut result = match p.remove("tool_result") {
        Some(Value::Object(r)) => Some(r),
        _ => None,
    };
    let name = str_of(p, "tool_name")
        .or_else(|| call.as_mut().and_then(|c| str_of(c, "name")))
        .unwrap_or_default();
    let call_id = str_of(p, "tool_call_id").or_else(|| call.as_mut().and_then(|c| str_of(c, "id")));
    let mut e = ToolEvent::new(kind, "");
    e.name = name;
    e.call_id = call_id;
    match kind {
        ToolKind::Started => {
            e.args_summary = str_of(p, "args_summary");
            e.args = p
                .remove("args")
                .filter(|v| !v.is_null())
                .or_else(|| call.as_mut().and_then(|c| c.remove("arguments")));
        }
        ToolKind::Completed | ToolKind::Failed => {
            e.error =
                str_of(p, "error").or_else(|| result.as_mut().and_then(|r| str_of(r, "error")));
            e.success = p.get("success").and_then(Value::as_bool);
            e.duration_ms = p.remove("duration_ms").filter(|v| !v.is_null());
            e.result_summary = str_of(p, "result_summary");
            e.result = p.remove("result").filter(|v| !v.is_null());
            if let Some(r) = result.as_mut() {
                e.result_duration_ms = ["latency_ms", "duration_ms"]
                    .iter()
                    .find_map(|k| r.remove(k).filter(Value::is_number));
                e.result_call_id = r
                    .get_mut("call")
                    .and_then(Value::as_object_mut)
                    .and_then(|c| str_of(c, "id"));
                e.output = str_of(r, "output");
            }
        }
        ToolKind::Approval => e.approval = str_of(p, "approval"),
        ToolKind::Output => e.text_delta = str_of(p, "text_delta"),
    }
    Body::Tool(Box::new(e))
}

/// The annotations of the payload's `step` object, then its own (an empty
/// or unreadable one is none: the decoder refused the unreadable ones).
fn annotations(p: &Map) -> Vec<Annotations> {
    let from_step = p.get("step").and_then(|s| s.get("annotations"));
    [from_step, p.get("annotations")]
        .into_iter()
        .flatten()
        .filter_map(|v| Annotations::from_value(v, "").ok())
        .filter(|a| !a.is_empty())
        .collect()
}

/// The string at `k`, moved out of the payload (each is read once).
fn str_of(m: &mut Map, k: &str) -> Option<String> {
    match m.get_mut(k) {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    }
}

fn as_string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn int_of(m: &Map, k: &str) -> Option<i64> {
    m.get(k).and_then(Value::as_i64)
}

/// Decoded usage is already `{input, output, cacheWrite, cacheRead, reasoning}`;
/// seed-003 objects may carry `{prompt_tokens, completion_tokens}` instead.
/// With the producer's own `total` (`total_tokens`) where it differs from
/// the sum of the fields.
fn reported_usage(v: &Value) -> Option<ReportedUsage> {
    let m = v.as_object()?;
    let int = |k: &str| m.get(k).and_then(Value::as_i64).unwrap_or(0);
    let usage = Usage {
        input: int("input")
            .saturating_add(int("prompt_tokens"))
            .saturating_add(int("prompt")),
        output: int("output")
            .saturating_add(int("completion_tokens"))
            .saturating_add(int("completion")),
        cache_write: int("cacheWrite"),
        cache_read: int("cacheRead"),
        reasoning: int("reasoning"),
    };
    let reported_total = m
        .get("total")
        .or_else(|| m.get("total_tokens"))
        .and_then(Value::as_i64)
        .filter(|&t| t != usage.total());
    Some(ReportedUsage {
        usage,
        reported_total,
    })
}
