//! The whole persisted agent state (the reference's `AgentState::toArray` form).

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name};
use crate::model::cached_context::CachedContext;
use crate::model::continuation::Outcome;
use crate::model::ids::new_id;
use crate::model::info::StateInfo;
use crate::model::message_store::MessageStore;
use crate::model::read;
use crate::model::step::AgentStep;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::tool_execution::millis_between;
use crate::model::usage::Usage;
use crate::php;

/// `in_progress`, `completed` or `failed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// The run is going on.
    InProgress,
    /// The run ended (every stop but an error).
    Completed,
    /// The run ended with an error.
    Failed,
}

impl AgentStatus {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::InProgress => "in_progress",
            AgentStatus::Completed => "completed",
            AgentStatus::Failed => "failed",
        }
    }

    /// Reads the wire value; anything else is an error at `path`.
    pub fn parse(v: &Value, path: &str) -> Result<AgentStatus> {
        match v {
            Value::String(s) if s == "in_progress" => Ok(AgentStatus::InProgress),
            Value::String(s) if s == "completed" => Ok(AgentStatus::Completed),
            Value::String(s) if s == "failed" => Ok(AgentStatus::Failed),
            Value::String(s) => Err(read::invalid(
                ErrorCode::InvalidValue,
                path,
                format!(
                    "expected a status (\"in_progress\", \"completed\" or \"failed\"), found {}",
                    crate::json::quote(s)
                ),
            )),
            other => Err(read::invalid(
                ErrorCode::InvalidType,
                path,
                format!(
                    "expected the status as a string, found {}",
                    type_name(other)
                ),
            )),
        }
    }
}

/// A step with the continuation outcome that followed it (seed 001's aggregate).
/// `started_at`/`completed_at` are read when present (seed 001 format); the
/// v1.22 reference does not store them.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResult {
    /// The step.
    pub step: AgentStep,
    /// The continuation outcome decided after it.
    pub outcome: Outcome,
    /// When the loop began the step, when stored.
    pub started_at: Option<Timestamp>,
    /// When the step finished, when stored.
    pub completed_at: Option<Timestamp>,
}

impl StepResult {
    /// A step result measured by the loop. `started_at` is when the loop began
    /// the step (not when the step object was created); it may not be after
    /// `completed_at`.
    pub fn new(
        step: AgentStep,
        outcome: Outcome,
        started_at: Timestamp,
        completed_at: Timestamp,
    ) -> Result<StepResult> {
        if started_at > completed_at {
            return Err(SteplineError::new(
                ErrorCode::InvalidValue,
                None,
                format!(
                    "expected a step to start no later than it completes, found start {} after completion {}",
                    format_atom(&started_at),
                    format_atom(&completed_at)
                ),
            ));
        }
        Ok(StepResult {
            step,
            outcome,
            started_at: Some(started_at),
            completed_at: Some(completed_at),
        })
    }

    fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<StepResult> {
        let m = read::object(v, path, "a step result")?;
        let step = php::get(m, "step").ok_or_else(|| {
            read::invalid(
                ErrorCode::MissingField,
                &child(path, "step"),
                "expected the step of this step result",
            )
        })?;
        // `StepResult::fromArray` passes `$data['outcome']` to
        // `ContinuationOutcome::fromArray(array)`: without one it throws.
        let outcome = php::get(m, "outcome").ok_or_else(|| {
            read::invalid(
                ErrorCode::MissingField,
                &child(path, "outcome"),
                "expected the continuation outcome of this step result",
            )
        })?;
        let opt_time = |k: &str| -> Result<Option<Timestamp>> {
            php::get(m, k)
                .map(|v| time::read(v, now, &child(path, k)))
                .transpose()
        };
        Ok(StepResult {
            step: AgentStep::from_value(step, &child(path, "step"), now)?,
            outcome: Outcome::from_value(outcome, &child(path, "outcome"))?,
            started_at: opt_time("startedAt")?,
            completed_at: opt_time("completedAt")?,
        })
    }

    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("step", self.step.to_value());
        m.insert("outcome", self.outcome.to_value());
        if let Some(t) = &self.started_at {
            m.insert("startedAt", Value::String(time::format_precise(t)));
        }
        if let Some(t) = &self.completed_at {
            m.insert("completedAt", Value::String(time::format_precise(t)));
        }
        Value::Object(m)
    }

    /// The step's real duration (v1.22 quirk 4 fixed: minutes, hours and sign kept),
    /// when both ends are known.
    pub fn duration_ms(&self) -> Option<f64> {
        Some(millis_between(
            self.started_at.as_ref()?,
            self.completed_at.as_ref()?,
        ))
    }
}

