//! v2's stop logic on whole states: run guards on a state (what the loop's
//! hooks would add now), and "what if": replay a recorded v2 run under other
//! guards, marking where it would have stopped.
//!
//! v2 checks its limits in the before-step hook with `>=` (items 30–31): a
//! run stopped by `steps_limit: 2` shows two recorded steps and the signal
//! raised *before* the third. The replay walks the same moments: before each
//! recorded step (the state holding the steps before it), after each step
//! (the finish-reason guard on that step), and before the step the run would
//! have taken next, when the last recorded step asked for tools.

use crate::model::continuation::v2::guard::{Clock, Guard, Trigger};
use crate::model::continuation::v2::{ExecutionContinuation, StopReason, StopSignal};
use crate::model::time::Timestamp;
use crate::model::v2::AgentState;

/// What guards add to a state at one moment, and what the state then says.
#[derive(Clone, Debug, PartialEq)]
pub struct GuardCheck {
    /// The signals the guards add, in guard order.
    pub added: Vec<StopSignal>,
    /// The state's continuation with them.
    pub continuation: ExecutionContinuation,
    /// `ExecutionState::shouldStop()` after adding them.
    pub should_stop: bool,
    /// The winning signal after adding them.
    pub stop_signal: Option<StopSignal>,
}

impl GuardCheck {
    /// What `evaluateGuards` returns.
    pub fn view(&self) -> GuardCheckView<'_> {
        GuardCheckView {
            added_signals: &self.added,
            should_stop: self.should_stop,
            stop_reason: self.stop_signal.as_ref().map(|s| s.reason),
            stop_signal: self.stop_signal.as_ref(),
            explain: self.continuation.explain(),
        }
    }
}

/// What guards add to a state, and what it then says.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "GuardCheck"))]
#[serde(rename_all = "camelCase")]
pub struct GuardCheckView<'a> {
    /// The signals the guards add, in guard order.
    pub added_signals: &'a [StopSignal],
    /// `ExecutionState::shouldStop()` after adding them.
    pub should_stop: bool,
    /// The winning signal's reason.
    pub stop_reason: Option<StopReason>,
    /// The winning signal after adding them.
    pub stop_signal: Option<&'a StopSignal>,
    /// The producer's `explain()` of the continuation with them.
    pub explain: String,
}

