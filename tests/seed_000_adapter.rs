//! Seed 000 §Event-to-Reverb Adapter (docs/seeds/000-slim-serialization-and-adapter.md):
//! the seed's adapter writes what both producers' broadcasters leave out —
//! `step_count` in `agent.status`, the continuation decision in
//! `agent.step.completed` when `includeContinuationTrace` is on, the event's
//! `tool_call_id`, and `summarizeResult` of the tool's result as
//! `result_summary`. stepline's encoder writes them unless `compat` (which
//! reproduces the recorded envelopes: tests/conformance), and a `Session`
//! reads them without warnings.

use stepline::envelope::config::Dialect;
use stepline::envelope::encoder::summarize_result;
use stepline::envelope::{BroadcastConfig, Encoder};

use stepline::json::Value;
use stepline::session::Session;

mod common;
use common::{vectors_of, Corpus};

fn case(corpus: Corpus, name: &str) -> Value {
    vectors_of(corpus, "envelopes.json")
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name}"))
}

/// The case's ops through the encoder with its config (`compat` as asked), as envelopes.
fn encode(
    corpus: Corpus,
    case: &Value,
    compat: bool,
    edit: impl Fn(&mut BroadcastConfig),
) -> Vec<Value> {
    let input = &case["input"];
    let mut config = BroadcastConfig {
        dialect: match corpus {
            Corpus::V1_22 => Dialect::V1_22,
            Corpus::V2_7 => Dialect::V2,
        },
        compat: compat.then(|| chrono::FixedOffset::east_opt(0).unwrap()),
        ..BroadcastConfig::from_reference(&input["config"]).unwrap()
    };
    edit(&mut config);
    let mut encoder = Encoder::new(
        input["sessionId"].as_str().unwrap(),
        input["executionId"].as_str().unwrap(),
        config,
    );
    let now = corpus.now();
    let mut out = Vec::new();
    for op in input["ops"].as_array().unwrap() {
        if let Some(event) = op["event"].as_str() {
            for b in encoder.push(event, &op["args"], &now).unwrap() {
                out.push(b.envelope);
            }
        }
    }
    out
}

fn payloads<'a>(envelopes: &'a [Value], kind: &str) -> Vec<&'a Value> {
    envelopes
        .iter()
        .filter(|e| e["type"] == kind)
        .map(|e| &e["payload"])
        .collect()
}

// Seed 000 §`agent.status`: `{status, step_count, error_message, last_response}`.
#[test]
fn agent_status_carries_the_steps_so_far_unless_compat() {
    let case = case(Corpus::V1_22, "two-step tool run [default]");
    let sent = encode(Corpus::V1_22, &case, false, |_| {});
    let statuses: Vec<(Value, Value)> = payloads(&sent, "agent.status")
        .into_iter()
        .map(|p| (p["status"].clone(), p["step_count"].clone()))
        .collect();
    assert_eq!(
        statuses,
        [
            (Value::from("processing"), Value::from(1)),
            (Value::from("completed"), Value::from(2)),
        ],
        "processing as step 1 starts; completed when step 2's continuation stops"
    );
    let compat = encode(Corpus::V1_22, &case, true, |_| {});
    assert!(
        payloads(&compat, "agent.status")
            .iter()
            .all(|p| p.get("step_count").is_none()),
        "the reference's status has no step_count"
    );
}

// Seed 000 §`agent.step.completed` and `onAgentStepCompleted`: with
// `includeContinuationTrace`, `continuation: {should_continue, stop_reason, resolved_by}`.
#[test]
fn a_step_completion_carries_its_continuation_decision_when_the_trace_is_on() {
    let case = case(Corpus::V1_22, "two-step tool run [debug]");
    let sent = encode(Corpus::V1_22, &case, false, |_| {});
    let traces: Vec<Value> = payloads(&sent, "agent.step.completed")
        .into_iter()
        .map(|p| p["continuation"].clone())
        .collect();
    // Each is the decision the same execution broadcast for that step.
    let decisions: Vec<Value> = payloads(&sent, "agent.continuation")
        .into_iter()
        .map(|p| {
            stepline::json!({
                "should_continue": p["should_continue"].clone(),
                "stop_reason": p["stop_reason"].clone(),
                "resolved_by": p["resolved_by"].clone(),
            })
        })
        .collect();
    assert_eq!(traces.len(), 2);
    assert_eq!(traces, decisions);
    assert_eq!(traces[1]["should_continue"], false);
    assert_eq!(traces[1]["stop_reason"], "completed");

    let off = encode(Corpus::V1_22, &case, false, |c| {
        c.include_continuation_trace = false
    });
    assert!(
        payloads(&off, "agent.step.completed")
            .iter()
            .all(|p| p.get("continuation").is_none()),
        "off by default (seed 000 §Design Decisions)"
    );
    let compat = encode(Corpus::V1_22, &case, true, |_| {});
    assert!(payloads(&compat, "agent.step.completed")
        .iter()
        .all(|p| p.get("continuation").is_none()));
}

