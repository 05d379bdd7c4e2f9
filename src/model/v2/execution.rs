//! The current execution of a v2 state: `{executionId, status, startedAt,
//! completedAt, stepExecutions, continuation, currentStepStartedAt, currentStep}`.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Value};
use crate::model::continuation::v2::{ExecutionContinuation, StopSignal};
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::tool_execution::millis_between;

use super::step::AgentStep;
use super::{list, uuid_or_new, Form};

/// The status of a v2 execution: `pending` (status missing), `in_progress`,
/// `completed`, `stopped`, `failed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ExecutionStatusV2"))]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// `pending`: stored without a status.
    Pending,
    /// `in_progress`.
    InProgress,
    /// `completed`.
    Completed,
    /// `stopped`: the final status after `completed` or a stop signal.
    Stopped,
    /// `failed`.
    Failed,
}

impl ExecutionStatus {
    /// Every status, in the producer's declaration order.
    pub const ALL: [ExecutionStatus; 5] = [
        ExecutionStatus::Pending,
        ExecutionStatus::InProgress,
        ExecutionStatus::Completed,
        ExecutionStatus::Stopped,
        ExecutionStatus::Failed,
    ];

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            ExecutionStatus::Pending => "pending",
            ExecutionStatus::InProgress => "in_progress",
            ExecutionStatus::Completed => "completed",
            ExecutionStatus::Stopped => "stopped",
            ExecutionStatus::Failed => "failed",
        }
    }

    /// A stored status; missing or null is `pending`, anything unknown an error.
    pub fn from_value(v: Option<&Value>, path: &str) -> Result<ExecutionStatus> {
        match v {
            None | Some(Value::Null) => Ok(ExecutionStatus::Pending),
            Some(Value::String(s)) => ExecutionStatus::ALL
                .into_iter()
                .find(|st| st.as_str() == s)
                .ok_or_else(|| {
                    SteplineError::at(
                        ErrorCode::InvalidValue,
                        path,
                        format!(
                            "expected an execution status (pending, in_progress, completed, stopped, failed), found {}",
                            crate::json::quote(s)
                        ),
                    )
                }),
            Some(other) => Err(SteplineError::at(
                ErrorCode::InvalidType,
                path,
                format!("expected the status as a string, found {}", type_name(other)),
            )),
        }
    }
}

/// Seconds from `a` to `b`, fractions included.
pub fn seconds_between(a: &Timestamp, b: &Timestamp) -> f64 {
    millis_between(a, b) / 1000.0
}

/// A recorded step with its continuation and timing.
#[derive(Clone, Debug, PartialEq)]
pub struct StepExecution {
    /// The step execution's id.
    pub id: String,
    /// The step.
    pub step: AgentStep,
    /// The stop signals raised at this step.
    pub continuation: ExecutionContinuation,
    /// When the step began (`startedAt`).
    pub started_at: Timestamp,
    /// When it finished (`completedAt`).
    pub completed_at: Timestamp,
}

impl StepExecution {
    /// Reads a step execution; a missing id is the step's. The stored
    /// `duration` is not read: it is recomputed from the dates (with their
    /// fractions), as v2 does.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<StepExecution> {
        let m = read::object(v, path, "a step execution")?;
        let step_path = child(path, "step");
        let step = match m.get("step") {
            Some(s) if !s.is_null() => AgentStep::from_value(s, &step_path, now)?,
            _ => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &step_path,
                    "expected the step of this step execution",
                ))
            }
        };
        let id = match m.get("id") {
            None | Some(Value::Null) => step.id.clone(),
            Some(_) => uuid_or_new(m, "id", path)?,
        };
        Ok(StepExecution {
            id,
            step,
            continuation: continuation(m.get("continuation"), &child(path, "continuation"))?,
            started_at: time::read_or_now(m.get("startedAt"), now, &child(path, "startedAt"))?,
            completed_at: time::read_or_now(
                m.get("completedAt"),
                now,
                &child(path, "completedAt"),
            )?,
        })
    }

    /// The stored form, with keys as `form` says (v2 writes camelCase or snake_case).
    pub fn to_value(&self, form: Form) -> Value {
        crate::json::obj([
            ("id", Value::from(self.id.clone())),
            ("step", self.step.to_value(form)),
            ("continuation", self.continuation.to_value()),
            ("startedAt", Value::from(format_atom(&self.started_at))),
            ("completedAt", Value::from(format_atom(&self.completed_at))),
            ("duration", Value::from(self.duration())),
        ])
    }

    /// Seconds the step took, fractions included.
    pub fn duration(&self) -> f64 {
        seconds_between(&self.started_at, &self.completed_at)
    }

    /// The step's highest-priority stop signal.
    pub fn stop_signal(&self) -> Option<&StopSignal> {
        self.continuation.stop_signal()
    }
}

fn continuation(v: Option<&Value>, path: &str) -> Result<ExecutionContinuation> {
    match v {
        None | Some(Value::Null) => Ok(ExecutionContinuation::default()),
        Some(c) => ExecutionContinuation::from_value(c, path),
    }
}

