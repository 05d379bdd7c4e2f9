//! The session over instructor-php v2.7 runs: what the view says about how
//! a run ended, failed attempts, steps a guard stopped before they ran,
//! chunk indexes that restart, raw provider frames in the stream, and the
//! dialect each envelope is in. Runs are read from the v2.7 corpus.

use stepline::envelope::decode::decode_value;
use stepline::json;
use stepline::json::Value;
use stepline::session::Session;

mod common;
use common::{vectors, vectors_of, Corpus::V2_7};

/// The fuzz checks' model of the JS side's patch application.
#[path = "../fuzz/src/checks.rs"]
mod checks;

/// The envelopes of a v2.7 run's first turn.
fn run(name: &str) -> Vec<Value> {
    let case = vectors_of(V2_7, "agent-runs.json")
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no run {name}"));
    case["expected"][0]["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["envelope"].clone())
        .collect()
}

fn view_of(envelopes: &[Value]) -> Value {
    let mut s = Session::new(None);
    for e in envelopes {
        s.ingest_value(e).unwrap();
    }
    s.view()["executions"][0].clone()
}

fn chunk(i: i64, ms: u32, content: &str) -> Value {
    json!({"type": "agent.stream.chunk", "session_id": "s", "execution_id": "e",
        "timestamp": format!("2026-08-10T12:00:00.{ms:03}Z"),
        "payload": {"content": content, "is_complete": false, "chunk_index": i}})
}

#[test]
fn a_run_ending_completed_then_stopped_is_completed_whatever_the_order() {
    let envs = run("plain final answer [debug]");
    let reversed: Vec<Value> = envs.iter().rev().cloned().collect();
    for e in [view_of(&envs), view_of(&reversed)] {
        assert_eq!(e["status"], "completed");
        assert_eq!(e["closing_status"], "stopped");
        assert_eq!(e["error_message"], Value::Null);
        assert_eq!(e["never_ran_step"], Value::Null);
    }
}

#[test]
fn failed_then_stopped_stays_failed_with_its_error_and_the_failed_attempt_is_its_step() {
    let e = view_of(&run("driver exception on first inference [debug]"));
    assert_eq!(e["status"], "failed");
    assert_eq!(e["closing_status"], "stopped");
    assert_eq!(e["error_message"], "Upstream LLM unavailable (503)");
    let steps = e["steps"].as_array().unwrap();
    // The completion numbered 0 (steps recorded) is step 1's: no step 0.
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert_eq!(steps[0]["number"], 1);
    assert_eq!(steps[0]["attempt_failed"], true);
    assert_eq!(steps[0]["type"], "error");
    assert_eq!(
        steps[0]["seen"],
        json!({"started": true, "completed": true})
    );
    assert_eq!(e["missing_steps"], json!([]));
}

#[test]
fn a_failed_attempt_after_a_recorded_step_leaves_that_step_as_it_was() {
    let e = view_of(&run("driver exception after a tool step [minimal]"));
    let steps = e["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["finish_reason"], "tool_calls");
    assert_eq!(steps[0]["usage"]["input"], 120);
    assert_eq!(steps[1]["attempt_failed"], true);
    assert_eq!(e["status"], "failed");
}

#[test]
fn a_guard_stop_leaves_a_started_step_that_never_ran_not_a_missing_one() {
    let e = view_of(&run(
        "steps limit 2 reached (model always calls tools) [standard]",
    ));
    assert_eq!(e["status"], "stopped");
    assert_eq!(e["closing_status"], Value::Null);
    assert_eq!(e["never_ran_step"], 3);
    assert_eq!(e["missing_steps"], json!([]));
    let e = view_of(&run(
        "execution time limit 0s stops before the first step [debug]",
    ));
    assert_eq!(e["never_ran_step"], 1);
}

#[test]
fn the_observer_path_ends_at_completed_with_no_closing_word() {
    let e = view_of(&run(
        "real driver: streamed answer via UseAgentBroadcasting capability (observer) [standard]",
    ));
    assert_eq!(e["status"], "completed");
    assert_eq!(e["closing_status"], Value::Null);
    assert_eq!(e["text"], "One, two, three.");
    assert_eq!(e["provider_frames"], 0);
}

#[test]
fn raw_provider_frames_are_counted_kept_out_of_the_text_and_diagnosed() {
    let envs = run("real driver: streamed answer, several text deltas [standard]");
    let mut s = Session::new(None);
    for e in &envs {
        s.ingest_value(e).unwrap();
    }
    let e = &s.view()["executions"][0];
    assert_eq!(e["text"], "One, two, three.");
    assert_eq!(e["provider_frames"], 7);
    assert_eq!(e["missing_chunks"], json!([]), "frames keep their index");
    let found = s.diagnose(&Value::Null).unwrap();
    let d = found
        .iter()
        .find(|d| d.code == "raw_provider_frames_in_stream")
        .expect("the producer bug is named");
    let first = envs
        .iter()
        .position(|e| e["type"] == "agent.stream.chunk")
        .unwrap();
    assert_eq!(d.path, format!("/envelopes/{first}/payload/content"));
    assert_eq!(d.evidence["frames"], 7);
    assert_eq!(d.evidence["provider"], "openai");
    // The run the observer broadcast has no frames and no such finding.
    let mut clean = Session::new(None);
    for e in run(
        "real driver: streamed answer via UseAgentBroadcasting capability (observer) [standard]",
    ) {
        clean.ingest_value(&e).unwrap();
    }
    let codes: Vec<&str> = clean
        .diagnose(&Value::Null)
        .unwrap()
        .iter()
        .map(|d| d.code)
        .collect();
    assert!(
        !codes.contains(&"raw_provider_frames_in_stream"),
        "{codes:?}"
    );
}

#[test]
fn a_model_streaming_json_text_keeps_every_delta() {
    // Deltas of a JSON answer, one of them a whole JSON object (not frame
    // shaped), one shaped like a frame but missing its `id`.
    let deltas = [
        "{\"items\": [",
        "{\"object\": \"chat.completion.chunk\", \"choices\": []}",
        ", ",
        "{\"answer\": 42}",
        ", {\"type\": \"content_block_delta\", \"text\": \"x\"}",
        "]}",
    ];
    let mut s = Session::new(None);
    for (i, d) in deltas.iter().enumerate() {
        s.ingest_value(&chunk(i as i64, 1, d)).unwrap();
    }
    let e = &s.view()["executions"][0];
    assert_eq!(e["text"], deltas.concat());
    assert_eq!(e["provider_frames"], 0);
    assert!(s
        .diagnose(&Value::Null)
        .unwrap()
        .iter()
        .all(|d| d.code != "raw_provider_frames_in_stream"));
}

#[test]
fn chunks_sent_after_an_ending_status_restart_their_index_as_new_text() {
    let status = json!({"type": "agent.status", "session_id": "s", "execution_id": "e",
        "timestamp": "2026-08-10T12:00:00.005Z",
        "payload": {"status": "failed", "previous_status": "processing", "error_message": "boom", "last_response": null}});
    let before = [chunk(0, 1, "One"), chunk(1, 2, " two")];
    let after = [chunk(0, 7, "Again"), chunk(1, 8, "!")];
    let mut s = Session::new(None);
    // The earlier segment out of order, the status, then the later one.
    for e in [&before[1], &before[0], &status, &after[0], &after[1]] {
        s.ingest_value(e).unwrap();
    }
    // A redelivered chunk of either segment changes nothing.
    assert!(s.ingest_value(&after[0]).unwrap().duplicate);
    assert!(s.ingest_value(&before[1]).unwrap().duplicate);
    let e = &s.view()["executions"][0];
    assert_eq!(e["text"], "One twoAgain!");
    assert_eq!(e["missing_chunks"], json!([]));
}

#[test]
fn every_decoded_envelope_says_its_dialect() {
    let dialect = |v: Value| decode_value(&v).unwrap().dialect.as_str();
    assert_eq!(
        dialect(json!({"type": "agent.continuation", "session_id": "s",
            "payload": {"step_number": 1, "should_continue": true, "stop_reason": "", "resolved_by": "aggregate", "evaluations": []}})),
        "v1.22"
    );
    assert_eq!(
        dialect(
            json!({"type": "agent.status", "session_id": "s", "payload": {"status": "in_progress", "step_count": 1}})
        ),
        "seed-000"
    );
    assert_eq!(
        dialect(json!({"event_type": "agent.llm.started", "step_index": 0})),
        "seed-003"
    );
    // Every v2.7 envelope is v2 or a shape both versions send; no v1.22
    // envelope reads as v2.
    for case in vectors_of(V2_7, "agent-runs.json") {
        for turn in case["expected"].as_array().unwrap() {
            let envs: Vec<Value> = turn["envelopes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["envelope"].clone())
                .collect();
            for e in &envs {
                let d = dialect(e.clone());
                assert!(d == "v2" || d == "instructor", "{}: {d} {e}", case["name"]);
            }
            // A run with a four-key status (every wiretapped run ends so) is v2.
            if envs
                .iter()
                .any(|e| e["payload"].get("error_message").is_some())
            {
                assert_eq!(view_of(&envs)["dialect"], "v2", "{}", case["name"]);
            }
        }
    }
    for case in vectors("agent-runs.json") {
        for turn in case["expected"].as_array().unwrap() {
            for b in turn["envelopes"].as_array().unwrap() {
                let d = dialect(b["envelope"].clone());
                assert!(d == "v1.22" || d == "instructor", "{}: {d}", case["name"]);
            }
        }
    }
}

#[test]
fn patches_rebuild_the_view_after_every_envelope_of_every_v2_run() {
    for case in vectors_of(V2_7, "agent-runs.json") {
        let mut s = Session::new(None);
        let mut mirror = Value::Null;
        for (t, turn) in case["expected"].as_array().unwrap().iter().enumerate() {
            for (i, b) in turn["envelopes"].as_array().unwrap().iter().enumerate() {
                let _ = s.ingest_value(&b["envelope"]);
                checks::apply_patch(&mut mirror, &checks::take_patch(&mut s));
                assert_eq!(
                    mirror,
                    s.view(),
                    "{} turn {t}: after envelope {i}",
                    case["name"]
                );
            }
        }
    }
}

#[test]
fn a_turn_after_a_broadcaster_reset_opens_from_idle_as_a_new_turn() {
    let case = vectors_of(V2_7, "agent-runs.json")
        .into_iter()
        .find(|c| {
            c["name"] == "multi-turn: two user messages, broadcaster reset() between turns [debug]"
        })
        .unwrap();
    let turns = case["expected"].as_array().unwrap();
    let mut s = Session::new(None);
    let first: Vec<Value> = turns[0]["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["envelope"].clone())
        .collect();
    for e in &first {
        s.ingest_value(e).unwrap();
    }
    // The first turn's own start, redelivered after it ended, opens nothing.
    assert!(s.ingest_value(&first[0]).unwrap().duplicate);
    // The second turn (sent a second later: the corpus's clock is frozen)
    // starts `processing` from `idle` again under the same execution id.
    for b in turns[1]["envelopes"].as_array().unwrap() {
        let mut e = b["envelope"].clone();
        *e.pointer_entry("/timestamp").unwrap() = Value::from("2026-08-10T12:00:01.250Z");
        s.ingest_value(&e).unwrap();
    }
    let execs = s.view()["executions"].as_array().unwrap().clone();
    assert_eq!(execs.len(), 2);
    assert_eq!(execs[1]["steps"].as_array().unwrap().len(), 1);
    assert_eq!(
        (execs[0]["status"].as_str(), execs[1]["status"].as_str()),
        (Some("completed"), Some("completed"))
    );
}

#[test]
fn diagnose_finds_no_producer_bug_in_v2_runs_but_the_raw_frames() {
    for case in vectors_of(V2_7, "agent-runs.json") {
        let mut s = Session::new(None);
        for (t, turn) in case["expected"].as_array().unwrap().iter().enumerate() {
            for b in turn["envelopes"].as_array().unwrap() {
                // Turns a second apart: the corpus's frozen clock makes a later
                // turn's statuses byte-identical to an earlier turn's.
                let mut e = b["envelope"].clone();
                *e.pointer_entry("/timestamp").unwrap() =
                    Value::from(format!("2026-08-10T12:00:0{t}.250Z"));
                s.ingest_value(&e).unwrap();
            }
        }
        let codes: Vec<&str> = s
            .diagnose(&Value::Null)
            .unwrap()
            .iter()
            .map(|d| d.code)
            .collect();
        let frames = case["name"] == "real driver: streamed answer, several text deltas [standard]";
        let want: &[&str] = if frames {
            &["raw_provider_frames_in_stream"]
        } else {
            &[]
        };
        assert_eq!(codes, want, "{}", case["name"]);
    }
}