// `isset($event->continuationOutcome)`: an event that carries its outcome is traced with it.
#[test]
fn a_step_completion_event_with_its_own_outcome_is_traced_with_it() {
    let mut encoder = Encoder::new("s", "e", BroadcastConfig::debug());
    let now = Corpus::V1_22.now();
    let sent = encoder
        .push(
            "AgentStepCompleted",
            &stepline::json!({
                "stepNumber": 3, "hasToolCalls": false, "errorCount": 0, "finishReason": "stop",
                "usage": {"input": 1, "output": 2, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0},
                "durationMs": 12.5,
                "continuationOutcome": {
                    "decision": "stop", "shouldContinue": false, "resolvedBy": "StepsLimit",
                    "stopReason": "steps_limit",
                    "evaluations": [{"criterion": "StepsLimit", "decision": "forbid",
                                     "reason": "Step 3 exceeded limit 3", "stopReason": "steps_limit"}]
                }
            }),
            &now,
        )
        .unwrap();
    assert_eq!(
        sent[0].envelope["payload"]["continuation"],
        stepline::json!({"should_continue": false, "stop_reason": "steps_limit", "resolved_by": "StepsLimit"})
    );
    let bad = encoder.push(
        "AgentStepCompleted",
        &stepline::json!({"stepNumber": 4, "hasToolCalls": false, "errorCount": 0, "usage": {"input": 1, "output": 2},
                "continuationOutcome": "stop"}),
        &now,
    );
    let err = bad.expect_err("a continuation outcome that is not one is refused");
    assert!(
        err.path
            .as_deref()
            .unwrap_or("")
            .starts_with("/args/continuationOutcome"),
        "{err:?}"
    );
}

// Seed 000 §`agent.tool.started`/`agent.tool.completed`: `'tool_call_id' => $event->toolCallId ?? null`.
#[test]
fn tool_envelopes_carry_the_events_tool_call_id_unless_compat() {
    let case = case(
        Corpus::V2_7,
        "typical run with streaming and a tool [standard]",
    );
    let sent = encode(Corpus::V2_7, &case, false, |_| {});
    for kind in ["agent.tool.started", "agent.tool.completed"] {
        let ids: Vec<&Value> = payloads(&sent, kind)
            .iter()
            .map(|p| &p["tool_call_id"])
            .collect();
        assert_eq!(ids, [&Value::from("call_1")], "{kind}");
    }
    let compat = encode(Corpus::V2_7, &case, true, |_| {});
    for kind in ["agent.tool.started", "agent.tool.completed"] {
        assert!(
            payloads(&compat, kind)
                .iter()
                .all(|p| p["tool_call_id"].is_null()),
            "{kind}"
        );
    }
}

