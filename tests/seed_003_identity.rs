//! Seed 003 §Agent 级事件流提案 (docs/seeds/003-agent-response-structure.md):
//! every event names its step by `step_index` and `step_id`, and `AgentStep`
//! carries a `step_id` and a `timestamp`; new sub-flows register a prefix
//! (`agent.planner.*`) and the event set otherwise stays closed. A session's
//! view and `collect()` give every step an id (the producer's, else one made
//! from the run, marked `step_id_generated`) and its index, the same for any
//! arrival order, redelivery or resync; registered events are kept, not
//! warned about.

use stepline::error::ErrorCode;
use stepline::json::Value;
use stepline::session::{Session, SessionOptions};

mod common;
use common::{case_envelopes, vectors_of, view_of, Corpus};

const PLANNER_RUN: &str = include_str!("fixtures/seed-003/planner-run.jsonl");

fn lines() -> Vec<&'static str> {
    PLANNER_RUN.lines().filter(|l| !l.is_empty()).collect()
}

fn planner_session(order: &[usize]) -> Session {
    let mut s = Session::new(None);
    s.register_event_prefix("agent.planner.").unwrap();
    let lines = lines();
    for &i in order {
        s.ingest_text(lines[i]).unwrap();
    }
    s
}

fn ids(view: &Value) -> Vec<(Value, Value, Value)> {
    view["executions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["steps"].as_array().unwrap())
        .map(|s| {
            (
                s["step_index"].clone(),
                s["step_id"].clone(),
                s["step_id_generated"].clone(),
            )
        })
        .collect()
}

// §数据结构: `AgentLifecycleEvent` has `step_index` and `step_id`; v1.22's
// envelopes carry neither, so stepline makes them from the run.
#[test]
fn every_step_has_an_id_and_index_generated_from_the_run_when_the_producer_sends_none() {
    let case = vectors_of(Corpus::V1_22, "agent-runs.json")
        .into_iter()
        .find(|c| c["name"] == "steps limit 2 with a driver that always calls tools [default]")
        .unwrap();
    let envelopes = case_envelopes(&case);
    let exec = envelopes[0]["execution_id"].as_str().unwrap().to_string();
    let mut s = Session::new(None);
    for e in &envelopes {
        s.ingest_value(e).unwrap();
    }
    let view = s.view();
    let got = ids(&view);
    assert_eq!(got.len(), 2);
    for (i, (index, id, generated)) in got.iter().enumerate() {
        assert_eq!(index, &Value::from(i + 1));
        assert_eq!(id, &Value::from(format!("{exec}/step-{}", i + 1)));
        assert_eq!(generated, &Value::Bool(true));
    }
    let collected = s.collect();
    let turns: Vec<(i64, String, bool)> = collected
        .turns
        .iter()
        .map(|t| (t.step_index, t.step_id.to_string(), t.step_id_generated))
        .collect();
    assert_eq!(
        turns,
        [
            (1, format!("{exec}/step-1"), true),
            (2, format!("{exec}/step-2"), true)
        ]
    );

    // Reversed, every envelope delivered twice, then resynced as a batch:
    // the same ids.
    let mut again = Session::new(None);
    for e in envelopes.iter().rev().chain(envelopes.iter()) {
        again.ingest_value(e).unwrap();
    }
    again.ingest_jsonl(&common::jsonl(&envelopes));
    assert_eq!(ids(&again.view()), got);
    let turns_again: Vec<(i64, String, bool)> = again
        .collect()
        .turns
        .iter()
        .map(|t| (t.step_index, t.step_id.to_string(), t.step_id_generated))
        .collect();
    assert_eq!(turns_again, turns);
}

#[test]
fn a_producers_step_id_is_kept_and_not_marked_generated() {
    let s = planner_session(&(0..lines().len()).collect::<Vec<_>>());
    assert_eq!(
        ids(&s.view()),
        [
            (Value::from(1), Value::from("step-1"), Value::Bool(true)),
            (Value::from(2), Value::from("st-2"), Value::Bool(false)),
        ],
        "no execution id: the generated id is the step's number alone"
    );
    let c = s.collect();
    assert_eq!(
        (c.turns[1].step_id.as_ref(), c.turns[1].step_id_generated),
        ("st-2", false)
    );
}

// §初步草案: `AgentStep.timestamp`; events keep their own timestamps.
#[test]
fn a_turn_takes_its_steps_own_timestamp_else_its_events() {
    let s = planner_session(&(0..lines().len()).collect::<Vec<_>>());
    let c = s.collect();
    assert_eq!(
        c.turns[0].timestamp,
        Some("2026-01-16T10:05:00.900Z"),
        "the step object's own time"
    );
    assert_eq!(
        c.turns[1].timestamp,
        Some("2026-01-16T10:05:01.200Z"),
        "no step object: the start's"
    );
    let view = s.view();
    let planner = &view["executions"][0]["custom_events"];
    assert_eq!(planner[0]["timestamp"], "2026-01-16T10:05:00.000Z");
}

// §与现有模型的衔接 4: `agent.planner.*`, a new prefix, registered explicitly.
#[test]
fn registered_prefix_events_are_kept_as_custom_events_without_warnings() {
    let n = lines().len();
    let s = planner_session(&(0..n).collect::<Vec<_>>());
    let view = s.view();
    assert_eq!(view["warning_count"], 0, "{}", view["warnings"]);
    let custom = &view["executions"][0]["custom_events"];
    let kinds: Vec<&str> = custom
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "agent.planner.started",
            "agent.planner.plan",
            "agent.planner.revised"
        ]
    );
    assert_eq!(custom[1]["step_index"], 1);
    assert_eq!(custom[1]["payload"]["steps"][1], "answer");

    // Any order, with redeliveries: the same view.
    let shuffled: Vec<usize> = [6, 2, 8, 0, 4, 1, 7, 3, 5, 2, 6].to_vec();
    assert_eq!(view_of(&planner_session(&shuffled)), view_of(&s));

    // Unregistered, they stay unknown: warned about and not kept.
    let mut plain = Session::new(None);
    for line in lines() {
        plain.ingest_text(line).unwrap();
    }
    let v = plain.view();
    assert_eq!(v["warning_count"], 3);
    assert_eq!(v["warnings"][0]["code"], "unknown_type");
    assert_eq!(
        v["executions"][0]["custom_events"],
        Value::Array(Vec::new())
    );
}

