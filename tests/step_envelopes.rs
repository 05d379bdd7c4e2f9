//! The envelopes that built a step, as received (the panel's raw view), and
//! the step's output as messages (`Session::envelopes_of`), and both as
//! they stood after the session's first i envelopes (the time slider's
//! position, the one `Timeline::at` counts).

use stepline::json::Value;

mod common;
use common::{corpus_session, vectors_of, Corpus};
use stepline::session::step_envelopes::step_messages;
use stepline::session::timeline::Timeline;

fn types(envelopes: &[Value]) -> Vec<&str> {
    envelopes
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect()
}

#[test]
fn a_tool_step_is_built_by_its_start_tool_events_continuation_and_completion() {
    let s = corpus_session(Corpus::V1_22, "tool call then final answer [debug]");
    let one = s.envelopes_of(0, 1, None).unwrap();
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
    let two = s.envelopes_of(0, 2, None).unwrap();
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
    let got = s.envelopes_of(0, n, None).unwrap();
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
    assert!(s.envelopes_of(0, 99, None).is_none());
    assert!(s.envelopes_of(5, 1, None).is_none());
}

/// Every run of both reference corpora, by name.
fn every_run() -> Vec<(Corpus, String)> {
    [Corpus::V1_22, Corpus::V2_7]
        .into_iter()
        .flat_map(|c| {
            vectors_of(c, "agent-runs.json")
                .into_iter()
                .map(move |case| (c, case["name"].as_str().unwrap().to_string()))
        })
        .collect()
}

#[test]
fn before_i_envelopes_a_step_is_the_one_the_timeline_shows_at_i() {
    let mut checked = 0;
    for (corpus, name) in every_run() {
        let s = corpus_session(corpus, &name);
        let logged: Vec<Value> = s
            .log()
            .map(|l| stepline::json::from_str(&l).unwrap())
            .collect();
        let mut t = Timeline::new(&s);
        assert_eq!(t.len(), logged.len(), "{name}");
        for i in 0..=t.len() {
            let prefix = t.at(i);
            for (e, exec) in s.executions().iter().enumerate() {
                for &n in exec.steps.keys() {
                    let whole = s.envelopes_of(e, n, None).unwrap();
                    let shown = prefix.executions().get(e).and_then(|x| x.steps.get(&n));
                    let got = s.envelopes_of(e, n, Some(i));
                    let at = format!("{name}: execution {e} step {n} before {i}");
                    let (Some(step), Some(got)) = (shown, &got) else {
                        assert!(
                            shown.is_none() && got.is_none(),
                            "{at}: the step exists at i in one and not the other"
                        );
                        continue;
                    };
                    checked += 1;
                    assert_eq!(got.messages, step_messages(step), "{at}");
                    assert_eq!(got.input_message_count, step.message_count, "{at}");
                    // The envelopes that had arrived: the whole list's first ones,
                    // growing by envelope i exactly when i is the step's (identical
                    // lines may arrive twice, so positions, not contents, decide).
                    let k = got.envelopes.len();
                    assert_eq!(got.envelopes[..], whole.envelopes[..k], "{at}");
                    let next = s.envelopes_of(e, n, Some(i + 1)).unwrap();
                    match next.envelopes.len() - k {
                        0 => {}
                        1 => assert_eq!(next.envelopes.last(), logged.get(i), "{at}"),
                        more => panic!("{at}: one envelope added {more}"),
                    }
                }
            }
        }
    }
    assert!(checked > 500, "prefixes with a step checked: {checked}");
}

#[test]
fn at_or_past_the_end_is_the_whole_step_and_at_zero_no_step() {
    let s = corpus_session(
        Corpus::V1_22,
        "two turns on one adapter (multi-turn) [default]",
    );
    let len = s.log().count();
    assert_eq!(s.executions().len(), 2);
    for (e, exec) in s.executions().iter().enumerate() {
        for &n in exec.steps.keys() {
            let whole = s.envelopes_of(e, n, None).unwrap();
            for end in [len, len + 5, usize::MAX] {
                let got = s.envelopes_of(e, n, Some(end)).unwrap();
                assert_eq!(
                    got.envelopes, whole.envelopes,
                    "execution {e} step {n} before {end}"
                );
                assert_eq!(
                    got.messages, whole.messages,
                    "execution {e} step {n} before {end}"
                );
            }
            assert!(s.envelopes_of(e, n, Some(0)).is_none());
        }
    }
    // The second turn has begun (its status arrived) and its step 1 has not.
    let mut t = Timeline::new(&s);
    let begun = (0..=len)
        .find(|&i| t.at(i).executions().len() == 2)
        .unwrap();
    assert!(s.envelopes_of(1, 1, Some(begun)).is_none());
    assert!(s.envelopes_of(1, 1, Some(begun + 1)).is_some());
    assert!(s.envelopes_of(0, 1, Some(begun)).is_some());
}
