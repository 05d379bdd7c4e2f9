//! v2's stop logic as data, on JSON values: what the JavaScript functions
//! `stopReasons`, `resolveStopSignals`, `explainContinuation`,
//! `evaluateGuards` and `replayGuards` return (the wasm layer only converts).

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::Value;
use crate::model::continuation::v2::broadcast::{on_continuation_stop, on_execution_stopped};
use crate::model::continuation::v2::guard::{Clock, Guard, Trigger};
use crate::model::continuation::v2::replay::{
    check_guards, replay_guards, GuardCheck, GuardReplay, ReplayClock,
};
use crate::model::continuation::v2::{ExecutionContinuation, StopReason, StopSignal, StopSignals};
use crate::model::time::Timestamp;
use crate::model::v2::AgentState;

/// One of v2's stop reasons with its priority (lower wins) and what it does.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StopReasonInfo {
    /// The wire value.
    pub reason: StopReason,
    /// 0 (`error`) wins over 9 (`unknown`).
    pub priority: u8,
    /// The PHP enum case name (`StepsLimitReached`).
    pub case_name: &'static str,
    /// Every reason but `completed` and `finish_reason` leaves the state `stopped`.
    pub force_stop: bool,
    /// The `agent.status` the broadcaster sends for it.
    pub broadcast: BroadcastStatuses,
}

/// The `agent.status` v2's broadcaster sends for a stop reason.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BroadcastStatuses {
    /// After a continuation that stops with this reason.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::continuation::schemas::broadcast_status")
    )]
    pub on_continuation_stop: &'static str,
    /// On `AgentExecutionStopped` with this reason.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::continuation::schemas::broadcast_status")
    )]
    pub on_execution_stopped: &'static str,
}

/// The ten reasons, highest priority first.
pub fn stop_reasons() -> Vec<StopReasonInfo> {
    let mut all = StopReason::ALL;
    all.sort_by_key(|r| r.priority());
    all.iter()
        .map(|r| StopReasonInfo {
            reason: *r,
            priority: r.priority(),
            case_name: r.case_name(),
            force_stop: r.was_force_stopped(),
            broadcast: BroadcastStatuses {
                on_continuation_stop: on_continuation_stop(Some(*r)),
                on_execution_stopped: on_execution_stopped(*r),
            },
        })
        .collect()
}

/// The winning signal of a list.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StopSignalResolution {
    /// The highest-priority signal (the earliest on ties); `null` for an empty list.
    pub stop_signal: Option<StopSignal>,
    /// Its position in the list; `null` for an empty list.
    pub index: Option<usize>,
}

/// `StopSignals::highest()` of a list (the earliest on ties).
pub fn resolve_signals(v: &Value, path: &str) -> Result<StopSignalResolution> {
    let signals = StopSignals::from_value(v, path)?;
    let best = signals.highest();
    let index = best.and_then(|b| signals.0.iter().position(|s| std::ptr::eq(s, b)));
    Ok(StopSignalResolution {
        stop_signal: best.cloned(),
        index,
    })
}

/// An `ExecutionContinuation` explained.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContinuationExplanation {
    /// Some signal exists and nobody asked to continue.
    pub should_stop: bool,
    /// The winning signal, if any.
    pub stop_signal: Option<StopSignal>,
    /// Its reason.
    pub stop_reason: Option<StopReason>,
    /// A hook asked to keep going whatever the signals say.
    pub is_continuation_requested: bool,
    /// The producer's `explain()` text.
    pub explain: String,
}

/// An `ExecutionContinuation` (`{stop_signals, is_continuation_requested}`) explained.
pub fn explain_continuation(v: &Value, path: &str) -> Result<ContinuationExplanation> {
    let c = ExecutionContinuation::from_value(v, path)?;
    let signal = c.stop_signal();
    Ok(ContinuationExplanation {
        should_stop: c.should_stop(),
        stop_signal: signal.cloned(),
        stop_reason: signal.map(|s| s.reason),
        is_continuation_requested: c.is_continuation_requested,
        explain: c.explain(),
    })
}

/// The guards' trigger option: `before_step`, `after_step`, or every guard.
pub fn trigger(v: Option<&Value>, path: &str) -> Result<Option<Trigger>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "before_step" => Ok(Some(Trigger::BeforeStep)),
        Some(Value::String(s)) if s == "after_step" => Ok(Some(Trigger::AfterStep)),
        Some(_) => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            path,
            "expected `trigger` to be \"before_step\" or \"after_step\"",
        )),
    }
}

/// Runs `guards` (read by [`Guard::list_from_value`]) on a v2 state at
/// `now`; the time guard measures from `started` (default: the execution's
/// own start). The state is read as v2's: telling it from a v1.22 one, whose
/// limits are criteria, is the caller's (`evaluate_guards` in
/// src/state_formats/entries.rs asks the state's format).
pub fn evaluate_guards(
    state: &Value,
    guards: &[Guard],
    trigger: Option<Trigger>,
    now: Timestamp,
    started: Option<Timestamp>,
) -> Result<GuardCheck> {
    let state = AgentState::from_value(state, &now)?;
    let clock = Clock {
        execution_started_at: started
            .or_else(|| state.execution.as_ref().map(|e| e.started_at))
            .unwrap_or(now),
        now,
    };
    Ok(check_guards(&state, guards, trigger, &clock))
}

/// Replays a recorded v2 run under `guards` (the state's format is the
/// caller's to check, as for [`evaluate_guards`]).
pub fn replay(
    state: &Value,
    guards: &[Guard],
    clock: ReplayClock,
    now: Timestamp,
) -> Result<GuardReplay> {
    let state = AgentState::from_value(state, &now)?;
    Ok(replay_guards(&state, guards, &clock, &now))
}
