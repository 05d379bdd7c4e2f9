//! v2.7 state-model.json: `AgentState::fromArray` of whole states (`run-…`,
//! `edge …`) and of its parts (`part …`), each observed as the vector records
//! it: `{toArray, derived, stable, secondToArray?}`.

use stepline::json;
use stepline::json::{Map, Value};
use stepline::model::continuation::v2::{ExecutionContinuation, StopSignal};
use stepline::model::time::Timestamp;
use stepline::model::v2::derived::derived;
use stepline::model::v2::step::summary;
use stepline::model::v2::{
    AgentState, AgentStep, ExecutionState, Form, StepExecution, ToolExecution,
};
use stepline::model::Usage;
use stepline::SteplineError;

use crate::Outcome;

/// The corpus's frozen clock (README: every "now" is this instant).
pub fn now() -> Timestamp {
    chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00.250+00:00")
        .expect("a valid RFC 3339 instant")
}

pub fn run(_name: &str, input: &Value) -> Option<Outcome> {
    let now = now();
    if let Some(state) = input.get("state") {
        return Some(whole_state(state, &now));
    }
    let data = &input["data"];
    let out = match input["class"].as_str()? {
        "AgentStep" => round_trip(
            data,
            |v| AgentStep::from_value(v, "", &now),
            |s| s.to_value(Form::Reference),
            |s| {
                json!({
                    "stepType": s.step_type().as_str(),
                    "hasToolCalls": s.has_tool_calls(),
                    "finishReason": s.inference_response.finish_reason().as_str(),
                    "usage": s.usage().to_value(),
                    "hasErrors": s.has_errors(),
                    "errorsAsString": s.error_messages().join("\n"),
                    "requestedToolCalls": s.inference_response.tool_calls.iter().map(|c| c.to_value()).collect::<Vec<_>>(),
                    "executedToolCalls": s.tool_executions.iter().map(|e| e.tool_call.to_value()).collect::<Vec<_>>(),
                    "toString": summary(s),
                })
            },
        ),
        "ToolExecution" => round_trip(
            data,
            |v| ToolExecution::from_value(v, "", &now),
            |e| e.to_value(Form::Reference),
            |e| json!({"toArray": e.to_value(Form::Reference), "value": e.value(), "hasError": e.has_error()}),
        ),
        "StepExecution" => round_trip(
            data,
            |v| StepExecution::from_value(v, "", &now),
            |s| s.to_value(Form::Reference),
            |s| {
                json!({
                    "duration": s.duration(),
                    "usage": s.step.usage().to_value(),
                    "stopSignal": s.stop_signal().map_or(Value::Null, StopSignal::to_value),
                })
            },
        ),
        "ExecutionState" => round_trip(
            data,
            |v| ExecutionState::from_value(v, "", &now),
            |e| e.to_value(Form::Reference),
            |e| json!({"status": e.status.as_str(), "stepCount": e.step_executions.len(), "shouldStop": e.should_stop()}),
        ),
        "ExecutionContinuation" => round_trip(
            data,
            |v| ExecutionContinuation::from_value(v, ""),
            |c| c.to_value(),
            |c| {
                json!({
                    "shouldStop": c.should_stop(),
                    "stopSignal": c.stop_signal().map_or(Value::Null, StopSignal::to_value),
                    "explain": c.explain(),
                })
            },
        ),
        "StopSignal" => round_trip(
            data,
            |v| StopSignal::from_value(v, ""),
            |s| s.to_value(),
            |s| json!({"toString": s.describe()}),
        ),
        "InferenceUsage" => round_trip(
            data,
            |v| Usage::from_value(v, ""),
            |u| u.to_value(),
            |u| json!({"total": u.total()}),
        ),
        _ => return None,
    };
    Some(out)
}

/// `fromArray`, then `{toArray, derived, stable, secondToArray?}` where
/// `stable` = `toArray(fromArray(toArray(x))) == toArray(x)`.
fn round_trip<T>(
    data: &Value,
    read: impl Fn(&Value) -> Result<T, SteplineError>,
    write: impl Fn(&T) -> Value,
    observe: impl Fn(&T) -> Value,
) -> Outcome {
    let first = read(data)?;
    let to_array = write(&first);
    let second = write(&read(&to_array)?);
    let stable = second == to_array;
    let mut out = Map::new();
    out.insert("toArray", to_array);
    out.insert("derived", observe(&first));
    out.insert("stable", Value::from(stable));
    if !stable {
        out.insert("secondToArray", second);
    }
    Ok(Value::Object(out))
}

fn whole_state(data: &Value, now: &Timestamp) -> Outcome {
    let read = |v: &Value| -> Result<AgentState, SteplineError> {
        let s = AgentState::from_value(v, now)?;
        // v2's fromArray throws where the state holds what it cannot rebuild.
        s.check_restorable()?;
        Ok(s)
    };
    round_trip(
        data,
        read,
        |s| s.to_value(Form::Reference),
        |s| derived(s, now, Form::Reference),
    )
}

/// Runs a case and compares it with the vector. Two adjustments, both about
/// how the harness recorded rather than what the producer did: for `part …`
/// cases it recorded a different selection of derived values per case (each
/// recorded one is compared; ours has a few more); and `debug().errors` is an
/// `ErrorList` object the vectors print as its class name, where the core
/// reports the error count (`errorCount`), so neither side's is compared.
pub fn check(name: &str, case: &Value) -> Option<Result<(), String>> {
    let mut case = case.clone();
    let expected_derived = case["expected"].get("derived").cloned();
    let part = case["input"].get("class").is_some();
    let outcome = run(name, &case["input"])?.map(|mut v| {
        if let (Some(exp), Some(act)) = (
            expected_derived.as_ref().and_then(Value::as_object),
            v.get_mut("derived").and_then(Value::as_object_mut),
        ) {
            if part {
                act.retain(|k, _| exp.contains_key(k));
            }
            if let Some(debug) = act.get_mut("debug").and_then(Value::as_object_mut) {
                debug.remove("errorCount");
            }
        }
        v
    });
    if let Some(debug) = case
        .get_mut("expected")
        .and_then(|e| e.get_mut("derived"))
        .and_then(|d| d.get_mut("debug"))
        .and_then(Value::as_object_mut)
    {
        debug.remove("errors");
    }
    Some(crate::judge(&case["expected"], outcome))
}
