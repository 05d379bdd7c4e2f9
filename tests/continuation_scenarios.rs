//! Seed 004's pause/resume semantics as named scenarios, criteria specs as data,
//! explanations and the "what if" replay.

use stepline::json;
use stepline::model::continuation::replay::{replay, ReplayOptions};
use stepline::model::continuation::spec::{default_criteria, parse_criteria, Defaults};
use stepline::model::continuation::{evaluate_all, Observation, Outcome};
use stepline::model::time::{parse, Timestamp};
use stepline::model::{AgentState, AgentStep, StepResult};
use stepline::ErrorCode;

mod common;
use common::vectors;

fn at(s: &str) -> Timestamp {
    parse(
        s,
        &parse("2026-01-20T12:00:00Z", &chrono::DateTime::default()).unwrap(),
    )
    .unwrap()
}

fn tool_step(id: &str) -> AgentStep {
    AgentStep::from_value(&json!({"stepInfo": {"id": id}, "toolCalls": [{"id": "c", "name": "search"}], "usage": {"input": 10}}), "", &at("2026-01-20T12:00:00Z")).unwrap()
}

/// The session began a day before this query.
fn day_old_session() -> AgentState {
    AgentState::from_value(
        &json!({"agentId": "a", "stateInfo": {"id": "s", "startedAt": "2026-01-19T12:00:00+00:00", "updatedAt": "2026-01-19T12:05:00+00:00"}}),
        &at("2026-01-20T12:00:00Z"),
    )
    .unwrap()
}

fn time_evaluation(state: &AgentState, now: &str) -> (String, String) {
    let outcome = evaluate_all(
        &default_criteria(&Defaults::default()),
        &Observation::from_state(state, at(now), None),
    );
    let e = &outcome.evaluations[2];
    (e.decision.as_str().to_string(), e.reason.clone())
}

#[test]
fn fresh_execution_measures_from_its_own_start() {
    let mut state = day_old_session();
    state.mark_execution_started(&at("2026-01-20T12:00:00Z"));
    assert_eq!(
        time_evaluation(&state, "2026-01-20T12:00:10Z"),
        (
            "allow".into(),
            "Execution time under limit: 10s/300s".into()
        )
    );
}

#[test]
fn multi_turn_query_5s_old_in_a_day_old_session_does_not_time_out() {
    let mut state = day_old_session();
    state.mark_execution_started(&at("2026-01-20T11:59:55Z"));
    assert_eq!(
        time_evaluation(&state, "2026-01-20T12:00:00Z"),
        ("allow".into(), "Execution time under limit: 5s/300s".into())
    );
}

#[test]
fn restored_state_has_no_execution_start_and_a_new_execution_sets_it() {
    let mut live = day_old_session();
    live.mark_execution_started(&at("2026-01-19T12:00:30Z"));
    let stored = live.to_value();
    assert_eq!(stored["executionStartedAt"], "2026-01-19T12:00:30+00:00");
    let mut restored = AgentState::from_value(&stored, &at("2026-01-20T12:00:00Z")).unwrap();
    assert_eq!(restored.execution_started_at, None);
    // Without a new execution start the producer falls back to the session start…
    assert_eq!(
        time_evaluation(&restored, "2026-01-20T12:00:00Z").1,
        "Execution time limit reached: 86400s/300s"
    );
    // …which is why every new query marks its own start.
    restored.mark_execution_started(&at("2026-01-20T12:00:00Z"));
    assert_eq!(
        time_evaluation(&restored, "2026-01-20T12:00:01Z").1,
        "Execution time under limit: 1s/300s"
    );
}

#[test]
fn a_one_week_pause_does_not_count_against_the_next_query() {
    let mut state = day_old_session();
    state.mark_execution_started(&at("2026-01-27T12:00:00Z"));
    assert_eq!(time_evaluation(&state, "2026-01-27T12:00:03Z").0, "allow");
}

#[test]
fn the_session_start_is_unchanged_by_executions() {
    let mut state = day_old_session();
    let session_start = state.state_info.started_at;
    state.mark_execution_started(&at("2026-01-20T12:00:00Z"));
    state.mark_execution_started(&at("2026-01-20T13:00:00Z"));
    assert_eq!(state.state_info.started_at, session_start);
    assert_eq!(
        state.to_value()["stateInfo"]["startedAt"],
        "2026-01-19T12:00:00+00:00"
    );
}

#[test]
fn cumulative_time_survives_storage_and_an_hour_pause_counts_zero() {
    let mut state = day_old_session();
    let first = StepResult::new(
        tool_step("s1"),
        Outcome::resolve(vec![]),
        at("2026-01-20T12:00:00Z"),
        at("2026-01-20T12:00:05Z"),
    )
    .unwrap();
    state
        .record_step(first, &at("2026-01-20T12:00:05Z"))
        .unwrap();
    let mut resumed =
        AgentState::from_value(&state.to_value(), &at("2026-01-20T13:00:05Z")).unwrap();
    let second = StepResult::new(
        tool_step("s2"),
        Outcome::resolve(vec![]),
        at("2026-01-20T13:00:05Z"),
        at("2026-01-20T13:00:08Z"),
    )
    .unwrap();
    resumed
        .record_step(second, &at("2026-01-20T13:00:08Z"))
        .unwrap();
    assert_eq!(resumed.state_info.cumulative_execution_seconds, 8.0);
    let criteria =
        parse_criteria(&json!({"defaults": {"cumulativeTimeout": 10}}), "/criteria").unwrap();
    let outcome = evaluate_all(
        &criteria,
        &Observation::from_state(&resumed, at("2026-01-20T13:00:08Z"), None),
    );
    assert_eq!(
        outcome.evaluations[2].reason,
        "Cumulative execution time 8.0s under limit 10s"
    );
}

