//! The reconciled view (`reconcile()`'s, what the panel shows once a final
//! state is in) shows the fixes the seeds specify for a stored step: its
//! type by seed 001's derivation (docs/seeds/001-agent-steps-refactor-plan.md
//! §Step Type Derivation Rules) and its duration from the stored timing
//! (docs/seeds/000-slim-serialization-and-adapter.md §Proposed Snapshot Schema).

use stepline::json::Value;
use stepline::session::final_state::FinalState;

mod common;
use common::{case_starting, session_of, with_ids, Corpus};

const RUN: &str = "tool call then final answer [debug]";

fn set(v: &mut Value, pointer: &str, key: &'static str, to: Value) {
    v.pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("{pointer}"))
        .insert(key, to);
}

/// The run's envelopes, and its stored final state edited by `edit`.
fn run(edit: impl Fn(&mut Value)) -> (Vec<Value>, Value) {
    let case = case_starting(Corpus::V1_22, "agent-runs.json", RUN);
    let turn = &case["expected"][0];
    let envelopes = turn["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["envelope"].clone())
        .collect();
    let mut state = with_ids(&turn["finalState"]);
    edit(&mut state);
    (envelopes, state)
}

/// The reconciled view's steps.
fn reconciled_steps(envelopes: &[Value], state: &Value) -> Vec<Value> {
    let session = session_of(envelopes);
    let fin = FinalState::read(state, &Corpus::V1_22.now()).unwrap();
    let view = session.reconcile_final(&fin).to_value(&session);
    view["view"]["executions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["steps"]
        .as_array()
        .unwrap()
        .clone()
}

// Seed 001 rule 2: a failed tool execution makes the step `error`, which the
// stream (it counted no step errors) did not say. The view derives the type
// from the final state's error count (a snapshot's stored `type` is not
// trusted: the producer's own reading typed a failed inference
// `final_response`). A pin: it passed before the duration change too.
#[test]
fn the_reconciled_step_takes_the_final_states_seed_001_type() {
    let (envelopes, state) = run(|s| {
        for p in [
            "/steps/0/toolExecutions/0",
            "/stepResults/0/step/toolExecutions/0",
        ] {
            set(s, p, "error", Value::from("search backend down"));
        }
    });
    let streamed = stepline::json::to_value_of(&session_of(&envelopes).view());
    assert_eq!(
        streamed["executions"][0]["steps"][0]["type"],
        "tool_execution"
    );
    let steps = reconciled_steps(&envelopes, &state);
    assert_eq!(steps[0]["type"], "error", "{}", steps[0]);
    assert_eq!(steps[1]["type"], "final_response");
}

// Seed 000: the final state's step duration, from the stored start and completion.
#[test]
fn the_reconciled_step_takes_the_final_states_duration() {
    let (envelopes, state) = run(|s| {
        // The result names its step (the corpus shows generated ids as placeholders).
        let id = s.pointer("/steps/1/stepInfo/id").unwrap().clone();
        set(s, "/stepResults/1/step/stepInfo", "id", id);
        set(
            s,
            "/stepResults/1",
            "startedAt",
            Value::from("2026-01-20T11:59:58.000+00:00"),
        );
        set(
            s,
            "/stepResults/1",
            "completedAt",
            Value::from("2026-01-20T11:59:59.250+00:00"),
        );
    });
    let steps = reconciled_steps(&envelopes, &state);
    assert_eq!(steps[1]["duration_ms"], Value::from(1250.0));
    // No stored timing: the streamed duration stays.
    assert_eq!(steps[0]["duration_ms"], Value::from(0.0));
}
