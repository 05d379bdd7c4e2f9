//! Seed 001 (docs/seeds/001-agent-steps-refactor-plan.md) in stepline's
//! default mode: a step's type, tool calls and usage are derived from its
//! inference response and errors, and the two readers that show a v1.22 step
//! (the slim snapshot and `parseAgentState`, natively `state_formats::read`
//! plus its view) read it the same way. `compat` keeps the producer's reading.

use stepline::json::{self, Value};
use stepline::model::time::Timestamp;
use stepline::model::view::agent_state_view;
use stepline::model::AgentState;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::SlimConfig;

mod common;
use common::vectors;

fn now() -> Timestamp {
    chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap()
}

/// The reference's state with odd steps (slim-serializer.json): step 2 failed
/// in the model ("Model overloaded", stored `final_response`), step 5 keeps
/// its calls only in the legacy `toolCalls` field.
fn odd_state() -> Value {
    vectors("slim-serializer.json")
        .into_iter()
        .find(|c| {
            c["name"] == "serialize [default] steps with errors and odd finish reasons (failed)"
        })
        .expect("the vector")["input"]["state"]
        .clone()
}

/// `parseAgentState`'s steps (its view of each v1.22 step).
fn parsed_steps(state: &Value, compat: bool) -> Vec<Value> {
    let read = stepline::state_formats::read(state, &now(), compat).unwrap();
    let Some(s) = read.downcast_ref::<stepline::model::AgentState>() else {
        panic!("a v1.22 state");
    };
    let view = json::to_value_of(&agent_state_view(s));
    view["steps"].as_array().unwrap().clone()
}

fn slim_steps(state: &Value, compat: bool) -> Vec<Value> {
    let s = AgentState::from_value(state, &now()).unwrap();
    let config = SlimConfig {
        compat,
        max_steps: 100,
        ..SlimConfig::standard()
    };
    slim_state(&s, &config)["steps"].as_array().unwrap().clone()
}

fn set(v: &mut Value, pointer: &str, to: Value) {
    *v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer}")) = to;
}

fn ids_and_names(calls: &Value) -> Vec<(Value, Value)> {
    calls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].clone(), c["name"].clone()))
        .collect()
}

// Seed 001 §Step Type Derivation Rules, rule 1: model/driver errors → `error`.
#[test]
fn a_failed_inference_step_is_an_error_in_the_snapshot_and_in_parse_agent_state() {
    let state = odd_state();
    assert_eq!(slim_steps(&state, false)[1]["type"], "error");
    assert_eq!(parsed_steps(&state, false)[1]["stepType"], "error");
    // The producer's reading (compat): the stored `final_response`.
    assert_eq!(slim_steps(&state, true)[1]["type"], "final_response");
    assert_eq!(parsed_steps(&state, true)[1]["stepType"], "final_response");
}

// Seed 001 §Single Sources of Truth 1 and §Refactor Strategy stage 3: the
// serializer reads the requested calls; `toolCalls()` is their alias
// (§Proposed API Shape).
#[test]
fn a_step_that_requested_calls_slims_them_and_tool_calls_is_their_alias() {
    let mut state = odd_state();
    let mut bad = state["steps"][3].clone();
    set(
        &mut bad,
        "/inferenceResponse/toolCalls",
        stepline::json!([{"id": "call_bad", "name": "bad", "arguments": {"x": 1}}]),
    );
    set(
        &mut bad,
        "/inferenceResponse/finishReason",
        stepline::json!("tool_calls"),
    );
    set(&mut bad, "/toolCalls", stepline::json!([]));
    set(&mut bad, "/stepType", stepline::json!("tool_execution"));
    state
        .pointer_mut("/steps")
        .and_then(Value::as_array_mut)
        .unwrap()
        .push(bad);
    let slim = &slim_steps(&state, false)[5];
    assert_eq!(
        slim["tool_calls"],
        stepline::json!([{"id": "call_bad", "name": "bad"}])
    );
    assert_eq!(slim["has_tool_calls"], true);
    assert_eq!(slim["type"], "tool_execution");
    let parsed = &parsed_steps(&state, false)[5];
    assert_eq!(parsed["toolCalls"], parsed["requestedToolCalls"]);
    assert_eq!(parsed["toolCalls"][0]["name"], "bad");
    // The producer's serializer reads the step's own (empty) `toolCalls`.
    let compat = &slim_steps(&state, true)[5];
    assert_eq!(
        (&compat["tool_calls"], &compat["has_tool_calls"]),
        (&stepline::json!([]), &stepline::json!(false))
    );
}