/// Runs `guards` on `state` as the loop's hooks would: each guard whose
/// trigger is `trigger` (every guard when `None`) checks the state, and the
/// signals of those that trip are added to the execution.
///
/// ```
/// use stepline::model::continuation::v2::guard::{Clock, Guard};
/// use stepline::model::continuation::v2::replay::check_guards;
/// use stepline::model::v2::AgentState;
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let state = AgentState::from_value(&stepline::json::from_str(r#"{"execution": {}}"#).unwrap(), &now).unwrap();
/// let check = check_guards(&state, &[Guard::StepsLimit { max: 0 }], None, &Clock { execution_started_at: now, now });
/// assert_eq!(check.stop_signal.unwrap().message, "Step limit reached: 0/0");
/// ```
pub fn check_guards(
    state: &AgentState,
    guards: &[Guard],
    trigger: Option<Trigger>,
    clock: &Clock,
) -> GuardCheck {
    let added: Vec<StopSignal> = guards
        .iter()
        .filter(|g| trigger.is_none_or(|t| g.trigger() == t))
        .filter_map(|g| g.check(state, clock))
        .collect();
    let after = added.iter().fold(state.clone(), |s, sig| {
        s.with_stop_signal(sig.clone(), &clock.now)
    });
    GuardCheck {
        continuation: after.execution_continuation(),
        should_stop: after.should_stop(),
        stop_signal: after.stop_signal().cloned(),
        added,
    }
}

/// One step of a replay: the signals guards raise before it and after it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayedStep {
    /// 1-based.
    pub step_number: usize,
    /// The recorded step's id; `None` for the step the run would have taken next.
    pub step_id: Option<String>,
    /// Raised before the step (steps, tokens, time): the step would not have run.
    pub before: Vec<StopSignal>,
    /// Raised after it (finish reason).
    pub after: Vec<StopSignal>,
    /// The step's own recorded stop signal.
    pub recorded_signal: Option<StopSignal>,
}

impl ReplayedStep {
    /// Whether a guard would have stopped the run at this step (before or after it).
    pub fn would_stop(&self) -> bool {
        !self.before.is_empty() || !self.after.is_empty()
    }
}

/// A whole replay.
#[derive(Clone, Debug, PartialEq)]
pub struct GuardReplay {
    /// Every recorded step, replayed in order.
    pub steps: Vec<ReplayedStep>,
    /// Steps that would have run under the guards.
    pub steps_run: usize,
    /// The step a before-step guard would have kept from running.
    pub stops_before_step: Option<usize>,
    /// The step after which an after-step guard would have stopped the run.
    pub stops_after_step: Option<usize>,
    /// The winning signal of the guards that stopped the run.
    pub stop_signal: Option<StopSignal>,
    /// No guard stopped the run within the record and the run would have
    /// gone on past its last recorded step (what came next is unknown).
    pub runs_past_record: bool,
    /// How many steps the state recorded.
    pub recorded_steps: usize,
    /// The stop signal the state recorded for the run.
    pub recorded_stop_signal: Option<StopSignal>,
}

impl GuardReplay {
    /// What `replayGuards` returns.
    pub fn view(&self) -> GuardReplayView<'_> {
        GuardReplayView {
            steps: self.steps.iter().map(ReplayedStep::view).collect(),
            steps_run: self.steps_run,
            stops_before_step: self.stops_before_step,
            stops_after_step: self.stops_after_step,
            stop_signal: self.stop_signal.as_ref(),
            runs_past_record: self.runs_past_record,
            recorded_steps: self.recorded_steps,
            recorded_stop_signal: self.recorded_stop_signal.as_ref(),
        }
    }
}

impl ReplayedStep {
    /// One entry of `replayGuards().steps`.
    pub fn view(&self) -> GuardReplayStep<'_> {
        GuardReplayStep {
            step_number: self.step_number,
            step_id: self.step_id.as_deref(),
            recorded: self.step_id.is_some(),
            before: &self.before,
            after: &self.after,
            would_stop: self.would_stop(),
            recorded_signal: self.recorded_signal.as_ref(),
        }
    }
}

/// A recorded v2 run replayed under other guards.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "GuardReplay"))]
#[serde(rename_all = "camelCase")]
pub struct GuardReplayView<'a> {
    /// Every recorded step, and the one the run would have taken next when it asked for tools.
    pub steps: Vec<GuardReplayStep<'a>>,
    /// Steps that would have run under the guards.
    pub steps_run: usize,
    /// The step a before-step guard (steps, tokens, time) would have kept from running.
    pub stops_before_step: Option<usize>,
    /// The step after which an after-step guard (finish reason) would have stopped the run.
    pub stops_after_step: Option<usize>,
    /// The winning signal of the guards that stopped the run.
    pub stop_signal: Option<&'a StopSignal>,
    /// No guard stopped the run within the record and it would have gone on past its last step.
    pub runs_past_record: bool,
    /// Steps the state records.
    pub recorded_steps: usize,
    /// The signal the recorded run ended with.
    pub recorded_stop_signal: Option<&'a StopSignal>,
}

/// One step of a guard replay (`recorded: false` for the step the run would have taken next).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GuardReplayStep<'a> {
    /// 1-based.
    pub step_number: usize,
    /// The recorded step's id; `null` for the step the run would have taken next.
    pub step_id: Option<&'a str>,
    /// The step is in the record.
    pub recorded: bool,
    /// Signals raised before the step (steps, tokens, time): it would not have run.
    pub before: &'a [StopSignal],
    /// Signals raised after it (finish reason).
    pub after: &'a [StopSignal],
    /// Some signal was raised before or after it.
    pub would_stop: bool,
    /// The step's own recorded stop signal.
    pub recorded_signal: Option<&'a StopSignal>,
}