#[test]
fn prefixes_are_registered_by_option_and_bad_ones_are_refused_with_a_path() {
    let opts = stepline::json!({"eventPrefixes": ["agent.planner."]});
    let opts = SessionOptions::from_map(opts.as_object().unwrap(), "/options").unwrap();
    let mut s = Session::with_options(&opts);
    assert_eq!(s.event_prefixes(), ["agent.planner."]);
    for line in lines() {
        s.ingest_text(line).unwrap();
    }
    assert_eq!(s.view()["warning_count"], 0);

    for (bad, code, path) in [
        (
            stepline::json!(["agent.tool."]),
            ErrorCode::InvalidValue,
            "/options/eventPrefixes/0",
        ),
        (
            stepline::json!(["agent.planner.", "planner"]),
            ErrorCode::InvalidValue,
            "/options/eventPrefixes/1",
        ),
        (
            stepline::json!([3]),
            ErrorCode::InvalidType,
            "/options/eventPrefixes/0",
        ),
        (
            stepline::json!("agent.planner."),
            ErrorCode::InvalidType,
            "/options/eventPrefixes",
        ),
    ] {
        let opts = stepline::json!({ "eventPrefixes": bad });
        let err = SessionOptions::from_map(opts.as_object().unwrap(), "/options").unwrap_err();
        assert_eq!((err.code, err.path.as_deref()), (code, Some(path)), "{bad}");
    }
    let err = Session::new(None)
        .register_event_prefix("agent.llm.")
        .unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref()),
        (ErrorCode::InvalidValue, Some("/prefix"))
    );
}
