//! The AI SDK's `UIMessage[]` (`ai` 6) as a final form: each assistant
//! message is one run, its `step-start` parts open its steps (the reducer
//! writes one per `start-step` chunk), and a tool part's `state` says how the
//! call ended.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, Map, Value};

use crate::dialects::final_form::{object_at, required_str, FinalStep, FinalTool, FinalTurn};

/// The assistant turns of a `UIMessage[]`.
pub(super) fn turns(messages: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let path = index(prefix, i);
        let m = object_at(m, &path, "a UIMessage")?;
        if required_str(m, "role", &path)? != "assistant" {
            continue;
        }
        let id = required_str(m, "id", &path)?;
        let parts_path = child(&path, "parts");
        let parts = match m.get("parts") {
            Some(Value::Array(p)) => p,
            Some(other) => {
                return Err(crate::model::read::wrong_type(
                    &path, "parts", "an array", other,
                ))
            }
            None => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &parts_path,
                    "expected `parts` on a UIMessage",
                ))
            }
        };
        out.push(FinalTurn {
            id: Some(id.to_string()),
            path: path.clone(),
            steps: steps(parts, &parts_path)?,
            steps_known: true,
            keeps_reasoning: true,
            usage: None,
            usage_path: None,
            status: None,
            record: None,
        });
    }
    Ok(out)
}

fn steps(parts: &[Value], path: &str) -> Result<Vec<FinalStep>> {
    let mut steps = Vec::new();
    let mut current: Option<FinalStep> = None;
    for (j, p) in parts.iter().enumerate() {
        let at = index(path, j);
        let p = object_at(p, &at, "a UIMessage part")?;
        let kind = required_str(p, "type", &at)?;
        match kind {
            "step-start" => {
                steps.extend(current.take());
                current = Some(FinalStep::at(at));
            }
            "text" => {
                let text = required_str(p, "text", &at)?;
                step(&mut current, &at).add_text(text, child(&at, "text"));
            }
            "reasoning" => {
                let text = required_str(p, "text", &at)?;
                step(&mut current, &at).add_reasoning(text, child(&at, "text"));
            }
            "dynamic-tool" => {
                let name = required_str(p, "toolName", &at)?;
                let tool = tool(p, name, &at)?;
                step(&mut current, &at).tools.push(tool);
            }
            // Sources, files, `data-*` parts: not text, reasoning or tools.
            _ => {
                if let Some(name) = kind.strip_prefix("tool-") {
                    let tool = tool(p, name, &at)?;
                    step(&mut current, &at).tools.push(tool);
                }
            }
        }
    }
    steps.extend(current);
    Ok(steps)
}

/// The current step; content before any `step-start` is step 1.
fn step<'a>(current: &'a mut Option<FinalStep>, at: &str) -> &'a mut FinalStep {
    current.get_or_insert_with(|| FinalStep::at(at.to_string()))
}

/// A `tool-<name>` or `dynamic-tool` part.
fn tool(p: &Map, name: &str, at: &str) -> Result<FinalTool> {
    let call_id = required_str(p, "toolCallId", at)?;
    let state = required_str(p, "state", at)?;
    let approved = p
        .get("approval")
        .and_then(|a| a.get("approved"))
        .and_then(Value::as_bool);
    let mut t = FinalTool {
        call_id: call_id.to_string(),
        name: name.to_string(),
        args: p.get("input").filter(|v| !v.is_null()).cloned(),
        failure_known: true,
        path: at.to_string(),
        ..FinalTool::default()
    };
    match state {
        "input-streaming" | "input-available" => {}
        "approval-requested" => t.approval = Some("requested"),
        "approval-responded" => {
            t.approval = Some(if approved == Some(true) { "approved" } else { "denied" });
        }
        "output-available" => {
            t.result = Some(p.get("output").cloned().unwrap_or(Value::Null));
            t.result_path = Some(child(at, "output"));
            t.finished = true;
        }
        "output-error" => {
            let error = required_str(p, "errorText", at)?;
            t.error = Some(error.to_string());
            t.result_path = Some(child(at, "errorText"));
            t.finished = true;
        }
        "output-denied" => {
            t.approval = Some("denied");
            // Denied calls never ran: there is no failure to compare.
            t.failure_known = false;
            t.finished = true;
        }
        other => {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                &child(at, "state"),
                format!(
                    "expected a tool part state (input-streaming, input-available, approval-requested, approval-responded, output-available, output-error, output-denied), found {}",
                    crate::json::quote(other)
                ),
            ))
        }
    }
    if approved == Some(true) && t.approval.is_none() {
        t.approval = Some("approved");
    }
    Ok(t)
}

/// The AI SDK's final form: its `UIMessage[]`.
pub(super) struct Messages;

impl crate::dialects::FinalForm for Messages {
    /// `parts`, which every `UIMessage` has and no other producer writes.
    fn marks(&self, m: &Map) -> bool {
        m.contains_key("parts")
    }

    fn turns(&self, messages: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
        turns(messages, prefix)
    }
}
