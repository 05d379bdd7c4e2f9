//! Slim snapshot → state, as the reference's `deserialize`: steps are not
//! restored, and neither is `executionStartedAt` (seed 004).

use crate::json::Value;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{obj, Map};
use crate::model::message_store::DEFAULT_SECTION;
use crate::model::read;
use crate::model::state::AgentState;
use crate::model::time::Timestamp;

/// Rebuilds a state from a snapshot for resuming a conversation. Missing parts
/// take the producer's defaults (a generated agent id, `now` for dates); a
/// `messages` value that is not an array restores no messages, as in the reference.
pub fn restore(snapshot: &Value, now: &Timestamp) -> Result<AgentState> {
    let get = |k: &str| snapshot.get(k).cloned().unwrap_or(Value::Null);
    let execution = snapshot.get("execution");
    let exec = |k: &str| {
        execution
            .and_then(|e| e.get(k))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let messages = match snapshot.get("messages") {
        Some(list @ Value::Array(_)) => list.clone(),
        _ => Value::Array(Vec::new()),
    };
    let full = obj([
        ("agentId", get("agent_id")),
        ("parentAgentId", get("parent_agent_id")),
        ("status", get("status")),
        ("usage", usage(snapshot.get("usage"))?),
        ("metadata", get("metadata")),
        (
            "stateInfo",
            obj([
                ("startedAt", exec("started_at")),
                ("updatedAt", exec("updated_at")),
                ("cumulativeExecutionSeconds", exec("cumulative_seconds")),
            ]),
        ),
        (
            "messageStore",
            obj([(
                "sections",
                Value::Array(vec![obj([
                    ("name", Value::from(DEFAULT_SECTION)),
                    ("messages", messages),
                ])]),
            )]),
        ),
    ]);
    AgentState::from_value(&full, now)
}

/// The reference's usage keys; a usage holding none of them may be seed 000's form.
const REFERENCE_USAGE: [&str; 5] = ["input", "output", "cacheWrite", "cacheRead", "reasoning"];

/// The snapshot's usage in the model's form. Seed 000 writes `{prompt,
/// completion, total}`, which the reference reads as zeros (it ignores keys
/// it does not know): `prompt` becomes `input` and `completion` `output`.
/// `total` is derived in the model, so a `total` that is not their sum would
/// be lost silently: it is refused instead (`invalid_value` at `/usage/total`).
/// The reference form, and anything else, passes through to the state reader.
fn usage(v: Option<&Value>) -> Result<Value> {
    let Some(Value::Object(m)) = v else {
        return Ok(v.cloned().unwrap_or(Value::Null));
    };
    let seed_form = !REFERENCE_USAGE.iter().any(|k| m.contains_key(k))
        && ["prompt", "completion", "total"]
            .iter()
            .any(|k| m.contains_key(k));
    if !seed_form {
        return Ok(Value::Object(m.clone()));
    }
    let field = |k: &str| -> Result<i64> { Ok(read::opt_i64(m, k, "/usage")?.unwrap_or(0)) };
    let (input, output) = (field("prompt")?, field("completion")?);
    if let Some(total) = read::opt_i64(m, "total", "/usage")? {
        if input.checked_add(output) != Some(total) {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                "/usage/total",
                format!(
                    "expected the seed-form usage `total` to be prompt + completion ({input} + {output}), found {total}: the state keeps no separate total"
                ),
            ));
        }
    }
    let mut out = Map::new();
    out.insert("input", Value::from(input));
    out.insert("output", Value::from(output));
    Ok(Value::Object(out))
}
