//! The v2.x stored state (instructor-php v2.7 `Cognesy\Agents\Data\AgentState`):
//! one `execution` with its `stepExecutions`, stop signals instead of
//! continuation outcomes, uuids everywhere, messages with top-level
//! `tool_calls`/`tool_result`. Read by its own module (one module per
//! stored-state format); src/state_formats/ tells the formats apart.
//! The vectors' README (`tests/vectors/instructor-php-v2.7/README.md`, items
//! 18–28) describes every field and quirk.

pub mod derived;
pub mod execution;
pub mod message;
pub mod state;
pub mod step;
pub mod tool_execution;
pub mod view;

pub use execution::{ExecutionState, ExecutionStatus, StepExecution};
pub use message::{Context, Message};
pub use state::AgentState;
pub use step::{AgentStep, InferenceResponse, StepError, ToolCall};
pub use tool_execution::ToolExecution;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{type_name, Map, Value};
use crate::model::ids::new_id;

/// How a value is written back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Exactly the producer's `toArray()`, quirks included: a tool result gets
    /// one more JSON layer per round trip, and a failed tool's error message is
    /// replaced by `…: Unknown error` (item 24).
    Reference,
    /// What was stored, unchanged (what a reader shows a person).
    Stored,
}

/// Whether `s` is a uuid as the producer checks it (`8-4-4-4-12` hex digits).
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// An id field: absent or null gives a fresh uuid; present, it must be a uuid.
pub(crate) fn uuid_or_new(m: &Map, key: &str, path: &str) -> Result<String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(new_id()),
        Some(v) => uuid_at(v, &crate::json::child(path, key)),
    }
}

/// A uuid value at `path`.
pub(crate) fn uuid_at(v: &Value, path: &str) -> Result<String> {
    match v {
        Value::String(s) if is_uuid(s) => Ok(s.clone()),
        Value::String(s) => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            path,
            format!(
                "expected a uuid such as \"a0000000-0000-4000-8000-000000000001\" (v2 ids are uuids), found {}",
                crate::json::quote(s)
            ),
        )),
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!("expected a uuid string, found {}", type_name(other)),
        )),
    }
}

/// A PHP map kept as it was stored: an object, or `[]`; absent is `[]`.
pub(crate) fn map_value(m: &Map, key: &str, path: &str, what: &str) -> Result<Value> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(Value::Array(Vec::new())),
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        Some(Value::Array(a)) if a.is_empty() => Ok(Value::Array(Vec::new())),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidType,
            &crate::json::child(path, key),
            format!("expected {what} as an object, found {}", type_name(other)),
        )),
    }
}

/// Reads a list field (absent or null: empty) item by item.
pub(crate) fn list<T>(
    m: &Map,
    key: &str,
    path: &str,
    read: impl Fn(&Value, &str) -> Result<T>,
) -> Result<Vec<T>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => {
            let at = crate::json::child(path, key);
            crate::model::read::entries(v, &at, key)?
                .into_iter()
                .map(|(k, item)| read(item, &crate::json::child(&at, &k)))
                .collect()
        }
    }
}
