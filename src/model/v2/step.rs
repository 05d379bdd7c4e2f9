//! A v2 step: `{id, inputMessages, outputMessages, toolExecutions, errors,
//! inferenceResponse}`. The step type is never stored; it is derived (item 23).

use crate::error::Result;
use crate::json::{child, Map, Value};
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::tool_call::{decode_arguments, summary_of};
use crate::model::{FinishReason, StepType, Usage};
use crate::php;

use super::message::{messages, messages_value, Message};
use super::tool_execution::ToolExecution;
use super::{list, uuid_or_new, Form};

/// A tool call: `{id, name, arguments}`; `id` may be null (a model's own call
/// in a response, item 27), arguments an object (`[]` when empty).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The call's id; `None` for a call with a null id.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments: an object, `[]` when empty.
    pub arguments: Value,
}

impl ToolCall {
    /// Reads `{id, name, arguments}`; arguments given as a JSON string (v1's
    /// form) are decoded. A tool execution's call without a name or id has
    /// `(unnamed-tool)` and `""`; a response's keeps a null id (`default_id` `None`).
    pub fn from_map(
        m: &Map,
        path: &str,
        default_name: &str,
        default_id: Option<&str>,
    ) -> Result<ToolCall> {
        Ok(ToolCall {
            id: read::opt_scalar_string(m, "id", path)?.or(default_id.map(String::from)),
            name: read::opt_scalar_string(m, "name", path)?
                .unwrap_or_else(|| default_name.to_string()),
            arguments: decode_arguments(m.get("arguments"), &child(path, "arguments"))?,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("id", self.id.clone().map_or(Value::Null, Value::String)),
            ("name", Value::from(self.name.clone())),
            ("arguments", self.arguments.clone()),
        ])
    }

    /// `name(key=value, …)` as the producer's step summary writes it.
    pub fn summary(&self) -> String {
        summary_of(&self.name, &self.arguments)
    }
}

/// The tool calls a response requested (calls without a name are skipped).
fn tool_calls(v: &Value, path: &str) -> Result<Vec<ToolCall>> {
    let mut out = Vec::new();
    for (k, item) in read::entries(v, path, "tool calls")? {
        let at = child(path, &k);
        let m = read::object(item, &at, "a tool call")?;
        if m.get("name").is_none_or(php::is_falsy) {
            continue;
        }
        out.push(ToolCall::from_map(m, &at, "", None)?);
    }
    Ok(out)
}

/// The model's answer for one step (Polyglot's `InferenceResponse`).
#[derive(Clone, Debug, PartialEq)]
pub struct InferenceResponse {
    /// The response text.
    pub content: String,
    /// The provider's finish reason as stored; see [`InferenceResponse::finish_reason`].
    pub finish_reason_raw: String,
    /// The tool calls the model made (`toolCalls`).
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning text (`reasoningContent`).
    pub reasoning_content: String,
    /// The inference's token usage.
    pub usage: Usage,
    /// `{statusCode, body, headers, isStreamed}`: with a real driver the HTTP
    /// status, the raw body and the headers (large; possibly sensitive).
    pub response_data: Value,
    /// Whether it is a partial (streamed, unfinished) response (`isPartial`).
    pub is_partial: bool,
    /// The response's id.
    pub id: String,
    /// When it was created (`createdAt`).
    pub created_at: Timestamp,
    /// When it last changed (`updatedAt`).
    pub updated_at: Timestamp,
}

fn empty_response_data() -> Value {
    crate::json::obj([
        ("statusCode", Value::from(0)),
        ("body", Value::from("")),
        ("headers", Value::Array(Vec::new())),
        ("isStreamed", Value::from(false)),
    ])
}

impl InferenceResponse {
    /// Reads the step's `inferenceResponse`, or, for a v1-era step stored
    /// without one, builds it from the step's own `toolCalls` and `usage`
    /// (as v2 hydrates it: everything else empty, a fresh id, dated `now`).
    fn of_step(step: &Map, path: &str, now: &Timestamp) -> Result<Self> {
        match step.get("inferenceResponse") {
            Some(r) if !r.is_null() => {
                let at = child(path, "inferenceResponse");
                Self::from_map(read::object(r, &at, "the inference response")?, &at, now)
            }
            _ => {
                let mut legacy = Map::new();
                for key in ["toolCalls", "usage"] {
                    if let Some(v) = step.get(key) {
                        legacy.insert(key, v.clone());
                    }
                }
                Self::from_map(&legacy, path, now)
            }
        }
    }

