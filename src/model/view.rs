//! The read model handed to JavaScript: the reference's full state form, with
//! the derived values a UI needs written onto each step so no consumer has to
//! re-derive them (and possibly disagree).
//!
//! Added to every step (in `steps`, `currentStep` and `stepResults[*].step`):
//! `requestedToolCalls`, `executedToolCalls`, `finishReason` (normalised),
//! `usage.total`, and `durationMs` when the step's start and end are known. Each
//! tool execution gets `durationMs`; the state's `usage` gets `total`. Everything
//! else is exactly the reference's `toArray` output, so a view can be stored and
//! read back (the extra keys are ignored on read).

use crate::json::{Map, Value};

use crate::model::state::AgentState;
use crate::model::step::AgentStep;
use crate::model::tool_call::ToolCall;
use crate::model::tool_execution::ToolExecution;
use crate::model::usage::Usage;

/// Builds the JavaScript-facing view of a state.
pub fn agent_state_view(state: &AgentState) -> Value {
    let mut out = match state.to_value() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let duration_of = |step: &AgentStep, hint: usize| step_duration(state, step, hint);
    out.insert("usage", usage_view(&state.usage));
    let steps: Vec<Value> = state
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| step_view(s, duration_of(s, i)))
        .collect();
    out.insert("steps", Value::Array(steps));
    let current = state.current_step.as_ref().map_or(Value::Null, |s| {
        step_view(s, duration_of(s, state.steps.len().saturating_sub(1)))
    });
    out.insert("currentStep", current);
    let results: Vec<Value> = state
        .step_results
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("step", step_view(&r.step, r.duration_ms()));
            m.insert("outcome", r.outcome.to_value());
            if let Some(t) = &r.started_at {
                m.insert(
                    "startedAt",
                    Value::from(crate::model::time::format_precise(t)),
                );
            }
            if let Some(t) = &r.completed_at {
                m.insert(
                    "completedAt",
                    Value::from(crate::model::time::format_precise(t)),
                );
            }
            m.insert(
                "durationMs",
                r.duration_ms().map_or(Value::Null, Value::from),
            );
            Value::Object(m)
        })
        .collect();
    out.insert("stepResults", Value::Array(results));
    Value::Object(out)
}

/// The duration of `step` from its step result. Results usually line up with
/// steps, so the one at `hint` is tried first. (A linear fallback rather than a
/// HashMap, whose hasher tables would grow the wasm.)
fn step_duration(state: &AgentState, step: &AgentStep, hint: usize) -> Option<f64> {
    let same = |r: &&crate::model::state::StepResult| r.step.info.id == step.info.id;
    state
        .step_results
        .get(hint)
        .filter(same)
        .or_else(|| state.step_results.iter().find(same))?
        .duration_ms()
}

fn usage_view(u: &Usage) -> Value {
    let mut v = u.to_value();
    if let Value::Object(m) = &mut v {
        m.insert("total", Value::from(u.total()));
    }
    v
}

fn step_view(step: &AgentStep, duration_ms: Option<f64>) -> Value {
    let mut m = match step.to_value() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    m.insert("usage", usage_view(&step.usage));
    m.insert(
        "toolExecutions",
        Value::Array(step.tool_executions.0.iter().map(execution_view).collect()),
    );
    m.insert(
        "requestedToolCalls",
        calls(step.requested_tool_calls().iter()),
    );
    m.insert(
        "executedToolCalls",
        calls(step.executed_tool_calls().into_iter()),
    );
    m.insert("finishReason", Value::from(step.finish_reason().as_str()));
    m.insert("durationMs", duration_ms.map_or(Value::Null, Value::from));
    Value::Object(m)
}

fn execution_view(e: &ToolExecution) -> Value {
    let mut v = e.to_value();
    if let Value::Object(m) = &mut v {
        m.insert("durationMs", Value::from(e.duration_ms()));
    }
    v
}

fn calls<'a>(calls: impl Iterator<Item = &'a ToolCall>) -> Value {
    Value::Array(calls.map(ToolCall::to_value).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn now() -> crate::model::Timestamp {
        chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap()
    }

    #[test]
    fn steps_carry_requested_and_executed_calls_finish_reason_and_totals() {
        let state = json!({
            "steps": [{
                "stepInfo": {"id": "s1", "createdAt": "2026-01-20T11:59:50+00:00"},
                "usage": {"input": 10, "output": 2},
                "inferenceResponse": {
                    "content": "", "finishReason": "tool_use",
                    "toolCalls": [{"id": "c1", "name": "search", "arguments": {"q": "x"}}],
                    "responseData": {"statusCode": 200, "body": "", "headers": [], "isStreamed": false}
                },
                "toolExecutions": [{"toolCall": {"id": "c1", "name": "search", "arguments": {"q": "x"}},
                    "result": 1, "startedAt": "2026-01-20T11:59:55+00:00", "endedAt": "2026-01-20T12:01:05.5+00:00"}]
            }],
            "stepResults": [{"step": {"stepInfo": {"id": "s1"}},
                "startedAt": "2026-01-20T11:58:00+00:00", "completedAt": "2026-01-20T12:01:06+00:00", "outcome": []}]
        });
        let view = agent_state_view(&AgentState::from_value(&state, &now()).unwrap());
        let step = &view["steps"][0];
        assert_eq!(step["stepType"], "tool_execution");
        assert_eq!(step["finishReason"], "tool_calls");
        assert_eq!(
            step["requestedToolCalls"],
            json!([{"name": "search", "arguments": {"q": "x"}, "id": "c1"}])
        );
        assert_eq!(
            step["executedToolCalls"],
            json!([{"name": "search", "arguments": {"q": "x"}, "id": "c1"}])
        );
        assert_eq!(step["usage"]["total"], 12);
        // DESIGN fix 4: the whole interval, minutes included (3 min 6 s).
        assert_eq!(step["durationMs"], json!(186000.0));
        assert_eq!(step["toolExecutions"][0]["durationMs"], json!(70500.0));
        assert_eq!(view["stepResults"][0]["durationMs"], json!(186000.0));
        assert_eq!(view["usage"]["total"], 0);
    }

    #[test]
    fn duration_is_null_when_the_reference_did_not_store_step_timing() {
        let state = json!({"steps": [{"stepInfo": {"id": "s1"}}]});
        let view = agent_state_view(&AgentState::from_value(&state, &now()).unwrap());
        assert_eq!(view["steps"][0]["durationMs"], Value::Null);
    }

    #[test]
    fn a_view_reads_back_to_the_same_state() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/cognesy-v1.22/state-model.json"
        ))
        .unwrap();
        let cases: Value = crate::json::from_str(&text).unwrap();
        let input = &cases[0]["input"]["data"];
        let state = AgentState::from_value(input, &now()).unwrap();
        let reread = AgentState::from_value(&agent_state_view(&state), &now()).unwrap();
        assert_eq!(reread.to_value(), state.to_value());
    }
}
