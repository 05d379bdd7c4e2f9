//! The final state wins over the stream for how a run ended: a run whose
//! answer was never streamed gets the final state's answer, a streamed one
//! keeps its own, and a run whose driver threw (no final status broadcast)
//! is failed in the reconciled view.

use stepline::json::Value;

mod common;
use common::{session_of, vectors};

/// The envelopes and the slim snapshot of the first turn of the run named `prefix`.
fn turn(prefix: &str) -> (Vec<Value>, Value) {
    let run = vectors("agent-runs.json")
        .into_iter()
        .find(|r| r["name"].as_str().unwrap().starts_with(prefix))
        .unwrap();
    let t = &run["expected"][0];
    let envelopes = t["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["envelope"].clone())
        .collect();
    (envelopes, t["slim"].clone())
}

fn reconciled(envelopes: &[Value], slim: &Value) -> Value {
    let session = session_of(envelopes);
    let report = session.reconcile(slim);
    let view = report.to_value(&session);
    view["view"]["executions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone()
}

#[test]
fn an_unstreamed_answer_comes_from_the_final_state() {
    let (envelopes, slim) = turn("direct final answer (1 step)");
    let streamed: Vec<Value> = envelopes
        .into_iter()
        .filter(|e| e["type"] != "agent.stream.chunk")
        .collect();
    let e = reconciled(&streamed, &slim);
    assert_eq!(e["text"], "");
    assert_eq!(e["final_answer"], "It is sunny, 21°C.");
}

#[test]
fn a_streamed_answer_is_not_replaced() {
    let (mut envelopes, slim) = turn("direct final answer (1 step)");
    let chunk = stepline::json!({"type": "agent.stream.chunk", "session_id": envelopes[0]["session_id"].clone(),
        "execution_id": envelopes[0]["execution_id"].clone(), "timestamp": envelopes[0]["timestamp"].clone(),
        "payload": {"content": "It is sunny, 21°C.", "is_complete": true, "chunk_index": 0}});
    envelopes.insert(2, chunk);
    let e = reconciled(&envelopes, &slim);
    assert_eq!(e["text"], "It is sunny, 21°C.");
    assert_eq!(e["final_answer"], Value::Null);
}

#[test]
fn a_thrown_run_is_failed_in_the_reconciled_view() {
    let (envelopes, slim) = turn("tool throws (exception escapes ToolExecutor), default policy");
    let session = session_of(&envelopes);
    assert_eq!(session.view()["executions"][0]["status"], "processing");
    let e = reconciled(&envelopes, &slim);
    assert_eq!(
        (e["status"].as_str(), e["ended"].as_bool()),
        (Some("failed"), Some(true))
    );
}
