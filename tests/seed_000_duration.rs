//! Seed 000 §Proposed Snapshot Schema (docs/seeds/000-slim-serialization-and-adapter.md):
//! every slim step carries `duration_ms`, which the reference's
//! `SlimAgentStateSerializer` never writes (so `compat` does not), and
//! `validateSnapshot` knows the field.

use stepline::json::{self, Value};
use stepline::model::time::Timestamp;
use stepline::model::view::agent_state_view;
use stepline::model::AgentState;
use stepline::snapshot::serialize::slim;
use stepline::snapshot::source::SlimSource;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::validate_snapshot as validate;

mod common;
use common::{v2_final_states, vectors};

fn now() -> Timestamp {
    chrono::DateTime::parse_from_rfc3339("2026-01-20T12:00:00.250+00:00").unwrap()
}

fn set(v: &mut Value, pointer: &str, to: Value) {
    *v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer}")) = to;
}

/// The reference's three-step run, its second step result timed as stepline's
/// loop records it (start and completion, milliseconds kept).
fn timed_state() -> Value {
    let mut state = vectors("slim-serializer.json")
        .into_iter()
        .find(|c| {
            c["name"] == "serialize [default] tool calls conversation with 3 steps (completed)"
        })
        .expect("the vector")["input"]["state"]
        .clone();
    let result = state
        .pointer_mut("/stepResults/1")
        .and_then(Value::as_object_mut)
        .unwrap();
    result.insert("startedAt", Value::from("2026-01-20T11:59:58.000+00:00"));
    result.insert("completedAt", Value::from("2026-01-20T11:59:59.250+00:00"));
    state
}

/// The snapshot from the parsed state, checked equal to the selective read's.
fn snapshot(doc: &Value, config: &SlimConfig) -> Value {
    let state = AgentState::from_value(doc, &now()).unwrap();
    let from_state = slim(&SlimSource::from_state(&state, config), config);
    let from_doc = slim(&SlimSource::from_doc(&doc, config, &now()).unwrap(), config);
    assert_eq!(
        from_doc, from_state,
        "the selective read gives the same snapshot"
    );
    from_state
}

fn durations(snapshot: &Value) -> Vec<Value> {
    snapshot["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s.get("duration_ms")
                .cloned()
                .unwrap_or(Value::from("absent"))
        })
        .collect()
}

// Seed 000 §Proposed Snapshot Schema: `"duration_ms": 1250.5` on each step.
#[test]
fn a_slim_step_carries_its_duration_from_its_stored_start_and_completion() {
    let doc = timed_state();
    let snap = snapshot(&doc, &SlimConfig::standard());
    assert_eq!(
        durations(&snap),
        [Value::Null, Value::from(1250.0), Value::Null],
        "null where the step result stores no timing (the reference never does)"
    );
    // parseAgentState says the same of the step.
    let state = AgentState::from_value(&doc, &now()).unwrap();
    let view = json::to_value_of(&agent_state_view(&state));
    assert_eq!(view["steps"][1]["durationMs"], Value::from(1250.0));
    // The newest steps only: the kept step keeps its own duration.
    let one = SlimConfig {
        max_steps: 2,
        ..SlimConfig::standard()
    };
    assert_eq!(
        durations(&snapshot(&doc, &one)),
        [Value::from(1250.0), Value::Null]
    );
}

#[test]
fn compat_writes_no_duration_as_the_reference_serializer_does() {
    let config = SlimConfig {
        compat: true,
        ..SlimConfig::standard()
    };
    let snap = snapshot(&timed_state(), &config);
    assert_eq!(
        durations(&snap),
        ["absent", "absent", "absent"].map(Value::from)
    );
}

#[test]
fn a_start_after_the_completion_is_no_duration() {
    let mut doc = timed_state();
    set(
        &mut doc,
        "/stepResults/1/startedAt",
        Value::from("2026-01-20T11:59:59.500+00:00"),
    );
    assert_eq!(
        durations(&snapshot(&doc, &SlimConfig::standard()))[1],
        Value::Null
    );
}

