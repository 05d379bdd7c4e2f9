//! The envelopes that built a step, as received (the panel's raw view), and
//! the step's output as messages (`Session::envelopes_of`).

use stepline::json::Value;

mod common;
use common::{corpus_session, Corpus};

fn types(envelopes: &[Value]) -> Vec<&str> {
    envelopes
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect()
}

#[test]
fn a_tool_step_is_built_by_its_start_tool_events_continuation_and_completion() {
    let s = corpus_session(Corpus::V1_22, "tool call then final answer [debug]");
    let one = s.envelopes_of(0, 1).unwrap();
    let t = types(&one.envelopes);
    for kind in [
        "agent.step.started",
        "agent.tool.started",
        "agent.tool.completed",
        "agent.continuation",
        "agent.step.completed",
    ] {
        assert!(t.contains(&kind), "{kind} missing from {t:?}");
    }
    assert!(
        one.envelopes
            .iter()
            .all(|e| e["payload"]["step_number"].as_i64().is_none_or(|n| n == 1)),
        "{t:?}"
    );
    let roles: Vec<&str> = one.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, ["tool_call", "tool_result"]);
    assert!(one.messages[0].tool.is_some());
    // Step 2's envelopes are not step 1's, and every one of them was received.
    let two = s.envelopes_of(0, 2).unwrap();
    assert!(two.envelopes.iter().all(|e| !one.envelopes.contains(e)));
    let logged: Vec<Value> = s
        .log()
        .map(|l| stepline::json::from_str(&l).unwrap())
        .collect();
    assert!(one
        .envelopes
        .iter()
        .chain(&two.envelopes)
        .all(|e| logged.contains(e)));
}

#[test]
fn a_streamed_v2_answer_is_the_steps_assistant_message() {
    let s = corpus_session(
        Corpus::V2_7,
        "real driver: streamed answer, several text deltas [standard]",
    );
    let exec = &s.executions()[0];
    let (&n, step) = exec.steps.iter().next_back().unwrap();
    let got = s.envelopes_of(0, n).unwrap();
    assert!(!got.envelopes.is_empty());
    assert_eq!(got.input_message_count, step.message_count);
    if !step.text.is_empty() {
        assert!(got
            .messages
            .iter()
            .any(|m| m.role == "assistant" && m.content == step.text));
    }
}

#[test]
fn no_such_step_or_execution_is_none() {
    let s = corpus_session(Corpus::V1_22, "tool call then final answer [debug]");
    assert!(s.envelopes_of(0, 99).is_none());
    assert!(s.envelopes_of(5, 1).is_none());
}
