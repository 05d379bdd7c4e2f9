//! A v2 tool execution: `{id, tool_call, result, error, startedAt, completedAt}`.

use crate::error::Result;
use crate::json::{child, Map, Value};
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::php;

use super::step::ToolCall;
use super::{uuid_or_new, Form};

/// One tool run. `result` is what was stored: v2 writes `json_encode(value)`,
/// a JSON *string*, and reads that string back as the value (item 24).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolExecution {
    /// The run's id.
    pub id: String,
    /// The call that was executed.
    pub tool_call: ToolCall,
    /// The stored result (v2 stores `json_encode(value)`: a JSON string).
    pub result: Value,
    /// The stored error; an empty string is a success.
    pub error: Option<String>,
    /// When it started (`startedAt`).
    pub started_at: Timestamp,
    /// When it finished (`completedAt`).
    pub completed_at: Timestamp,
}

impl ToolExecution {
    /// Reads a tool execution (`endedAt` is accepted for `completedAt`).
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<ToolExecution> {
        let m = read::object(v, path, "a tool execution")?;
        let empty = Map::new();
        let call = match m.get("tool_call") {
            None | Some(Value::Null) => &empty,
            Some(c) => read::object(c, &child(path, "tool_call"), "a tool call")?,
        };
        let completed = m.get("completedAt").or_else(|| m.get("endedAt"));
        let completed_key = if m.contains_key("completedAt") {
            "completedAt"
        } else {
            "endedAt"
        };
        Ok(ToolExecution {
            id: uuid_or_new(m, "id", path)?,
            tool_call: ToolCall::from_map(
                call,
                &child(path, "tool_call"),
                "(unnamed-tool)",
                Some(""),
            )?,
            result: m.get("result").cloned().unwrap_or(Value::Null),
            error: read::opt_scalar_string(m, "error", path)?.filter(|e| !e.is_empty()),
            started_at: time::read_or_now(m.get("startedAt"), now, &child(path, "startedAt"))?,
            completed_at: time::read_or_now(completed, now, &child(path, completed_key))?,
        })
    }

    /// `toArray()` in the given form. The reference form adds a JSON layer to
    /// the result and writes a failure as the producer rebuilds it
    /// (`Error executing tool 'x'({args}): Unknown error`).
    pub fn to_value(&self, form: Form) -> Value {
        let (result, error) = match (&self.error, form) {
            (Some(_), Form::Reference) => (
                Value::Null,
                Value::from(format!(
                    "Error executing tool '{}'({}): Unknown error",
                    self.tool_call.name,
                    php::json_encode(&self.tool_call.arguments)
                )),
            ),
            (Some(e), Form::Stored) => (self.result.clone(), Value::from(e.clone())),
            (None, Form::Reference) => (Value::from(php::json_encode(&self.result)), Value::Null),
            (None, Form::Stored) => (self.result.clone(), Value::Null),
        };
        crate::json::obj([
            ("id", Value::from(self.id.clone())),
            ("tool_call", self.tool_call.to_value()),
            ("result", result),
            ("error", error),
            ("startedAt", Value::from(format_atom(&self.started_at))),
            ("completedAt", Value::from(format_atom(&self.completed_at))),
        ])
    }

    /// Whether the run failed.
    pub fn has_error(&self) -> bool {
        self.error.is_some()
    }

    /// The result value (null for a failure).
    pub fn value(&self) -> Value {
        if self.has_error() {
            Value::Null
        } else {
            self.result.clone()
        }
    }
}
