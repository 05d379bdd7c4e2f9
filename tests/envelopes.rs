//! Envelope decoding: every producer dialect into one model, strict about known
//! types, tolerant of unknown ones, and the encoder's output decodes back.

use stepline::envelope::decode::{decode_lines, decode_text, decode_value};
use stepline::envelope::{BroadcastConfig, Encoder};
use stepline::json;
use stepline::json::Value;
use stepline::ErrorCode;

mod common;
use common::vectors;

#[test]
fn every_envelope_of_every_agent_run_decodes_without_error_or_warning() {
    let mut n = 0;
    for case in vectors("agent-runs.json") {
        for turn in case["expected"].as_array().unwrap() {
            for item in turn["envelopes"].as_array().unwrap() {
                let d = decode_value(&item["envelope"])
                    .unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
                assert!(d.warnings.is_empty(), "{}: {:?}", case["name"], d.warnings);
                assert_eq!(d.envelope["payload"], item["envelope"]["payload"]);
                n += 1;
            }
        }
    }
    assert_eq!(n, 75);
}

#[test]
fn what_the_encoder_sends_decodes_back_to_the_same_envelope() {
    let now = chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap();
    let mut n = 0;
    for case in vectors("envelopes.json") {
        let input = &case["input"];
        let config = BroadcastConfig::from_reference(&input["config"]).unwrap();
        let mut encoder = Encoder::new(
            input["sessionId"].as_str().unwrap(),
            input["executionId"].as_str().unwrap(),
            config,
        );
        for op in input["ops"].as_array().unwrap() {
            let Some(event) = op["event"].as_str() else {
                encoder.reset(None);
                continue;
            };
            for b in encoder.push(event, &op["args"], &now).unwrap() {
                let text = stepline::json::to_string(&b.envelope);
                let d = decode_text(&text).unwrap();
                assert!(d.warnings.is_empty(), "{}: {:?}", case["name"], d.warnings);
                assert_eq!(d.envelope, b.envelope, "{}", case["name"]);
                n += 1;
            }
        }
    }
    assert!(n > 250, "{n}");
}

#[test]
fn the_seed_000_dialect_normalises_to_the_same_model() {
    let d = decode_value(&json!({
        "type": "agent.step.completed", "session_id": "s", "execution_id": "e", "timestamp": "2026-01-16T10:05:00.123Z",
        "payload": {"step_number": 2, "has_tool_calls": true, "errors": 0, "finish_reason": "tool_calls",
            "usage": {"prompt": 500, "completion": 150, "total": 650}, "duration_ms": 1250.5,
            "continuation": {"should_continue": true, "stop_reason": "completed", "resolved_by": "ToolCallPresenceCheck"}}
    }))
    .unwrap();
    assert_eq!(
        d.envelope["payload"]["usage"],
        json!({"input": 500, "output": 150, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0})
    );
    assert_eq!(
        d.envelope["payload"]["continuation"]["resolved_by"],
        "ToolCallPresenceCheck"
    );
    let started = decode_value(&json!({"type": "agent.step.started", "session_id": "s", "payload": {"step_number": 2, "message_count": 5, "available_tools": ["SearchEntities", "CreateProgramLead"]}})).unwrap();
    assert_eq!(started.envelope["payload"]["available_tools"], 2);
    assert_eq!(
        started.envelope["payload"]["available_tool_names"],
        json!(["SearchEntities", "CreateProgramLead"])
    );
    let chunk = decode_value(&json!({"type": "agent.stream.chunk", "session_id": "s", "payload": {"chunk": "Here is", "is_complete": false, "tokens_delta": 5}})).unwrap();
    assert_eq!(
        chunk.envelope["payload"],
        json!({"content": "Here is", "is_complete": false, "tokens_delta": 5})
    );
    let status = decode_value(&json!({"type": "agent.status", "session_id": "s", "payload": {"status": "completed", "step_count": 3, "error_message": null, "last_response": "Done"}})).unwrap();
    assert_eq!(status.envelope["payload"]["step_count"], 3);
    assert!(status.warnings.is_empty());
}

