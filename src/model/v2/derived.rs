//! The values a reader derives from a v2 state, under the names the producer's
//! accessors have (`status`, `stepCount`, `stopReason`, `usage`, …): what
//! `parseAgentState` shows beside the state, and what the vectors' `derived`
//! records.

use serde::Serialize;

use crate::json::Value;
use crate::model::continuation::v2::{ExecutionContinuation, StopReason, StopSignal};
use crate::model::shape::atom;
use crate::model::time::Timestamp;
use crate::model::{Role, StepType, Usage};

use super::execution::{ExecutionStatus, StepExecution};
use super::state::AgentState;
use super::step::AgentStep;
use super::Form;

/// A recorded v2 step, summarised.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "StepSummaryV2"))]
#[serde(rename_all = "camelCase")]
pub struct StepSummary<'a> {
    /// What kind of step it was.
    pub step_type: StepType,
    /// The inference's finish reason, normalised.
    pub finish_reason: crate::model::FinishReason,
    /// The step has tool calls (`hasToolCalls()`).
    pub has_tool_calls: bool,
    /// Tool calls the model asked for.
    pub tool_calls: usize,
    /// Tool runs.
    pub tool_executions: usize,
    /// Error messages.
    pub errors: usize,
    /// The error messages joined by newlines (`errorsAsString()`).
    pub errors_as_string: String,
    /// The step's token usage.
    pub usage: Usage,
    /// The stop signal recorded with the step, if any.
    pub stop_signal: Option<&'a StopSignal>,
}

/// What a v2 state's accessors give, under their names.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "AgentStateV2Derived"))]
#[serde(rename_all = "camelCase")]
pub struct Derived<'a> {
    /// The execution's status; `null` between executions.
    pub status: Option<ExecutionStatus>,
    /// Executions run so far.
    pub execution_count: i64,
    /// Recorded steps plus the current one.
    pub step_count: usize,
    /// The winning stop signal's reason.
    pub stop_reason: Option<StopReason>,
    /// Who raised the winning stop signal.
    pub stop_source: Option<&'a str>,
    /// The winning stop signal.
    pub stop_signal: Option<&'a StopSignal>,
    /// The run should stop (`shouldStop()`).
    pub should_stop: bool,
    /// The execution's continuation.
    pub execution_continuation: ExecutionContinuation,
    /// The continuation explained (`explain()`).
    pub explain: String,
    /// Any step has errors; `null` without an execution.
    pub has_errors: Option<bool>,
    /// Every step's error messages, joined by newlines.
    pub errors: String,
    /// Token usage over the execution.
    pub usage: Usage,
    /// There is a final response.
    pub has_final_response: bool,
    /// The final response's text.
    pub final_response: String,
    /// The current response's text.
    pub current_response: String,
    /// The last step's type.
    pub last_step_type: Option<StepType>,
    /// Messages in the context.
    pub message_count: usize,
    /// Every recorded step, summarised.
    pub steps: Vec<StepSummary<'a>>,
    /// The agent's id.
    pub agent_id: &'a str,
    /// The parent agent's id, for a subagent.
    pub parent_agent_id: Option<&'a str>,
    /// When the state was created (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub created_at: &'a Timestamp,
    /// When it was last updated (ATOM).
    #[serde(serialize_with = "atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub updated_at: &'a Timestamp,
    /// There is an execution.
    pub has_execution: bool,
    /// The execution has a current step.
    pub has_current_step: bool,
    /// The execution's id.
    pub execution_id: Option<&'a str>,
    /// The execution's duration in seconds (a running one's up to `now`).
    pub execution_duration: Option<f64>,
    /// The recorded steps' durations summed, in seconds.
    pub steps_duration: Option<f64>,
    /// The last recorded step's duration, in seconds.
    pub last_step_duration: Option<f64>,
    /// The last recorded step's token usage.
    pub last_step_usage: Usage,
    /// When the last recorded step started (ATOM).
    pub last_step_started_at: Option<String>,
    /// When it completed (ATOM).
    pub last_step_completed_at: Option<String>,
    /// The last recorded step's last tool run (its `toArray()`).
    #[cfg_attr(feature = "schema", schemars(schema_with = "object_or_null"))]
    pub last_tool_execution: Option<Value>,
    /// The context's system prompt.
    pub system_prompt: &'a str,
    /// The context's metadata (`[]` when empty).
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::php_map")
    )]
    pub metadata: &'a Value,
    /// The context's message roles, in order.
    pub message_roles: Vec<Role>,
    /// What the producer's debug accessor gives.
    pub debug: DerivedDebug,
}

