//! Seed 003 (docs/seeds/003-agent-response-structure.md): `agent.tool.completed`
//! records `tool_result.output`, what the tool returned. A tool that streamed
//! output first (`agent.tool.output` deltas) keeps those deltas as its log, and
//! its completion's output is still its result, in the view and in `collect()`.

use stepline::session::Session;

const FAILING_RUN: &str = include_str!("fixtures/seed-003/failing-run.jsonl");

#[test]
fn a_tool_that_streamed_output_first_still_has_its_completions_output_as_result() {
    let mut s = Session::new(None);
    let out = s.ingest_jsonl(FAILING_RUN);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let view = s.view();
    let lookup = &view["executions"][0]["steps"][0]["tools"][0];
    assert_eq!(lookup["name"], "lookup");
    assert_eq!(
        lookup["result"], "sunny",
        "the completion's output is the result"
    );
    assert_eq!(
        lookup["output"], "Searching…",
        "the streamed deltas stay the log"
    );
    let collected = s.collect();
    let tool = &collected.turns[0].tool_results[0];
    assert_eq!(
        tool.output, "sunny",
        "collect() answers with what the tool returned"
    );
}

#[test]
fn a_completion_without_streamed_output_is_both_output_and_result() {
    let mut s = Session::new(None);
    let lines = [
        r#"{"event_type":"agent.tool.started","step_index":1,"tool_name":"lookup","tool_call_id":"c1"}"#,
        r#"{"event_type":"agent.tool.completed","step_index":1,"tool_name":"lookup","tool_result":{"call":{"id":"c1","name":"lookup"},"output":"sunny"}}"#,
    ];
    for line in lines {
        s.ingest_text(line).unwrap();
    }
    let view = s.view();
    let tool = &view["executions"][0]["steps"][0]["tools"][0];
    assert_eq!(tool["output"], "sunny");
    assert_eq!(tool["result"], "sunny");
    assert_eq!(s.collect().turns[0].tool_results[0].output, "sunny");
}
