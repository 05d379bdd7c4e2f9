//! AG-UI events into the one view: the JSON Patch suite that state deltas rely
//! on, bad input with its paths, and gaps kept and shown. Vectors are read from
//! `tests/vectors/dialects/json-patch/` and `tests/vectors/dialects/ag-ui/`.

use stepline::json::patch::{apply, equal, PatchFailure};
use stepline::json::{self, Limits, Value};

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    json::parse(&text, &Limits::default()).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs one json-patch-tests file; returns (passed, skipped).
fn run_patch_suite(file: &str) -> (usize, usize) {
    let cases = read(file);
    let cases = cases.as_array().expect("an array of records");
    let (mut passed, mut skipped) = (0, 0);
    for (i, case) in cases.iter().enumerate() {
        let comment = case["comment"].as_str().unwrap_or("");
        let error = case.get("error").and_then(Value::as_str);
        // An `op` member written twice is invisible once parsed (the last one wins).
        if error.is_some_and(|e| e.contains("two 'op' members")) {
            skipped += 1;
            continue;
        }
        let result = apply(&case["doc"], &case["patch"], "/patch");
        match (error, case.get("expected"), result) {
            (Some(_), _, Err(_)) => {}
            (Some(e), _, Ok(doc)) => {
                panic!("{file} #{i} ({comment}): expected an error ({e}), got {doc}")
            }
            (None, Some(expected), Ok(doc)) => assert!(
                equal(&doc, expected),
                "{file} #{i} ({comment}): expected {expected}, got {doc}"
            ),
            (None, None, Ok(_)) => {}
            (None, _, Err(e)) => {
                panic!("{file} #{i} ({comment}): expected success, got {:?}", e)
            }
        }
        passed += 1;
    }
    (passed, skipped)
}

#[test]
fn json_patch_passes_the_rfc6902_test_suite() {
    let (passed, skipped) = run_patch_suite("tests/vectors/dialects/json-patch/tests.json");
    assert_eq!((passed, skipped), (94, 1));
}

#[test]
fn json_patch_passes_the_rfc6902_spec_examples() {
    let (passed, skipped) = run_patch_suite("tests/vectors/dialects/json-patch/spec_tests.json");
    assert_eq!((passed, skipped), (16, 1));
}

#[test]
fn json_patch_errors_point_into_the_patch_and_tell_malformed_from_not_applicable() {
    let doc = json::parse(r#"{"items":[1,2]}"#, &Limits::default()).unwrap();
    let bad_op = json::parse(
        r#"[{"op":"add","path":"/items/-","value":3},{"op":"spam","path":"/x"}]"#,
        &Limits::default(),
    )
    .unwrap();
    match apply(&doc, &bad_op, "/delta") {
        Err(PatchFailure::Malformed(e)) => assert_eq!(e.path.as_deref(), Some("/delta/1/op")),
        other => panic!("expected a malformed patch, got {other:?}"),
    }
    let past_end = json::parse(
        r#"[{"op":"add","path":"/items/5","value":3}]"#,
        &Limits::default(),
    )
    .unwrap();
    match apply(&doc, &past_end, "/delta") {
        Err(PatchFailure::NotApplicable(e)) => {
            assert_eq!(e.path.as_deref(), Some("/delta/0/path"))
        }
        other => panic!("expected a patch that does not apply, got {other:?}"),
    }
}

use stepline::session::Session;

fn ingest_all(events: &[Value]) -> (Session, Vec<(usize, String, String)>) {
    let mut s = Session::new(None);
    let mut warnings = vec![];
    for (i, e) in events.iter().enumerate() {
        let out = s
            .ingest_value(e)
            .unwrap_or_else(|err| panic!("event {i} ({}) refused: {err}", e["type"]));
        assert!(out.applied || out.duplicate, "event {i}: {out:?}");
        assert!(out.rejected.is_none(), "event {i}: {out:?}");
        for w in out.warnings {
            warnings.push((i, w.code.to_string(), w.path));
        }
    }
    (s, warnings)
}

#[test]
fn bad_ag_ui_events_are_refused_with_their_code_and_path() {
    let vectors = read("tests/vectors/dialects/ag-ui/bad-input.json");
    let cases = vectors["cases"].as_array().unwrap();
    assert!(cases.len() >= 25);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut s = Session::new(None);
        let err = s
            .ingest_value(&case["event"])
            .expect_err(&format!("{name}: expected a refusal"));
        assert_eq!(
            err.code.as_str(),
            case["code"].as_str().unwrap(),
            "{name}: {err}"
        );
        assert_eq!(err.path.as_deref(), case["path"].as_str(), "{name}: {err}");
    }
}

