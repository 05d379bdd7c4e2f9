//! The v2 `AgentState` (item 18).

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{type_name, Value};
use crate::model::continuation::v2::{ExecutionContinuation, StopSignal};
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::Usage;

use super::execution::{ExecutionState, ExecutionStatus};
use super::message::Context;
use super::step::AgentStep;
use super::{uuid_at, uuid_or_new, Form};

/// The resolved LLM configuration v2 stores in the state, API key included
/// (item 27). Kept only to write the state back; its `Debug` form never shows
/// `apiKey`, so a failing assertion or a log line cannot leak it.
#[derive(Clone, PartialEq)]
pub struct LlmConfig(pub Value);

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<&str> = self
            .0
            .as_object()
            .map(|m| m.keys().map(|k| &**k).collect())
            .unwrap_or_default();
        write!(f, "LlmConfig {{ keys: {keys:?} (values not shown) }}")
    }
}

/// A v2.x agent state.
///
/// ```
/// use stepline::model::v2::AgentState;
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let state = AgentState::from_value(
///     &stepline::json::from_str(r#"{"agentId": "a0000000-0000-4000-8000-000000000001", "execution": null}"#).unwrap(),
///     &now,
/// ).unwrap();
/// assert_eq!(state.status(), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AgentState {
    /// The agent's id (`agentId`).
    pub agent_id: String,
    /// The parent agent's id, for a subagent (`parentAgentId`).
    pub parent_agent_id: Option<String>,
    /// When the state was created (`createdAt`).
    pub created_at: Timestamp,
    /// When it last changed (`updatedAt`).
    pub updated_at: Timestamp,
    /// The conversation and its settings.
    pub context: Context,
    /// The model configuration, when stored (`llmConfig`).
    pub llm_config: Option<LlmConfig>,
    /// How many executions (user queries) the agent ran (`executionCount`).
    pub execution_count: i64,
    /// The current or last execution, if any.
    pub execution: Option<ExecutionState>,
}

