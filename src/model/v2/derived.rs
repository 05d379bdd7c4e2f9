//! The values a reader derives from a v2 state, under the names the producer's
//! accessors have (`status`, `stepCount`, `stopReason`, `usage`, …): what
//! `parseAgentState` shows beside the state, and what the vectors' `derived`
//! records.

use crate::json::{Map, Value};
use crate::model::time::{format_atom, Timestamp};

use super::execution::StepExecution;
use super::state::AgentState;
use super::step::AgentStep;
use super::Form;

fn opt_str(s: Option<&str>) -> Value {
    s.map_or(Value::Null, Value::from)
}

/// A step's derived values (`stepType`, `finishReason`, counts, usage, signal).
pub fn step_summary(se: &StepExecution) -> Value {
    let s = &se.step;
    crate::json::obj([
        ("stepType", Value::from(s.step_type().as_str())),
        (
            "finishReason",
            Value::from(s.inference_response.finish_reason().as_str()),
        ),
        ("hasToolCalls", Value::from(s.has_tool_calls())),
        (
            "toolCalls",
            Value::from(s.inference_response.tool_calls.len() as i64),
        ),
        (
            "toolExecutions",
            Value::from(s.tool_executions.len() as i64),
        ),
        ("errors", Value::from(s.error_messages().len() as i64)),
        ("errorsAsString", Value::from(s.error_messages().join("\n"))),
        ("usage", s.usage().to_value()),
        (
            "stopSignal",
            se.stop_signal().map_or(Value::Null, |sig| sig.to_value()),
        ),
    ])
}

/// Every derived value of a state. `now` ends a running execution's duration;
/// `form` is how `lastToolExecution` is written (the producer's accessor gives
/// its `toArray()`, [`Form::Reference`]).
pub fn derived(state: &AgentState, now: &Timestamp, form: Form) -> Value {
    let exec = state.execution.as_ref();
    let signal = state.stop_signal();
    let continuation = state.execution_continuation();
    let errors: Vec<String> = state.steps().flat_map(AgentStep::error_messages).collect();
    let last = exec.and_then(|e| e.step_executions.last());
    let messages = state.context.messages();
    let final_response = state.final_response();
    let usage = state.usage();
    let status = opt_str(state.status().map(|s| s.as_str()));
    let has_errors = state.steps().any(AgentStep::has_errors);
    let mut m = Map::new();
    m.insert("status", status.clone());
    m.insert("executionCount", Value::from(state.execution_count));
    m.insert("stepCount", Value::from(state.step_count() as i64));
    m.insert("stopReason", opt_str(signal.map(|s| s.reason.as_str())));
    m.insert(
        "stopSource",
        opt_str(signal.and_then(|s| s.source.as_deref())),
    );
    m.insert("stopSignal", signal.map_or(Value::Null, |s| s.to_value()));
    m.insert("shouldStop", Value::from(state.should_stop()));
    m.insert("executionContinuation", continuation.to_value());
    m.insert("explain", Value::from(continuation.explain()));
    m.insert(
        "hasErrors",
        exec.map_or(Value::Null, |_| Value::from(has_errors)),
    );
    m.insert("errors", Value::from(errors.join("\n")));
    m.insert("usage", usage.to_value());
    m.insert("hasFinalResponse", Value::from(!final_response.is_empty()));
    m.insert("finalResponse", Value::from(final_response));
    m.insert("currentResponse", Value::from(state.current_response()));
    m.insert(
        "lastStepType",
        opt_str(state.last_step().map(|s| s.step_type().as_str())),
    );
    m.insert("messageCount", Value::from(messages.len() as i64));
    m.insert(
        "steps",
        Value::Array(
            exec.map(|e| e.step_executions.iter().map(step_summary).collect())
                .unwrap_or_default(),
        ),
    );
    m.insert("agentId", Value::from(state.agent_id.clone()));
    m.insert("parentAgentId", opt_str(state.parent_agent_id.as_deref()));
    m.insert("createdAt", Value::from(format_atom(&state.created_at)));
    m.insert("updatedAt", Value::from(format_atom(&state.updated_at)));
    m.insert("hasExecution", Value::from(exec.is_some()));
    m.insert(
        "hasCurrentStep",
        Value::from(exec.is_some_and(|e| e.current_step.is_some())),
    );
    m.insert(
        "executionId",
        opt_str(exec.map(|e| e.execution_id.as_str())),
    );
    m.insert(
        "executionDuration",
        exec.map_or(Value::Null, |e| Value::from(e.duration(now))),
    );
    m.insert(
        "stepsDuration",
        exec.map_or(Value::Null, |e| {
            Value::from(
                e.step_executions
                    .iter()
                    .map(StepExecution::duration)
                    .sum::<f64>(),
            )
        }),
    );
    m.insert(
        "lastStepDuration",
        last.map_or(Value::Null, |s| Value::from(s.duration())),
    );
    m.insert(
        "lastStepUsage",
        last.map(|s| s.step.usage()).unwrap_or_default().to_value(),
    );
    m.insert(
        "lastStepStartedAt",
        last.map_or(Value::Null, |s| Value::from(format_atom(&s.started_at))),
    );
    m.insert(
        "lastStepCompletedAt",
        last.map_or(Value::Null, |s| Value::from(format_atom(&s.completed_at))),
    );
    m.insert(
        "lastToolExecution",
        last.and_then(|s| s.step.tool_executions.last())
            .map_or(Value::Null, |t| t.to_value(form)),
    );
    m.insert(
        "systemPrompt",
        Value::from(state.context.system_prompt.clone()),
    );
    m.insert("metadata", state.context.metadata.clone());
    m.insert(
        "messageRoles",
        Value::Array(
            messages
                .iter()
                .map(|m| Value::from(m.role.as_str()))
                .collect(),
        ),
    );
    m.insert(
        "debug",
        crate::json::obj([
            ("status", status),
            ("executionCount", Value::from(state.execution_count)),
            ("hasExecution", Value::from(exec.is_some())),
            (
                "executionId",
                opt_str(exec.map(|e| e.execution_id.as_str())),
            ),
            ("steps", Value::from(state.step_count() as i64)),
            ("continuation", Value::from(continuation.explain())),
            ("hasErrors", Value::from(has_errors)),
            ("errorCount", Value::from(errors.len() as i64)),
            ("usage", usage.to_value()),
        ]),
    );
    // Derived values are shown and logged: no credential (a key an
    // application put in metadata) goes out with them.
    crate::lint::secrets::redact(&Value::Object(m))
}