/// The execution of one user query.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutionState {
    /// The execution's id (`executionId`).
    pub execution_id: String,
    /// Where the execution stands.
    pub status: ExecutionStatus,
    /// When it started (`startedAt`).
    pub started_at: Timestamp,
    /// When it ended, once it has (`completedAt`).
    pub completed_at: Option<Timestamp>,
    /// Every recorded step, in order (`stepExecutions`).
    pub step_executions: Vec<StepExecution>,
    /// The execution's stop signals.
    pub continuation: ExecutionContinuation,
    /// When the current step began (`currentStepStartedAt`).
    pub current_step_started_at: Option<Timestamp>,
    /// The step in progress, if any (`currentStep`).
    pub current_step: Option<AgentStep>,
}

impl ExecutionState {
    /// A new execution (`pending`, started `now`, fresh uuid).
    pub fn fresh(now: &Timestamp) -> ExecutionState {
        ExecutionState {
            execution_id: crate::model::ids::new_id(),
            status: ExecutionStatus::Pending,
            started_at: *now,
            completed_at: None,
            step_executions: Vec::new(),
            continuation: ExecutionContinuation::default(),
            current_step_started_at: None,
            current_step: None,
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<ExecutionState> {
        let m = read::object(v, path, "the execution")?;
        // `makeDateTime` gives its default (null here) for an empty string
        // (`packages/agents/src/Data/ExecutionState.php`, `makeDateTime`),
        // where a date parser would read `''` as now.
        let opt_time = |k: &str| -> Result<Option<Timestamp>> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.is_empty() => Ok(None),
                Some(t) => time::read(t, now, &child(path, k)).map(Some),
            }
        };
        let current_step = match m.get("currentStep") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) if a.is_empty() => None,
            Some(s) => Some(AgentStep::from_value(s, &child(path, "currentStep"), now)?),
        };
        Ok(ExecutionState {
            execution_id: uuid_or_new(m, "executionId", path)?,
            status: ExecutionStatus::from_value(m.get("status"), &child(path, "status"))?,
            started_at: time::read_or_now(m.get("startedAt"), now, &child(path, "startedAt"))?,
            completed_at: opt_time("completedAt")?,
            step_executions: list(m, "stepExecutions", path, |v, p| {
                StepExecution::from_value(v, p, now)
            })?,
            continuation: continuation(m.get("continuation"), &child(path, "continuation"))?,
            current_step_started_at: opt_time("currentStepStartedAt")?,
            current_step,
        })
    }

    /// The stored form, with keys as `form` says (v2 writes camelCase or snake_case).
    pub fn to_value(&self, form: Form) -> Value {
        let atom = |t: &Option<Timestamp>| {
            t.as_ref()
                .map_or(Value::Null, |t| Value::from(format_atom(t)))
        };
        crate::json::obj([
            ("executionId", Value::from(self.execution_id.clone())),
            ("status", Value::from(self.status.as_str())),
            ("startedAt", Value::from(format_atom(&self.started_at))),
            ("completedAt", atom(&self.completed_at)),
            (
                "stepExecutions",
                Value::Array(
                    self.step_executions
                        .iter()
                        .map(|s| s.to_value(form))
                        .collect(),
                ),
            ),
            ("continuation", self.continuation.to_value()),
            ("currentStepStartedAt", atom(&self.current_step_started_at)),
            (
                "currentStep",
                self.current_step
                    .as_ref()
                    .map_or(Value::Null, |s| s.to_value(form)),
            ),
        ])
    }

    /// The step the loop is on: the current one, else the last recorded.
    pub fn last_step(&self) -> Option<&AgentStep> {
        self.current_step
            .as_ref()
            .or_else(|| self.step_executions.last().map(|s| &s.step))
    }

    /// `ExecutionState::shouldStop()` (item 30): a stop signal and no request
    /// to continue stops; else a request to continue, or a current (not yet
    /// recorded) step that asked for tools, continues; else it stops. A state
    /// yielded between steps has no current step, so it reads as stopping.
    pub fn should_stop(&self) -> bool {
        if self.continuation.should_stop() {
            return true;
        }
        if self.continuation.is_continuation_requested {
            return false;
        }
        !self
            .current_step
            .as_ref()
            .is_some_and(AgentStep::has_tool_calls)
    }

    /// `ExecutionState::usage()`: the recorded steps' usage plus the
    /// current step's (saturating; v2 has no "unrealistic tokens" refusal).
    pub fn usage(&self) -> crate::model::Usage {
        self.step_executions
            .iter()
            .map(|s| &s.step)
            .chain(self.current_step.as_ref())
            .fold(crate::model::Usage::default(), |acc, s| {
                acc.saturating_add(&s.usage())
            })
    }

    /// Recorded steps plus the current one (`ExecutionState::stepCount()`).
    pub fn step_count(&self) -> usize {
        self.step_executions.len() + usize::from(self.current_step.is_some())
    }

    /// The execution's duration: to its completion, or to `now` while running.
    pub fn duration(&self, now: &Timestamp) -> f64 {
        seconds_between(&self.started_at, self.completed_at.as_ref().unwrap_or(now))
    }
}
