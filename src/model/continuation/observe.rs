//! What the criteria look at, read once from a state.

use crate::json::{Number, Value};

use crate::model::continuation::error_policy::ErrorContext;
use crate::model::state::AgentState;
use crate::model::step::AgentStep;
use crate::model::time::Timestamp;

/// Where execution-time limits measure from, and what said so.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeOrigin {
    /// The instant.
    pub at: Timestamp,
    /// What it was read from.
    pub from: OriginSource,
}

/// What a [`TimeOrigin`] was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OriginSource {
    /// The caller's `executionStartedAt` option.
    Option,
    /// The state's own `executionStartedAt`.
    ExecutionStartedAt,
    /// The start of the latest execution's first step (its recorded start,
    /// else its creation): the execution the state holds.
    FirstStep,
    /// The session's `stateInfo.startedAt`.
    SessionStart,
}

impl TimeOrigin {
    /// Where the producer's `ExecutionTimeLimit` measures from on a stored
    /// state. `given` is the caller's option, else the state's own
    /// `executionStartedAt` (`from_state` says which). Without either, a
    /// v1.22 state measures from the session's start (v1.22 quirk 3: a
    /// restored state has no `executionStartedAt`, so a multi-turn session
    /// stops every later execution at its first step). Seed 004
    /// (docs/seeds/004-remaining-prm-issues.md, "Reset executionStartedAt at
    /// Execution Entry Point") measures from the execution's own start: a
    /// v1.22 state holds the latest execution's steps, so that is its first
    /// step's start. `compat` keeps the producer's rule.
    pub fn of(
        state: &AgentState,
        given: Option<(Timestamp, OriginSource)>,
        compat: bool,
    ) -> TimeOrigin {
        if let Some((at, from)) = given {
            return TimeOrigin { at, from };
        }
        let session = TimeOrigin {
            at: state.state_info.started_at,
            from: OriginSource::SessionStart,
        };
        // A step's recorded start (seed 001's step results) is the
        // execution's own clock in either mode; v1.22 states store none.
        let recorded = state.step_results.first().and_then(|r| r.started_at);
        let created = || {
            state
                .steps
                .first()
                .or(state.current_step.as_ref())
                .map(|s| s.info.created_at)
        };
        let first = if compat {
            recorded
        } else {
            recorded.or_else(created)
        };
        first.map_or(session, |at| TimeOrigin {
            at,
            from: OriginSource::FirstStep,
        })
    }

    /// The origin as results show it.
    pub fn view(&self) -> TimeOriginView {
        TimeOriginView {
            at: crate::model::time::format_atom(&self.at),
            from: self.from,
        }
    }
}

/// Where execution-time limits measured from (`timeOrigin` of a continuation result).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimeOriginView {
    /// The instant (ISO 8601).
    pub at: String,
    /// `option` (the caller's `executionStartedAt`), `execution_started_at`
    /// (the state's own), `first_step` (the latest execution's first step:
    /// the default when the state has no `executionStartedAt`, seed 004) or
    /// `session_start` (the producer's fallback: with `compat: true`, or a
    /// state without steps).
    pub from: OriginSource,
}

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
    /// Execution seconds accumulated across pauses and resumes, as the
    /// time resolver returned them: an integer stays one. The producer's
    /// resolver result goes into the evaluation's context unconverted
    /// (v1.22 `CumulativeExecutionTimeLimit::evaluate` puts
    /// `$cumulativeSeconds` there as returned, and `json_encode` writes an
    /// int `600` as `600`); a state's own total is always a float
    /// (`StateInfo`'s property is typed `float`).
    pub cumulative_seconds: Number,
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
            cumulative_seconds: float(0.0),
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
            cumulative_seconds: float(run.cumulative_seconds),
            current_step_has_errors: current.is_some_and(|s| s.has_errors()),
            finish_reason: current.map(|s| Value::String(s.finish_reason().as_str().into())),
            steps_have_errors: run.steps.iter().map(|s| s.has_errors()).collect(),
            response: current.map(|s| s.inference_response.content.clone()),
            has_tool_calls: run.steps.is_empty() || current.is_some_and(|s| s.has_tool_calls()),
            error_context: ErrorContext::from_steps(run.steps, current),
        }
    }
}

/// A float the producer computed (NaN and infinities, which no JSON number
/// holds, read as `0.0`: a state's seconds come from JSON and sums of them).
fn float(x: f64) -> Number {
    let finite = if x.is_finite() { x } else { 0.0 };
    // `finite` is finite: the integer fallback is never taken.
    Number::from_f64(finite).unwrap_or(Number::from(0u8))
}
