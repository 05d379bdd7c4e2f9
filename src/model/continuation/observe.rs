//! What the criteria look at, read once from a state.

use crate::json::Value;

use crate::model::continuation::error_policy::ErrorContext;
use crate::model::state::AgentState;
use crate::model::step::AgentStep;
use crate::model::time::Timestamp;

/// A run in parts: the recorded steps, the current step, and the totals so far.
pub struct RunFacts<'a> {
    /// The recorded steps up to and including the current one.
    pub steps: &'a [AgentStep],
    /// The step being decided on, if any.
    pub current: Option<&'a AgentStep>,
    /// Token usage accumulated so far.
    pub usage_total: i64,
    /// Execution seconds accumulated across pauses and resumes.
    pub cumulative_seconds: f64,
    /// `executionStartedAt`, or the session start when it is unknown.
    pub time_origin: Timestamp,
}

/// The facts criteria decide on. Built from a state by [`Observation::from_state`],
/// or directly (tests, what-if tools) when only some facts matter.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// The instant time limits are measured at.
    pub now: Timestamp,
    /// Steps taken so far.
    pub step_count: i64,
    /// The state's accumulated token usage total.
    pub usage_total: i64,
    /// Where ExecutionTimeLimit measures from: `executionStartedAt`, falling back
    /// to the session's `startedAt` as the producer does.
    pub time_origin: Timestamp,
    /// Execution seconds accumulated across pauses and resumes.
    pub cumulative_seconds: f64,
    /// Whether the current step has errors.
    pub current_step_has_errors: bool,
    /// The current step's finish reason (normalised), `None` without a current step.
    pub finish_reason: Option<Value>,
    /// Per recorded step, in order: did it have errors?
    pub steps_have_errors: Vec<bool>,
    /// The current step's response text, `None` without a current step.
    pub response: Option<String>,
    /// The agent's tool-call signal: no steps yet, or the current step's stored
    /// tool calls (the producer's `hasToolCalls()`).
    pub has_tool_calls: bool,
    /// The current step's error, for the error policy.
    pub error_context: ErrorContext,
}

impl Observation {
    /// Facts of an empty run at `now`.
    pub fn empty(now: Timestamp) -> Observation {
        Observation {
            now,
            step_count: 0,
            usage_total: 0,
            time_origin: now,
            cumulative_seconds: 0.0,
            current_step_has_errors: false,
            finish_reason: None,
            steps_have_errors: Vec::new(),
            response: None,
            has_tool_calls: true,
            error_context: ErrorContext::none(),
        }
    }

    /// Reads the facts from a state. `execution_started_at` is passed separately
    /// because the state format never restores it (seed 004).
    pub fn from_state(
        state: &AgentState,
        now: Timestamp,
        execution_started_at: Option<Timestamp>,
    ) -> Observation {
        Observation::from_run(
            RunFacts {
                steps: &state.steps,
                current: state.current_step.as_ref(),
                usage_total: state.usage.total(),
                cumulative_seconds: state.state_info.cumulative_execution_seconds,
                time_origin: execution_started_at
                    .or(state.execution_started_at)
                    .unwrap_or(state.state_info.started_at),
            },
            now,
        )
    }

    /// Reads the facts from a run given in parts (used to replay a prefix of a
    /// recorded run without copying the state).
    pub fn from_run(run: RunFacts<'_>, now: Timestamp) -> Observation {
        let current = run.current;
        Observation {
            now,
            step_count: run.steps.len() as i64,
            usage_total: run.usage_total,
            time_origin: run.time_origin,
            cumulative_seconds: run.cumulative_seconds,
            current_step_has_errors: current.is_some_and(|s| s.has_errors()),
            finish_reason: current.map(|s| Value::String(s.finish_reason().as_str().into())),
            steps_have_errors: run.steps.iter().map(|s| s.has_errors()).collect(),
            response: current.map(|s| s.inference_response.content.clone()),
            has_tool_calls: run.steps.is_empty() || current.is_some_and(|s| s.has_tool_calls()),
            error_context: ErrorContext::from_steps(run.steps, current),
        }
    }
}
