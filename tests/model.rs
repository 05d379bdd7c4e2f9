//! Behaviour of the step/state model beyond the reference vectors: seed 001
//! timing, seed 003 ids and annotations, seed 004 execution time.

use stepline::json;
use stepline::model::continuation::Outcome;
use stepline::model::message::Messages;
use stepline::model::step::StepError;
use stepline::model::time::{parse, Timestamp};
use stepline::model::{AgentState, AgentStep, Role, StepResult};
use stepline::ErrorCode;

mod common;
use common::Corpus::V1_22;

fn at(s: &str) -> Timestamp {
    parse(s, &V1_22.now()).unwrap()
}

fn step(usage: stepline::json::Value) -> AgentStep {
    AgentStep::from_value(&json!({"usage": usage}), "", &V1_22.now()).unwrap()
}

#[test]
fn step_result_refuses_a_start_after_its_completion() {
    let err = StepResult::new(
        step(json!({})),
        Outcome::resolve(vec![]),
        at("2026-01-20T12:00:05Z"),
        at("2026-01-20T12:00:01Z"),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidValue);
    assert!(err
        .message
        .contains("start 2026-01-20T12:00:05+00:00 after completion 2026-01-20T12:00:01+00:00"));
}

#[test]
fn step_duration_is_the_real_interval_including_minutes() {
    let r = StepResult::new(
        step(json!({})),
        Outcome::resolve(vec![]),
        at("2026-01-20T11:58:59.5Z"),
        at("2026-01-20T12:00:01Z"),
    )
    .unwrap();
    assert_eq!(r.duration_ms(), Some(61_500.0));
}

#[test]
fn recording_steps_accumulates_execution_seconds_usage_and_keeps_them_through_storage() {
    let mut state = AgentState::from_value(&json!({"agentId": "a"}), &V1_22.now()).unwrap();
    state.mark_execution_started(&at("2026-01-20T11:59:00Z"));
    let first = StepResult::new(
        step(json!({"input": 10, "output": 2})),
        Outcome::resolve(vec![]),
        at("2026-01-20T11:59:00Z"),
        at("2026-01-20T11:59:02.5Z"),
    )
    .unwrap();
    let second = StepResult::new(
        step(json!({"input": 5, "output": 1})),
        Outcome::resolve(vec![]),
        at("2026-01-20T11:59:03Z"),
        at("2026-01-20T11:59:04Z"),
    )
    .unwrap();
    state.record_step(first, &V1_22.now()).unwrap();
    state.record_step(second, &V1_22.now()).unwrap();
    assert_eq!(state.state_info.cumulative_execution_seconds, 3.5);
    assert_eq!(state.usage.total(), 18);
    assert_eq!(state.steps.len(), 2);
    assert_eq!(
        state.current_step_started_at,
        Some(at("2026-01-20T11:59:03Z"))
    );

    let stored = state.to_value();
    assert_eq!(stored["executionStartedAt"], "2026-01-20T11:59:00+00:00");
    let restored = AgentState::from_value(&stored, &V1_22.now()).unwrap();
    // Cumulative time survives storage; the execution start never does (seed 004).
    assert_eq!(restored.state_info.cumulative_execution_seconds, 3.5);
    assert_eq!(restored.execution_started_at, None);
    assert_eq!(restored.step_results[0].duration_ms(), Some(2_500.0));
}

#[test]
fn steps_keep_ids_timestamps_and_annotations_through_a_round_trip() {
    let input = json!({
        "stepInfo": {"id": "step-7", "createdAt": "2026-01-20T11:59:58+00:00"},
        "annotations": {
            "safety": [{"verdict": "review", "category": "pii"}],
            "citations": [{"label": "Docs", "url": "https://example.com/a"}, {"label": "Memo"}],
            "extra": {"model": "gpt-4o"}
        }
    });
    let s = AgentStep::from_value(&input, "", &V1_22.now()).unwrap();
    assert_eq!(s.info.id, "step-7");
    assert_eq!(s.annotations.safety[0].verdict.as_str(), "review");
    assert_eq!(s.annotations.citations[1].url, None);
    let again = AgentStep::from_value(&s.to_value(), "", &V1_22.now()).unwrap();
    assert_eq!(again.annotations, s.annotations);
    assert_eq!(
        s.to_value()["annotations"],
        json!({"safety": [{"verdict": "review", "category": "pii"}],
               "citations": [{"label": "Docs", "url": "https://example.com/a"}, {"label": "Memo", "url": null}],
               "extra": {"model": "gpt-4o"}})
    );
}

#[test]
fn an_unknown_safety_verdict_is_rejected_with_its_path() {
    let input = json!({"annotations": {"safety": [{"verdict": "maybe", "category": "x"}]}});
    let err = AgentStep::from_value(&input, "/steps/0", &V1_22.now()).unwrap_err();
    assert_eq!(
        err.path.as_deref(),
        Some("/steps/0/annotations/safety/0/verdict")
    );
}

#[test]
fn steps_without_annotations_write_no_annotations_key() {
    assert!(step(json!({})).to_value().get("annotations").is_none());
}

#[test]
fn a_failure_step_is_an_error_step_carrying_the_error() {
    let messages = Messages::from_value(&json!([{"role": "user", "content": "q"}]), "").unwrap();
    let s = AgentStep::failure(
        messages,
        StepError {
            message: "boom".into(),
            class: "RuntimeException".into(),
        },
        &V1_22.now(),
    );
    assert_eq!(s.step_type.as_str(), "error");
    assert_eq!(s.errors_as_string(), "boom");
}

#[test]
fn role_helpers_treat_developer_as_system_and_unknown_as_user() {
    assert!(Role::Developer.is_system());
    assert!(Role::System.is_system());
    assert!(!Role::Developer.is_user());
    assert!(Role::from_str_or_user("wizard").is_user());
    assert!(Role::Tool.has_role(&[Role::User, Role::Tool]));
    assert!(!Role::Assistant.has_role(&[Role::User, Role::Tool]));
}

#[test]
fn requested_and_executed_tool_calls_come_from_their_single_sources() {
    let s = AgentStep::from_value(
        &json!({
            "toolCalls": [{"id": "legacy", "name": "old"}],
            "inferenceResponse": {"toolCalls": [{"id": "c1", "name": "search"}, {"id": "c2", "name": "fetch"}],
                "responseData": {"statusCode": 200, "body": "", "headers": [], "isStreamed": false}},
            "toolExecutions": [{"toolCall": {"id": "c1", "name": "search"}, "result": 1}]
        }),
        "",
        &V1_22.now(),
    )
    .unwrap();
    let requested: Vec<&str> = s
        .requested_tool_calls()
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    let executed: Vec<&str> = s
        .executed_tool_calls()
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(requested, ["c1", "c2"]);
    assert_eq!(executed, ["c1"]);
    assert_eq!(s.step_type.as_str(), "tool_execution");
}
