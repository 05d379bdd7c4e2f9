//! AG-UI events into the one view: the JSON Patch suite that state deltas rely
//! on, bad input with its paths, and gaps kept and shown. Vectors are read from
//! `tests/vectors/json-patch/` and `tests/vectors/ag-ui/`.

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
    let (passed, skipped) = run_patch_suite("tests/vectors/json-patch/tests.json");
    assert_eq!((passed, skipped), (94, 1));
}

#[test]
fn json_patch_passes_the_rfc6902_spec_examples() {
    let (passed, skipped) = run_patch_suite("tests/vectors/json-patch/spec_tests.json");
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
