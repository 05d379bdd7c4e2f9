//! Seed 004, issue 1: tool-call arguments never become assistant content.
//! Payloads are realistic OpenAI chat-completions bodies kept in tests/fixtures/openai.

use stepline::json;
use stepline::json::Value;
use stepline::model::provider::openai::{normalize_response, StreamAccumulator};
use stepline::model::provider::NormalizeOptions;
use stepline::ErrorCode;

mod common;
use common::Corpus::V1_22;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/openai/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn json_fixture(name: &str) -> Value {
    stepline::json::from_str(&fixture(name)).unwrap()
}

const FIXED: NormalizeOptions = NormalizeOptions {
    compat_tool_args_as_content: false,
};
const COMPAT: NormalizeOptions = NormalizeOptions {
    compat_tool_args_as_content: true,
};

#[test]
fn tool_call_with_empty_content_has_empty_content_and_no_assistant_message() {
    let n = normalize_response(
        &json_fixture("tool-call-empty-content.json"),
        &FIXED,
        &V1_22.now(),
    )
    .unwrap();
    assert_eq!(n.response.content, "");
    assert!(n.assistant_message.is_none());
    assert_eq!(n.response.tool_calls.len(), 1);
    let call = &n.response.tool_calls.0[0];
    assert_eq!(call.id, "call_Qm3xV8");
    assert_eq!(call.name, "search_entities");
    assert_eq!(
        call.arguments,
        json!({"query": "dbplus", "types": ["program"]})
    );
    assert_eq!(n.response.finish_reason_raw, "tool_calls");
    assert_eq!(n.response.usage.input, 412);
    assert_eq!(n.response.usage.output, 23);
    assert_eq!(n.response.usage.cache_read, 256);
    assert_eq!(n.response.id, "chatcmpl-BQx7tT1a9kZ2");
}

#[test]
fn compat_switch_reproduces_the_reference_argument_leak() {
    let n = normalize_response(
        &json_fixture("tool-call-empty-content.json"),
        &COMPAT,
        &V1_22.now(),
    )
    .unwrap();
    assert_eq!(
        n.response.content,
        r#"{"query":"dbplus","types":["program"]}"#
    );
    // Even in compat mode the leaked JSON is not natural text, so no message is appended.
    assert!(n.assistant_message.is_none());
}

#[test]
fn tool_call_with_natural_language_content_keeps_the_text_and_appends_it() {
    let n = normalize_response(
        &json_fixture("tool-call-with-text.json"),
        &FIXED,
        &V1_22.now(),
    )
    .unwrap();
    assert_eq!(n.response.content, "Let me look that up in the CRM first.");
    let message = n.assistant_message.expect("real text is appended");
    assert_eq!(
        message.to_value(),
        json!({"role": "assistant", "content": "Let me look that up in the CRM first."})
    );
    let names: Vec<&str> = n
        .response
        .tool_calls
        .0
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["create_program_lead", "search_entities"]);
    // Compat changes nothing when there is real content.
    let c = normalize_response(
        &json_fixture("tool-call-with-text.json"),
        &COMPAT,
        &V1_22.now(),
    )
    .unwrap();
    assert_eq!(c.response.content, n.response.content);
}

#[test]
fn plain_answer_is_appended_and_counts_reasoning_tokens() {
    let n = normalize_response(&json_fixture("plain-answer.json"), &FIXED, &V1_22.now()).unwrap();
    assert_eq!(n.response.content, "The dbplus program has 3 open leads.");
    assert!(n.response.tool_calls.is_empty());
    assert_eq!(n.response.finish_reason().as_str(), "stop");
    assert_eq!(n.response.usage.reasoning, 128);
    assert_eq!(n.response.usage.total(), 610 + 150 + 128);
    assert_eq!(
        n.assistant_message.unwrap().content.text(),
        "The dbplus program has 3 open leads."
    );
}

#[test]
fn streamed_tool_calls_never_leak_argument_fragments_into_content_deltas() {
    let mut acc = StreamAccumulator::new(FIXED);
    let mut streamed_text = String::new();
    let mut done = false;
    for line in fixture("streamed-tool-calls.sse").lines() {
        let delta = acc.push_sse_line(line).unwrap();
        assert!(
            !delta.content.contains('{'),
            "argument fragment leaked into content: {:?}",
            delta.content
        );
        streamed_text.push_str(&delta.content);
        done |= delta.done;
    }
    assert!(done);
    assert_eq!(streamed_text, "Checking the weather.");
    let n = acc.finish(&V1_22.now()).unwrap();
    assert_eq!(n.response.content, "Checking the weather.");
    let calls: Vec<(&str, &str, Value)> = n
        .response
        .tool_calls
        .0
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "call_w1",
                "get_weather",
                json!({"city": "Paris", "unit": "c"})
            ),
            ("call_w2", "get_weather", json!({"city": "Oslo"})),
        ]
    );
    assert_eq!(n.response.finish_reason_raw, "tool_calls");
    assert_eq!((n.response.usage.input, n.response.usage.output), (96, 41));
    assert!(n.response.response_data.is_streamed);
    assert!(!n.response.is_partial);
    assert_eq!(acc.chunk_count(), 12);
}

#[test]
fn a_stream_cut_inside_arguments_is_an_error_not_a_guess() {
    let mut acc = StreamAccumulator::new(FIXED);
    for line in fixture("streamed-tool-calls.sse")
        .lines()
        .filter(|l| !l.is_empty())
        .take(5)
    {
        acc.push_sse_line(line).unwrap();
    }
    let err = acc.finish(&V1_22.now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidJson);
    assert_eq!(err.path.as_deref(), Some("/toolCalls/0/arguments"));
}

#[test]
fn a_response_without_choices_is_rejected_with_a_path() {
    let err = normalize_response(&json!({"id": "x"}), &FIXED, &V1_22.now()).unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref()),
        (ErrorCode::MissingField, Some("/choices"))
    );
    let err = normalize_response(
        &json!({"choices": [{"message": {"content": 5}}]}),
        &FIXED,
        &V1_22.now(),
    )
    .unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref()),
        (ErrorCode::InvalidType, Some("/choices/0/message/content"))
    );
}

#[test]
fn a_hostile_tool_call_index_is_rejected() {
    let mut acc = StreamAccumulator::new(FIXED);
    let chunk = json!({"choices": [{"delta": {"tool_calls": [{"index": 4_000_000_000u64, "function": {"name": "x"}}]}}]});
    let err = acc.push(&chunk).unwrap_err();
    assert_eq!(
        err.path.as_deref(),
        Some("/chunks/0/choices/0/delta/tool_calls/0/index")
    );
}