#[test]
fn gaps_in_ag_ui_streams_are_kept_shown_and_warned() {
    check_view_cases("tests/vectors/dialects/ag-ui/gaps.json");
}

#[test]
fn ag_ui_events_reach_the_view_as_the_module_documents() {
    check_view_cases("tests/vectors/dialects/ag-ui/views.json");
}

/// Every case of `file`: its events are accepted, its warnings are exactly the
/// ones listed, and the view has the values listed.
fn check_view_cases(file: &str) {
    let vectors = read(file);
    for case in vectors["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (s, warnings) = ingest_all(case["events"].as_array().unwrap());
        let expected: Vec<(usize, String, String)> = case["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                (
                    w[0].as_u64().unwrap() as usize,
                    w[1].as_str().unwrap().to_string(),
                    w[2].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(warnings, expected, "{name}");
        let view = s.view();
        for (pointer, want) in case["view"].as_object().unwrap() {
            let got = view.pointer(pointer).unwrap_or(&Value::Null);
            assert_eq!(got, want, "{name}: {pointer} in {view}");
        }
    }
}

#[test]
fn redelivered_ag_ui_starts_ends_and_results_are_duplicates_that_change_nothing() {
    let events = read("tests/vectors/dialects/ag-ui/upstream/Step12_ParallelToolCalls--PostRun_WithParallelToolCalls_InvokesBothToolsAndStreamsResults--Turn_01.06.Response.Server.AGUI.json");
    let events = events.as_array().unwrap();
    let mut once = Session::new(None);
    let mut twice = Session::new(None);
    let mut duplicates = 0;
    for e in events {
        once.ingest_value(e).unwrap();
        twice.ingest_value(e).unwrap();
        let kind = e["type"].as_str().unwrap();
        // Content and argument deltas carry no id of their own: a repeat is new text.
        if kind.ends_with("_CONTENT") || kind.ends_with("_ARGS") {
            continue;
        }
        let again = twice.ingest_value(e).unwrap();
        assert!(again.duplicate, "{kind} redelivered: {again:?}");
        duplicates += 1;
    }
    assert!(duplicates >= 9);
    assert_eq!(once.view()["executions"], twice.view()["executions"]);
}

#[test]
fn the_thread_id_names_the_session_and_every_run_is_an_execution() {
    let streams = read("tests/vectors/dialects/ag-ui/upstream/dart-fixtures-events.json");
    let (s, warnings) = ingest_all(streams["multiple_runs"].as_array().unwrap());
    assert!(warnings.is_empty(), "{warnings:?}");
    let view = s.view();
    let execs = view["executions"].as_array().unwrap();
    assert_eq!(execs.len(), 2);
    for e in execs {
        assert_eq!(e["status"], "completed");
        assert_eq!(e["dialect"], "ag-ui");
    }
    assert_eq!(view["session_id"], streams["multiple_runs"][0]["threadId"]);
}

#[test]
fn a_resumed_run_answers_the_interrupts_approved_and_denied_on_the_interrupted_runs_tools() {
    let vector = read("tests/vectors/dialects/ag-ui/approval-run.json");
    let (s, warnings) = ingest_all(vector["events"].as_array().unwrap());
    assert!(warnings.is_empty(), "{warnings:?}");
    let view = s.view();
    let first = &view["executions"][0];
    assert_eq!(first["status"], "interrupted");
    assert_eq!(first["end_reason"], "tool_call");
    let tools = &first["steps"][0]["tools"];
    assert_eq!(tools[0]["call_id"], "call_rm_1");
    assert_eq!(tools[0]["approval"], "approved");
    assert_eq!(tools[0]["status"], "succeeded");
    assert_eq!(tools[0]["result"], "{\"deleted\":true}");
    assert_eq!(tools[1]["call_id"], "call_mail_2");
    assert_eq!(tools[1]["approval"], "denied");
    assert_eq!(tools[1]["seen"]["completed"], false);
    assert_eq!(view["executions"][1]["status"], "completed");
}
