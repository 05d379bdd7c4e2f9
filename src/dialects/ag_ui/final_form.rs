//! AG-UI messages (`@ag-ui/core` 1.x `Message`) as a final form.
//!
//! AG-UI messages carry no step numbers. A step is read the way the
//! client's reducer builds messages from a step's events: its reasoning
//! message, the assistant message(s) with its text and `toolCalls`, then a
//! `tool` message per result. So a reasoning or assistant message after a
//! tool result opens the next step; consecutive assistant messages before
//! any result (a text message, then the message its tool calls started) are
//! one step. Those boundaries are inferred, so the turn is compared with
//! the whole run (`steps_known` false).
//!
//! A failed call: `@ag-ui/client` 1.0's reducer builds a tool message from
//! `TOOL_CALL_RESULT` with `{id, toolCallId, role, content}` only, and the
//! event has no failure flag. A call failed when its message carries the
//! `error` the message type allows, or when its content is a JSON object
//! whose `error` is a string (the Cloudflare Agents adapter's `tool-error`)
//! or `true` (the Claude Agent SDK adapter; the message is then its
//! `content` or `message`): the rule the AG-UI stream translator applies to
//! `TOOL_CALL_RESULT`, so a stream and its messages agree.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, type_name, Map, Value};

use crate::dialects::final_form::{
    drop_empty, object_at, required_str, FinalStep, FinalTool, FinalTurn,
};

/// The assistant turns of an AG-UI message array.
pub(super) fn turns(messages: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
    let mut out = Vec::new();
    let mut turn: Option<Builder> = None;
    for (i, m) in messages.iter().enumerate() {
        let path = index(prefix, i);
        let m = object_at(m, &path, "an AG-UI message")?;
        match required_str(m, "role", &path)? {
            "user" => {
                if let Some(t) = turn.take() {
                    out.push(t.finish());
                }
            }
            "assistant" => turn
                .get_or_insert_with(|| Builder::new(&path))
                .assistant(m, &path)?,
            "reasoning" => turn
                .get_or_insert_with(|| Builder::new(&path))
                .reasoning(m, &path)?,
            "tool" => turn
                .get_or_insert_with(|| Builder::new(&path))
                .tool(m, &path)?,
            // system, developer and activity messages are not the run's
            // text, reasoning or tools; roles of later versions neither.
            _ => {}
        }
    }
    if let Some(t) = turn.take() {
        out.push(t.finish());
    }
    Ok(out)
}

struct Builder {
    path: String,
    /// The steps before the current one.
    steps: Vec<FinalStep>,
    current: Option<FinalStep>,
    /// A tool result arrived in the last step: the next message opens a step.
    closed: bool,
}

impl Builder {
    fn new(path: &str) -> Builder {
        Builder {
            path: path.to_string(),
            steps: Vec::new(),
            current: None,
            closed: false,
        }
    }

    /// The step a reasoning or assistant message at `path` belongs to.
    fn step(&mut self, path: &str) -> &mut FinalStep {
        if self.closed {
            self.steps.extend(self.current.take());
            self.closed = false;
        }
        self.current
            .get_or_insert_with(|| FinalStep::at(path.to_string()))
    }

