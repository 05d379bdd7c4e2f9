//! Bad input of every class gets a typed error with a code and a JSON-pointer
//! path, never a panic and never a silently wrong value.

use std::panic::{catch_unwind, AssertUnwindSafe};

use stepline::json;
use stepline::json::Value;
use stepline::model::AgentState;
use stepline::ErrorCode;

mod common;
use common::{vectors, Corpus::V1_22};

fn err_of(text: &str) -> stepline::SteplineError {
    AgentState::parse(text, &V1_22.now()).expect_err("bad input must be rejected")
}

fn err_of_value(v: Value) -> stepline::SteplineError {
    AgentState::from_value(&v, &V1_22.now()).expect_err("bad input must be rejected")
}

#[test]
fn malformed_json_is_invalid_json_without_a_path() {
    for text in [
        "{",
        "{\"agentId\": }",
        "[1,]",
        "nul",
        "{\"a\":1} trailing",
        "",
    ] {
        let e = err_of(text);
        assert_eq!(e.code, ErrorCode::InvalidJson, "{text:?}");
        assert_eq!(e.path, None);
        assert!(
            e.message.starts_with("expected valid JSON"),
            "{}",
            e.message
        );
    }
}

#[test]
fn non_utf8_bytes_are_rejected() {
    let e = stepline::json::parse_bytes(
        b"{\"agentId\": \"\xc3\x28\"}",
        &stepline::json::Limits::default(),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidJson);
    assert!(e.message.contains("UTF-8"));
}

#[test]
fn wrong_types_name_the_path_what_was_expected_and_what_was_found() {
    let cases = [
        (
            json!("a string"),
            "",
            "expected the agent state as an object, found a string",
        ),
        (
            json!({"status": 3}),
            "/status",
            "expected the status as a string, found a number",
        ),
        (
            json!({"steps": "many"}),
            "/steps",
            "expected steps as an array, found a string",
        ),
        (
            json!({"steps": [{"usage": 5}]}),
            "/steps/0/usage",
            "expected usage as an object, found a number",
        ),
        (
            json!({"stateInfo": {"startedAt": 12}}),
            "/stateInfo/startedAt",
            "expected a date/time string, found a number",
        ),
        (
            json!({"steps": [{"toolCalls": [{"name": "x", "arguments": 5}]}]}),
            "/steps/0/toolCalls/0/arguments",
            "ToolCall args must be a string or an array, found a number",
        ),
        (
            json!({"messageStore": {"sections": [{"messages": [{"role": "user", "content": true}]}]}}),
            "/messageStore/sections/0/messages/0/content",
            "expected message content as a string or a list of parts, found a boolean",
        ),
    ];
    for (input, path, message) in cases {
        let e = err_of_value(input.clone());
        assert_eq!(e.code, ErrorCode::InvalidType, "{input}");
        assert_eq!(e.path.as_deref(), Some(path), "{input}");
        assert_eq!(e.message, message);
    }
}

#[test]
fn invalid_values_are_rejected_with_the_allowed_values() {
    let e = err_of_value(json!({"status": "idle"}));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidValue, Some("/status"))
    );
    assert!(e.message.contains("\"idle\""));
    let e = err_of_value(json!({"currentStep": {"stepType": "tool"}}));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidValue, Some("/currentStep/stepType"))
    );
    let e = err_of_value(json!({"stateInfo": {"startedAt": "the day after"}}));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidTimestamp, Some("/stateInfo/startedAt"))
    );
    let e = err_of_value(
        json!({"stepResults": [{"step": {}, "outcome": {"evaluations": [{"decision": "maybe"}]}}]}),
    );
    assert_eq!(
        (e.code, e.path.as_deref()),
        (
            ErrorCode::InvalidValue,
            Some("/stepResults/0/outcome/evaluations/0/decision")
        )
    );
}

#[test]
fn missing_required_fields_are_reported_where_they_belong() {
    let e = err_of_value(json!({"steps": [{}, {"inferenceResponse": {"content": "x"}}]}));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (
            ErrorCode::MissingField,
            Some("/steps/1/inferenceResponse/responseData")
        )
    );
    let e = err_of_value(json!({"steps": [{"toolExecutions": [{"toolCallId": "x"}]}]}));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (
            ErrorCode::MissingField,
            Some("/steps/0/toolExecutions/0/tool")
        )
    );
    let e = err_of_value(json!({"stepResults": [{"outcome": []}]}));
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::MissingField, Some("/stepResults/0/step"))
    );
    let e = err_of_value(
        json!({"messageStore": {"sections": [{"messages": [{"role": "user", "metadata": {}}]}]}}),
    );
    assert_eq!(
        (e.code, e.path.as_deref()),
        (
            ErrorCode::MissingField,
            Some("/messageStore/sections/0/messages/0/content")
        )
    );
}

#[test]
fn deeply_nested_input_is_rejected_before_it_is_built() {
    let deep = format!(
        "{{\"metadata\": {}1{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = err_of(&deep);
    assert_eq!(e.code, ErrorCode::TooDeep);
}

#[test]
fn huge_input_is_rejected_by_size() {
    let limits = stepline::json::Limits {
        max_bytes: 1024,
        max_depth: 64,
    };
    let big = format!("{{\"metadata\": {{\"blob\": \"{}\"}}}}", "x".repeat(4096));
    let e = stepline::json::parse(&big, &limits).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
}

/// A cheap deterministic mutation fuzzer over every state-model vector input:
/// replace each node in turn with values of every other type; the reader must
/// return `Ok` or a typed error, never panic.
#[test]
fn mutated_vector_inputs_never_panic() {
    let cases = vectors("state-model.json");
    let replacements = [
        json!(null),
        json!(-1),
        json!(1.5e300),
        json!(""),
        json!("0"),
        json!("@x"),
        json!([]),
        json!({}),
        json!([[]]),
        json!(true),
    ];
    let mut runs = 0;
    for case in cases.iter().filter(|c| {
        c["name"]
            .as_str()
            .unwrap_or("")
            .starts_with("AgentState roundtrip")
    }) {
        let data = &case["input"]["data"];
        let mut paths = Vec::new();
        collect_paths(data, String::new(), &mut paths);
        for path in paths.iter().take(400) {
            for r in &replacements {
                let mut mutated = data.clone();
                if let Some(slot) = mutated.pointer_mut(path) {
                    *slot = r.clone();
                }
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    AgentState::from_value(&mutated, &V1_22.now()).map(|s| s.to_value())
                }));
                assert!(outcome.is_ok(), "panic at {path} with {r}");
                runs += 1;
            }
        }
    }
    assert!(runs > 1000, "only {runs} mutations ran");
}

fn collect_paths(v: &Value, here: String, out: &mut Vec<String>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, c)| {
            collect_paths(
                c,
                format!("{here}/{}", k.replace('~', "~0").replace('/', "~1")),
                out,
            )
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, c)| collect_paths(c, format!("{here}/{i}"), out)),
        _ => {}
    }
}
