//! The OpenTelemetry export (src/otel/): spans nest run → inference → tool,
//! one per execution, step and tool call, with the view's usage; ids are
//! deterministic; times come from envelope timestamps only. The strict
//! protobuf JSON parse of the same output is tests/js/otel.test.mjs.

use stepline::json::Value;
use stepline::otel::times::{self, Interval};
use stepline::otel::{OtelOptions, SCHEMA_URL};
use stepline::session::view::{Execution, StepView, ToolRun};
use stepline::session::Session;

mod common;
use common::{session_of, vectors_of, Corpus};

/// Every turn of the v1.22 and v2.7 reference runs, as one session each.
fn reference_sessions() -> Vec<(String, Session)> {
    let mut out = Vec::new();
    for corpus in [Corpus::V1_22, Corpus::V2_7] {
        for case in vectors_of(corpus, "agent-runs.json") {
            let envelopes: Vec<Value> = case["expected"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|t| t["envelopes"].as_array().unwrap().iter())
                .map(|e| e["envelope"].clone())
                .collect();
            out.push((
                case["name"].as_str().unwrap().to_string(),
                session_of(&envelopes),
            ));
        }
    }
    out
}

/// The export as JSON, as JavaScript receives it.
fn export(s: &Session, options: &OtelOptions) -> Value {
    stepline::json::to_value_of(&stepline::otel::export(s, options))
}