#[test]
fn step_durations_accumulate_into_cumulative_seconds() {
    let mut state = day_old_session();
    for (i, (start, end)) in [
        ("12:00:00", "12:00:01.5"),
        ("12:00:02", "12:00:04"),
        ("12:00:04", "12:00:04.25"),
    ]
    .iter()
    .enumerate()
    {
        let r = StepResult::new(
            tool_step(&format!("s{i}")),
            Outcome::resolve(vec![]),
            at(&format!("2026-01-20T{start}Z")),
            at(&format!("2026-01-20T{end}Z")),
        )
        .unwrap();
        state.record_step(r, &at("2026-01-20T12:00:05Z")).unwrap();
    }
    assert_eq!(state.state_info.cumulative_execution_seconds, 3.75);
}

#[test]
fn specs_are_data_and_bad_specs_are_rejected_with_a_path() {
    let ok = parse_criteria(
        &json!([{"kind": "steps_limit", "max": 5}, {"kind": "tool_call_presence_check"}]),
        "/criteria",
    )
    .unwrap();
    assert_eq!(ok.len(), 2);
    let cases = [
        (
            json!([{"kind": "step_limit", "max": 5}]),
            ErrorCode::InvalidValue,
            "/criteria/0/kind",
        ),
        (
            // Time limits refuse 0 as the producer's constructors do (a steps
            // limit of 0 is valid there: it stops every time).
            json!([{"kind": "cumulative_execution_time_limit", "max": 0}]),
            ErrorCode::InvalidValue,
            "/criteria/0/max",
        ),
        (
            json!([{"kind": "execution_time_limit", "max": -1}]),
            ErrorCode::InvalidValue,
            "/criteria/0/max",
        ),
        (
            json!([{"kind": "token_usage_limit", "max": "many"}]),
            ErrorCode::InvalidType,
            "/criteria/0/max",
        ),
        (
            json!([{"kind": "steps_limit"}]),
            ErrorCode::MissingField,
            "/criteria/0/max",
        ),
        (
            json!([{"kind": "steps_limit", "max": 3, "maxx": 4}]),
            ErrorCode::InvalidValue,
            "/criteria/0/maxx",
        ),
        (
            json!([{"max": 3}]),
            ErrorCode::MissingField,
            "/criteria/0/kind",
        ),
        (
            json!({"defaults": {"errorPolicy": "retrySome"}}),
            ErrorCode::InvalidValue,
            "/criteria/defaults/errorPolicy",
        ),
        (
            json!({"defaults": {"maxExecutionTime": 0}}),
            ErrorCode::InvalidValue,
            "/criteria/defaults/maxExecutionTime",
        ),
        (json!("steps"), ErrorCode::InvalidType, "/criteria"),
    ];
    for (spec, code, path) in cases {
        let err = parse_criteria(&spec, "/criteria").unwrap_err();
        assert_eq!(
            (err.code, err.path.as_deref()),
            (code, Some(path)),
            "{spec}"
        );
    }
}

#[test]
fn outcomes_explain_themselves() {
    let criteria = parse_criteria(&json!({"defaults": {"maxSteps": 1}}), "").unwrap();
    let mut state = day_old_session();
    state.steps.push(tool_step("s1"));
    state.current_step = Some(tool_step("s1"));
    let outcome = evaluate_all(
        &criteria,
        &Observation::from_state(
            &state,
            at("2026-01-20T12:00:00Z"),
            Some(at("2026-01-20T12:00:00Z")),
        ),
    );
    assert_eq!(
        outcome.explanation(),
        "Stopped (steps_limit) by StepsLimit: Step limit reached: 1/1."
    );
    let go_on = evaluate_all(
        &parse_criteria(&json!({"defaults": {}}), "").unwrap(),
        &Observation::from_state(
            &state,
            at("2026-01-20T12:00:00Z"),
            Some(at("2026-01-20T12:00:00Z")),
        ),
    );
    assert_eq!(go_on.explanation(), "Continues because ToolCallPresenceCheck requested it: Tool calls present, requesting continuation.");
}

#[test]
fn replay_answers_what_if_max_steps_were_5() {
    let cases = vectors("continuation.json");
    let case = cases
        .iter()
        .find(|c| c["name"] == "c.default-criteria 19th step with tool calls")
        .unwrap();
    let now = at("2026-01-20T12:00:00.25Z");
    let state = AgentState::from_value(&case["input"]["state"], &now).unwrap();
    assert_eq!(state.steps.len(), 19);
    let what_if = parse_criteria(&json!({"defaults": {"maxSteps": 5}}), "").unwrap();
    let r = replay(
        &state,
        &what_if,
        &ReplayOptions {
            now: Some(now),
            execution_started_at: Some(at("2026-01-20T11:59:00.25Z")),
        },
    );
    assert_eq!(r.steps.len(), 19);
    assert_eq!(r.stops_at_step(), Some(5));
    assert!(!r.steps[3].would_stop());
    assert_eq!(
        r.steps[4].outcome.resolved_by(),
        "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\StepsLimit"
    );
    // Usage is summed step by step, not taken from the final total.
    assert_eq!(
        r.steps[0].outcome.evaluations[1].context["currentUsage"],
        json!(state.steps[0].usage.total())
    );
    let same = replay(
        &state,
        &default_criteria(&Defaults::default()),
        &ReplayOptions {
            now: Some(now),
            execution_started_at: Some(at("2026-01-20T11:59:00.25Z")),
        },
    );
    assert_eq!(same.stops_at_step(), None);
}