#[test]
fn the_seed_003_native_form_is_accepted_without_a_session() {
    let d = decode_value(&json!({"event_type": "agent.tool.failed", "step_index": 1, "step_id": "st-1", "tool_name": "search", "error": "boom", "tool_result": {"output": ""}})).unwrap();
    assert_eq!(d.envelope["type"], "agent.tool.failed");
    assert_eq!(d.envelope["session_id"], Value::Null);
    assert_eq!(d.envelope["payload"]["error"], "boom");
    assert_eq!(d.envelope["payload"]["step_id"], "st-1");
    let delta = decode_value(&json!({"event_type": "agent.llm.output_text.delta", "step_index": 0, "step_id": "a", "text_delta": "Hi"})).unwrap();
    assert_eq!(delta.envelope["payload"]["text_delta"], "Hi");
    let err =
        decode_value(&json!({"event_type": "agent.run.failed", "step_index": 0, "step_id": "a"}))
            .unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref()),
        (ErrorCode::MissingField, Some("/error"))
    );
}

#[test]
fn unknown_types_and_fields_are_kept_as_warnings() {
    let d = decode_value(&json!({"type": "agent.plan.updated", "session_id": "s", "payload": {"plan": [1]}, "trace_id": "t"})).unwrap();
    assert_eq!(d.envelope["payload"], json!({"plan": [1]}));
    assert_eq!(d.envelope["extra"], json!({"trace_id": "t"}));
    let codes: Vec<(&str, &str)> = d
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.code))
        .collect();
    assert_eq!(
        codes,
        [("/type", "unknown_type"), ("/trace_id", "unknown_field")]
    );
    let d = decode_value(&json!({"type": "agent.status", "session_id": "s", "payload": {"status": "processing", "mood": "good"}})).unwrap();
    assert_eq!(d.envelope["payload"]["extra"], json!({"mood": "good"}));
    assert_eq!(d.warnings[0].path, "/payload/mood");
}

#[test]
fn each_class_of_bad_input_is_a_typed_error_with_a_path() {
    let cases: Vec<(&str, ErrorCode, Option<&str>)> = vec![
        ("{", ErrorCode::InvalidJson, None),
        ("[1,2]", ErrorCode::InvalidType, Some("")),
        (
            r#"{"session_id": "s", "payload": {}}"#,
            ErrorCode::MissingField,
            Some("/type"),
        ),
        (
            r#"{"type": 7, "session_id": "s"}"#,
            ErrorCode::InvalidType,
            Some("/type"),
        ),
        (
            r#"{"type": "agent.status", "session_id": 42, "payload": {"status": "x"}}"#,
            ErrorCode::InvalidType,
            Some("/session_id"),
        ),
        (
            r#"{"type": "agent.status", "payload": {"status": "x"}}"#,
            ErrorCode::MissingField,
            Some("/session_id"),
        ),
        (
            r#"{"type": "agent.status", "session_id": "s", "payload": {}}"#,
            ErrorCode::MissingField,
            Some("/payload/status"),
        ),
        (
            r#"{"type": "agent.step.started", "session_id": "s", "payload": {"step_number": "2"}}"#,
            ErrorCode::InvalidType,
            Some("/payload/step_number"),
        ),
        (
            r#"{"type": "agent.step.completed", "session_id": "s", "payload": {"step_number": 1, "usage": {"input": "many"}}}"#,
            ErrorCode::InvalidType,
            Some("/payload/usage/input"),
        ),
        (
            r#"{"type": "agent.continuation", "session_id": "s", "payload": {"step_number": 1, "should_continue": true, "evaluations": [{"decision": "stop"}]}}"#,
            ErrorCode::MissingField,
            Some("/payload/evaluations/0/criterion"),
        ),
        (
            r#"{"type": "agent.status", "session_id": "s", "timestamp": "yesterday", "payload": {"status": "x"}}"#,
            ErrorCode::InvalidTimestamp,
            Some("/timestamp"),
        ),
        (
            r#"{"type": "agent.status", "session_id": "s", "payload": "x"}"#,
            ErrorCode::InvalidType,
            Some("/payload"),
        ),
        (
            r#"{"type": "agent.status", "session_id": "s\ud800", "payload": {"status": "x"}}"#,
            ErrorCode::InvalidJson,
            None,
        ),
    ];
    for (text, code, path) in cases {
        let e = decode_text(text).unwrap_err();
        assert_eq!((e.code, e.path.as_deref()), (code, path), "{text}");
    }
    let oversize = format!(
        r#"{{"type": "agent.stream.chunk", "session_id": "s", "payload": {{"content": "{}"}}}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    assert_eq!(
        decode_text(&oversize).unwrap_err().code,
        ErrorCode::TooLarge
    );
    let deep = format!(
        r#"{{"type": "agent.status", "session_id": "s", "payload": {{"status": "x", "extra": {}1{}}}}}"#,
        "[".repeat(500),
        "]".repeat(500)
    );
    assert_eq!(decode_text(&deep).unwrap_err().code, ErrorCode::TooDeep);
}

