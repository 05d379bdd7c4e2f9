//! v2.7 continuation.json: `StopReason` (a.), `StopSignals` (b.),
//! `ExecutionContinuation` (c.), `ExecutionState::shouldStop` and the final
//! status matrix on whole states (d.), the guard hooks (e.). The broadcaster's
//! status mapping (f.) is checked by `broadcast.rs`.

use stepline::json;
use stepline::json::{Map, Value};
use stepline::model::continuation::v2::guard::{Clock, Guard};
use stepline::model::continuation::v2::{
    ExecutionContinuation, StopReason, StopSignal, StopSignals,
};
use stepline::model::time::format_atom;
use stepline::model::v2::AgentState;

use super::state_model::now;
use crate::common::guard_spec;
use crate::Outcome;

pub fn run(name: &str, input: &Value) -> Option<Outcome> {
    let out = if name.starts_with("a.") {
        stop_reason(input["reason"].as_str()?)
    } else if name.starts_with("b.") {
        StopSignals::from_value(&input["signals"], "/signals").map(|s| {
            json!({
                "highest": s.highest().map_or(Value::Null, StopSignal::to_value),
                "first": s.first().map_or(Value::Null, StopSignal::to_value),
                "hasAny": s.has_any(),
                "toString": s.describe(),
                "toArray": s.to_value(),
            })
        })
    } else if name.starts_with("c.") {
        ExecutionContinuation::from_value(&input["continuation"], "/continuation").map(|c| {
            let added = StopSignal::new(StopReason::Completed, "added", None);
            let mut m = Map::new();
            m.insert("shouldStop", json!(c.should_stop()));
            m.insert("stopSignal", signal(c.stop_signal()));
            m.insert(
                "isContinuationRequested",
                json!(c.is_continuation_requested),
            );
            m.insert("explain", json!(c.explain()));
            m.insert("toArray", c.to_value());
            m.insert(
                "withContinuationRequested(true).shouldStop",
                json!(c.with_continuation_requested(true).should_stop()),
            );
            m.insert(
                "withContinuationRequested(false).shouldStop",
                json!(c.with_continuation_requested(false).should_stop()),
            );
            m.insert(
                "withNewStopSignal(completed).stopSignal",
                signal(c.with_new_stop_signal(added).stop_signal()),
            );
            Value::Object(m)
        })
    } else if name.starts_with("d.") {
        AgentState::from_value(&input["state"], &now()).map(|s| state_matrix(&s))
    } else if name.starts_with("e.") {
        guard_case(input)?
    } else if name.starts_with("f.") {
        super::broadcast::run(input)?
    } else {
        return None;
    };
    Some(out)
}

fn signal(s: Option<&StopSignal>) -> Value {
    s.map_or(Value::Null, StopSignal::to_value)
}

fn stop_reason(raw: &str) -> Outcome {
    let r = StopReason::parse(raw, "/reason")?;
    let compare: Map = StopReason::ALL
        .iter()
        .map(|o| {
            (
                stepline::json::Name::from(o.as_str()),
                json!(r.compare(*o) as i64),
            )
        })
        .collect();
    Ok(json!({
        "name": r.case_name(),
        "priority": r.priority(),
        "wasForceStopped": r.was_force_stopped(),
        "compare": Value::Object(compare),
    }))
}

/// What the state says about stopping, then after `withCurrentStepCompleted()`
/// and after `withExecutionCompleted()`.
fn state_matrix(s: &AgentState) -> Value {
    let now = now();
    let stopped = s.stop_signal();
    let after_step = s.with_current_step_completed(&now);
    let after_exec = s.with_execution_completed(&now);
    let exec = after_exec.execution.as_ref();
    json!({
        "shouldStop": s.should_stop(),
        "executionShouldStop": s.execution.as_ref().map_or(Value::Null, |e| json!(e.should_stop())),
        "stopSignal": signal(stopped),
        "stopReason": stopped.map_or(Value::Null, |x| json!(x.reason.as_str())),
        "stopSource": stopped.and_then(|x| x.source.clone()).map_or(Value::Null, Value::from),
        "executionContinuation": s.execution_continuation().to_value(),
        "stepCount": s.step_count(),
        "usageTotal": s.usage().total(),
        "afterWithCurrentStepCompleted": {
            "status": after_step.status().map_or(Value::Null, |x| json!(x.as_str())),
            "stepCount": after_step.step_count(),
            "executionContinuation": after_step.execution_continuation().to_value(),
            "lastStepContinuation": after_step.execution.as_ref()
                .and_then(|e| e.step_executions.last())
                .map_or(Value::Null, |se| se.continuation.to_value()),
        },
        "afterWithExecutionCompleted": {
            "status": exec.map_or(Value::Null, |e| json!(e.status.as_str())),
            "stopReason": after_exec.stop_signal().map_or(Value::Null, |x| json!(x.reason.as_str())),
            "completedAt": exec.and_then(|e| e.completed_at.as_ref())
                .map_or(Value::Null, |t| json!(format_atom(t))),
        },
    })
}

fn guard_case(input: &Value) -> Option<Outcome> {
    let guard = match Guard::from_value(&guard_spec(input["hook"].as_str()?, &input["params"])?, "")
    {
        Ok(g) => g,
        Err(e) => return Some(Err(e)),
    };
    let trigger = match input["trigger"].as_str()? {
        "before_step" => stepline::model::continuation::v2::guard::Trigger::BeforeStep,
        "after_step" => stepline::model::continuation::v2::guard::Trigger::AfterStep,
        _ => return None,
    };
    if guard.trigger() != trigger {
        return None; // the vector runs the hook where stepline's guard never runs
    }
    let state = match AgentState::from_value(&input["state"], &now()) {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    // The producer's time hook records the execution's start itself, in its
    // beforeExecution hook; under the harness's frozen clock that is `now`.
    let clock = Clock {
        execution_started_at: now(),
        now: now(),
    };
    let added: Vec<StopSignal> = guard.check(&state, &clock).into_iter().collect();
    let after = added
        .iter()
        .fold(state, |s, sig| s.with_stop_signal(sig.clone(), &now()));
    Some(Ok(json!({
        "addedSignals": added.iter().map(StopSignal::to_value).collect::<Vec<_>>(),
        "shouldStop": after.should_stop(),
        "stopReason": after.stop_signal().map_or(Value::Null, |x| json!(x.reason.as_str())),
    })))
}
