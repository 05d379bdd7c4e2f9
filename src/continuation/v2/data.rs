//! v2's stop logic as data, on JSON values: what the JavaScript functions
//! `stopReasons`, `resolveStopSignals`, `explainContinuation`,
//! `evaluateGuards` and `replayGuards` return (the wasm layer only converts).

use crate::continuation::v2::broadcast::{on_continuation_stop, on_execution_stopped};
use crate::continuation::v2::guard::{Clock, Guard, Trigger};
use crate::continuation::v2::replay::{check_guards, replay_guards, ReplayClock};
use crate::continuation::v2::{ExecutionContinuation, StopReason, StopSignals};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{obj, Value};
use crate::model::time::Timestamp;
use crate::model::v2::AgentState;
use crate::model::version::StateVersion;

/// The ten reasons, highest priority first: `{reason, priority, caseName,
/// forceStop, broadcast: {onContinuationStop, onExecutionStopped}}`.
pub fn stop_reasons() -> Value {
    let mut all = StopReason::ALL;
    all.sort_by_key(|r| r.priority());
    Value::Array(
        all.iter()
            .map(|r| {
                obj([
                    ("reason", Value::from(r.as_str())),
                    ("priority", Value::from(r.priority() as i64)),
                    ("caseName", Value::from(r.case_name())),
                    ("forceStop", Value::from(r.was_force_stopped())),
                    (
                        "broadcast",
                        obj([
                            (
                                "onContinuationStop",
                                Value::from(on_continuation_stop(Some(*r))),
                            ),
                            ("onExecutionStopped", Value::from(on_execution_stopped(*r))),
                        ]),
                    ),
                ])
            })
            .collect(),
    )
}

/// `StopSignals::highest()` of a list: `{stopSignal, index}` (the earliest on
/// ties; both null for an empty list).
pub fn resolve_signals(v: &Value, path: &str) -> Result<Value> {
    let signals = StopSignals::from_value(v, path)?;
    let best = signals.highest();
    let index = best.and_then(|b| signals.0.iter().position(|s| std::ptr::eq(s, b)));
    Ok(obj([
        ("stopSignal", best.map_or(Value::Null, |s| s.to_value())),
        ("index", Value::from(index)),
    ]))
}

/// An `ExecutionContinuation` explained: `{shouldStop, stopSignal,
/// stopReason, isContinuationRequested, explain}`.
pub fn explain_continuation(v: &Value, path: &str) -> Result<Value> {
    let c = ExecutionContinuation::from_value(v, path)?;
    let signal = c.stop_signal();
    Ok(obj([
        ("shouldStop", Value::from(c.should_stop())),
        ("stopSignal", signal.map_or(Value::Null, |s| s.to_value())),
        (
            "stopReason",
            signal.map_or(Value::Null, |s| Value::from(s.reason.as_str())),
        ),
        (
            "isContinuationRequested",
            Value::from(c.is_continuation_requested),
        ),
        ("explain", Value::from(c.explain())),
    ]))
}

/// A v2 state; a v1.22 one is refused (its limits are criteria, evaluated by
/// `evaluateContinuation`), never read as an empty v2 state.
pub fn read_v2_state(v: &Value, now: &Timestamp) -> Result<AgentState> {
    match StateVersion::of(v)? {
        StateVersion::V2 => AgentState::from_value(v, now),
        StateVersion::V1_22 => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            "",
            "expected an instructor-php v2 agent state (context, execution, …); a v1.22 state's limits are continuation criteria: use evaluateContinuation / replayContinuation",
        )),
    }
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

/// Runs `guards` on a v2 state at `now`; the time guard measures from
/// `started` (default: the execution's own start).
pub fn evaluate_guards(
    state: &Value,
    guards: &Value,
    trigger: Option<Trigger>,
    now: Timestamp,
    started: Option<Timestamp>,
) -> Result<Value> {
    let guards = Guard::list_from_value(guards, "/guards")?;
    let state = read_v2_state(state, &now)?;
    let clock = Clock {
        execution_started_at: started
            .or_else(|| state.execution.as_ref().map(|e| e.started_at))
            .unwrap_or(now),
        now,
    };
    Ok(check_guards(&state, &guards, trigger, &clock).to_value())
}

/// Replays a recorded v2 run under `guards`.
pub fn replay(state: &Value, guards: &Value, clock: ReplayClock, now: Timestamp) -> Result<Value> {
    let guards = Guard::list_from_value(guards, "/guards")?;
    let state = read_v2_state(state, &now)?;
    Ok(replay_guards(&state, &guards, &clock, &now).to_value())
}
