//! Slim snapshots of instructor-php v2.x states (`Cognesy\Agents`), and back.
//!
//! The producer has no slim serializer for v2; this one carries what a v1.22
//! snapshot carries — identity, status, step count, usage, timing, the newest
//! messages, a window of step summaries — under the same names and the same
//! [`SlimConfig`], marked `state_version: "v2"`. v2 has no criteria trace:
//! the winning `stop_signal` is always kept, and `includeContinuationTrace`
//! adds the execution's whole `continuation` (every signal and `explain()`).
//!
//! What is never kept: the resolved `llmConfig` (it holds the API key, item
//! 27), each step's `inferenceResponse.responseData` (a real driver's HTTP
//! status, raw body and headers, item 23), and any member named like a
//! credential in metadata (replaced by `"[redacted]"`).

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{index, obj, Value};
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::v2::execution::StepExecution;
use crate::model::v2::message::{Context, Message, Section};
use crate::model::v2::AgentState;
use crate::secrets::redact;
use crate::snapshot::budget::{fit, Fitted};
use crate::snapshot::config::SlimConfig;
use crate::snapshot::serialize::{last, TOOL_RESULT_OMITTED};
use crate::snapshot::shape::{
    SlimContinuationV2, SlimExecution, SlimMessage, SlimSnapshot, SlimStep, SlimStepUsage,
    SlimToolCall,
};
use crate::snapshot::truncate::truncate;
use crate::snapshot::validate::{Issue, Report};

/// The `state_version` a v2 snapshot carries.
pub const STATE_VERSION: &str = "v2";

/// The slim snapshot of a v2 state.
///
/// ```
/// use stepline::model::v2::AgentState;
/// use stepline::snapshot::{v2::slim_v2, SlimConfig};
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let text = r#"{"agentId": "a0000000-0000-4000-8000-000000000001", "llmConfig": {"apiKey": "sk-live"},
///   "execution": {"status": "completed", "stepExecutions": []}}"#;
/// let state = AgentState::from_value(&stepline::json::from_str(text).unwrap(), &now).unwrap();
/// let snapshot = slim_v2(&state, &SlimConfig::standard());
/// assert_eq!(snapshot["state_version"], "v2");
/// assert_eq!(snapshot["status"], "completed");
/// assert!(!stepline::json::to_string(&snapshot).contains("sk-live"));
/// ```
pub fn slim_v2(state: &AgentState, config: &SlimConfig) -> Value {
    crate::json::to_value_of(&slim_v2_snapshot(state, config))
}

/// The slim snapshot of a v2 state, as its declared shape.
pub fn slim_v2_snapshot(state: &AgentState, config: &SlimConfig) -> SlimSnapshot {
    let exec = state.execution.as_ref();
    let messages = last(state.context.messages(), config.max_messages)
        .iter()
        .map(|m| slim_message(m, config))
        .collect();
    let steps = match exec {
        Some(e) if config.include_steps => last(&e.step_executions, config.max_steps)
            .iter()
            .enumerate()
            .map(|(i, s)| slim_step(i + 1, s, config.compat))
            .collect(),
        _ => Vec::new(),
    };
    let cumulative: f64 = exec.map_or(0.0, |e| {
        e.step_executions.iter().map(StepExecution::duration).sum()
    });
    let continuation = state.execution_continuation();
    let mut system_prompt = state.context.system_prompt.clone();
    if let Some(cut) = truncate(&system_prompt, config.max_content_length, config.compat) {
        system_prompt = cut;
    }
    SlimSnapshot {
        state_version: Some(STATE_VERSION),
        agent_id: state.agent_id.clone(),
        parent_agent_id: state.parent_agent_id.clone(),
        status: exec.map(|e| e.status.as_str()),
        step_count: state.step_count(),
        usage: state.usage(),
        execution: SlimExecution {
            started_at: format_atom(exec.map_or(&state.created_at, |e| &e.started_at)),
            updated_at: format_atom(&state.updated_at),
            cumulative_seconds: cumulative,
            execution_id: Some(exec.map(|e| e.execution_id.clone())),
            completed_at: Some(exec.and_then(|e| e.completed_at.as_ref()).map(format_atom)),
            execution_count: Some(state.execution_count),
        },
        messages,
        steps,
        last_continuation: None,
        stop_signal: Some(state.stop_signal().map_or(Value::Null, |s| s.to_value())),
        continuation: Some(
            config
                .include_continuation_trace
                .then(|| SlimContinuationV2 {
                    should_stop: state.should_stop(),
                    is_continuation_requested: continuation.is_continuation_requested,
                    stop_signals: continuation.stop_signals.to_value(),
                    explain: continuation.explain(),
                }),
        ),
        metadata: redact(&state.context.metadata),
        created_at: Some(format_atom(&state.created_at)),
        system_prompt: Some(system_prompt),
    }
}

