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
    // The throwing tool is not in the final state (the reference's exception
    // path, v1.22 quirk 7), but it ran: the reconciled view keeps it.
    let streamed = session.view()["executions"][0]["steps"][0]["tools"].clone();
    assert_eq!(streamed.as_array().map(Vec::len), Some(1));
    assert_eq!(e["steps"][0]["tools"][0]["name"], streamed[0]["name"]);
}

/// Seed 002 (docs/seeds/002-event-serialization-system-design.md): the final
/// response is canonical; interim completions are replaced, not merged. A
/// step whose streamed tools differ from the final state's lists the final
/// state's calls in the reconciled view, each with what the stream told of
/// it, and not the streamed run the final state does not have.
#[test]
fn the_final_states_tools_replace_the_streamed_ones_in_the_reconciled_view() {
    let (mut envelopes, slim) = turn("two tool calls in one step");
    for e in &mut envelopes {
        if e["payload"]["tool_name"] == "get_time" {
            if let Some(p) = e.get_mut("payload").and_then(Value::as_object_mut) {
                p.insert("tool_name", Value::from("fetch_page"));
            }
        }
    }
    let session = session_of(&envelopes);
    let report = session.reconcile(&slim).to_value(&session);
    let kinds: Vec<&str> = report["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"tool_call_missing") && kinds.contains(&"tool_call_unexpected"),
        "{kinds:?}"
    );
    let e = report["view"]["executions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let tools = e["steps"][0]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["search", "get_time"],
        "the final state's calls, in its order"
    );
    assert_eq!(
        tools[0]["seen"]["completed"], true,
        "search keeps what the stream told"
    );
    assert_eq!(
        tools[1]["seen"]["started"], false,
        "get_time was never streamed"
    );
    assert_eq!(
        tools[1]["status"], "succeeded",
        "a call of a step without errors"
    );
    assert_eq!(tools[1]["call_id"], "call_2");
}
