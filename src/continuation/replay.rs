//! "What if": re-evaluates a recorded run step by step under other criteria.

use crate::json::Value;

use crate::continuation::criteria::{evaluate_all, Criterion};
use crate::continuation::observe::{Observation, RunFacts};
use crate::continuation::outcome::Outcome;
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
}

impl Replay {
    /// The first step after which the run would have stopped.
    pub fn stops_at_step(&self) -> Option<usize> {
        self.steps
            .iter()
            .find(|s| s.would_stop())
            .map(|s| s.step_number)
    }

    /// The JSON form (`{steps: [...], stopsAtStep}`) the JavaScript API returns.
    pub fn to_value(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| {
                crate::json::obj([
                    ("stepNumber", Value::from(s.step_number)),
                    ("stepId", Value::from(s.step_id.clone())),
                    ("outcome", s.outcome.to_explained_value()),
                    ("wouldStop", Value::from(s.would_stop())),
                    (
                        "recorded",
                        s.recorded.as_ref().map_or(Value::Null, Outcome::to_value),
                    ),
                    ("changed", Value::from(s.changed())),
                ])
            })
            .collect();
        crate::json::obj([
            ("steps", Value::from(steps)),
            ("stopsAtStep", Value::from(self.stops_at_step())),
            ("recordedSteps", Value::from(self.steps.len())),
        ])
    }
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
    Replay { steps }
}