fn spans(req: &Value) -> Vec<Value> {
    req["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .clone()
}

fn attr<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

fn op(span: &Value) -> &str {
    attr(span, "gen_ai.operation.name").unwrap()["stringValue"]
        .as_str()
        .unwrap()
}

#[test]
fn one_span_per_execution_step_and_tool_call_nested_run_inference_tool() {
    let runs = reference_sessions();
    assert!(runs.len() >= 10);
    let (mut all_steps, mut all_tools) = (0, 0);
    for (name, s) in runs {
        let spans = spans(&export(&s, &OtelOptions::default()));
        let execs = s.executions();
        let steps: usize = execs.iter().map(|e| e.steps.len()).sum();
        let tools: usize = execs
            .iter()
            .flat_map(|e| e.steps.values())
            .map(|st| st.tools.len())
            .sum();
        let of = |o: &str| {
            spans
                .iter()
                .filter(|sp| op(sp) == o)
                .cloned()
                .collect::<Vec<_>>()
        };
        let (runs, chats, calls) = (of("invoke_agent"), of("chat"), of("execute_tool"));
        assert_eq!(
            (runs.len(), chats.len(), calls.len()),
            (execs.len(), steps, tools),
            "{name}"
        );
        (all_steps, all_tools) = (all_steps + steps, all_tools + tools);
        for r in &runs {
            assert!(r.get("parentSpanId").is_none(), "{name}: the run is a root");
        }
        for c in &chats {
            let parent = runs.iter().find(|r| r["spanId"] == c["parentSpanId"]);
            assert!(parent.is_some(), "{name}: a chat span's parent is a run");
            assert_eq!(parent.unwrap()["traceId"], c["traceId"]);
        }
        for t in &calls {
            assert!(
                chats.iter().any(|c| c["spanId"] == t["parentSpanId"]),
                "{name}: a tool span's parent is a chat span"
            );
        }
    }
    assert!(
        all_steps > 0 && all_tools > 0,
        "the runs exercise every level"
    );
}

#[test]
fn inference_spans_carry_the_views_usage_and_finish_reason() {
    for (name, s) in reference_sessions() {
        let spans = spans(&export(&s, &OtelOptions::default()));
        let chats: Vec<&Value> = spans.iter().filter(|sp| op(sp) == "chat").collect();
        let steps: Vec<&StepView> = s
            .executions()
            .iter()
            .flat_map(|e| e.steps.values().map(|s| &**s))
            .collect();
        for (c, st) in chats.iter().zip(steps) {
            let tokens = |k: &str| attr(c, k).map(|v| v["intValue"].as_str().unwrap().to_string());
            match st.usage {
                Some(u) => {
                    assert_eq!(
                        tokens("gen_ai.usage.input_tokens"),
                        Some(u.input.to_string()),
                        "{name}"
                    );
                    assert_eq!(
                        tokens("gen_ai.usage.output_tokens"),
                        Some(u.output.to_string()),
                        "{name}"
                    );
                }
                None => assert_eq!(tokens("gen_ai.usage.input_tokens"), None, "{name}"),
            }
            if let Some(r) = &st.finish_reason {
                let fr = attr(c, "gen_ai.response.finish_reasons").unwrap();
                assert_eq!(fr["arrayValue"]["values"][0]["stringValue"], r.as_str());
            }
        }
    }
}

#[test]
fn the_same_recording_exports_the_same_ids_as_hex_of_otlp_lengths() {
    let (_, a) = reference_sessions().remove(0);
    let (_, b) = reference_sessions().remove(0);
    let (ea, eb) = (
        export(&a, &OtelOptions::default()),
        export(&b, &OtelOptions::default()),
    );
    assert_eq!(
        stepline::json::to_string(&ea),
        stepline::json::to_string(&eb)
    );
    let hex = |v: &Value, n: usize| {
        let s = v.as_str().unwrap();
        s.len() == n
            && s.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    };
    let sp = spans(&ea);
    for span in &sp {
        assert!(hex(&span["traceId"], 32) && hex(&span["spanId"], 16));
    }
    let mut ids: Vec<&str> = sp.iter().map(|s| s["spanId"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), sp.len(), "span ids are unique");
}

#[test]
fn the_resource_names_the_service_and_the_pinned_semconv_schema() {
    let (_, s) = reference_sessions().remove(0);
    let req = export(
        &s,
        &OtelOptions {
            service_name: "checkout-agent".into(),
        },
    );
    let rs = &req["resourceSpans"][0];
    assert_eq!(rs["schemaUrl"], SCHEMA_URL);
    assert_eq!(rs["resource"]["attributes"][0]["key"], "service.name");
    assert_eq!(
        rs["resource"]["attributes"][0]["value"]["stringValue"],
        "checkout-agent"
    );
    let def = export(&s, &OtelOptions::default());
    assert_eq!(
        def["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"],
        "stepline"
    );
}

fn step(n: i64, start: Option<&str>, end: Option<&str>) -> StepView {
    StepView {
        started_at: start.map(String::from),
        completed_at: end.map(String::from),
        ..StepView::new(n)
    }
}

fn ns(ts: &str) -> i64 {
    times::nanos(Some(ts)).unwrap()
}

#[test]
fn a_step_without_timestamps_borrows_its_neighbours_never_the_clock() {
    let mut e = Execution::default();
    e.first_at = Some("2026-01-20T12:00:00Z".into());
    e.last_at = Some("2026-01-20T12:00:10Z".into());
    e.steps.insert(
        1,
        Box::new(step(
            1,
            Some("2026-01-20T12:00:01Z"),
            Some("2026-01-20T12:00:02Z"),
        )),
    );
    e.steps.insert(2, Box::new(step(2, None, None)));
    e.steps
        .insert(3, Box::new(step(3, Some("2026-01-20T12:00:05Z"), None)));
    let run = times::execution(&e);
    assert_eq!(
        run,
        Interval {
            start: ns("2026-01-20T12:00:00Z"),
            end: ns("2026-01-20T12:00:10Z")
        }
    );
    let ivs = times::steps(&e, run);
    // Step 2: from step 1's end to step 3's start; step 3 ends with the run.
    assert_eq!(
        ivs[1],
        Interval {
            start: ns("2026-01-20T12:00:02Z"),
            end: ns("2026-01-20T12:00:05Z")
        }
    );
    assert_eq!(ivs[2].end, ns("2026-01-20T12:00:10Z"));

    let bare = Execution::default();
    assert_eq!(
        times::execution(&bare),
        Interval { start: 0, end: 0 },
        "unknown is 0, not now"
    );
}

#[test]
fn a_failed_tool_call_is_an_error_span_with_its_message() {
    let mut e = Execution::default();
    e.id = Some("exec-1".into());
    e.first_at = Some("2026-01-20T12:00:00Z".into());
    e.last_at = Some("2026-01-20T12:00:03Z".into());
    let mut st = step(
        1,
        Some("2026-01-20T12:00:00Z"),
        Some("2026-01-20T12:00:03Z"),
    );
    for (id, ok) in [("call_a", true), ("call_b", false)] {
        let mut run = ToolRun {
            name: "search".into(),
            call_id: Some(id.into()),
            started_at: Some("2026-01-20T12:00:01Z".into()),
            completed_at: Some("2026-01-20T12:00:02Z".into()),
            success: Some(ok),
            ..ToolRun::default()
        };
        run.more_mut().error = (!ok).then(|| "timeout".to_string());
        st.tools.push(run);
    }
    e.steps.insert(1, Box::new(st));
    let mut spans_out = Vec::new();
    stepline::otel::execution_spans("sess-1", 0, &e, &mut spans_out);
    let spans_out: Vec<Value> = spans_out.iter().map(stepline::json::to_value_of).collect();
    let tools: Vec<&Value> = spans_out
        .iter()
        .filter(|s| op(s) == "execute_tool")
        .collect();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["name"], "execute_tool search");
    assert_eq!(
        tools[0]["startTimeUnixNano"], tools[1]["startTimeUnixNano"],
        "parallel calls overlap"
    );
    assert_eq!(
        attr(tools[1], "gen_ai.tool.call.id").unwrap()["stringValue"],
        "call_b"
    );
    assert_eq!(
        attr(tools[1], "error.type").unwrap()["stringValue"],
        "_OTHER"
    );
    assert_eq!(tools[1]["status"]["code"], 2);
    assert_eq!(tools[1]["status"]["message"], "timeout");
    assert!(attr(tools[0], "error.type").is_none());
    assert!(tools[0]["status"].as_object().unwrap().is_empty());
}