    fn from_map(m: &Map, path: &str, now: &Timestamp) -> Result<Self> {
        let text = |k: &str| -> Result<String> {
            Ok(read::opt_scalar_string(m, k, path)?.unwrap_or_default())
        };
        Ok(InferenceResponse {
            content: text("content")?,
            finish_reason_raw: text("finishReason")?,
            tool_calls: match m.get("toolCalls") {
                None | Some(Value::Null) => Vec::new(),
                Some(tc) => tool_calls(tc, &child(path, "toolCalls"))?,
            },
            reasoning_content: text("reasoningContent")?,
            usage: match m.get("usage") {
                None | Some(Value::Null) => Usage::default(),
                Some(u) => Usage::from_value(u, &child(path, "usage"))?,
            },
            response_data: match m.get("responseData") {
                None | Some(Value::Null) => empty_response_data(),
                Some(d) => {
                    read::object(d, &child(path, "responseData"), "the response data")?;
                    d.clone()
                }
            },
            is_partial: read::bool_or(m, "isPartial", false),
            id: uuid_or_new(m, "id", path)?,
            created_at: time::read_or_now(m.get("createdAt"), now, &child(path, "createdAt"))?,
            updated_at: time::read_or_now(m.get("updatedAt"), now, &child(path, "updatedAt"))?,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("content", Value::from(self.content.clone()));
        m.insert("finishReason", Value::from(self.finish_reason_raw.clone()));
        m.insert(
            "toolCalls",
            Value::Array(self.tool_calls.iter().map(ToolCall::to_value).collect()),
        );
        m.insert(
            "reasoningContent",
            Value::from(self.reasoning_content.clone()),
        );
        m.insert("usage", self.usage.to_value());
        m.insert("responseData", self.response_data.clone());
        m.insert("isPartial", Value::from(self.is_partial));
        m.insert("id", Value::from(self.id.clone()));
        m.insert("createdAt", Value::from(format_atom(&self.created_at)));
        m.insert("updatedAt", Value::from(format_atom(&self.updated_at)));
        Value::Object(m)
    }

    /// The normalised finish reason. v2's table differs from v1.22's: `end_turn`
    /// is `stop` (vectors: "part AgentStep finish reason values") and
    /// `content_filter` is itself (README item 12).
    pub fn finish_reason(&self) -> FinishReason {
        match self.finish_reason_raw.to_ascii_lowercase().as_str() {
            "end_turn" => FinishReason::Stop,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::from_text(other),
        }
    }
}

/// An error recorded on a step: `{message, class}`.
#[derive(Clone, Debug, PartialEq)]
pub struct StepError {
    /// The error's message.
    pub message: String,
    /// The PHP exception class.
    pub class: String,
}

/// The class v2 gives a stored error without one.
const DESERIALIZED: &str = "Cognesy\\Utils\\Exceptions\\DeserializedException";

impl StepError {
    fn to_value(&self) -> Value {
        crate::json::obj([
            ("message", Value::from(self.message.clone())),
            ("class", Value::from(self.class.clone())),
        ])
    }
}

/// Reads `errors`: entries that are not objects are dropped, a missing class
/// is `DeserializedException` (vectors: "edge step errors list").
fn step_errors(m: &Map, path: &str) -> Result<Vec<StepError>> {
    let Some(v) = m.get("errors").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let at = child(path, "errors");
    let mut out = Vec::new();
    for (k, e) in read::entries(v, &at, "errors")? {
        let Value::Object(e) = e else { continue };
        let p = child(&at, &k);
        out.push(StepError {
            message: read::opt_scalar_string(e, "message", &p)?.unwrap_or_default(),
            class: read::opt_scalar_string(e, "class", &p)?
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| DESERIALIZED.to_string()),
        });
    }
    Ok(out)
}

/// One step of an execution.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentStep {
    /// The step's id.
    pub id: String,
    /// The messages sent to the model (`inputMessages`).
    pub input_messages: Vec<Message>,
    /// The messages the step produced (`outputMessages`).
    pub output_messages: Vec<Message>,
    /// The tools run in this step (`toolExecutions`).
    pub tool_executions: Vec<ToolExecution>,
    /// The errors recorded on the step.
    pub errors: Vec<StepError>,
    /// The model's response (`inferenceResponse`).
    pub inference_response: InferenceResponse,
}

