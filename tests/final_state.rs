//! Final states in every form a caller holds (a slim snapshot, a stored
//! agent state of either producer version, a recording's snapshot line):
//! a stored state says why a failed run failed when the stream never did,
//! and a final state the session was given is written back into its
//! recording where it arrived, so the exported run re-opens reconciled.

use stepline::json::Value;
use stepline::session::final_state::FinalState;
use stepline::session::Session;

mod common;
use common::{session_of, vectors_of, with_ids, Corpus};

/// `(envelopes, stored state, slim snapshot)` of each turn of the run named `prefix`.
fn turns(corpus: Corpus, prefix: &str) -> Vec<(Vec<Value>, Value, Value)> {
    let case = common::case_starting(corpus, "agent-runs.json", prefix);
    case["expected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let envelopes = t["envelopes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.get("envelope").cloned().unwrap_or_else(|| e.clone()))
                .collect();
            (envelopes, with_ids(&t["finalState"]), t["slim"].clone())
        })
        .collect()
}

fn read(v: &Value, corpus: Corpus) -> FinalState {
    FinalState::read(v, &corpus.now()).unwrap()
}

const THROWN: &str = "tool throws (exception escapes ToolExecutor), default policy";

#[test]
fn a_stored_state_says_why_a_thrown_run_failed() {
    let (envelopes, state, _) = turns(Corpus::V1_22, THROWN).remove(0);
    let session = session_of(&envelopes);
    assert_eq!(session.view()["executions"][0]["error"], Value::Null);
    let report = session.reconcile_final(&read(&state, Corpus::V1_22));
    let won = &report.to_value(&session)["view"]["executions"][0];
    assert_eq!(won["status"], "failed");
    assert_eq!(won["error"], "Connection refused");
}

#[test]
fn a_slim_snapshot_says_which_step_counted_the_errors_and_that_it_keeps_no_text() {
    let (envelopes, _, slim) = turns(Corpus::V1_22, THROWN).remove(0);
    let session = session_of(&envelopes);
    let report = session.reconcile(&slim);
    let won = &report.to_value(&session)["view"]["executions"][0];
    assert_eq!(
        won["error"],
        "failed with 1 error in step 1; the final snapshot keeps no error text (a stored agent state does)"
    );
}

#[test]
fn an_error_the_stream_carried_is_not_replaced() {
    let (envelopes, state, _) =
        turns(Corpus::V2_7, "driver exception on first inference").remove(0);
    let session = session_of(&envelopes);
    let report = session.reconcile_final(&read(&state, Corpus::V2_7));
    let won = &report.to_value(&session)["view"]["executions"][0];
    assert_eq!(won["status"], "failed");
    assert_eq!(won["error_message"], "Upstream LLM unavailable (503)");
    assert_eq!(
        won["error"],
        Value::Null,
        "the broadcast error is the one shown"
    );
}

