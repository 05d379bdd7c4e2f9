//! "What if": re-evaluates a recorded run step by step under other criteria.

use crate::model::continuation::criteria::{evaluate_all, Criterion};
use crate::model::continuation::observe::{Observation, RunFacts};
use crate::model::continuation::outcome::{ExplainedOutcome, Outcome, OutcomeView};
use crate::model::state::AgentState;
use crate::model::time::Timestamp;

/// How to place a recorded run in time.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayOptions {
    /// Evaluate every step at this instant instead of the step's own time.
    pub now: Option<Timestamp>,
    /// Where execution-time limits measure from (default: the first step's
    /// recorded start, else the session's `startedAt`, as the producer falls back).
    pub execution_started_at: Option<Timestamp>,
}

/// One step of a replay.
#[derive(Clone, Debug)]
pub struct ReplayStep {
    /// 1-based position in the run.
    pub step_number: usize,
    /// The step's id in the state.
    pub step_id: String,
    /// What the replayed criteria decide after this step.
    pub outcome: Outcome,
    /// The outcome recorded by the producer for this step, when the state has one.
    pub recorded: Option<Outcome>,
}

impl ReplayStep {
    /// The run would have stopped after this step under the new criteria.
    pub fn would_stop(&self) -> bool {
        !self.outcome.should_continue
    }

    /// The new criteria decide differently from the recorded outcome.
    pub fn changed(&self) -> bool {
        self.recorded
            .as_ref()
            .is_some_and(|r| r.should_continue != self.outcome.should_continue)
    }
}

/// A whole replay.
#[derive(Clone, Debug)]
pub struct Replay {
    /// Every step of the state, in order.
    pub steps: Vec<ReplayStep>,
    /// Where execution-time limits measured from, when the caller knows
    /// what said so (`replay_state`).
    pub time_origin: Option<crate::model::continuation::observe::TimeOrigin>,
}

impl Replay {
    /// The first step after which the run would have stopped.
    pub fn stops_at_step(&self) -> Option<usize> {
        self.steps
            .iter()
            .find(|s| s.would_stop())
            .map(|s| s.step_number)
    }

    /// What `replayContinuation` returns.
    pub fn view(&self) -> ContinuationReplay<'_> {
        ContinuationReplay {
            steps: self.steps.iter().map(ReplayStep::view).collect(),
            stops_at_step: self.stops_at_step(),
            recorded_steps: self.steps.len(),
            time_origin: self.time_origin.as_ref().map(|o| o.view()),
        }
    }
}

impl ReplayStep {
    /// One entry of `replayContinuation().steps`.
    pub fn view(&self) -> ReplayedStep<'_> {
        ReplayedStep {
            step_number: self.step_number,
            step_id: &self.step_id,
            outcome: self.outcome.explained(),
            would_stop: self.would_stop(),
            recorded: self.recorded.as_ref().map(Outcome::view),
            changed: self.changed(),
        }
    }
}

/// A recorded run re-evaluated under other criteria.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContinuationReplay<'a> {
    /// Every recorded step, re-evaluated.
    pub steps: Vec<ReplayedStep<'a>>,
    /// The first step after which the run would have stopped, or `null`.
    pub stops_at_step: Option<usize>,
    /// Steps the state records.
    pub recorded_steps: usize,
    /// Where execution-time limits measured from (`replayContinuation` of a state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_origin: Option<crate::model::continuation::observe::TimeOriginView>,
}

/// One replayed step.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReplayedStep<'a> {
    /// 1-based position in the run.
    pub step_number: usize,
    /// The recorded step's id.
    pub step_id: &'a str,
    /// The outcome under the new criteria.
    pub outcome: ExplainedOutcome<'a>,
    /// The run would have stopped after this step.
    pub would_stop: bool,
    /// The outcome the producer recorded for this step, when the state has one.
    pub recorded: Option<OutcomeView<'a>>,
    /// The new criteria decide differently from the recorded outcome.
    pub changed: bool,
}

/// Evaluates `criteria` after every recorded step, as the producer's loop would
/// have. Each step sees the run up to and including itself: its own step count,
/// the usage summed so far, the execution seconds recorded so far (step timing
/// is only known when the state stores it; v1.22 states do not), and as `now`
/// the step's completion time when stored, else its creation time.
pub fn replay(state: &AgentState, criteria: &[Criterion], options: &ReplayOptions) -> Replay {
    let origin = options
        .execution_started_at
        .or_else(|| state.step_results.first().and_then(|r| r.started_at))
        .unwrap_or(state.state_info.started_at);
    let mut usage_total = 0i64;
    let mut cumulative = 0.0f64;
    let mut steps = Vec::with_capacity(state.steps.len());
    for (i, step) in state.steps.iter().enumerate() {
        usage_total = usage_total.saturating_add(step.usage.total());
        let result = state
            .step_results
            .iter()
            .find(|r| r.step.info.id == step.info.id);
        cumulative += result.and_then(|r| r.duration_ms()).unwrap_or(0.0) / 1000.0;
        let now = options
            .now
            .or_else(|| result.and_then(|r| r.completed_at))
            .unwrap_or(step.info.created_at);
        let facts = RunFacts {
            steps: state.steps.get(..=i).unwrap_or(&state.steps),
            current: Some(step),
            usage_total,
            cumulative_seconds: cumulative,
            time_origin: origin,
        };
        let outcome = evaluate_all(criteria, &Observation::from_run(facts, now));
        steps.push(ReplayStep {
            step_number: i + 1,
            step_id: step.info.id.clone(),
            outcome,
            recorded: result.map(|r| r.outcome.clone()),
        });
    }
    Replay {
        steps,
        time_origin: None,
    }
}
