//! Seed 004's leak in snapshots: tool-call arguments the driver copied into an
//! assistant message's content survive a redaction of the tool calls alone.
//! `redactToolArgs` removes them from the content too, and `diagnose` flags
//! them in a snapshot whether the calls were redacted, truncated or kept.
//! Also seed 000's usage form read back by `restore`.

use stepline::json;
use stepline::json::Value;
use stepline::lint::{diagnose, DiagnoseInput, Severity};
use stepline::model::AgentState;
use stepline::snapshot::restore::restore;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::SlimConfig;
use stepline::ErrorCode;

mod common;
use common::{case_starting, Corpus::V1_22};

/// The state's assistant message that calls tools.
fn calling_message(state: &mut Value) -> &mut Value {
    state
        .pointer_mut("/messageStore/sections/0/messages")
        .and_then(Value::as_array_mut)
        .unwrap()
        .iter_mut()
        .find(|m| m["_metadata"]["tool_calls"].is_array())
        .unwrap()
}

/// The final state of the reference run "tool call then final answer", with
/// the assistant message of the tool-calling step written as the reference's
/// OpenAI driver writes it (seed 004): content = the first call's arguments.
/// Returns the state and the leaked arguments.
fn leaking_state() -> (Value, String) {
    let case = case_starting(V1_22, "agent-runs.json", "tool call then final answer");
    let mut state = case["expected"][0]["finalState"].clone();
    let m = calling_message(&mut state);
    let args = m["_metadata"]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap()
        .to_string();
    *m.pointer_entry("/content").unwrap() = Value::from(args.as_str());
    (state, args)
}

/// The standard preset redacting tool arguments; with `compat`, as the
/// reference does (the calls only, not the arguments copied into content).
fn redacted(compat: bool) -> SlimConfig {
    SlimConfig {
        redact_tool_args: true,
        compat,
        ..SlimConfig::standard()
    }
}

fn slim_of(state: &Value, config: &SlimConfig) -> Value {
    slim_state(
        &AgentState::from_value(state, &V1_22.now()).unwrap(),
        config,
    )
}

fn assistant_with_calls(snapshot: &Value) -> &Value {
    snapshot["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant" && m["_metadata"]["tool_calls"].is_array())
        .unwrap()
}

#[test]
fn redacting_tool_args_also_removes_the_arguments_copied_into_content() {
    let (state, args) = leaking_state();
    // The argument's key only occurs in the arguments (the user asked in prose).
    assert!(args.contains("query"));
    for preset in [
        SlimConfig::minimal(),
        SlimConfig::standard(),
        SlimConfig::full(),
    ] {
        let config = SlimConfig {
            redact_tool_args: true,
            ..preset
        };
        let snapshot = slim_of(&state, &config);
        let text = json::to_string(&snapshot);
        assert!(!text.contains("query"), "{config:?} leaks: {text}");
        let m = assistant_with_calls(&snapshot);
        assert_eq!(m["content"], "");
        assert_eq!(
            m["_metadata"]["tool_calls"],
            json!([{"id": "call_1", "name": "search"}])
        );
    }
}

#[test]
fn compat_redaction_keeps_the_reference_leak_and_no_redaction_keeps_the_content() {
    let (state, args) = leaking_state();
    let compat = slim_of(&state, &redacted(true));
    assert_eq!(assistant_with_calls(&compat)["content"], args.as_str());
    // Without redaction the snapshot is faithful to the state (and diagnose flags it).
    let kept = slim_of(&state, &SlimConfig::standard());
    assert_eq!(assistant_with_calls(&kept)["content"], args.as_str());
}

#[test]
fn natural_text_beside_a_tool_call_survives_redaction() {
    let (mut state, _) = leaking_state();
    let m = calling_message(&mut state);
    *m.pointer_entry("/content").unwrap() = Value::from("Let me look that up.");
    let snapshot = slim_of(&state, &redacted(false));
    assert_eq!(
        assistant_with_calls(&snapshot)["content"],
        "Let me look that up."
    );
}