/// The persisted agent state.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentState {
    /// The agent's id (`agentId`).
    pub agent_id: String,
    /// The parent agent's id, for a subagent (`parentAgentId`).
    pub parent_agent_id: Option<String>,
    /// When the current step began (`currentStepStartedAt`).
    pub current_step_started_at: Option<Timestamp>,
    /// When the current user query began. Never restored from storage (seed 004):
    /// always `None` after [`AgentState::from_value`].
    pub execution_started_at: Option<Timestamp>,
    /// Application metadata, kept as stored.
    pub metadata: Value,
    /// The cached inference context (`cachedContext`).
    pub cached_context: CachedContext,
    /// Token usage accumulated over the run.
    pub usage: Usage,
    /// The conversation (`messageStore`).
    pub message_store: MessageStore,
    /// Session identity and timing (`stateInfo`).
    pub state_info: StateInfo,
    /// The latest step (`currentStep`).
    pub current_step: Option<AgentStep>,
    /// The agent's status.
    pub status: AgentStatus,
    /// Every recorded step, in order.
    pub steps: Vec<AgentStep>,
    /// Every step with the outcome that followed it (`stepResults`).
    pub step_results: Vec<StepResult>,
}

impl AgentState {
    /// Reads the reference's full state. Missing parts take the reference's
    /// defaults (generated ids, `now` for dates, empty collections).
    pub fn from_value(v: &Value, now: &Timestamp) -> Result<AgentState> {
        let path = "";
        let m = read::object(v, path, "the agent state")?;
        let p = |k: &str| child(path, k);
        let field = |k: &str| php::get(m, k);
        let steps = match field("steps") {
            Some(list) => read::entries(list, &p("steps"), "steps")?
                .into_iter()
                .map(|(k, s)| AgentStep::from_value(s, &child(&p("steps"), &k), now))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        let step_results = match field("stepResults") {
            Some(list) => read::entries(list, &p("stepResults"), "stepResults")?
                .into_iter()
                .map(|(k, s)| StepResult::from_value(s, &child(&p("stepResults"), &k), now))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        Ok(AgentState {
            agent_id: read::opt_scalar_string(m, "agentId", path)?.unwrap_or_else(new_id),
            parent_agent_id: read::opt_scalar_string(m, "parentAgentId", path)?,
            current_step_started_at: field("currentStepStartedAt")
                .map(|v| time::read(v, now, &p("currentStepStartedAt")))
                .transpose()?,
            execution_started_at: None,
            metadata: match field("metadata") {
                Some(v @ Value::Object(_)) => v.clone(),
                // PHP's empty array; a list is not a map (as `read::object`).
                Some(Value::Array(a)) if a.is_empty() => Value::Array(Vec::new()),
                Some(other) => {
                    return Err(read::invalid(
                        ErrorCode::InvalidType,
                        &p("metadata"),
                        format!("expected metadata as an object, found {}", type_name(other)),
                    ))
                }
                None => Value::Array(Vec::new()),
            },
            cached_context: CachedContext::from_state(m, path)?,
            usage: match field("usage") {
                Some(u) => Usage::from_value(u, &p("usage"))?,
                None => Usage::default(),
            },
            message_store: match field("messageStore") {
                Some(s) => MessageStore::from_value(s, &p("messageStore"))?,
                None => MessageStore::default(),
            },
            state_info: match field("stateInfo") {
                Some(s) => StateInfo::from_value(s, &p("stateInfo"), now)?,
                None => StateInfo::new(now),
            },
            current_step: field("currentStep")
                .map(|s| AgentStep::from_value(s, &p("currentStep"), now))
                .transpose()?,
            status: match field("status") {
                Some(s) => AgentStatus::parse(s, &p("status"))?,
                None => AgentStatus::InProgress,
            },
            steps,
            step_results,
        })
    }

    /// Parses untrusted JSON text (bounded by [`crate::json::Limits::default`]) and reads it.
    pub fn parse(text: &str, now: &Timestamp) -> Result<AgentState> {
        AgentState::from_value(
            &crate::json::parse(text, &crate::json::Limits::default())?,
            now,
        )
    }

    /// The reference's `toArray`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("agentId", Value::String(self.agent_id.clone()));
        m.insert(
            "parentAgentId",
            self.parent_agent_id
                .clone()
                .map_or(Value::Null, Value::String),
        );
        m.insert(
            "currentStepStartedAt",
            atom_or_null(self.current_step_started_at.as_ref()),
        );
        m.insert(
            "executionStartedAt",
            atom_or_null(self.execution_started_at.as_ref()),
        );
        m.insert("metadata", self.metadata.clone());
        m.insert("cachedContext", self.cached_context.to_value());
        m.insert("usage", self.usage.to_value());
        m.insert("messageStore", self.message_store.to_value());
        m.insert("stateInfo", self.state_info.to_value());
        m.insert(
            "currentStep",
            self.current_step
                .as_ref()
                .map_or(Value::Null, AgentStep::to_value),
        );
        m.insert("status", Value::String(self.status.as_str().into()));
        m.insert(
            "steps",
            Value::Array(self.steps.iter().map(AgentStep::to_value).collect()),
        );
        m.insert(
            "stepResults",
            Value::Array(self.step_results.iter().map(StepResult::to_value).collect()),
        );
        Value::Object(m)
    }

    /// Marks the start of a new user query (seed 004): `ExecutionTimeLimit`
    /// measures from here, never from the session's `startedAt`.
    pub fn mark_execution_started(&mut self, now: &Timestamp) {
        self.execution_started_at = Some(*now);
    }

    /// Records a finished step: appends it and its result, makes it current,
    /// adds its duration to `cumulativeExecutionSeconds` and sums its usage.
    pub fn record_step(&mut self, result: StepResult, now: &Timestamp) -> Result<()> {
        let seconds = result.duration_ms().unwrap_or(0.0) / 1000.0;
        self.usage = self.usage.with_accumulated(&result.step.usage)?;
        self.state_info = self.state_info.add_execution_time(seconds, now);
        self.current_step_started_at = result.started_at;
        self.current_step = Some(result.step.clone());
        self.steps.push(result.step.clone());
        self.step_results.push(result);
        Ok(())
    }

    /// A copy without the conversation, steps and step results (cheap for large states).
    pub fn clone_head(&self) -> AgentState {
        AgentState {
            agent_id: self.agent_id.clone(),
            parent_agent_id: self.parent_agent_id.clone(),
            current_step_started_at: self.current_step_started_at,
            execution_started_at: self.execution_started_at,
            metadata: self.metadata.clone(),
            cached_context: crate::model::cached_context::CachedContext::empty(),
            usage: self.usage,
            message_store: Default::default(),
            state_info: self.state_info.clone(),
            current_step: None,
            status: self.status,
            steps: Vec::new(),
            step_results: Vec::new(),
        }
    }

    /// The duration of `step` from its step result (`parseAgentState`'s
    /// `durationMs`, the slim snapshot's `duration_ms`). Results usually line
    /// up with steps, so the one at `hint` is tried first. (A linear fallback
    /// rather than a HashMap, whose hasher tables would grow the wasm.)
    pub fn step_duration_ms(&self, step: &AgentStep, hint: usize) -> Option<f64> {
        let same = |r: &&StepResult| r.step.info.id == step.info.id;
        self.step_results
            .get(hint)
            .filter(same)
            .or_else(|| self.step_results.iter().find(same))?
            .duration_ms()
    }

    /// The last continuation outcome, if any step has one.
    pub fn last_outcome(&self) -> Option<&Outcome> {
        self.step_results.last().map(|r| &r.outcome)
    }

    /// Every step (`steps`, `currentStep`, `stepResults[*].step`) rewritten
    /// as seed 001 reads it ([`AgentStep::apply_seed_001`]): what
    /// `parseAgentState` shows unless `compat`.
    pub fn apply_seed_001(&mut self) {
        let results = self.step_results.iter_mut().map(|r| &mut r.step);
        for step in self
            .steps
            .iter_mut()
            .chain(self.current_step.as_mut())
            .chain(results)
        {
            step.apply_seed_001();
        }
    }
}

fn atom_or_null(t: Option<&Timestamp>) -> Value {
    t.map_or(Value::Null, |t| Value::String(format_atom(t)))
}