impl AgentState {
    /// Reads `AgentState::toArray()` of v2 as `AgentState::fromArray` does:
    /// unknown keys are ignored, missing parts take v2's defaults (generated
    /// uuids, `now` for dates), ids must be uuids, `executionCount` an integer.
    /// A state v2 itself could not restore (a failed tool execution, item 25)
    /// is still read; [`AgentState::check_restorable`] says whether v2 can.
    pub fn from_value(v: &Value, now: &Timestamp) -> Result<AgentState> {
        let m = read::object(v, "", "the agent state")?;
        let context = match m.get("context") {
            None | Some(Value::Null) => Context::empty(),
            Some(c) => Context::from_value(c, "/context", now)?,
        };
        Ok(AgentState {
            agent_id: uuid_or_new(m, "agentId", "")?,
            parent_agent_id: match m.get("parentAgentId") {
                None | Some(Value::Null) => None,
                Some(p) => Some(uuid_at(p, "/parentAgentId")?),
            },
            created_at: time::read_or_now(m.get("createdAt"), now, "/createdAt")?,
            updated_at: time::read_or_now(m.get("updatedAt"), now, "/updatedAt")?,
            context,
            llm_config: match m.get("llmConfig") {
                None | Some(Value::Null) => None,
                Some(c @ Value::Object(_)) => Some(LlmConfig(c.clone())),
                Some(Value::Array(a)) if a.is_empty() => Some(LlmConfig(Value::Array(Vec::new()))),
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        "/llmConfig",
                        format!(
                            "expected llmConfig as an object, found {}",
                            type_name(other)
                        ),
                    ))
                }
            },
            execution_count: match m.get("executionCount") {
                None | Some(Value::Null) => 0,
                Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64().unwrap_or(0),
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        "/executionCount",
                        format!(
                            "expected executionCount as an integer, found {}",
                            type_name(other)
                        ),
                    ))
                }
            },
            execution: match m.get("execution") {
                None | Some(Value::Null) => None,
                Some(e) => Some(ExecutionState::from_value(e, "/execution", now)?),
            },
        })
    }

    /// `toArray()` in the given form ([`Form::Reference`] is v2's own).
    pub fn to_value(&self, form: Form) -> Value {
        crate::json::obj([
            ("agentId", Value::from(self.agent_id.clone())),
            (
                "parentAgentId",
                self.parent_agent_id
                    .clone()
                    .map_or(Value::Null, Value::String),
            ),
            ("createdAt", Value::from(format_atom(&self.created_at))),
            ("updatedAt", Value::from(format_atom(&self.updated_at))),
            ("context", self.context.to_value()),
            (
                "llmConfig",
                self.llm_config
                    .as_ref()
                    .map_or(Value::Null, |c| c.0.clone()),
            ),
            ("executionCount", Value::from(self.execution_count)),
            (
                "execution",
                self.execution
                    .as_ref()
                    .map_or(Value::Null, |e| e.to_value(form)),
            ),
        ])
    }

    /// Fails, with the path of the culprit, when v2's own `fromArray` could not
    /// restore this state (item 25: a failed tool execution's stored error).
    pub fn check_restorable(&self) -> Result<()> {
        let Some(exec) = &self.execution else {
            return Ok(());
        };
        let steps = exec
            .step_executions
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("/execution/stepExecutions/{i}/step"), &s.step))
            .chain(
                exec.current_step
                    .iter()
                    .map(|s| ("/execution/currentStep".to_string(), s)),
            );
        for (path, step) in steps {
            if let Some(at) = step.unrestorable_at(&path) {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    &at,
                    "instructor-php v2.7 cannot restore a state holding a failed tool execution (its ToolExecutionException is rebuilt with too few arguments)",
                ));
            }
        }
        Ok(())
    }

    /// The execution's status; `None` between executions.
    pub fn status(&self) -> Option<ExecutionStatus> {
        self.execution.as_ref().map(|e| e.status)
    }

    /// Recorded steps (the current run's only: a new run starts a fresh execution).
    pub fn steps(&self) -> impl Iterator<Item = &AgentStep> {
        self.execution
            .iter()
            .flat_map(|e| e.step_executions.iter().map(|s| &s.step))
    }

    /// Recorded steps plus the current one, if any (`stepCount()`, what
    /// `StepsLimitHook` compares).
    pub fn step_count(&self) -> usize {
        self.execution
            .as_ref()
            .map_or(0, ExecutionState::step_count)
    }

    /// `withCurrentStepCompleted()`: the current step, if any, is recorded
    /// with the execution's continuation (its request to continue cleared,
    /// as on the execution), started when the step started (else `now`) and
    /// completed `now`.
    pub fn with_current_step_completed(&self, now: &Timestamp) -> AgentState {
        let mut out = self.clone();
        if let Some(exec) = out.execution.as_mut() {
            if let Some(step) = exec.current_step.take() {
                exec.continuation = exec.continuation.with_continuation_requested(false);
                exec.step_executions.push(super::execution::StepExecution {
                    id: step.id.clone(),
                    step,
                    continuation: exec.continuation.clone(),
                    started_at: exec.current_step_started_at.take().unwrap_or(*now),
                    completed_at: *now,
                });
            }
        }
        out
    }

    /// `withExecutionCompleted()`: the execution ends `now` with its final
    /// status ([`crate::model::continuation::v2::status::final_status`]). Without an
    /// execution a fresh one is started and completed.
    pub fn with_execution_completed(&self, now: &Timestamp) -> AgentState {
        let mut out = self.clone();
        let signal = self.stop_signal().cloned();
        let has_errors = self.steps().any(AgentStep::has_errors)
            || self
                .execution
                .as_ref()
                .and_then(|e| e.current_step.as_ref())
                .is_some_and(AgentStep::has_errors);
        let exec = out
            .execution
            .get_or_insert_with(|| ExecutionState::fresh(now));
        exec.status = crate::model::continuation::v2::status::final_status(
            exec.status,
            has_errors,
            signal.as_ref(),
        );
        exec.completed_at = Some(*now);
        out
    }

    /// A copy with `signal` added to the execution's continuation (what a
    /// guard hook does when it trips).
    /// Without an execution one is started `now`.
    pub fn with_stop_signal(&self, signal: StopSignal, now: &Timestamp) -> AgentState {
        let mut out = self.clone();
        let exec = out
            .execution
            .get_or_insert_with(|| ExecutionState::fresh(now));
        exec.continuation = exec.continuation.with_new_stop_signal(signal);
        out
    }

    /// The step the state is on: the current one, else the last recorded.
    pub fn last_step(&self) -> Option<&AgentStep> {
        self.execution.as_ref().and_then(ExecutionState::last_step)
    }

    /// The winning stop signal: the last step's against the execution's, the
    /// step's kept on a tie (item 29).
    pub fn stop_signal(&self) -> Option<&StopSignal> {
        let exec = self.execution.as_ref()?;
        let step = exec.step_executions.last().and_then(|s| s.stop_signal());
        match (step, exec.continuation.stop_signal()) {
            (Some(s), Some(e)) => Some(s.higher(e)),
            (s, e) => s.or(e),
        }
    }

    /// The execution's continuation (an empty one without an execution).
    pub fn execution_continuation(&self) -> ExecutionContinuation {
        self.execution
            .as_ref()
            .map(|e| e.continuation.clone())
            .unwrap_or_default()
    }

    /// True without an execution, else `ExecutionState::shouldStop()`.
    pub fn should_stop(&self) -> bool {
        self.execution
            .as_ref()
            .is_none_or(ExecutionState::should_stop)
    }

    /// Usage of every recorded step plus the current one (item 26).
    pub fn usage(&self) -> Usage {
        self.execution
            .as_ref()
            .map_or_else(Usage::default, ExecutionState::usage)
    }

    /// The answer: the last step's output text when it is a final response
    /// with non-blank text, else empty (item 28).
    pub fn final_response(&self) -> String {
        match self.last_step() {
            Some(s) if s.step_type() == crate::model::StepType::FinalResponse => {
                let text = s.output_text();
                if text.trim().is_empty() {
                    String::new()
                } else {
                    text
                }
            }
            _ => String::new(),
        }
    }

    /// The last step's output text, whatever its type.
    pub fn current_response(&self) -> String {
        self.last_step()
            .map(AgentStep::output_text)
            .unwrap_or_default()
    }
}
