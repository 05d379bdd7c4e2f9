//! Seed 004 (docs/seeds/004-remaining-prm-issues.md, "ExecutionTimeLimit uses
//! session start instead of execution start", P0): a stored multi-turn v1.22
//! state has no `executionStartedAt` once restored, and the producer then
//! measures the time limit from the session's start, stopping every later
//! execution at its first step. stepline measures from the latest
//! execution's first step by default, says which start it used, and keeps
//! the producer's rule under `compat`.

use stepline::json::Value;
use stepline::model::continuation::criteria::Criterion;
use stepline::model::continuation::observe::OriginSource;
use stepline::model::continuation::replay::ReplayOptions;
use stepline::state_formats::{evaluate_state, replay_state};

mod common;
use common::vectors;

/// The second turn's stored state of the two-turn run, restored a day later:
/// no `executionStartedAt`, the session started the day before.
fn restored_second_turn() -> Value {
    let run = vectors("agent-runs.json")
        .into_iter()
        .find(|r| r["name"].as_str().unwrap().starts_with("two turns"))
        .unwrap();
    let mut state = run["expected"][1]["finalState"].clone();
    let m = state.as_object_mut().unwrap();
    m.remove("executionStartedAt");
    let info = m.get_mut("stateInfo").unwrap().as_object_mut().unwrap();
    info.insert("startedAt", Value::from("2026-01-19T12:00:00+00:00"));
    state
}

const LIMIT: [Criterion; 1] = [Criterion::ExecutionTimeLimit { max_seconds: 300 }];

fn at(text: &str) -> stepline::model::time::Timestamp {
    chrono::DateTime::parse_from_rfc3339(text).unwrap()
}

#[test]
fn a_restored_state_measures_its_time_limit_from_its_latest_executions_first_step() {
    let state = restored_second_turn();
    let now = at("2026-01-20T12:00:30+00:00");
    let (outcome, origin) = evaluate_state(&state, &LIMIT, now, None, false).unwrap();
    assert!(
        outcome.should_continue,
        "30 s into the execution: {}",
        outcome.explanation()
    );
    assert_eq!(origin.from, OriginSource::FirstStep);
    assert_eq!(origin.view().at, "2026-01-20T12:00:00+00:00");
}

#[test]
fn compat_measures_from_the_session_start_as_the_producer_does() {
    let state = restored_second_turn();
    let now = at("2026-01-20T12:00:30+00:00");
    let (outcome, origin) = evaluate_state(&state, &LIMIT, now, None, true).unwrap();
    assert!(!outcome.should_continue);
    assert_eq!(outcome.stop_reason(), "time_limit");
    assert_eq!(origin.from, OriginSource::SessionStart);
}

#[test]
fn a_given_or_stored_execution_start_still_wins() {
    let state = restored_second_turn();
    let now = at("2026-01-20T12:10:00+00:00");
    let given = at("2026-01-20T12:09:00+00:00");
    let (outcome, origin) = evaluate_state(&state, &LIMIT, now, Some(given), false).unwrap();
    assert!(outcome.should_continue);
    assert_eq!(origin.from, OriginSource::Option);
    let mut stored = state.clone();
    stored.as_object_mut().unwrap().insert(
        "executionStartedAt",
        Value::from("2026-01-20T12:00:00+00:00"),
    );
    let (outcome, origin) = evaluate_state(&stored, &LIMIT, now, None, true).unwrap();
    assert!(
        !outcome.should_continue,
        "10 minutes after the stored start"
    );
    assert_eq!(origin.from, OriginSource::ExecutionStartedAt);
}

#[test]
fn a_replay_of_a_restored_state_does_not_stop_at_its_first_step() {
    let state = restored_second_turn();
    let now = at("2026-01-20T12:00:30+00:00");
    let replay = replay_state(&state, &LIMIT, ReplayOptions::default(), now, false).unwrap();
    assert_eq!(replay.stops_at_step(), None);
    assert_eq!(replay.time_origin.unwrap().from, OriginSource::FirstStep);
    let compat = replay_state(&state, &LIMIT, ReplayOptions::default(), now, true).unwrap();
    assert_eq!(
        compat.stops_at_step(),
        Some(1),
        "the producer's rule stops at step 1"
    );
}

/// Seed 004's P0 is v1.22's: the v2 producer's `ExecutionTimeLimitHook`
/// measures from the execution's own `startedAt` (v2.7 quirk 31, `>=`), so a
/// stored multi-turn v2 state whose session began a day earlier is not
/// stopped, and stepline keeps that rule (`evaluateGuards`); the v1.22
/// criteria refuse a v2 state rather than measure it another way.
#[test]
fn a_v2_state_keeps_its_producers_guard_rule_measuring_from_its_executions_start() {
    use stepline::model::continuation::v2::signal::StopReason;
    use stepline::state_formats::evaluate_guards;
    let (name, mut state) = common::v2_final_states()
        .into_iter()
        .find(|(_, s, _)| s["execution"].is_object())
        .map(|(n, s, _)| (n, s))
        .unwrap();
    let m = state.as_object_mut().unwrap();
    m.insert("createdAt", Value::from("2026-08-09T12:00:00+00:00"));
    let exec = m.get_mut("execution").unwrap().as_object_mut().unwrap();
    exec.insert("startedAt", Value::from("2026-08-10T12:00:00+00:00"));
    let guards = stepline::json!([{"kind": "execution_time_limit", "max": 300}]);
    let check = |now: &str| evaluate_guards(&state, &guards, None, at(now), None).unwrap();
    let early = check("2026-08-10T12:00:30+00:00");
    assert!(early.added.is_empty(), "{name}: 30 s into the execution");
    let at_limit = check("2026-08-10T12:05:00+00:00");
    assert_eq!(
        at_limit.added.iter().map(|s| s.reason).collect::<Vec<_>>(),
        [StopReason::TimeLimit],
        "{name}: 300 s >= 300 s"
    );
    let err =
        evaluate_state(&state, &LIMIT, at("2026-08-10T12:00:30+00:00"), None, false).unwrap_err();
    assert_eq!(err.code, stepline::ErrorCode::InvalidValue);
}
