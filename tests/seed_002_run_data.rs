//! Seed 002's run data (docs/seeds/002-event-serialization-system-design.md):
//! a run's summary carries its total duration and each turn's (§4.2
//! "Computed summaries", §4.1 `ExampleData.duration_ms`), and each turn its
//! user's message (§4.1 `TurnData.user_message`) where the stream or the
//! final state carries it — instructor-php's envelopes (v1.22 and v2.7)
//! carry only `message_count`, their final states the messages.

use stepline::json::{self, Value};
use stepline::session::final_state::FinalState;
use stepline::session::runlog::RunLog;
use stepline::session::Session;

mod common;
use common::{case_envelopes, case_starting, session_of, v2_final_states, Corpus};

/// The envelopes and the slim snapshot of the first turn of the v1.22 run named `prefix`.
fn v122_turn(prefix: &str) -> (Vec<Value>, Value) {
    let run = case_starting(Corpus::V1_22, "agent-runs.json", prefix);
    let t = &run["expected"][0];
    let envelopes = t["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["envelope"].clone())
        .collect();
    (envelopes, t["slim"].clone())
}

fn set(v: &mut Value, key: &'static str, to: Value) {
    v.as_object_mut().unwrap().insert(key, to);
}

fn executions(s: &Session) -> Vec<Value> {
    s.view()["executions"].as_array().unwrap().clone()
}

/// The recorded run, its last envelope moved 1.25 s later (the reference
/// froze its clock, so every envelope has the same timestamp).
fn timed_run() -> Vec<Value> {
    let (mut envelopes, _) = v122_turn("tool call then final answer [debug]");
    let last = envelopes.last_mut().unwrap();
    set(last, "timestamp", Value::from("2026-01-20T12:00:01.500Z"));
    envelopes
}

// §4.1 ExampleData `duration_ms`, from the turn's own timestamps.
#[test]
fn an_execution_in_the_view_carries_its_duration_from_first_to_last_envelope() {
    let e = &executions(&session_of(&timed_run()))[0];
    assert_eq!(e["first_at"], "2026-01-20T12:00:00.250Z");
    assert_eq!(e["last_at"], "2026-01-20T12:00:01.500Z");
    assert_eq!(e["duration_ms"], Value::from(1250));

    let (same_instant, _) = v122_turn("tool call then final answer [debug]");
    let e = &executions(&session_of(&same_instant))[0];
    assert_eq!(
        e["duration_ms"],
        Value::from(0),
        "the frozen clock: 0, not null"
    );
}

#[test]
fn an_execution_without_timestamps_has_a_null_duration() {
    let mut envelopes = timed_run();
    for e in &mut envelopes {
        e.as_object_mut().unwrap().remove("timestamp");
    }
    let e = &executions(&session_of(&envelopes))[0];
    assert_eq!(e["first_at"], Value::Null);
    assert_eq!(e.get("duration_ms"), Some(&Value::Null), "present, null");
}

// §4.2 "Computed summaries": the summary's total duration, and per turn.
#[test]
fn the_run_log_summary_carries_the_total_and_per_turn_durations() {
    let mut log = RunLog::new();
    // Two workers' sessions: one turn of 1.25 s, one of 0.5 s starting 3 s later.
    for e in timed_run() {
        log.ingest_value(&e).unwrap();
    }
    for mut e in timed_run() {
        set(&mut e, "session_id", Value::from("sess-other"));
        let late = if e["timestamp"] == "2026-01-20T12:00:01.500Z" {
            "2026-01-20T12:00:03.750Z"
        } else {
            "2026-01-20T12:00:03.250Z"
        };
        set(&mut e, "timestamp", Value::from(late));
        log.ingest_value(&e).unwrap();
    }
    let d = json::to_value_of(&log.summary().durations);
    assert_eq!(
        d["total_ms"],
        Value::from(3500),
        "12:00:00.250 to 12:00:03.750"
    );
    assert_eq!(
        d["execution_ms"],
        stepline::json!({"p50": 500, "p95": 1250, "max": 1250, "count": 2})
    );
    // The saved recording gives the same figures.
    let back = RunLog::load(&log.save()).unwrap();
    assert_eq!(back.summary().durations, log.summary().durations);
}

#[test]
fn an_empty_run_log_has_no_total_duration() {
    let d = json::to_value_of(&RunLog::new().summary().durations);
    assert_eq!(d["total_ms"], Value::Null);
    assert_eq!(d["execution_ms"]["count"], Value::from(0));
}

// §4.1 TurnData `user_message`: the v1.22 envelopes do not carry it.
#[test]
fn the_stream_of_instructor_php_leaves_the_user_message_unknown() {
    let (envelopes, _) = v122_turn("tool call then final answer [debug]");
    assert!(envelopes
        .iter()
        .all(|e| !json::to_string(e).contains("What is the weather")));
    let e = &executions(&session_of(&envelopes))[0];
    assert_eq!(e.get("user_message"), Some(&Value::Null), "present, null");
}

// §4.1 TurnData `user_message`: the v1.22 final state (its slim snapshot) carries it.
#[test]
fn the_reconciled_execution_carries_the_user_message_of_the_v122_final_state() {
    let (envelopes, slim) = v122_turn("tool call then final answer [debug]");
    let session = session_of(&envelopes);
    let view = session.reconcile(&slim).to_value(&session);
    let e = view["view"]["executions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(e["user_message"], "What is the weather in Paris?");
}

// §4.1 TurnData `user_message`, per turn: each v2.7 turn's final state ends
// with that turn's message (`withUserMessage`, the corpus README).
#[test]
fn each_v2_turn_carries_its_own_user_message_from_its_final_state() {
    let name = "multi-turn: three turns with tool calls and streaming [debug]";
    let run = case_starting(Corpus::V2_7, "agent-runs.json", name);
    let states: Vec<Value> = v2_final_states()
        .into_iter()
        .filter(|(n, _, _)| n.starts_with(name))
        .map(|(_, s, _)| s)
        .collect();
    let turns = run["expected"].as_array().unwrap();
    let mut seen = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        let envelopes: Vec<Value> = case_envelopes(&stepline::json!({"expected": [turn.clone()]}));
        let session = session_of(&envelopes);
        let fin = FinalState::read(&states[t], &Corpus::V2_7.now()).unwrap();
        let view = session.reconcile_final(&fin).to_value(&session);
        let e = view["view"]["executions"]
            .as_array()
            .unwrap()
            .last()
            .unwrap();
        seen.push(e["user_message"].clone());
    }
    let first = run["input"]["initialState"]["context"]["messageStore"]["sections"][0]["messages"]
        [0]["content"]
        .clone();
    assert_eq!(
        seen,
        [first, Value::from("And Rome?"), Value::from("Thanks!")]
    );
}

// §4.1 TurnData `user_message` from the stream: AG-UI's run input carries
// the conversation, whose last user message starts the run.
#[test]
fn an_ag_ui_run_carries_the_user_message_of_its_run_input() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/dialects/ag-ui/approval-run.json"
    );
    let doc = json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut events = doc["events"].as_array().unwrap().clone();
    set(
        &mut events[0],
        "input",
        stepline::json!({
            "threadId": "sess-approvals", "runId": "run-approvals",
            "messages": [
                {"id": "m1", "role": "user", "content": "Clean up my files."},
                {"id": "m2", "role": "assistant", "content": "Which ones?"},
                {"id": "m3", "role": "user", "content": "The old reports, and mail Bob."}
            ],
            "tools": [], "context": [], "forwardedProps": {}, "state": {}
        }),
    );
    let mut s = Session::new(None);
    for e in &events {
        s.ingest_value(e).unwrap();
    }
    let e = executions(&s);
    assert_eq!(e[0]["user_message"], "The old reports, and mail Bob.");
    // The resumed run's input has no messages: unknown, not the first run's.
    assert_eq!(e.last().unwrap()["user_message"], Value::Null);
}