/// A message's tool call as the snapshot schema takes it: v2 keeps a
/// message's `tool_calls` as stored, so a call without a string `id` (or
/// `name`, or with `arguments` that are no map) is written with `id: null`
/// (`name: ""`, no `arguments`), as the redacted form writes it, instead of
/// a snapshot that fails its own validation.
fn slim_tool_call(c: &Value) -> Value {
    let mut m = match c {
        Value::Object(m) => m.clone(),
        _ => crate::json::Map::new(),
    };
    if !m.get("id").is_some_and(|v| v.is_string() || v.is_null()) {
        m.insert("id", Value::Null);
    }
    if !m.get("name").is_some_and(Value::is_string) {
        m.insert("name", Value::from(""));
    }
    let is_map = |v: &Value| v.is_object() || matches!(v, Value::Array(a) if a.is_empty());
    if m.get("arguments").is_some_and(|v| !is_map(v)) {
        m.remove("arguments");
    }
    Value::Object(m)
}

/// A message as v2 writes it (`id`, `createdAt`, `role`, `content`,
/// `tool_calls`, `tool_result`, `_metadata`), content truncated, tool results
/// omitted and tool-call arguments redacted as `config` says.
fn slim_message(message: &Message, config: &SlimConfig) -> SlimMessage {
    let mut content = message.content.clone();
    if let Value::String(s) = &content {
        if let Some(cut) = truncate(s, config.max_content_length, config.compat) {
            content = Value::String(cut);
        }
    }
    let is_tool = message.role.as_str() == "tool";
    let mut tool_result = message.rest.get("tool_result").cloned();
    if is_tool && !config.include_tool_results {
        content = Value::from(TOOL_RESULT_OMITTED);
        if let Some(Value::Object(m)) = tool_result.as_mut() {
            m.remove("content");
        }
    }
    let tool_calls = match message.rest.get("tool_calls") {
        Some(Value::Array(calls)) => Some(
            calls
                .iter()
                .map(|c| {
                    if config.redact_tool_args {
                        obj([
                            ("id", c.get("id").cloned().unwrap_or(Value::Null)),
                            ("name", c.get("name").cloned().unwrap_or(Value::from(""))),
                        ])
                    } else {
                        slim_tool_call(c)
                    }
                })
                .collect(),
        ),
        _ => None,
    };
    let metadata = match message.rest.get("_metadata") {
        Some(m @ Value::Object(o)) if !o.is_empty() => redact(m),
        _ => Value::Array(Vec::new()),
    };
    SlimMessage {
        id: Some(message.id.clone()),
        created_at: Some(format_atom(&message.created_at)),
        role: message.role.as_str().to_string(),
        content,
        tool_calls,
        tool_result,
        metadata,
    }
}