/// How to place the replayed moments in time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReplayClock {
    /// Check every moment at this instant instead of the recorded one (a
    /// step's start; after the last step, the execution's completion).
    pub now: Option<Timestamp>,
    /// Where the time guard measures from (default: the execution's start).
    pub execution_started_at: Option<Timestamp>,
}

/// The state as it was before recorded step `k` (0-based): its first `k`
/// step executions, no current step, no signals yet.
fn before_step(state: &AgentState, k: usize) -> AgentState {
    let mut out = state.clone();
    if let Some(e) = out.execution.as_mut() {
        e.step_executions.truncate(k);
        e.current_step = None;
        e.current_step_started_at = None;
        e.continuation = ExecutionContinuation::default();
    }
    out
}

/// Replays the recorded run of `state` under `guards` (see the module docs).
///
/// ```
/// use stepline::model::continuation::v2::guard::Guard;
/// use stepline::model::continuation::v2::replay::{replay_guards, ReplayClock};
/// use stepline::model::v2::AgentState;
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let state = AgentState::from_value(&stepline::json::from_str(r#"{"execution": {"status": "stopped"}}"#).unwrap(), &now).unwrap();
/// let replay = replay_guards(&state, &[Guard::ExecutionTimeLimit { max_seconds: 0.0 }], &ReplayClock::default(), &now);
/// assert_eq!((replay.steps_run, replay.stops_before_step), (0, Some(1)));
/// ```
pub fn replay_guards(
    state: &AgentState,
    guards: &[Guard],
    clock: &ReplayClock,
    now: &Timestamp,
) -> GuardReplay {
    let recorded: Vec<_> = state
        .execution
        .iter()
        .flat_map(|e| e.step_executions.iter())
        .collect();
    let started = clock
        .execution_started_at
        .or_else(|| state.execution.as_ref().map(|e| e.started_at))
        .unwrap_or(*now);
    let end = state
        .execution
        .as_ref()
        .and_then(|e| e.completed_at)
        .or_else(|| recorded.last().map(|s| s.completed_at))
        .unwrap_or(started);
    let mut out = GuardReplay {
        steps: Vec::new(),
        steps_run: 0,
        stops_before_step: None,
        stops_after_step: None,
        stop_signal: None,
        runs_past_record: false,
        recorded_steps: recorded.len(),
        recorded_stop_signal: state.stop_signal().cloned(),
    };
    for k in 0..=recorded.len() {
        let step = recorded.get(k);
        // The loop asks for step k+1 after step k only when step k asked for tools.
        let previous = k.checked_sub(1).and_then(|j| recorded.get(j));
        if step.is_none() && previous.is_some_and(|p| !p.step.has_tool_calls()) {
            break;
        }
        let at = clock.now.unwrap_or(step.map_or(end, |s| s.started_at));
        let moment = Clock {
            execution_started_at: started,
            now: at,
        };
        let prefix = before_step(state, k);
        let before = check_guards(&prefix, guards, Some(Trigger::BeforeStep), &moment);
        let mut row = ReplayedStep {
            step_number: k + 1,
            step_id: step.map(|s| s.id.clone()),
            before: before.added.clone(),
            after: Vec::new(),
            recorded_signal: step.and_then(|s| s.stop_signal().cloned()),
        };
        if !before.added.is_empty() {
            out.stops_before_step = Some(k + 1);
            out.stop_signal = before.stop_signal;
            out.steps.push(row);
            break;
        }
        let Some(step) = step else {
            out.runs_past_record = true;
            out.steps.push(row);
            break;
        };
        let mut with_step = prefix;
        if let Some(e) = with_step.execution.as_mut() {
            e.current_step = Some(step.step.clone());
        }
        let moment = Clock {
            execution_started_at: started,
            now: clock.now.unwrap_or(step.completed_at),
        };
        let after = check_guards(&with_step, guards, Some(Trigger::AfterStep), &moment);
        row.after = after.added.clone();
        out.steps_run = k + 1;
        out.steps.push(row);
        if !after.added.is_empty() {
            out.stops_after_step = Some(k + 1);
            out.stop_signal = after.stop_signal;
            break;
        }
    }
    out
}
