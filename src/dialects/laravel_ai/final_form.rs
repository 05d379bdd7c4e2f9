//! laravel/ai's stored conversation (`agent_conversation_messages` rows, as
//! `DatabaseConversationStore` writes them) as a final form.
//!
//! One assistant row per run, written only once the response completed
//! (`RememberConversation` stores in the response's `then`): `content` is the
//! run's whole text (`TextDelta::combine` joins every step's deltas),
//! `tool_calls` and `tool_results` list every step's calls and results,
//! `usage` is the sum of the run's `stream_end` usages (`Usage::toArray()`
//! keys). Rows keep no step boundaries and no tool failure flag.
//!
//! The JSON columns are read decoded or as their stored text. Quirk matched:
//! a streamed response's `tool_results` is a Collection filtered out of the
//! event list without `values()`, so `json_encode` writes it as an object
//! keyed by event index (`{"4": {...}, "9": {...}}`); it is read in key
//! order, as PHP would iterate it.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, type_name, Limits, Map, Value};
use crate::model::read;
use crate::model::usage::Usage;

use crate::dialects::final_form::{object_at, required_str, FinalStep, FinalTool, FinalTurn};

/// The assistant turns of a list of stored rows.
pub(super) fn turns(rows: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let path = index(prefix, i);
        let row = object_at(row, &path, "a stored conversation message")?;
        if required_str(row, "role", &path)? != "assistant" {
            continue;
        }
        out.push(turn(row, &path)?);
    }
    Ok(out)
}

fn turn(row: &Map, path: &str) -> Result<FinalTurn> {
    let content = match row.get("content") {
        None => {
            return Err(SteplineError::at(
                ErrorCode::MissingField,
                &child(path, "content"),
                "expected `content` on a stored message",
            ))
        }
        Some(Value::Null) => "",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(read::wrong_type(path, "content", "a string", other)),
    };
    let mut step = FinalStep::at(path.to_string());
    if !content.is_empty() {
        step.add_text(content, child(path, "content"));
    }
    let calls_path = child(path, "tool_calls");
    if let Some(calls) = column(row, "tool_calls", path)? {
        for (k, call) in read::entries(&calls, &calls_path, "`tool_calls`")? {
            let at = child(&calls_path, &k);
            step.tools.push(tool_call(call, &at)?);
        }
    }
    let results_path = child(path, "tool_results");
    if let Some(results) = column(row, "tool_results", path)? {
        for (k, result) in read::entries(&results, &results_path, "`tool_results`")? {
            let at = child(&results_path, &k);
            add_result(&mut step, result, &at)?;
        }
    }
    let usage_path = child(path, "usage");
    let usage = match column(row, "usage", path)? {
        Some(u) => usage(&u, &usage_path)?,
        None => None,
    };
    Ok(FinalTurn {
        id: None,
        path: path.to_string(),
        steps: vec![step],
        steps_known: false,
        keeps_reasoning: false,
        usage,
        usage_path: Some(usage_path),
        // Only a completed response is stored.
        status: Some("completed"),
        record: None,
    })
}

/// A JSON column, decoded: as stored (text) or already decoded.
fn column(row: &Map, key: &str, path: &str) -> Result<Option<Value>> {
    match row.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => crate::json::parse(text, &Limits::default())
            .map(Some)
            .map_err(|e| {
                SteplineError::at(
                    ErrorCode::InvalidJson,
                    &child(path, key),
                    format!("expected `{key}` to hold JSON text: {}", e.message),
                )
            }),
        Some(v) => Ok(Some(v.clone())),
    }
}

/// `ToolCall::toArray()`: `{id, name, arguments, result_id, …}`.
fn tool_call(call: &Value, at: &str) -> Result<FinalTool> {
    let call = object_at(call, at, "a stored tool call")?;
    Ok(FinalTool {
        call_id: required_str(call, "id", at)?.to_string(),
        name: required_str(call, "name", at)?.to_string(),
        args: call.get("arguments").cloned(),
        path: at.to_string(),
        ..FinalTool::default()
    })
}

/// `ToolResult::toArray()`: `{id, name, arguments, result, result_id}`,
/// joined to its call by `id`.
fn add_result(step: &mut FinalStep, result: &Value, at: &str) -> Result<()> {
    let result = object_at(result, at, "a stored tool result")?;
    let id = required_str(result, "id", at)?;
    let value = result.get("result").cloned().unwrap_or(Value::Null);
    let known = step
        .tools
        .iter_mut()
        .find(|t| t.call_id == id && !t.finished);
    let tool = match known {
        Some(t) => t,
        None => {
            step.tools.push(FinalTool {
                call_id: id.to_string(),
                name: required_str(result, "name", at)?.to_string(),
                args: result.get("arguments").cloned(),
                path: at.to_string(),
                ..FinalTool::default()
            });
            let Some(t) = step.tools.last_mut() else {
                return Ok(());
            };
            t
        }
    };
    tool.result = Some(value);
    tool.result_path = Some(child(at, "result"));
    tool.finished = true;
    Ok(())
}

/// `Usage::toArray()`; a user row's `[]` is none.
fn usage(u: &Value, at: &str) -> Result<Option<Usage>> {
    let m = read::object(u, at, "`usage`")?;
    if m.is_empty() {
        return Ok(None);
    }
    let field = |k: &str| -> Result<i64> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => v.as_i64().ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(at, k),
                    format!(
                        "expected `{k}` to be a whole number, found {}",
                        type_name(v)
                    ),
                )
            }),
        }
    };
    Ok(Some(Usage {
        input: field("prompt_tokens")?,
        output: field("completion_tokens")?,
        cache_write: field("cache_write_input_tokens")?,
        cache_read: field("cache_read_input_tokens")?,
        reasoning: field("reasoning_tokens")?,
    }))
}

/// laravel/ai's final form: the rows of `agent_conversation_messages`.
pub(super) struct Rows;

impl crate::dialects::FinalForm for Rows {
    /// The row columns only laravel/ai writes.
    fn marks(&self, m: &Map) -> bool {
        ["tool_calls", "tool_results", "conversation_id", "agent"]
            .iter()
            .any(|k| m.contains_key(k))
    }

    fn turns(&self, rows: &[Value], prefix: &str) -> Result<Vec<FinalTurn>> {
        turns(rows, prefix)
    }
}