impl AgentStep {
    /// Reads a step; a v1-era step (`toolCalls`/`usage` beside no response) is
    /// hydrated into a response, as v2 does.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<AgentStep> {
        let m = read::object(v, path, "a step")?;
        Ok(AgentStep {
            id: uuid_or_new(m, "id", path)?,
            input_messages: messages(m, "inputMessages", path, now)?,
            output_messages: messages(m, "outputMessages", path, now)?,
            tool_executions: list(m, "toolExecutions", path, |v, p| {
                ToolExecution::from_value(v, p, now)
            })?,
            errors: step_errors(m, path)?,
            inference_response: InferenceResponse::of_step(m, path, now)?,
        })
    }

    /// The stored form, with keys as `form` says (v2 writes camelCase or snake_case).
    pub fn to_value(&self, form: Form) -> Value {
        crate::json::obj([
            ("id", Value::from(self.id.clone())),
            ("inputMessages", messages_value(&self.input_messages)),
            ("outputMessages", messages_value(&self.output_messages)),
            (
                "toolExecutions",
                Value::Array(
                    self.tool_executions
                        .iter()
                        .map(|e| e.to_value(form))
                        .collect(),
                ),
            ),
            (
                "errors",
                Value::Array(self.errors.iter().map(StepError::to_value).collect()),
            ),
            ("inferenceResponse", self.inference_response.to_value()),
        ])
    }

    /// Errors recorded on the step, then failed tool executions' errors not
    /// among them. A live v2 step records each failed tool's exception in its
    /// own `errors` too (agent-runs: "failing tool"), so one failure is one error.
    pub fn error_messages(&self) -> Vec<String> {
        let mut out: Vec<String> = self.errors.iter().map(|e| e.message.clone()).collect();
        for e in self.tool_executions.iter().filter_map(|e| e.error.as_ref()) {
            if !out.contains(e) {
                out.push(e.clone());
            }
        }
        out
    }

    /// Whether the step recorded errors or a tool run failed.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty() || self.tool_executions.iter().any(ToolExecution::has_error)
    }

    /// Whether the model asked for tools.
    pub fn has_tool_calls(&self) -> bool {
        !self.inference_response.tool_calls.is_empty()
    }

    /// Errors (recorded or from a failed tool) → `error`; requested tool calls
    /// → `tool_execution`; else `final_response`.
    pub fn step_type(&self) -> StepType {
        if self.has_errors() {
            StepType::Error
        } else if self.has_tool_calls() {
            StepType::ToolExecution
        } else {
            StepType::FinalResponse
        }
    }

    /// The step's token usage: its inference's.
    pub fn usage(&self) -> Usage {
        self.inference_response.usage
    }

    /// The output messages' non-empty texts, each followed by a newline
    /// (`"Hello!\n"`; an assistant message that only called tools adds nothing).
    pub fn output_text(&self) -> String {
        self.output_messages
            .iter()
            .map(|m| m.text())
            .filter(|t| !t.is_empty())
            .map(|t| t + "\n")
            .collect()
    }

    /// Where a stored error would make v2's own `fromArray` fail, if anywhere:
    /// v2 rebuilds a failed tool's `ToolExecutionException` with one argument
    /// and throws `ArgumentCountError` (item 25).
    pub fn unrestorable_at(&self, path: &str) -> Option<String> {
        if let Some(i) = self
            .tool_executions
            .iter()
            .position(ToolExecution::has_error)
        {
            return Some(child(
                &child(&child(path, "toolExecutions"), &i.to_string()),
                "error",
            ));
        }
        self.errors
            .iter()
            .position(|e| e.class.ends_with("ToolExecutionException"))
            .map(|i| child(&child(path, "errors"), &i.to_string()))
    }
}

/// The producer's `AgentStep::__toString()`: the response text (or
/// `(no response)`) and the requested calls, `Hello!\n [(-)]`.
pub fn summary(step: &AgentStep) -> String {
    let text = step.output_text();
    let text = if text.trim().is_empty() {
        "(no response)".to_string()
    } else {
        text
    };
    let calls = if step.has_tool_calls() {
        step.inference_response
            .tool_calls
            .iter()
            .map(ToolCall::summary)
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        "(-)".to_string()
    };
    format!("{text} [{calls}]")
}