// Seed 001 §Compatibility Notes 2: legacy `toolCalls` are hydrated into an
// empty `inferenceResponse.toolCalls` when an old state is read.
#[test]
fn legacy_tool_calls_fill_an_empty_inference_response_when_reading_old_states() {
    let state = odd_state();
    let legacy = &state["steps"][4]["toolCalls"];
    assert_eq!(
        state["steps"][4]["inferenceResponse"]["toolCalls"],
        stepline::json!([])
    );
    let parsed = &parsed_steps(&state, false)[4];
    assert_eq!(parsed["inferenceResponse"]["toolCalls"], *legacy);
    assert_eq!(parsed["requestedToolCalls"], *legacy);
    assert_eq!(parsed["stepType"], "tool_execution");
    let slim = &slim_steps(&state, false)[4];
    assert_eq!(slim["type"], "tool_execution");
    assert_eq!(ids_and_names(&slim["tool_calls"]), ids_and_names(legacy));
    // compat: the stored form, untouched.
    let kept = &parsed_steps(&state, true)[4];
    assert_eq!(kept["inferenceResponse"]["toolCalls"], stepline::json!([]));
    assert_eq!(kept["stepType"], "final_response");
}

// Seed 001 §Single Sources of Truth 3: `usage()` is the inference response's.
#[test]
fn a_steps_usage_is_its_inference_responses() {
    let mut state = odd_state();
    set(
        &mut state,
        "/steps/3/usage",
        stepline::json!({"input": 1, "output": 2, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0}),
    );
    // The response says 500 + 4096.
    assert_eq!(slim_steps(&state, false)[3]["usage"]["total"], 4596);
    assert_eq!(parsed_steps(&state, false)[3]["usage"]["total"], 4596);
    assert_eq!(slim_steps(&state, true)[3]["usage"]["total"], 3);
    assert_eq!(parsed_steps(&state, true)[3]["usage"]["total"], 3);
}

/// Every v1.22 state the reference corpus holds: the slim vectors' inputs and
/// the agent runs' final states.
fn reference_states() -> Vec<(String, Value)> {
    let slim = vectors("slim-serializer.json").into_iter().filter_map(|c| {
        let state = c["input"].get("state")?.clone();
        AgentState::from_value(&state, &now()).ok()?;
        Some((c["name"].as_str()?.to_string(), state))
    });
    let runs = vectors("agent-runs.json").into_iter().flat_map(|c| {
        let name = c["name"].as_str().unwrap_or_default().to_string();
        c["expected"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(move |t| (name.clone(), t["finalState"].clone()))
    });
    slim.chain(runs).collect()
}

// Seed 001 §Success Criteria 1: one source of truth per concern, so the two
// readers of a step never disagree, in either mode.
#[test]
fn the_snapshot_and_parse_agent_state_agree_on_every_step_of_every_reference_state() {
    let states = reference_states();
    assert!(states.len() > 20, "{} states", states.len());
    let mut steps_seen = 0;
    for (name, state) in &states {
        for compat in [false, true] {
            let slim = slim_steps(state, compat);
            let parsed = parsed_steps(state, compat);
            assert_eq!(slim.len(), parsed.len(), "{name}");
            for (i, (s, p)) in slim.iter().zip(&parsed).enumerate() {
                let at = format!("{name}, step {}, compat {compat}", i + 1);
                assert_eq!(s["type"], p["stepType"], "{at}");
                assert_eq!(s["usage"]["total"], p["usage"]["total"], "{at}");
                assert_eq!(
                    ids_and_names(&s["tool_calls"]),
                    ids_and_names(&p["toolCalls"]),
                    "{at}"
                );
                assert_eq!(
                    s["has_tool_calls"],
                    stepline::json!(!p["toolCalls"].as_array().unwrap().is_empty()),
                    "{at}"
                );
                steps_seen += 1;
            }
        }
    }
    assert!(steps_seen > 40, "{steps_seen} steps compared");
}

#[test]
fn a_compat_option_that_is_not_a_boolean_is_a_typed_error_at_its_path() {
    let m = stepline::json!({"compat": "yes"});
    let err =
        stepline::model::shape::ParseAgentStateOptions::read(m.as_object().unwrap()).unwrap_err();
    assert_eq!(err.code, stepline::ErrorCode::InvalidType);
    assert_eq!(err.path.as_deref(), Some("/options/compat"));
}
