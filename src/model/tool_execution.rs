//! The execution of one tool call, with its result or error and its timing.

use crate::json::Value;

use crate::error::{ErrorCode, Result};
use crate::json::child;
use crate::model::ids::new_id;
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::tool_call::{decode_arguments, ToolCall};
use crate::php;

/// One executed tool call (the reference's `ToolExecution`).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolExecution {
    /// Execution id. The reference's `toArray` does not write it, so it never round-trips.
    pub id: String,
    /// The call that was executed.
    pub tool_call: ToolCall,
    /// What the tool returned, as stored.
    pub result: Value,
    /// The failure's message, when it failed.
    pub error: Option<String>,
    /// When it started (`startedAt`).
    pub started_at: Timestamp,
    /// When it ended (`endedAt`).
    pub ended_at: Timestamp,
}

impl ToolExecution {
    /// Reads the canonical shape (`toolCall: {id, name, arguments}`) or the legacy
    /// flat one (`toolCallId`, `tool`, `args`). Missing dates mean `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<ToolExecution> {
        let m = read::object(v, path, "a tool execution")?;
        let nested = match m.get("toolCall") {
            Some(Value::Object(tc)) if !tc.is_empty() => Some(tc),
            _ => None,
        };
        // `hydrateToolCall`: `??` skips null values, so a key holding null
        // counts as absent when choosing between the aliases.
        let (id, name, args, args_path) = match nested {
            Some(tc) => {
                let tc_path = child(path, "toolCall");
                let args_key =
                    if php::get(tc, "arguments").is_none() && php::get(tc, "args").is_some() {
                        "args"
                    } else {
                        "arguments"
                    };
                (
                    read::opt_scalar_string(tc, "id", &tc_path)?,
                    read::opt_scalar_string(tc, "name", &tc_path)?,
                    tc.get(args_key),
                    child(&tc_path, args_key),
                )
            }
            None => {
                // The legacy flat shape: `arguments ?? args`, and the call id
                // as `toolCallId ?? tool_call_id`.
                let args_key = if php::get(m, "arguments").is_some() {
                    "arguments"
                } else {
                    "args"
                };
                let id_key = if php::get(m, "toolCallId").is_some() {
                    "toolCallId"
                } else {
                    "tool_call_id"
                };
                (
                    read::opt_scalar_string(m, id_key, path)?,
                    read::opt_scalar_string(m, "tool", path)?,
                    m.get(args_key),
                    child(path, args_key),
                )
            }
        };
        let name = match name.filter(|n| !php::is_falsy(&Value::String(n.clone()))) {
            Some(n) => n,
            None => {
                return Err(read::invalid(
                    ErrorCode::MissingField,
                    &child(path, if nested.is_some() { "toolCall" } else { "tool" }),
                    "Tool execution payload is missing tool call information: expected `toolCall.name` or `tool`",
                ))
            }
        };
        let arguments = decode_arguments(args, &args_path)?;
        let error = failure_message(m.get("error"));
        Ok(ToolExecution {
            id: read::opt_scalar_string(m, "id", path)?.unwrap_or_else(new_id),
            tool_call: ToolCall {
                id: id.unwrap_or_default(),
                name,
                arguments,
            },
            // A failure has no value (`toArray` writes `result: null`).
            result: match error {
                Some(_) => Value::Null,
                None => m.get("result").cloned().unwrap_or(Value::Null),
            },
            error,
            started_at: time::read_or_now(m.get("startedAt"), now, &child(path, "startedAt"))?,
            ended_at: time::read_or_now(m.get("endedAt"), now, &child(path, "endedAt"))?,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        crate::json::obj([
            (
                "toolCall",
                crate::json::obj([
                    ("id", Value::from(self.tool_call.id.clone())),
                    ("name", Value::from(self.tool_call.name.clone())),
                    ("arguments", self.tool_call.arguments.clone()),
                ]),
            ),
            ("tool", Value::from(self.tool_call.name.clone())),
            ("args", self.tool_call.arguments.clone()),
            ("result", self.result.clone()),
            ("error", Value::from(self.error.clone())),
            ("startedAt", Value::from(format_atom(&self.started_at))),
            ("endedAt", Value::from(format_atom(&self.ended_at))),
        ])
    }

    /// Whether the run failed.
    pub fn has_error(&self) -> bool {
        self.error.is_some()
    }

    /// The real interval in milliseconds (negative when the dates are inverted).
    pub fn duration_ms(&self) -> f64 {
        millis_between(&self.started_at, &self.ended_at)
    }
}

/// Milliseconds from `a` to `b`, with microsecond precision.
pub fn millis_between(a: &Timestamp, b: &Timestamp) -> f64 {
    let d = b.signed_duration_since(*a);
    d.num_microseconds()
        .map_or(d.num_milliseconds() as f64, |us| us as f64 / 1000.0)
}

/// The error message of a stored execution, as the reference's `makeResult`
/// and `makeFailure` read `error`: absent, null or `''` is a success; a
/// string is its message; a map's string `message`, else its string `error`;
/// anything else (a number, `false`, a list) fails with `Unknown error`.
fn failure_message(error: Option<&Value>) -> Option<String> {
    let text = |m: &crate::json::Map, k: &str| m.get(k).and_then(Value::as_str).map(String::from);
    match error? {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => Some(
            text(m, "message")
                .or_else(|| text(m, "error"))
                .unwrap_or_else(|| "Unknown error".into()),
        ),
        _ => Some("Unknown error".into()),
    }
}

/// An ordered list of executions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolExecutions(pub Vec<ToolExecution>);

impl ToolExecutions {
    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<ToolExecutions> {
        read::entries(v, path, "tool executions")?
            .into_iter()
            .map(|(key, item)| ToolExecution::from_value(item, &child(path, &key), now))
            .collect::<Result<Vec<_>>>()
            .map(ToolExecutions)
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        Value::Array(self.0.iter().map(ToolExecution::to_value).collect())
    }

    /// Whether any run failed.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(ToolExecution::has_error)
    }

    /// The calls that were actually executed (seed 001: executed tool calls).
    pub fn tool_calls(&self) -> Vec<&ToolCall> {
        self.0.iter().map(|e| &e.tool_call).collect()
    }
}