fn leak_findings(snapshot: Value) -> Vec<stepline::lint::Diagnostic> {
    diagnose(&DiagnoseInput {
        snapshot: Some(snapshot),
        ..DiagnoseInput::default()
    })
    .into_iter()
    .filter(|d| d.code == "tool_args_in_content")
    .collect()
}

#[test]
fn diagnose_flags_leaked_arguments_in_a_snapshot_whose_calls_were_redacted() {
    let (state, args) = leaking_state();
    // What the reference writes with redactToolArgs: calls redacted, content not.
    let snapshot = slim_of(&state, &redacted(true));
    let found = leak_findings(snapshot);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "/snapshot/messages/1/content");
    assert_eq!(found[0].severity, Severity::Warning);
    assert_eq!(found[0].evidence["match"], "redacted");
    assert_eq!(found[0].evidence["tool_call_id"], "call_1");
    assert_eq!(found[0].evidence["tool_name"], "search");
    assert_eq!(found[0].evidence["content"], args.as_str());
}

#[test]
fn diagnose_flags_leaked_arguments_cut_by_the_content_limit() {
    let (state, args) = leaking_state();
    let snapshot = slim_of(
        &state,
        &SlimConfig {
            max_content_length: 10,
            ..SlimConfig::standard()
        },
    );
    let content = assistant_with_calls(&snapshot)["content"].clone();
    assert_eq!(content, format!("{}...", &args[..10]).as_str());
    let found = leak_findings(snapshot);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].severity, Severity::Error);
    assert_eq!(found[0].evidence["match"], "truncated");
    // The redacted snapshot of the fixed serializer holds nothing to flag.
    let fixed = slim_of(&state, &redacted(false));
    assert!(leak_findings(fixed).is_empty());
}

#[test]
fn diagnose_does_not_flag_prose_beside_a_redacted_call() {
    let (state, _) = leaking_state();
    let mut snapshot = slim_of(&state, &redacted(true));
    *snapshot.pointer_entry("/messages/1/content").unwrap() =
        Value::from("Checking {the} weather...");
    assert!(leak_findings(snapshot.clone()).is_empty());
    // A JSON array is not an arguments object either.
    *snapshot.pointer_entry("/messages/1/content").unwrap() = Value::from("[1, 2]");
    assert!(leak_findings(snapshot).is_empty());
}

fn seed_snapshot() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/seed/000-snapshot.json"
    );
    json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn restore_maps_seed_000_usage_to_the_models_usage() {
    let snapshot = seed_snapshot();
    let state = restore(&snapshot, &V1_22.now()).unwrap();
    assert_eq!((state.usage.input, state.usage.output), (1200, 600));
    assert_eq!(state.usage.total(), 1800);
    assert_eq!(
        state.to_value()["usage"],
        json!({"input": 1200, "output": 600, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0})
    );
}

#[test]
fn restore_refuses_a_seed_usage_total_it_cannot_keep() {
    let mut snapshot = seed_snapshot();
    *snapshot.pointer_entry("/usage/total").unwrap() = Value::from(1900);
    let err = restore(&snapshot, &V1_22.now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidValue);
    assert_eq!(err.path.as_deref(), Some("/usage/total"));
    *snapshot.pointer_entry("/usage/prompt").unwrap() = Value::from("1200");
    let err = restore(&snapshot, &V1_22.now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidType);
    assert_eq!(err.path.as_deref(), Some("/usage/prompt"));
}

#[test]
fn restore_reads_the_reference_usage_form_as_the_reference_does() {
    // A usage with any reference key is the reference's form: seed keys are ignored there.
    let mut snapshot = seed_snapshot();
    *snapshot.pointer_entry("/usage").unwrap() =
        json!({"input": "10", "output": 5.9, "prompt": 99});
    let state = restore(&snapshot, &V1_22.now()).unwrap();
    assert_eq!((state.usage.input, state.usage.output), (10, 5));
}