#[test]
fn unicode_edge_cases_pass_through_unchanged() {
    let text = "{\"type\": \"agent.stream.chunk\", \"session_id\": \"s\", \"payload\": {\"content\": \"a\\u0000b \u{200F}rtl\u{202E} 🚀\", \"chunk_index\": 0}}";
    let d = decode_text(text).unwrap();
    assert_eq!(
        d.envelope["payload"]["content"],
        "a\u{0}b \u{200F}rtl\u{202E} 🚀"
    );
}

#[test]
fn proto_and_constructor_keys_are_plain_data() {
    let d = decode_text(r#"{"type": "agent.status", "session_id": "s", "payload": {"status": "x", "__proto__": {"polluted": true}, "constructor": 1}}"#).unwrap();
    assert_eq!(
        d.envelope["payload"]["extra"],
        json!({"__proto__": {"polluted": true}, "constructor": 1})
    );
}

#[test]
fn jsonl_batches_report_failures_by_line() {
    let text = "{\"type\":\"agent.status\",\"session_id\":\"s\",\"payload\":{\"status\":\"processing\"}}\n\nnot json\n{\"type\":\"agent.status\",\"session_id\":\"s\",\"payload\":{}}\n";
    let (ok, errors) = decode_lines(text);
    assert_eq!(ok.len(), 1);
    let lines: Vec<usize> = errors.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [3, 4]);
}

