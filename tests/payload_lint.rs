//! Payload lint through `Session::diagnose`: an envelope near or over Reverb's
//! 10,000-byte message limit (measured as received), a payload the encoder
//! shortened (`truncated: true`), and a credential in a payload (never echoed).
//! Each run is a reference run (vectors/cognesy-v1.22/agent-runs.json) with
//! one envelope changed.

use stepline::json;
use stepline::json::Value;
use stepline::lint::{
    Severity, ENVELOPE_NEAR_SIZE_LIMIT, ENVELOPE_OVER_SIZE_LIMIT, SECRET_IN_PAYLOAD, TEXT_TRUNCATED,
};
use stepline::session::Session;

mod common;
use common::{case_envelopes, case_starting, jsonl, Corpus::V1_22};

/// The reference run's envelopes; index 2 is its `agent.tool.started`.
fn run() -> Vec<Value> {
    let case = case_starting(V1_22, "agent-runs.json", "tool call then final answer");
    case_envelopes(&case)
}

const TOOL_STARTED: usize = 2;

/// The run with the tool call's query padded so its JSON line is `bytes` long.
fn with_tool_envelope_of(bytes: usize) -> Vec<Value> {
    padded(run(), bytes)
}

fn padded(mut envelopes: Vec<Value>, bytes: usize) -> Vec<Value> {
    assert_eq!(envelopes[TOOL_STARTED]["type"], "agent.tool.started");
    set(&mut envelopes, TOOL_STARTED, "/args/query", json!(""));
    let base = json::to_string(&envelopes[TOOL_STARTED]).len();
    set(
        &mut envelopes,
        TOOL_STARTED,
        "/args/query",
        json!("x".repeat(bytes - base)),
    );
    assert_eq!(json::to_string(&envelopes[TOOL_STARTED]).len(), bytes);
    envelopes
}

/// Sets the payload member at `tail` (a pointer under `/payload`) of envelope `i`.
fn set(envelopes: &mut [Value], i: usize, tail: &str, v: Value) {
    let (parent, key) = tail.rsplit_once('/').unwrap();
    let Some(Value::Object(m)) = envelopes[i].pointer_mut(&format!("/payload{parent}")) else {
        panic!("no object at /payload{parent}");
    };
    m.insert(key.to_string(), v);
}

fn diagnose(envelopes: &[Value]) -> Vec<stepline::lint::Diagnostic> {
    let mut s = Session::new(None);
    let out = s.ingest_jsonl(&jsonl(envelopes));
    assert_eq!(out.errors.count, 0);
    s.diagnose(&json!(null)).unwrap()
}

fn codes(found: &[stepline::lint::Diagnostic]) -> Vec<&str> {
    found.iter().map(|d| d.code).collect()
}

#[test]
fn an_envelope_of_9900_bytes_is_near_the_limit() {
    let found = diagnose(&with_tool_envelope_of(9_900));
    let near: Vec<_> = found
        .iter()
        .filter(|d| d.code == ENVELOPE_NEAR_SIZE_LIMIT)
        .collect();
    assert_eq!(near.len(), 1, "{:?}", codes(&found));
    let d = near[0];
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.path, "/envelopes/2");
    assert_eq!(d.evidence["bytes"], 9_900);
    assert_eq!(d.evidence["limit"], 10_000);
    assert_eq!(d.evidence["type"], "agent.tool.started");
    assert!(d.message.contains("9900 bytes"), "{}", d.message);
    assert!(d.message.contains("limit of 10000 bytes"), "{}", d.message);
    assert!(!codes(&found).contains(&ENVELOPE_OVER_SIZE_LIMIT));
}

#[test]
fn an_envelope_below_90_percent_of_the_limit_is_not_reported() {
    let found = diagnose(&with_tool_envelope_of(8_999));
    assert!(!codes(&found).contains(&ENVELOPE_NEAR_SIZE_LIMIT));
    let found = diagnose(&with_tool_envelope_of(9_000));
    assert!(codes(&found).contains(&ENVELOPE_NEAR_SIZE_LIMIT));
}

#[test]
fn an_envelope_over_10000_bytes_is_an_error_naming_its_index_type_and_step() {
    // A tool envelope carries no step number: it belongs to the step its
    // run started last (envelope 1 starts step 1).
    let envelopes = with_tool_envelope_of(10_001);
    let found = diagnose(&envelopes);
    let over: Vec<_> = found
        .iter()
        .filter(|d| d.code == ENVELOPE_OVER_SIZE_LIMIT)
        .collect();
    assert_eq!(over.len(), 1, "{:?}", codes(&found));
    assert_eq!(over[0].severity, Severity::Error);
    assert_eq!(over[0].evidence["bytes"], 10_001);
    assert_eq!(over[0].evidence["step"], 1);
    assert!(
        over[0]
            .message
            .starts_with("envelope 2 (agent.tool.started, step 1) is 10001 bytes, over"),
        "{}",
        over[0].message
    );
    assert!(!codes(&found).contains(&ENVELOPE_NEAR_SIZE_LIMIT));
}

#[test]
fn a_payload_the_encoder_shortened_is_a_truncated_text() {
    let mut envelopes = run();
    set(&mut envelopes, TOOL_STARTED, "/truncated", json!(true));
    let found = diagnose(&envelopes);
    let cut: Vec<_> = found.iter().filter(|d| d.code == TEXT_TRUNCATED).collect();
    assert_eq!(cut.len(), 1, "{:?}", codes(&found));
    assert_eq!(cut[0].path, "/envelopes/2/payload/truncated");
    assert!(!codes(&diagnose(&run())).contains(&TEXT_TRUNCATED));
}

#[test]
fn a_secret_in_a_payload_is_reported_redacted() {
    let key = format!("sk-{}", "A1b2C3d4".repeat(5));
    let mut envelopes = run();
    set(
        &mut envelopes,
        TOOL_STARTED,
        "/args/api_key",
        json!(key.clone()),
    );
    let found = diagnose(&envelopes);
    let secret: Vec<_> = found
        .iter()
        .filter(|d| d.code == SECRET_IN_PAYLOAD)
        .collect();
    assert_eq!(secret.len(), 1, "{:?}", codes(&found));
    assert_eq!(secret[0].path, "/envelopes/2/payload/args/api_key");
    assert_eq!(secret[0].evidence["redacted"], "[redacted]");
    assert_eq!(secret[0].evidence["chars"], key.len());
    let shown = json::to_string(&json!({
        "message": secret[0].message, "evidence": secret[0].evidence
    }));
    assert!(!shown.contains(&key), "the key is echoed: {shown}");
    assert!(
        !shown.contains("A1b2C3d4"),
        "part of the key is echoed: {shown}"
    );
}
