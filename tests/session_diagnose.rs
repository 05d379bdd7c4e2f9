//! `Session::diagnose`: the detectors over the session's own log give what
//! `diagnose` gives over the same envelopes, lines that failed to ingest never
//! reach them, and redeliveries are not evidence twice.

use stepline::json;
use stepline::json::Value;
use stepline::lint::diagnose_value;
use stepline::session::Session;
use stepline::ErrorCode;

mod common;
use common::{case_envelopes, case_starting, jsonl, vectors, Corpus::V1_22};

fn last_slim(case: &Value) -> Value {
    case["expected"].as_array().unwrap().last().unwrap()["slim"].clone()
}

#[test]
fn a_sessions_diagnosis_is_diagnose_over_its_envelopes_for_every_reference_run() {
    let mut with_findings = 0;
    for case in vectors("agent-runs.json") {
        let name = case["name"].as_str().unwrap();
        let envelopes = case_envelopes(&case);
        let snapshot = last_slim(&case);
        let mut session = Session::new(None);
        let out = session.ingest_jsonl(&jsonl(&envelopes));
        assert_eq!(out.errors.count, 0, "{name}");
        let own = session
            .diagnose(&json!({"snapshot": snapshot, "includeToolResults": true}))
            .unwrap();
        let direct = diagnose_value(&json!({
            "envelopes": envelopes, "snapshot": snapshot, "includeToolResults": true
        }))
        .unwrap();
        assert_eq!(own, direct, "{name}");
        with_findings += usize::from(!own.is_empty());
    }
    // The two runs whose tool throws never broadcast a final status (quirk 7).
    assert_eq!(with_findings, 2);
}

#[test]
fn broken_lines_of_a_recording_neither_fail_nor_shift_the_diagnosis() {
    let case = case_starting(
        V1_22,
        "agent-runs.json",
        "tool throws (exception escapes ToolExecutor), default",
    );
    let envelopes = case_envelopes(&case);
    let mut clean = Session::new(None);
    clean.ingest_jsonl(&jsonl(&envelopes));
    let expected = clean.diagnose(&Value::Null).unwrap();
    assert_eq!(expected.len(), 1);
    assert_eq!(expected[0].code, "final_status_missing");

    // A truncated line, a line that is not JSON, an envelope of an unknown
    // shape with a bad known type: each is reported by the ingest, not diagnosed.
    let mut lines: Vec<String> = envelopes.iter().map(json::to_string).collect();
    let cut = lines[1][..lines[1].len() / 2].to_string();
    lines.insert(1, cut);
    lines.insert(3, "not json at all".into());
    lines.insert(
        5,
        r#"{"type":"agent.step.started","session_id":"sess-e2e","payload":7}"#.into(),
    );
    let mut session = Session::new(None);
    let out = session.ingest_jsonl(&lines.join("\n"));
    assert_eq!(out.errors.count, 3);
    assert_eq!(session.diagnose(&Value::Null).unwrap(), expected);
}

#[test]
fn redelivered_and_foreign_envelopes_are_not_evidence() {
    let case = case_starting(
        V1_22,
        "agent-runs.json",
        "tool throws (exception escapes ToolExecutor), default",
    );
    let envelopes = case_envelopes(&case);
    let mut once = Session::new(None);
    once.ingest_jsonl(&jsonl(&envelopes));
    let expected = once.diagnose(&Value::Null).unwrap();

    let mut foreign = envelopes[0].clone();
    *foreign.pointer_entry("/session_id").unwrap() = Value::from("someone-else");
    let mut twice = Session::new(None);
    twice.ingest_jsonl(&jsonl(&envelopes));
    twice.ingest_jsonl(&jsonl(&envelopes));
    twice.ingest_value(&foreign).unwrap();
    assert_eq!(twice.counts().duplicates, envelopes.len() as u64);
    // Same findings, same paths: `/envelopes/<i>` counts the applied envelopes.
    assert_eq!(twice.diagnose(&Value::Null).unwrap(), expected);
}

#[test]
fn a_leak_in_the_final_snapshot_is_found_through_the_session() {
    let case = case_starting(V1_22, "agent-runs.json", "tool call then final answer");
    let mut snapshot = last_slim(&case);
    let args =
        snapshot["messages"][1]["_metadata"]["tool_calls"][0]["function"]["arguments"].clone();
    *snapshot.pointer_entry("/messages/1/content").unwrap() = args;
    let mut session = Session::new(None);
    session.ingest_jsonl(&jsonl(&case_envelopes(&case)));
    let found = session.diagnose(&json!({"snapshot": snapshot})).unwrap();
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["tool_args_in_content"]);
    assert_eq!(found[0].path, "/snapshot/messages/1/content");
}

#[test]
fn diagnose_options_of_the_wrong_shape_are_typed_errors() {
    let session = Session::new(None);
    let err = session.diagnose(&json!({"envelopes": []})).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidValue);
    let err = session.diagnose(&json!({"snapshot": 3})).unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref()),
        (ErrorCode::InvalidType, Some("/snapshot"))
    );
    let err = session.diagnose(&json!([1])).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidType);
    assert_eq!(session.diagnose(&json!({})).unwrap(), vec![]);
}