    fn assistant(&mut self, m: &Map, path: &str) -> Result<()> {
        let content = crate::model::read::opt_str(m, "content", path)?;
        let calls = match m.get("toolCalls") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(calls)) => {
                let at = child(path, "toolCalls");
                calls
                    .iter()
                    .enumerate()
                    .map(|(j, c)| tool_call(c, &index(&at, j)))
                    .collect::<Result<Vec<_>>>()?
            }
            Some(other) => {
                return Err(crate::model::read::wrong_type(
                    path,
                    "toolCalls",
                    "an array",
                    other,
                ))
            }
        };
        let step = self.step(path);
        if let Some(text) = content.filter(|t| !t.is_empty()) {
            step.add_text(text, child(path, "content"));
        }
        step.tools.extend(calls);
        Ok(())
    }

    fn reasoning(&mut self, m: &Map, path: &str) -> Result<()> {
        let text = required_str(m, "content", path)?;
        if !text.is_empty() {
            self.step(path).add_reasoning(text, child(path, "content"));
        }
        Ok(())
    }

    fn tool(&mut self, m: &Map, path: &str) -> Result<()> {
        let call_id = required_str(m, "toolCallId", path)?;
        let content = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            // Parts: the text of its text parts (media are not compared).
            Some(Value::Array(parts)) => parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
            Some(other) => {
                return Err(crate::model::read::wrong_type(
                    path,
                    "content",
                    "a string or an array of parts",
                    other,
                ))
            }
            None => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &child(path, "content"),
                    "expected `content` on a tool message",
                ))
            }
        };
        let error = crate::model::read::opt_str(m, "error", path)?
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .or_else(|| crate::dialects::ag_ui::tools::failure_of(&content));
        // The result of a call of this turn, whichever step made it.
        let known = self
            .steps
            .iter_mut()
            .chain(self.current.iter_mut())
            .flat_map(|s| s.tools.iter_mut())
            .find(|t| t.call_id == call_id);
        let tool = match known {
            Some(t) => t,
            None => {
                // A result without its call: kept, named by nothing.
                let step = self.step(path);
                step.tools.push(FinalTool {
                    call_id: call_id.to_string(),
                    path: path.to_string(),
                    ..FinalTool::default()
                });
                let Some(t) = step.tools.last_mut() else {
                    return Ok(());
                };
                t
            }
        };
        // A failure keeps whatever partial content came with it.
        tool.result = (!content.is_empty()).then(|| Value::from(content));
        tool.failure_known = true;
        tool.error = error;
        tool.result_path = Some(path.to_string());
        tool.finished = true;
        self.closed = true;
        Ok(())
    }

    fn finish(mut self) -> FinalTurn {
        self.steps.extend(self.current.take());
        FinalTurn {
            id: None,
            path: self.path,
            steps: drop_empty(self.steps),
            steps_known: false,
            keeps_reasoning: true,
            usage: None,
            usage_path: None,
            status: None,
            record: None,
        }
    }
}

/// `{id, type: "function", function: {name, arguments}}`.
fn tool_call(c: &Value, path: &str) -> Result<FinalTool> {
    let c = object_at(c, path, "an AG-UI tool call")?;
    let call_id = required_str(c, "id", path)?;
    let fpath = child(path, "function");
    let function = match c.get("function") {
        Some(f) => object_at(f, &fpath, "`function`")?,
        None => {
            return Err(SteplineError::at(
                ErrorCode::MissingField,
                &fpath,
                "expected `function` on a tool call",
            ))
        }
    };
    let name = required_str(function, "name", &fpath)?;
    let args = match function.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Value::from(s.as_str())),
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &child(&fpath, "arguments"),
                format!(
                    "expected `arguments` to be the JSON text of the arguments, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    Ok(FinalTool {
        call_id: call_id.to_string(),
        name: name.to_string(),
        args,
        path: path.to_string(),
        ..FinalTool::default()
    })
}

/// AG-UI's final form: its `Message[]` (a `MESSAGES_SNAPSHOT`'s `messages`).
pub(super) struct Messages;

impl crate::dialects::FinalForm for Messages {
    /// Fields or roles only AG-UI writes (`toolCalls`, `toolCallId`, `tool`,
    /// `reasoning`, `activity`, `developer`).
    fn marks(&self, m: &Map) -> bool {
        let role = matches!(
            m.get("role").and_then(Value::as_str),
            Some("tool" | "reasoning" | "activity" | "developer")
        );
        role || m.contains_key("toolCalls") || m.contains_key("toolCallId")
    }

    /// Only `{id, role, content}` messages: AG-UI's plain text conversation
    /// (AI SDK messages always have `parts`, laravel/ai rows their columns).
    fn claims_unmarked(&self, messages: &[Value]) -> bool {
        messages
            .iter()
            .filter_map(Value::as_object)
            .any(|m| m.contains_key("role") && m.contains_key("id"))
    }

    fn turns(&self, messages: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
        turns(messages, prefix)
    }
}