// Seed 000 `summarizeResult`: null stays null; a string as is, anything else
// `json_encode`d; over 100 bytes, `substr($str, 0, 97) . '...'`.
#[test]
fn result_summary_is_the_seeds_summarize_result() {
    let case = case(
        Corpus::V2_7,
        "typical run with streaming and a tool [standard]",
    );
    let sent = encode(Corpus::V2_7, &case, false, |_| {});
    assert_eq!(
        payloads(&sent, "agent.tool.completed")[0]["result_summary"],
        r#"{"temp":21}"#
    );
    let compat = encode(Corpus::V2_7, &case, true, |_| {});
    assert!(payloads(&compat, "agent.tool.completed")[0]["result_summary"].is_null());

    assert_eq!(summarize_result(&Value::Null), None);
    assert_eq!(
        summarize_result(&Value::from("sunny")).as_deref(),
        Some("sunny")
    );
    // PHP's json_encode defaults: slashes and non-ASCII escaped.
    assert_eq!(
        summarize_result(&stepline::json!({"url": "a/b", "city": "Kraków"})).as_deref(),
        Some(r#"{"url":"a\/b","city":"Krak\u00f3w"}"#)
    );
    let exactly = "x".repeat(100);
    assert_eq!(
        summarize_result(&Value::from(exactly.as_str())).as_deref(),
        Some(exactly.as_str())
    );
    let long = "y".repeat(101);
    assert_eq!(
        summarize_result(&Value::from(long.as_str())).unwrap(),
        format!("{}...", "y".repeat(97))
    );
    // 96 ASCII bytes then a two-byte character straddling byte 97: cut before it.
    let straddling = format!("{}é{}", "z".repeat(96), "z".repeat(10));
    assert_eq!(
        summarize_result(&Value::from(straddling.as_str())).unwrap(),
        format!("{}...", "z".repeat(96))
    );
}

// The decoder and the view read what the adapter writes, without a warning.
#[test]
fn a_session_reads_the_seed_adapters_fields_without_warnings() {
    let case = case(
        Corpus::V2_7,
        "typical run with streaming and a tool [debug]",
    );
    let sent = encode(Corpus::V2_7, &case, false, |_| {});
    assert!(sent
        .iter()
        .any(|e| e["payload"].get("step_count").is_some()));
    let mut s = Session::new(None);
    for e in &sent {
        s.ingest_value(e).unwrap();
    }
    let view = s.view();
    assert_eq!(
        view["warnings"],
        stepline::json!([]),
        "{}",
        view["warnings"]
    );
    let exec = &view["executions"][0];
    let steps = exec["steps"].as_array().unwrap();
    assert_eq!(exec["step_count"], Value::from(steps.len()));
    let tool = steps
        .iter()
        .flat_map(|s| s["tools"].as_array().unwrap())
        .next()
        .expect("the tool run");
    assert_eq!(tool["call_id"], "call_1");
    assert_eq!(tool["result_summary"], r#"{"temp":21}"#);
    assert!(
        steps.iter().all(|s| s["continuation"].is_object()),
        "each step's decision"
    );
}

/// Seed 000's `continuation` summary in `agent.step.completed` repeats the
/// step's decision without its evaluations: where an `agent.continuation`
/// gave the whole decision, the view keeps that one, in either arrival order
/// (the panel's trace rows read its evaluations).
#[test]
fn a_step_completion_summary_never_replaces_the_whole_continuation() {
    let at = |ms: u32| format!("2026-11-20T14:02:15.{ms:03}Z");
    let continuation = stepline::json!({"type": "agent.continuation", "session_id": "s", "execution_id": "e", "timestamp": at(100),
        "payload": {"step_number": 1, "should_continue": true, "stop_reason": "completed", "resolved_by": "ToolCallPresenceCheck",
            "evaluations": [{"criterion": "ToolCallPresenceCheck", "decision": "request_continuation", "reason": "tool calls"}]}});
    let completed = stepline::json!({"type": "agent.step.completed", "session_id": "s", "execution_id": "e", "timestamp": at(200),
        "payload": {"step_number": 1, "has_tool_calls": true, "errors": 0,
            "continuation": {"should_continue": true, "stop_reason": "completed", "resolved_by": "ToolCallPresenceCheck"}}});
    for order in [[&continuation, &completed], [&completed, &continuation]] {
        let mut s = Session::new(None);
        for e in order {
            s.ingest_text(&stepline::json::to_string(e)).unwrap();
        }
        let view = s.view();
        let kept = &view["executions"][0]["steps"][0]["continuation"];
        assert_eq!(
            kept["evaluations"].as_array().map(Vec::len),
            Some(1),
            "{kept}"
        );
    }
    // Alone, the summary is the step's continuation.
    let mut s = Session::new(None);
    s.ingest_text(&stepline::json::to_string(&completed))
        .unwrap();
    let view = s.view();
    assert_eq!(
        view["executions"][0]["steps"][0]["continuation"]["resolved_by"],
        "ToolCallPresenceCheck"
    );
}
