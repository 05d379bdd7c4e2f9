//! Class 1 of issue 28: two identical envelopes that are two events.
//!
//! instructor-php v2.7.0 `packages/agents/src/Broadcasting/AgentEventBroadcaster.php`
//! lines 139–148 write `agent.tool.completed` as `{tool_name, tool_call_id:
//! null, success, error, duration_ms, result_summary: null}` (v2.7 quirks 13
//! and 14), and line 269 stamps the envelope to the millisecond. Two calls of
//! the same tool in one step (the model's parallel calls, run in call order,
//! v2.7 quirk 8) that finish in the same millisecond with the same outcome
//! give two byte-identical completions.

use stepline::json::{self, Value};
use stepline::session::Session;

/// The envelope at millisecond `ms` of the run's second (the v2.7 corpus
/// runs under a frozen clock: every `ms` is then 250).
fn env(ms: u32, kind: &str, payload: Value) -> Value {
    let ts = format!("2026-08-10T12:00:00.{ms:03}Z");
    let mut e = stepline::json!({"type": kind, "session_id": "sess-1", "execution_id": "exec-1", "timestamp": ts});
    e.as_object_mut().unwrap().insert("payload", payload);
    e
}

/// The run: one step calling `search` twice (different arguments, the same
/// outcome, both finishing in the same millisecond), then the answer; under
/// a frozen clock (as the v2.7 corpus) or a running one.
fn run_at(frozen: bool) -> Vec<Value> {
    let t = |ms: u32| if frozen { 250 } else { ms };
    let completed = || {
        env(
            t(130),
            "agent.tool.completed",
            stepline::json!({"tool_name": "search", "tool_call_id": null, "success": true, "error": null, "duration_ms": 0, "result_summary": null}),
        )
    };
    vec![
        env(
            t(100),
            "agent.status",
            stepline::json!({"status": "processing", "previous_status": "idle"}),
        ),
        env(
            t(110),
            "agent.step.started",
            stepline::json!({"step_number": 1, "message_count": 1, "available_tools": 0}),
        ),
        env(
            t(120),
            "agent.tool.started",
            stepline::json!({"tool_name": "search", "tool_call_id": null, "args_summary": "query: 'a'"}),
        ),
        completed(),
        env(
            t(130),
            "agent.tool.started",
            stepline::json!({"tool_name": "search", "tool_call_id": null, "args_summary": "query: 'b'"}),
        ),
        completed(),
        env(
            t(140),
            "agent.step.completed",
            stepline::json!({"step_number": 1, "has_tool_calls": true, "errors": 0, "finish_reason": "tool_calls", "usage": {"input": 100, "output": 50, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0}, "duration_ms": 0.0}),
        ),
        env(
            t(150),
            "agent.step.started",
            stepline::json!({"step_number": 2, "message_count": 6, "available_tools": 0}),
        ),
        env(
            t(160),
            "agent.step.completed",
            stepline::json!({"step_number": 2, "has_tool_calls": false, "errors": 0, "finish_reason": "stop", "usage": {"input": 200, "output": 5, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0}, "duration_ms": 0.0}),
        ),
        env(
            t(170),
            "agent.status",
            stepline::json!({"status": "completed", "previous_status": "processing"}),
        ),
    ]
}

fn run() -> Vec<Value> {
    run_at(true)
}

fn jsonl(envs: &[Value]) -> String {
    envs.iter().map(|e| json::to_string(e) + "\n").collect()
}

fn tools(s: &Session) -> Value {
    s.view()["executions"][0]["steps"][0]["tools"].clone()
}

fn live(envs: &[Value]) -> Session {
    let mut s = Session::new(None);
    for e in envs {
        s.ingest_value(e).unwrap();
    }
    s
}

fn batch(envs: &[Value]) -> Session {
    let mut s = Session::new(None);
    s.ingest_jsonl(&jsonl(envs));
    s
}

/// Both calls complete, and the view says the second was told apart by count.
fn assert_both_completed(s: &Session, how: &str) {
    // Reconciled with any final state, the stream lost nothing.
    let r = s.reconcile(&stepline::json!({"status": "completed"}));
    let lost: Vec<_> = r
        .differences
        .iter()
        .filter(|d| d.kind == "lost_event")
        .map(|d| d.path.clone())
        .collect();
    assert!(lost.is_empty(), "{how}: lost {lost:?}");
    let tools = tools(s);
    let tools = tools.as_array().unwrap();
    assert_eq!(tools.len(), 2, "{how}");
    for t in tools {
        assert_eq!(t["status"], "succeeded", "{how}: {}", json::to_string(t));
    }
    assert_eq!(tools[0].get("matched_by_count"), None, "{how}");
    assert_eq!(tools[1]["matched_by_count"], true, "{how}");
    assert_eq!(s.view()["executions"][0]["status"], "completed", "{how}");
}

#[test]
fn identical_completions_of_two_open_calls_complete_both_delivered_live() {
    assert_both_completed(&live(&run_at(true)), "live, frozen clock");
    assert_both_completed(&live(&run_at(false)), "live, running clock");
}

#[test]
fn identical_completions_of_two_open_calls_complete_both_delivered_as_a_batch() {
    assert_both_completed(&batch(&run_at(true)), "batch, frozen clock");
    assert_both_completed(&batch(&run_at(false)), "batch, running clock");
}

/// Whole-run redelivery stays lossless and idempotent: the run again, live
/// or as a batch, after a live or a batch delivery, changes nothing (every
/// call is completed, so no repeat of the completion can be absorbed); so
/// does the run twice in one batch or stream, where a running clock tells
/// the copy from a new step's calls (under a frozen clock a batch takes a
/// repeated tool event in a later step for that step's own, with or without
/// this rule: the limit `Batch::occurrence` documents).
#[test]
fn the_whole_run_delivered_again_changes_nothing() {
    let runs = |s: &Session| s.view()["executions"].clone();
    for frozen in [true, false] {
        let envs = run_at(frozen);
        let reference = runs(&live(&envs));
        for (how, first) in [("live", live(&envs)), ("batch", batch(&envs))] {
            let mut again = first;
            for e in &envs {
                let out = again.ingest_value(e).unwrap();
                assert!(
                    out.duplicate,
                    "{how} then live ({frozen}): {}",
                    json::to_string(e)
                );
            }
            assert_eq!(runs(&again), reference, "{how} then live ({frozen})");
            let out = again.ingest_jsonl(&jsonl(&envs));
            let expected = (0, envs.len() as u64);
            assert_eq!(
                (out.applied, out.duplicates),
                expected,
                "{how} then batch ({frozen})"
            );
            assert_eq!(runs(&again), reference, "{how} then batch ({frozen})");
        }
        let twice: Vec<Value> = envs.iter().chain(envs.iter()).cloned().collect();
        assert_eq!(
            runs(&live(&twice)),
            reference,
            "the run twice, live ({frozen})"
        );
        if !frozen {
            assert_eq!(
                runs(&batch(&twice)),
                reference,
                "the run twice in one batch"
            );
        }
    }
}

/// A completion redelivered while no call of its tool is open is a
/// redelivery: here the first call's completion again, before the second
/// call started.
#[test]
fn an_identical_completion_with_no_open_call_is_a_redelivery() {
    let envs = run();
    let mut s = live(&envs[..4]);
    assert!(s.ingest_value(&envs[3]).unwrap().duplicate);
    for e in &envs[4..] {
        s.ingest_value(e).unwrap();
    }
    assert_both_completed(&s, "redelivered between the calls");
}