// Seed 000 §Proposed Snapshot Schema: the seed's own example validates with
// no warning.
#[test]
fn validate_snapshot_accepts_the_seeds_own_example_without_warnings() {
    let example = stepline::json!({
        "agent_id": "8f14e45f-ceea-467f-a0e6-0123456789ab",
        "parent_agent_id": null,
        "status": "in_progress",
        "step_count": 3,
        "usage": { "prompt": 1200, "completion": 600, "total": 1800 },
        "execution": {
            "started_at": "2026-01-16T10:00:00Z",
            "updated_at": "2026-01-16T10:05:00Z",
            "cumulative_seconds": 45.2
        },
        "messages": [
            { "role": "user", "content": "...", "metadata": {} }
        ],
        "steps": [
            {
                "step_number": 1,
                "type": "tool_execution",
                "has_tool_calls": true,
                "finish_reason": "tool_calls",
                "errors": 0,
                "usage": { "total": 500 },
                "duration_ms": 1250.5,
                "tool_calls": [{ "id": "call_1", "name": "search" }]
            }
        ],
        "last_continuation": {
            "should_continue": false,
            "stop_reason": "completed",
            "resolved_by": "ToolCallPresenceCheck"
        },
        "metadata": { "custom_key": "custom_value" }
    });
    let report = validate(&example);
    let issues: Vec<(&str, &str)> = report
        .errors
        .iter()
        .chain(&report.warnings)
        .map(|i| (i.path.as_str(), i.code))
        .collect();
    assert!(
        issues.iter().all(|(p, _)| !p.contains("duration_ms")),
        "{issues:?}"
    );
    assert!(report.valid(), "{issues:?}");
    assert!(report.warnings.is_empty(), "{issues:?}");
    // A negative or non-numeric duration is not one.
    let mut bad = example.clone();
    set(&mut bad, "/steps/0/duration_ms", Value::from(-1.0));
    let report = validate(&bad);
    assert_eq!(report.errors[0].path, "/steps/0/duration_ms");
    set(&mut bad, "/steps/0/duration_ms", Value::from("1250"));
    assert_eq!(validate(&bad).errors[0].code, "wrong_type");
}

// Seed 000 on a v2 state: the step execution's own `duration` (seconds).
#[test]
fn a_v2_slim_step_carries_its_step_executions_duration() {
    let (name, mut doc, _) = v2_final_states()
        .into_iter()
        .find(|(_, s, _)| {
            s.pointer("/execution/stepExecutions")
                .and_then(Value::as_array)
                .is_some_and(|l| !l.is_empty())
        })
        .unwrap();
    set(
        &mut doc,
        "/execution/stepExecutions/0/completedAt",
        Value::from("2026-08-10T12:00:01.500+00:00"),
    );
    set(
        &mut doc,
        "/execution/stepExecutions/0/startedAt",
        Value::from("2026-08-10T12:00:00+00:00"),
    );
    let state = stepline::model::v2::AgentState::from_value(&doc, &now()).unwrap();
    let snap = |compat| {
        let config = SlimConfig {
            compat,
            ..SlimConfig::standard()
        };
        json::to_value_of(&stepline::snapshot::v2::slim_v2_snapshot(&state, &config))
    };
    assert_eq!(
        snap(false)["steps"][0]["duration_ms"],
        Value::from(1500.0),
        "{name}"
    );
    assert!(
        snap(true)["steps"][0].get("duration_ms").is_none(),
        "{name}"
    );
    assert!(validate(&snap(false)).valid(), "{name}");
}

// Every reference snapshot written in default mode validates without warnings.
#[test]
fn every_default_mode_snapshot_of_the_reference_states_validates_without_warnings() {
    let mut checked = 0;
    for case in vectors("slim-serializer.json") {
        let Some(doc) = case["input"].get("state") else {
            continue;
        };
        if AgentState::from_value(doc, &now()).is_err() {
            continue;
        }
        let snap = snapshot(doc, &SlimConfig::full());
        let report = validate(&snap);
        assert!(
            report.valid() && report.warnings.is_empty(),
            "{}: {:?} {:?}",
            case["name"],
            report.errors,
            report.warnings
        );
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}
