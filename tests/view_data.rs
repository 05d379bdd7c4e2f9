//! What the producers send reaches the view (issue 15, items 3, 4 and 7):
//! why a run ended, seed 000's status words and resumes, tool result data,
//! annotations, the producer's usage total, chunks without an index, and
//! runs that never end. Inputs are fixture files written from the seeds'
//! examples (tests/fixtures/seed-000, seed-003), one case copied from the
//! v2.7 producer's vectors (tests/fixtures/v2.7), and the reference runs.

use stepline::json::{self, Value};
use stepline::session::status::epoch_ms;
use stepline::session::Session;

mod common;
use common::{vectors, view_of};

/// The fuzz checks' model of the JS side's patch application.
#[path = "../fuzz/src/checks.rs"]
mod checks;

fn fixture(path: &str) -> String {
    let full = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

fn lines(path: &str) -> Vec<String> {
    fixture(path)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn session_of_lines(lines: &[String]) -> Session {
    let mut s = Session::new(None);
    for l in lines {
        s.ingest_text(l).unwrap();
    }
    s
}

fn exec(s: &Session) -> Value {
    s.view()["executions"][0].clone()
}

// Item 3: why a run ended.

#[test]
fn error_message_last_response_and_step_count_reach_the_execution_view() {
    let s = session_of_lines(&lines("seed-000/failed-run.jsonl"));
    let e = exec(&s);
    assert_eq!(e["status"], "failed");
    assert_eq!(e["error_message"], "Driver threw: connection reset by peer");
    assert_eq!(e["last_response"], "Here is haha the response");
    assert_eq!(e["step_count"], 1);
}

#[test]
fn a_failure_reason_survives_a_later_status_without_one_in_any_order() {
    // v2.7 broadcasts `failed` with `error_message`, then `stopped` with null.
    let text = fixture("v2.7/driver-exception.jsonl");
    let mut forward = Session::new(None);
    forward.ingest_jsonl(&text);
    let mut reversed_lines: Vec<&str> = text.lines().collect();
    reversed_lines.reverse();
    let mut backward = Session::new(None);
    backward.ingest_jsonl(&reversed_lines.join("\n"));
    for s in [&forward, &backward] {
        assert_eq!(exec(s)["error_message"], "Upstream LLM unavailable (503)");
    }
}

#[test]
fn the_patched_view_carries_the_new_execution_fields() {
    // The JS side builds its snapshot from patches: the header fields must be in them.
    let mut fresh = Session::new(None);
    for l in lines("seed-000/failed-run.jsonl") {
        fresh.ingest_text(&l).unwrap();
    }
    let whole: Value = json::from_str(&fresh.take_patch()).unwrap();
    let header = &whole[2][1];
    for k in [
        "error_message",
        "last_response",
        "step_count",
        "resumed",
        "stale",
    ] {
        assert_eq!(header[k], fresh.view()["executions"][0][k], "{k}");
    }
    assert_eq!(
        header["error_message"],
        "Driver threw: connection reset by peer"
    );
}

#[test]
fn seed_000_status_words_map_so_reconcile_reports_no_status_mismatch() {
    let s = session_of_lines(&lines("seed-000/failed-run.jsonl"));
    let snap: Value = json::from_str(&fixture("seed-000/failed-run.snapshot.json")).unwrap();
    let r = s.reconcile(&snap);
    let kinds: Vec<&str> = r.differences.iter().map(|d| d.kind).collect();
    assert!(!kinds.contains(&"status_mismatch"), "{kinds:?}");
    // in_progress is the state's own word for a running execution.
    let running = session_of_lines(&lines("seed-000/failed-run.jsonl")[..3]);
    assert_eq!(exec(&running)["state_status"], "in_progress");
    let mut snap_running = snap.clone();
    *snap_running.pointer_entry("/status").unwrap() = Value::from("in_progress");
    let r = running.reconcile(&snap_running);
    assert!(
        !r.differences.iter().any(|d| d.kind == "status_mismatch"),
        "{:?}",
        r.differences.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
}

#[test]
fn in_progress_after_completed_under_one_execution_id_resumes_it_in_any_order() {
    let run = lines("seed-000/resumed-run.jsonl");
    let mut orders = vec![run.clone()];
    let mut reversed = run.clone();
    reversed.reverse();
    orders.push(reversed);
    orders.push(vec![run[1].clone(), run[2].clone(), run[0].clone()]);
    for order in &orders {
        let s = session_of_lines(order);
        assert_eq!(s.executions().len(), 1, "the same execution, resumed");
        let e = exec(&s);
        assert_eq!(e["status"], "in_progress");
        assert_eq!(e["resumed"], true);
        assert_eq!(e["last_response"], "First answer");
    }
    // It ends again with a later completed.
    let mut s = session_of_lines(&run);
    s.ingest_text(
        &run[1]
            .replace("10:00:05.000Z", "10:06:00.000Z")
            .replace("First", "Second"),
    )
    .unwrap();
    let e = exec(&s);
    assert_eq!(
        (e["status"].as_str(), e["resumed"].as_bool()),
        (Some("completed"), Some(true))
    );
    assert_eq!(e["last_response"], "Second answer");
}

// Item 4: producer data on the way into the view.

#[test]
fn tool_call_id_result_summary_and_duration_reach_the_view_and_collect() {
    let s = session_of_lines(&lines("seed-000/failed-run.jsonl"));
    let tool = &exec(&s)["steps"][0]["tools"][0];
    assert_eq!(tool["call_id"], "call_abc123");
    assert_eq!(tool["result_summary"], "Found 3 entities");
    assert_eq!(tool["duration_ms"], 250.0);
    let collected = &stepline::json::to_value_of(&s.collect())["turns"][0]["tool_results"][0];
    assert_eq!(collected["call"]["id"], "call_abc123");
    assert_eq!(collected["result_summary"], "Found 3 entities");
    assert_eq!(collected["duration_ms"], 250.0);
}

#[test]
fn seed_003_tool_result_latency_and_call_id_reach_the_view() {
    let mut s = Session::new(None);
    s.ingest_text(r#"{"event_type":"agent.tool.completed","step_index":1,"step_id":"st-1","tool_name":"search","tool_result":{"call":{"id":"c9","name":"search"},"output":"ok","latency_ms":42}}"#).unwrap();
    let tool = &exec(&s)["steps"][0]["tools"][0];
    assert_eq!(
        (tool["call_id"].as_str(), tool["duration_ms"].as_i64()),
        (Some("c9"), Some(42))
    );
}

#[test]
fn annotations_from_live_events_reach_the_view_and_collect() {
    let s = session_of_lines(&lines("seed-003/annotated-run.jsonl"));
    let step = &exec(&s)["steps"][0];
    let a = &step["annotations"];
    let verdicts: Vec<&str> = a["safety"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["review", "allow"]);
    assert_eq!(
        a["citations"].as_array().unwrap().len(),
        1,
        "one citation, said twice"
    );
    assert_eq!(a["citations"][0]["url"], "https://weather.example/paris");
    assert_eq!(a["extra"]["policy"], "v2");
    assert!(
        a["extra"].get("raw_event").is_none(),
        "free-form event metadata stays in the log"
    );
    assert_eq!(
        stepline::json::to_value_of(&s.collect().turns[0].annotations),
        *a
    );
    // Steps without any show null.
    let plain = session_of_lines(&lines("seed-000/failed-run.jsonl"));
    assert_eq!(exec(&plain)["steps"][0]["annotations"], Value::Null);
    assert!(plain.collect().turns[0].annotations.is_none());
}

#[test]
fn annotations_arrive_the_same_in_any_order() {
    let run = lines("seed-003/annotated-run.jsonl");
    let mut reversed = run.clone();
    reversed.reverse();
    let a = session_of_lines(&run);
    let b = session_of_lines(&reversed);
    let set = |s: &Session| {
        let mut notes: Vec<String> = exec(s)["steps"][0]["annotations"]["safety"]
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        notes.sort();
        notes
    };
    assert_eq!(set(&a), set(&b));
}

#[test]
fn a_malformed_annotation_is_refused_with_its_path() {
    let mut s = Session::new(None);
    let err = s
        .ingest_text(r#"{"event_type":"agent.llm.completed","step_index":1,"step":{"annotations":{"safety":[{"verdict":"maybe","category":"x"}]}}}"#)
        .unwrap_err();
    assert_eq!(
        err.path.as_deref(),
        Some("/step/annotations/safety/0/verdict")
    );
}

#[test]
fn the_producers_own_usage_total_is_kept_where_it_differs_from_the_sum() {
    let s = session_of_lines(&lines("seed-000/failed-run.jsonl"));
    let e = exec(&s);
    // {prompt: 500, completion: 150, total: 700}: the producer counts 700.
    assert_eq!(e["steps"][0]["usage"]["total"], 700);
    assert_eq!(e["steps"][0]["usage"]["input"], 500);
    assert_eq!(e["usage"]["total"], 700);
    assert_eq!(s.view()["usage"]["total"], 700);
    assert_eq!(
        s.collect().turns[0].llm_response.usage.map(|u| u.total),
        Some(700)
    );
    // Seed 003's total_tokens likewise.
    let a = session_of_lines(&lines("seed-003/annotated-run.jsonl"));
    assert_eq!(exec(&a)["steps"][0]["usage"]["total"], 19);
    // Reconcile compares the producer's total with the snapshot's.
    let snap: Value = json::from_str(&fixture("seed-000/failed-run.snapshot.json")).unwrap();
    let r = s.reconcile(&snap);
    assert!(
        !r.differences
            .iter()
            .any(|d| d.path.ends_with("/usage/total")),
        "{:?}",
        r.differences.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
}

#[test]
fn a_run_log_summary_counts_the_producers_own_usage_total() {
    let mut log = stepline::session::runlog::RunLog::new();
    log.ingest_jsonl(&fixture("seed-000/failed-run.jsonl"));
    assert_eq!(log.summary().tokens.total, 700);
}

#[test]
fn a_usage_total_equal_to_the_sum_changes_nothing() {
    // The reference's own runs send no total: their views are as before.
    for case in vectors("agent-runs.json") {
        for t in case["expected"].as_array().unwrap() {
            for e in t["envelopes"].as_array().unwrap() {
                let d = stepline::envelope::decode::decode_value(&e["envelope"]).unwrap();
                if let Some(u) = d.envelope["payload"].get("usage") {
                    assert!(u.get("total").is_none(), "{u}");
                }
            }
        }
    }
}

#[test]
fn a_redelivered_chunk_without_an_index_does_not_double_the_text() {
    let run = lines("seed-000/failed-run.jsonl");
    let once = session_of_lines(&run);
    let mut twice = session_of_lines(&run);
    for l in &run {
        assert!(twice.ingest_text(l).unwrap().duplicate, "{l}");
    }
    assert_eq!(exec(&once)["text"], "Here is haha the response");
    assert_eq!(view_of(&once), view_of(&twice));
    assert_eq!(twice.counts().duplicates, run.len() as u64);
}

#[test]
fn equal_chunks_without_an_index_sent_at_different_times_both_count() {
    let run = lines("seed-000/failed-run.jsonl");
    let s = session_of_lines(&run);
    // Chunks "ha" at .501 and "ha" at .502 are two pieces of text.
    assert!(exec(&s)["text"].as_str().unwrap().contains("haha"));
    // The limit: the same chunk within the same millisecond is one.
    let mut same_ms = Session::new(None);
    same_ms.ingest_text(&run[5]).unwrap();
    assert!(same_ms.ingest_text(&run[5]).unwrap().duplicate);
}

#[test]
fn replaying_any_subset_of_a_seed_000_run_in_any_order_changes_nothing() {
    let run = lines("seed-000/failed-run.jsonl");
    let once = view_of(&session_of_lines(&run));
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for round in 0..50 {
        let mut s = session_of_lines(&run);
        let mut again: Vec<&String> = run
            .iter()
            .filter(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed % 2 == 0
            })
            .collect();
        again.reverse();
        let turn = round % again.len().max(1);
        again.rotate_left(turn);
        for l in &again {
            assert!(s.ingest_text(l).unwrap().duplicate, "round {round}: {l}");
        }
        assert_eq!(view_of(&s), once, "round {round}");
    }
}

#[test]
fn patches_rebuild_the_view_with_the_new_fields_after_every_envelope_and_clock_tick() {
    let mut envelopes = lines("seed-000/failed-run.jsonl");
    envelopes.extend(lines("seed-000/resumed-run.jsonl"));
    envelopes.extend(lines("seed-003/annotated-run.jsonl"));
    let mut s = Session::new(None);
    s.set_stale_after(Some(60_000));
    let mut mirror = Value::Null;
    for (i, l) in envelopes.iter().enumerate() {
        let _ = s.ingest_text(l);
        checks::apply_patch(&mut mirror, &checks::take_patch(&mut s));
        assert_eq!(mirror, s.view(), "after envelope {i}");
    }
    assert!(s.set_now(epoch_ms("2026-01-16T11:00:00.000Z").unwrap()));
    checks::apply_patch(&mut mirror, &checks::take_patch(&mut s));
    assert_eq!(mirror, s.view(), "after the clock moved");
    assert_eq!(mirror["executions"][1]["stale"], true);
}

// Item 7: runs that never end.

fn reference_run(name_part: &str) -> Vec<Value> {
    let case = vectors("agent-runs.json")
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().contains(name_part))
        .unwrap();
    case["expected"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["envelopes"].as_array().unwrap().clone())
        .map(|e| e["envelope"].clone())
        .collect()
}

fn with_stale_after(ms: i64, envelopes: &[Value]) -> Session {
    let mut s = Session::new(None);
    s.set_stale_after(Some(ms));
    for e in envelopes {
        s.ingest_value(e).unwrap();
    }
    s
}

#[test]
fn an_execution_silent_past_the_limit_is_stale_without_a_new_status() {
    // The reference's exception path: no final status is ever broadcast.
    let run = reference_run("tool throws (exception escapes ToolExecutor), default policy");
    let mut s = with_stale_after(300_000, &run);
    let last = epoch_ms("2026-01-20T12:00:00.250Z").unwrap();
    assert_eq!(exec(&s)["stale"], false);
    assert!(!s.set_now(last + 299_999));
    assert_eq!(exec(&s)["stale"], false);
    assert!(s.set_now(last + 300_000));
    let e = exec(&s);
    assert_eq!(
        (e["stale"].as_bool(), e["status"].as_str()),
        (Some(true), Some("processing"))
    );
    // A clock going back changes nothing.
    assert!(!s.set_now(last));
    assert_eq!(exec(&s)["stale"], true);
}

#[test]
fn an_ended_execution_is_never_stale() {
    let run = reference_run("direct final answer");
    let mut s = with_stale_after(1, &run);
    s.set_now(epoch_ms("2027-01-01T00:00:00.000Z").unwrap());
    assert_eq!(exec(&s)["stale"], false);
    assert_eq!(exec(&s)["status"], "completed");
}

#[test]
fn without_a_limit_nothing_is_stale() {
    let run = reference_run("tool throws (exception escapes ToolExecutor), default policy");
    let mut s = Session::new(None);
    for e in &run {
        s.ingest_value(e).unwrap();
    }
    assert!(!s.set_now(epoch_ms("2027-01-01T00:00:00.000Z").unwrap()));
    assert_eq!(exec(&s)["stale"], false);
}

#[test]
fn later_envelope_timestamps_make_a_silent_execution_stale_and_its_own_news_clears_it() {
    let run = lines("seed-000/failed-run.jsonl");
    // Execution a stops after its tool run; execution b carries on 10 minutes later.
    let later = run[0]
        .replace("exec-a", "exec-b")
        .replace("10:00:00.000Z", "10:10:00.000Z");
    let mut s = Session::new(None);
    s.set_stale_after(Some(60_000));
    for l in &run[..4] {
        s.ingest_text(l).unwrap();
    }
    assert_eq!(s.view()["executions"][0]["stale"], false);
    s.ingest_text(&later).unwrap();
    let v = s.view();
    assert_eq!(v["executions"][0]["stale"], true);
    assert_eq!(v["executions"][0]["status"], "in_progress");
    assert_eq!(v["executions"][1]["stale"], false);
    // Its final status (late) ends it: no longer stale.
    s.ingest_text(&run[9]).unwrap();
    let v = s.view();
    assert_eq!(v["executions"][0]["status"], "failed");
    assert_eq!(v["executions"][0]["stale"], false);
}

#[test]
fn a_limit_set_after_ingest_reads_the_timestamps_already_applied() {
    let run = reference_run("tool throws (exception escapes ToolExecutor), default policy");
    let mut s = Session::new(None);
    for e in &run {
        s.ingest_value(e).unwrap();
    }
    s.set_stale_after(Some(1_000));
    assert_eq!(exec(&s)["stale"], false);
    s.set_now(epoch_ms("2026-01-20T12:00:01.250Z").unwrap());
    assert_eq!(exec(&s)["stale"], true);
}

#[test]
fn stale_flag_changes_reach_the_patch() {
    let run = reference_run("tool throws (exception escapes ToolExecutor), default policy");
    let mut s = with_stale_after(1_000, &run);
    s.take_patch();
    s.set_now(epoch_ms("2026-01-20T12:00:05.000Z").unwrap());
    let patch: Value = json::from_str(&s.take_patch()).unwrap();
    assert_eq!(patch[2][1]["stale"], true, "{patch}");
}

#[test]
fn a_bad_now_or_limit_is_a_typed_error() {
    use stepline::session::stale::{now_ms, stale_after_option};
    let err = now_ms(&Value::from("tomorrow"), "/now").unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.path.as_deref()),
        ("invalid_timestamp", Some("/now"))
    );
    assert_eq!(
        now_ms(&Value::from("2026-01-20T12:00:00.250Z"), "/now").unwrap(),
        1_768_910_400_250
    );
    let opts = stepline::json!({"staleAfterMs": -1});
    let err =
        stale_after_option(opts.as_object().unwrap(), "staleAfterMs", "/options").unwrap_err();
    assert_eq!(err.path.as_deref(), Some("/options/staleAfterMs"));
}