/// What a v2 state's `debug()` gives.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "AgentStateV2Debug"))]
#[serde(rename_all = "camelCase")]
pub struct DerivedDebug {
    /// The execution's status; `null` between executions.
    pub status: Option<ExecutionStatus>,
    /// Executions run so far.
    pub execution_count: i64,
    /// There is an execution.
    pub has_execution: bool,
    /// The execution's id.
    pub execution_id: Option<String>,
    /// Recorded steps plus the current one.
    pub steps: usize,
    /// The continuation explained.
    pub continuation: String,
    /// Any step has errors.
    pub has_errors: bool,
    /// How many error messages the steps hold.
    pub error_count: usize,
    /// Token usage over the execution.
    pub usage: Usage,
}

/// Schema of an object or `null`.
#[cfg(feature = "schema")]
fn object_or_null(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [{ "type": "object", "additionalProperties": true }, { "type": "null" }]
    })
}

/// A step's derived values (`stepType`, `finishReason`, counts, usage, signal).
pub fn step_summary(se: &StepExecution) -> StepSummary<'_> {
    let s = &se.step;
    StepSummary {
        step_type: s.step_type(),
        finish_reason: s.inference_response.finish_reason(),
        has_tool_calls: s.has_tool_calls(),
        tool_calls: s.inference_response.tool_calls.len(),
        tool_executions: s.tool_executions.len(),
        errors: s.error_messages().len(),
        errors_as_string: s.error_messages().join("\n"),
        usage: s.usage(),
        stop_signal: se.stop_signal(),
    }
}

/// Every derived value of a state. `now` ends a running execution's duration;
/// `form` is how `lastToolExecution` is written (the producer's accessor gives
/// its `toArray()`, [`Form::Reference`]).
pub fn derived_view<'a>(state: &'a AgentState, now: &Timestamp, form: Form) -> Derived<'a> {
    let exec = state.execution.as_ref();
    let signal = state.stop_signal();
    let continuation = state.execution_continuation();
    let errors: Vec<String> = state.steps().flat_map(AgentStep::error_messages).collect();
    let last = exec.and_then(|e| e.step_executions.last());
    let messages = state.context.messages();
    let final_response = state.final_response();
    let usage = state.usage();
    let has_errors = state.steps().any(AgentStep::has_errors);
    let explain = continuation.explain();
    let execution_id = exec.map(|e| e.execution_id.as_str());
    Derived {
        status: state.status(),
        execution_count: state.execution_count,
        step_count: state.step_count(),
        stop_reason: signal.map(|s| s.reason),
        stop_source: signal.and_then(|s| s.source.as_deref()),
        stop_signal: signal,
        should_stop: state.should_stop(),
        execution_continuation: continuation,
        explain: explain.clone(),
        has_errors: exec.map(|_| has_errors),
        errors: errors.join("\n"),
        usage,
        has_final_response: !final_response.is_empty(),
        final_response,
        current_response: state.current_response(),
        // `lastStepType()` reads the last completed step only
        // (`packages/agents/src/Data/AgentState.php`, `lastStepType` and
        // `lastStepExecution`): a step in progress is not one.
        last_step_type: last.map(|s| s.step.step_type()),
        message_count: messages.len(),
        steps: exec
            .map(|e| e.step_executions.iter().map(step_summary).collect())
            .unwrap_or_default(),
        agent_id: &state.agent_id,
        parent_agent_id: state.parent_agent_id.as_deref(),
        created_at: &state.created_at,
        updated_at: &state.updated_at,
        has_execution: exec.is_some(),
        has_current_step: exec.is_some_and(|e| e.current_step.is_some()),
        execution_id,
        execution_duration: exec.map(|e| e.duration(now)),
        steps_duration: exec.map(|e| {
            e.step_executions
                .iter()
                .map(StepExecution::duration)
                .sum::<f64>()
        }),
        last_step_duration: last.map(StepExecution::duration),
        last_step_usage: last.map(|s| s.step.usage()).unwrap_or_default(),
        last_step_started_at: last.map(|s| crate::model::time::format_atom(&s.started_at)),
        last_step_completed_at: last.map(|s| crate::model::time::format_atom(&s.completed_at)),
        last_tool_execution: last
            .and_then(|s| s.step.tool_executions.last())
            .map(|t| t.to_value(form)),
        system_prompt: &state.context.system_prompt,
        metadata: &state.context.metadata,
        message_roles: messages.iter().map(|m| m.role).collect(),
        debug: DerivedDebug {
            status: state.status(),
            execution_count: state.execution_count,
            has_execution: exec.is_some(),
            execution_id: execution_id.map(String::from),
            steps: state.step_count(),
            continuation: explain,
            has_errors,
            error_count: errors.len(),
            usage,
        },
    }
}

/// [`derived_view`] as a JSON value. Derived values are shown and logged: no
/// credential (a key an application put in metadata) goes out with them.
pub fn derived(state: &AgentState, now: &Timestamp, form: Form) -> Value {
    crate::secrets::redact(&crate::json::to_value_of(&derived_view(state, now, form)))
}
