//! Slim snapshot → state, as the reference's `deserialize`: steps are not
//! restored, and neither is `executionStartedAt` (seed 004).

use crate::json::Value;

use crate::error::Result;
use crate::json::obj;
use crate::model::message_store::DEFAULT_SECTION;
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
        ("usage", get("usage")),
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
