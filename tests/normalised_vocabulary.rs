//! The normalised envelope types the foreign dialects translate into:
//! reasoning, tool results and approvals, the producer's end reason,
//! interrupts and named data reach the view.

use stepline::session::Session;

fn env(kind: &str, payload: &str) -> String {
    format!(
        r#"{{"type":"{kind}","session_id":"s","execution_id":"e1","timestamp":null,"payload":{payload}}}"#
    )
}

fn ingest(s: &mut Session, kind: &str, payload: &str) {
    let out = s.ingest_text(&env(kind, payload)).unwrap();
    assert!(out.applied, "{kind}: {out:?}");
    assert!(out.warnings.is_empty(), "{kind}: {:?}", out.warnings);
}

#[test]
fn reasoning_results_approvals_and_the_end_reason_reach_the_view() {
    let mut s = Session::new(Some("s".into()));
    ingest(&mut s, "agent.step.started", r#"{"step_number":1}"#);
    ingest(
        &mut s,
        "agent.llm.reasoning.delta",
        r#"{"text_delta":"Erst ","step_index":1}"#,
    );
    ingest(
        &mut s,
        "agent.llm.reasoning.delta",
        r#"{"text_delta":"prüfen.","step_index":1}"#,
    );
    ingest(
        &mut s,
        "agent.tool.approval",
        r#"{"tool_call_id":"c1","approval":"requested","step_index":1}"#,
    );
    ingest(
        &mut s,
        "agent.tool.started",
        r#"{"tool_name":"delete_file","tool_call_id":"c1","args":{"path":"/tmp/x"},"step_index":1}"#,
    );
    ingest(
        &mut s,
        "agent.tool.approval",
        r#"{"tool_name":"delete_file","tool_call_id":"c1","approval":"approved","step_index":1}"#,
    );
    ingest(
        &mut s,
        "agent.tool.completed",
        r#"{"tool_name":"delete_file","tool_call_id":"c1","success":true,"result":{"deleted":1},"step_index":1}"#,
    );
    ingest(&mut s, "agent.data", r#"{"name":"state","data":{"n":1}}"#);
    ingest(&mut s, "agent.data", r#"{"name":"state","data":{"n":2}}"#);
    ingest(
        &mut s,
        "agent.run.completed",
        r#"{"final_answer":"done","reason":"stop"}"#,
    );
    let v = s.view();
    let e = &v["executions"][0];
    let step = &e["steps"][0];
    assert_eq!(step["reasoning"], "Erst prüfen.");
    let tools = step["tools"].as_array().unwrap();
    assert_eq!(
        tools.len(),
        1,
        "the approval and the call are one run: {tools:?}"
    );
    assert_eq!(tools[0]["name"], "delete_file");
    assert_eq!(tools[0]["approval"], "approved");
    assert_eq!(tools[0]["status"], "succeeded");
    assert_eq!(tools[0]["result"]["deleted"], 1);
    assert_eq!(e["end_reason"], "stop");
    assert_eq!(e["status"], "completed");
    assert_eq!(e["data"]["state"]["n"], 2);
}

#[test]
fn an_interrupt_is_a_visible_status_with_its_reason() {
    let mut s = Session::new(Some("s".into()));
    ingest(
        &mut s,
        "agent.status",
        r#"{"status":"processing","previous_status":"idle"}"#,
    );
    ingest(
        &mut s,
        "agent.run.interrupted",
        r#"{"reason":"human_approval","data":{"tool":"x"}}"#,
    );
    let v = s.view();
    assert_eq!(v["executions"][0]["status"], "interrupted");
    assert_eq!(v["executions"][0]["end_reason"], "human_approval");
}

#[test]
fn a_run_failure_keeps_the_producers_reason() {
    let mut s = Session::new(Some("s".into()));
    ingest(
        &mut s,
        "agent.run.failed",
        r#"{"error":"provider down","reason":"error"}"#,
    );
    let v = s.view();
    assert_eq!(v["executions"][0]["status"], "failed");
    assert_eq!(v["executions"][0]["error"], "provider down");
    assert_eq!(v["executions"][0]["end_reason"], "error");
}