#[test]
fn the_size_cap_holds_for_huge_arguments_results_and_chunks() {
    let now = chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap();
    let mut encoder = Encoder::new("sess", "exec", BroadcastConfig::debug());
    let cap = 10_000;
    let huge_text = "Zażółć \"gęślą\" jaźń 🚀\n".repeat(4_000);
    let mut sent = Vec::new();
    sent.extend(
        encoder
            .push(
                "AgentStepStarted",
                &json!({"stepNumber": 1, "messageCount": 1, "availableTools": 1}),
                &now,
            )
            .unwrap(),
    );
    let chunks = encoder
        .push("StreamEventReceived", &json!({"content": huge_text}), &now)
        .unwrap();
    assert!(chunks.len() > 10);
    let rejoined: String = chunks
        .iter()
        .map(|b| b.envelope["payload"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(rejoined, huge_text, "chunks are split, never cut");
    let indexes: Vec<u64> = chunks
        .iter()
        .map(|b| b.envelope["payload"]["chunk_index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, (0..chunks.len() as u64).collect::<Vec<_>>());
    sent.extend(chunks);
    let huge_args =
        json!({"query": "ó".repeat(50_000), "ids": (0..20_000).collect::<Vec<_>>(), "note": "x"});
    sent.extend(
        encoder
            .push(
                "ToolCallStarted",
                &json!({"tool": "search", "args": huge_args}),
                &now,
            )
            .unwrap(),
    );
    sent.extend(
        encoder
            .push("ToolCallCompleted", &json!({"tool": "search", "success": false, "error": "e".repeat(80_000), "startedAt": "2026-01-20T12:00:00Z", "endedAt": "2026-01-20T12:00:00Z"}), &now)
            .unwrap(),
    );
    sent.push(
        encoder
            .set_status("failed", Some(&"💥".repeat(30_000)), None, &now)
            .unwrap(),
    );
    for b in &sent {
        let text = stepline::json::to_string(&b.envelope);
        assert!(
            text.len() <= cap,
            "{} is {} bytes",
            b.envelope["type"],
            text.len()
        );
        decode_text(&text).unwrap();
    }
    let shortened: Vec<&str> = sent
        .iter()
        .filter(|b| b.envelope["payload"]["truncated"] == true)
        .map(|b| b.envelope["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        shortened,
        ["agent.tool.started", "agent.tool.completed", "agent.status"]
    );
}

#[test]
fn minus_zero_in_json_text_is_the_integer_zero() {
    let text = r#"{"type":"agent.step.completed","session_id":"s","payload":{"step_number":-0,"errors":-0,"usage":{"input":-0}}}"#;
    let payload = &decode_text(text).unwrap().envelope["payload"];
    assert_eq!(payload["step_number"], json!(0));
    assert!(payload["step_number"].is_i64());
    assert_eq!(payload["errors"], json!(0));
    assert_eq!(payload["usage"]["input"], json!(0));
    // A fraction is still not an integer, and 1.0 keeps the vectors' float/int distinction.
    for bad in ["1.5", "1.0"] {
        let e = decode_text(&text.replace("\"step_number\":-0", &format!("\"step_number\":{bad}")))
            .unwrap_err();
        assert_eq!(
            (e.code, e.path.as_deref()),
            (ErrorCode::InvalidType, Some("/payload/step_number"))
        );
    }
    let e = decode_text(&text.replace("\"input\":-0", "\"input\":1e300")).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::OutOfRange, Some("/payload/usage/input"))
    );
}

#[test]
fn the_encoder_refuses_event_fields_its_decoder_would_reject_and_names_them() {
    let now = chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap();
    let cases = [
        (
            "AgentStepStarted",
            json!({"stepNumber": "x"}),
            ErrorCode::InvalidType,
            "/args/stepNumber",
        ),
        (
            "AgentStepStarted",
            json!({"stepNumber": 1.5}),
            ErrorCode::InvalidType,
            "/args/stepNumber",
        ),
        (
            "AgentStepStarted",
            json!({"stepNumber": 1, "messageCount": "many"}),
            ErrorCode::InvalidType,
            "/args/messageCount",
        ),
        (
            "AgentStepStarted",
            json!({"stepNumber": 1, "availableTools": {}}),
            ErrorCode::InvalidType,
            "/args/availableTools",
        ),
        (
            "AgentStepStarted",
            json!({}),
            ErrorCode::MissingField,
            "/args/stepNumber",
        ),
        (
            "AgentStepCompleted",
            json!({"stepNumber": 1, "usage": {"input": 1e300}}),
            ErrorCode::OutOfRange,
            "/args/usage/input",
        ),
        (
            "AgentStepCompleted",
            json!({"stepNumber": 1, "hasToolCalls": "yes"}),
            ErrorCode::InvalidType,
            "/args/hasToolCalls",
        ),
        (
            "AgentStepCompleted",
            json!({"stepNumber": 1, "errorCount": "x"}),
            ErrorCode::InvalidType,
            "/args/errorCount",
        ),
        (
            "AgentStepCompleted",
            json!({"stepNumber": 1, "finishReason": 5}),
            ErrorCode::InvalidType,
            "/args/finishReason",
        ),
        (
            "AgentStepCompleted",
            json!({"stepNumber": 1, "durationMs": "long"}),
            ErrorCode::InvalidType,
            "/args/durationMs",
        ),
        (
            "ToolCallStarted",
            json!({"tool": 5, "args": "x"}),
            ErrorCode::InvalidType,
            "/args/tool",
        ),
        (
            "ToolCallCompleted",
            json!({"tool": "t", "success": "no"}),
            ErrorCode::InvalidType,
            "/args/success",
        ),
        (
            "ToolCallCompleted",
            json!({"tool": "t", "error": 7}),
            ErrorCode::InvalidType,
            "/args/error",
        ),
        (
            "ContinuationEvaluated",
            json!({"stepNumber": "x"}),
            ErrorCode::InvalidType,
            "/args/stepNumber",
        ),
    ];
    for (event, args, code, path) in cases {
        let mut encoder = Encoder::new("sess", "exec", BroadcastConfig::debug());
        let e = encoder.push(event, &args, &now).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_deref()),
            (code, Some(path)),
            "{event} {args}"
        );
        // A refused event changes nothing: no status transition happened.
        assert_eq!(encoder.status(), "idle", "{event} {args}");
    }
    // Well-typed fields still go through, and decode.
    let mut encoder = Encoder::new("sess", "exec", BroadcastConfig::debug());
    let sent = encoder
        .push(
            "AgentStepCompleted",
            &json!({"stepNumber": 2, "usage": {"input": -5}, "hasToolCalls": false}),
            &now,
        )
        .unwrap();
    for b in sent {
        decode_value(&b.envelope).unwrap();
    }
}

/// A producer numbers a stream's chunks from 0 (v1.22 and v2.7 write
/// `chunk_index` as a counter of the chunks sent); a negative position would
/// put the text before the stream's start and was accepted silently.
#[test]
fn a_negative_chunk_index_is_out_of_range_at_its_path() {
    let text = r#"{"type": "agent.stream.chunk", "session_id": "s", "payload": {"content": "x", "chunk_index": -1}}"#;
    let e = decode_text(text).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::OutOfRange, Some("/payload/chunk_index"))
    );
    let mut session = stepline::session::Session::new(None);
    assert_eq!(
        session.ingest_text(text).unwrap_err().code,
        ErrorCode::OutOfRange
    );
    for ok in [0, 7] {
        let text = text.replace("-1", &ok.to_string());
        assert!(decode_text(&text).is_ok(), "{text}");
    }
}