/// A recorded step's summary, as a v1.22 snapshot writes one, plus its own
/// stop signal. Nothing of the inference response beyond its finish reason,
/// tool calls and usage: never `responseData`.
fn slim_step(number: usize, se: &StepExecution, compat: bool) -> SlimStep {
    let step = &se.step;
    SlimStep {
        step_number: number,
        step_type: step.step_type(),
        has_tool_calls: step.has_tool_calls(),
        finish_reason: step.inference_response.finish_reason(),
        errors: step.error_messages().len(),
        usage: SlimStepUsage {
            total: step.usage().total(),
        },
        // Seed 000 §Proposed Snapshot Schema: the step execution's own
        // `duration` (seconds, from its dates), in milliseconds.
        duration_ms: (!compat).then(|| Some(se.duration() * 1000.0).filter(|ms| *ms >= 0.0)),
        tool_calls: step
            .inference_response
            .tool_calls
            .iter()
            .map(|c| SlimToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
            })
            .collect(),
        stop_signal: Some(se.stop_signal().map_or(Value::Null, |s| s.to_value())),
    }
}

/// [`slim_v2`] within a byte budget, tightened as v1.22 snapshots are
/// ([`crate::snapshot::budget::slim_within`]).
#[inline(never)]
pub fn slim_v2_within(
    state: &AgentState,
    config: &SlimConfig,
    max_bytes: Option<usize>,
) -> Result<Fitted> {
    fit(&|c| slim_v2_snapshot(state, c), config, max_bytes)
}

/// Rebuilds a v2 state from a v2 snapshot to resume the conversation.
///
/// What comes back is what v2 itself holds between two runs: identity,
/// metadata, system prompt, the kept messages (ids and dates as stored) and
/// the execution count, with **no execution** (`execution: null`). A new run
/// on a finished execution starts a fresh one anyway (`forNextExecution()`,
/// item 26), so the past run's steps, status, usage and signals — summaries
/// in the snapshot — have nothing to be restored into. `llmConfig` is not in
/// the snapshot (it holds the API key): the driver writes it again on the
/// first step (item 27).
pub fn restore_v2(snapshot: &Value, now: &Timestamp) -> Result<AgentState> {
    let m = crate::model::read::object(snapshot, "", "the snapshot")?;
    let execution = m.get("execution").and_then(Value::as_object);
    let messages = match m.get("messages") {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, v)| Message::from_value(v, &index("/messages", i), now))
            .collect::<Result<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let id = |v: Option<&Value>, path: &str| -> Result<Option<String>> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(v) => crate::model::v2::uuid_at(v, path).map(Some),
        }
    };
    let agent_id = id(m.get("agent_id"), "/agent_id")?.unwrap_or_else(crate::model::ids::new_id);
    let metadata = match m.get("metadata") {
        None | Some(Value::Null) => Value::Array(Vec::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(Value::Array(a)) if a.is_empty() => Value::Array(Vec::new()),
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "/metadata",
                format!(
                    "expected metadata as an object, found {}",
                    crate::json::type_name(other)
                ),
            ))
        }
    };
    let execution_count = match execution.and_then(|e| e.get("execution_count")) {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_i64().ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidType,
                "/execution/execution_count",
                format!("expected an integer, found {}", crate::json::type_name(v)),
            )
        })?,
    };
    Ok(AgentState {
        agent_id,
        parent_agent_id: id(m.get("parent_agent_id"), "/parent_agent_id")?,
        created_at: time::read_or_now(m.get("created_at"), now, "/created_at")?,
        updated_at: time::read_or_now(
            execution.and_then(|e| e.get("updated_at")),
            now,
            "/execution/updated_at",
        )?,
        context: Context {
            metadata,
            system_prompt: match m.get("system_prompt") {
                Some(Value::String(s)) => s.clone(),
                _ => String::new(),
            },
            response_format: Value::Array(Vec::new()),
            sections: vec![Section {
                name: "messages".into(),
                messages,
            }],
            parameters: Value::Array(Vec::new()),
        },
        llm_config: None,
        execution_count,
        execution: None,
    })
}

/// Flags every credential a snapshot carries (`secret_in_state`, an error),
/// with its path and length, never its value.
pub fn check_secrets(snapshot: &Value, report: &mut Report) {
    for found in crate::secrets::find(snapshot, "") {
        report.errors.push(Issue {
            message: crate::secrets::describe(&found, "the snapshot"),
            path: found.path,
            code: crate::secrets::SECRET_IN_STATE,
        });
    }
}