/// Every turn of both corpora: the stored state ends the reconciled turn as
/// its own slim snapshot does, and a failed one always says why.
#[test]
fn every_stored_state_of_both_corpora_ends_its_turn_as_its_slim_snapshot_does() {
    let mut checked = 0;
    for corpus in [Corpus::V1_22, Corpus::V2_7] {
        for case in vectors_of(corpus, "agent-runs.json") {
            let mut session = Session::new(None);
            for (t, turn) in case["expected"].as_array().unwrap().iter().enumerate() {
                for e in turn["envelopes"].as_array().unwrap() {
                    session
                        .ingest_value(e.get("envelope").unwrap_or(e))
                        .unwrap();
                }
                let state = with_ids(&turn["finalState"]);
                let from_state = session.reconcile_final(&read(&state, corpus));
                let slim = match corpus {
                    Corpus::V1_22 => turn["slim"].clone(),
                    Corpus::V2_7 => {
                        stepline::state_formats::slim(
                            &state,
                            &Default::default(),
                            None,
                            &corpus.now(),
                        )
                        .unwrap()
                        .snapshot
                    }
                };
                let from_slim = session.reconcile(&slim);
                let name = format!("{} turn {t}", case["name"]);
                let won = |r: &stepline::session::reconcile::Report| {
                    let v = r.to_value(&session);
                    let e = v["view"]["executions"]
                        .as_array()
                        .unwrap()
                        .last()
                        .unwrap()
                        .clone();
                    (
                        e["status"].clone(),
                        e["ended"].clone(),
                        e["final_answer"].clone(),
                    )
                };
                assert_eq!(won(&from_state), won(&from_slim), "{name}");
                assert_eq!(from_state.state_status, from_slim.state_status, "{name}");
                let e = from_state.to_value(&session)["view"]["executions"]
                    .as_array()
                    .unwrap()
                    .last()
                    .unwrap()
                    .clone();
                if from_state.state_status.as_deref() == Some("failed") {
                    assert!(
                        e["error"].is_string() || e["error_message"].is_string(),
                        "{name}: a failed turn says why"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "{checked} turns");
}

/// Two turns, each given its stored state when it ends: the recording holds
/// each as a snapshot line before the next turn's first envelope, with its
/// error text, and replays into the same reconciled views and the same text.
#[test]
fn ingested_final_states_are_written_back_where_they_arrived() {
    let corpus = Corpus::V2_7;
    let mut session = Session::new(None);
    let mut reports = Vec::new();
    let turns = turns(
        corpus,
        "multi-turn: failure then recovery on the next user message",
    );
    for (envelopes, state, _) in &turns {
        for e in envelopes {
            session.ingest_value(e).unwrap();
        }
        let r = session.ingest_final_state(state, &corpus.now()).unwrap();
        reports.push(r.to_value(&session));
    }
    let text = session.to_recording();
    let lines: Vec<&str> = text.lines().collect();
    let snapshot_at: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"stepline_snapshot\""))
        .map(|(i, _)| i)
        .collect();
    // Header, turn 1's envelopes, its state, turn 2's envelopes, its state.
    let first = turns[0].0.len();
    assert_eq!(snapshot_at, vec![1 + first, 2 + first + turns[1].0.len()]);

    let (back, snapshots) = Session::from_recording(&text).unwrap();
    assert_eq!(snapshots.len(), 2);
    assert_eq!(
        back.to_recording(),
        text,
        "the replayed session writes the same recording"
    );
    let kept: Vec<&FinalState> = back.final_states().collect();
    assert_eq!(
        back.reconcile_final(kept[1]).to_value(&back),
        reports[1],
        "the last turn re-opens reconciled the same way"
    );
}

#[test]
fn a_later_final_state_of_the_same_turn_replaces_the_earlier() {
    let (envelopes, state, slim) = turns(Corpus::V1_22, THROWN).remove(0);
    let mut session = session_of(&envelopes);
    session
        .ingest_final_state(&slim, &Corpus::V1_22.now())
        .unwrap();
    session
        .ingest_final_state(&state, &Corpus::V1_22.now())
        .unwrap();
    let kept: Vec<&FinalState> = session.final_states().collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].error.as_deref(), Some("Connection refused"));
    let text = session.to_recording();
    assert_eq!(text.matches("\"stepline_snapshot\"").count(), 1);
    assert!(text.contains(r#""error":"Connection refused""#));
}

#[test]
fn final_states_of_no_known_form_are_typed_errors_with_paths() {
    let now = Corpus::V1_22.now();
    let cases = [
        ("[1]", "invalid_type", ""),
        (
            r#"{"stepline_snapshot": 3}"#,
            "invalid_type",
            "/stepline_snapshot",
        ),
        (
            r#"{"stepline_snapshot": {}, "error": 5}"#,
            "invalid_type",
            "/error",
        ),
        (
            r#"{"agentId": "a", "execution": null, "steps": []}"#,
            "unknown_state_version",
            "",
        ),
    ];
    for (text, code, path) in cases {
        let v = stepline::json::from_str(text).unwrap();
        let e = FinalState::read(&v, &now).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_deref()),
            (code, Some(path)),
            "{text}"
        );
        let mut s = Session::new(None);
        assert!(s.ingest_final_state(&v, &now).is_err());
        assert_eq!(s.final_states().count(), 0, "{text}: nothing kept");
    }
}

#[test]
fn a_snapshot_line_may_hold_the_stored_state_itself() {
    let (envelopes, state, _) = turns(Corpus::V1_22, THROWN).remove(0);
    let line = stepline::json!({"stepline_snapshot": state.clone()});
    let mut session = session_of(&envelopes);
    let report = session
        .ingest_final_state(&line, &Corpus::V1_22.now())
        .unwrap();
    assert_eq!(
        report.won.unwrap().run_error.as_deref(),
        Some("Connection refused")
    );
    // The recording keeps it slim, with its error text.
    let (back, snapshots) = Session::from_recording(&session.to_recording()).unwrap();
    assert!(snapshots[0].get("agentId").is_none(), "written slim");
    assert_eq!(
        back.final_states().next().unwrap().error.as_deref(),
        Some("Connection refused")
    );

    let bad =
        stepline::json!({"stepline_snapshot": {"agentId": "a", "execution": null, "steps": []}});
    let e = FinalState::read(&bad, &Corpus::V1_22.now()).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_deref()),
        ("unknown_state_version", Some("/stepline_snapshot"))
    );
}
