//! Reconciling instructor-php v2.7 runs: every turn of every agent run in
//! tests/vectors/instructor-php-v2.7/agent-runs.json, streamed envelope by
//! envelope into one session, against its final state slimmed with each
//! preset. Every difference must carry a cause from the one list
//! (`stepline::session::causes::CAUSES`), and each cause is pinned to the
//! run that shows it, and refused where the situation it names is absent.

mod common;

use common::{vectors_of, with_ids, Corpus};
use stepline::json::Value;
use stepline::model::v2::AgentState;
use stepline::session::causes::{
    cause, ABORTED_STEP, CAUSES, GUARD_STARTED_STEP, STEP_ERRORS_FAIL_STATE, UNFORCED_STOP,
};
use stepline::session::reconcile::Report;
use stepline::session::Session;
use stepline::snapshot::v2::slim_v2;
use stepline::snapshot::SlimConfig;

fn runs() -> Vec<Value> {
    vectors_of(Corpus::V2_7, "agent-runs.json")
}

fn run(name: &str) -> Value {
    runs()
        .into_iter()
        .find(|c| c["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no run {name}"))
}

fn now() -> stepline::model::Timestamp {
    Corpus::V2_7.now()
}

/// Turn `t`'s envelopes as a live session receives them. The corpus ran
/// under a frozen clock, so consecutive turns repeat the same envelopes at
/// the same instant, which a receiver must take for redeliveries; a real
/// clock moves on between turns, so turn `t` is stamped `t` minutes later.
fn turn_envelopes(turn: &Value, t: usize) -> Vec<Value> {
    turn["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut env = e["envelope"].clone();
            let at = chrono::DateTime::parse_from_rfc3339(env["timestamp"].as_str().unwrap())
                .unwrap()
                + chrono::Duration::minutes(t as i64);
            *env.pointer_entry("/timestamp").unwrap() =
                Value::from(stepline::model::time::format_utc_millis(&at));
            env
        })
        .collect()
}

fn presets() -> [(&'static str, SlimConfig); 3] {
    [
        ("minimal", SlimConfig::minimal()),
        ("standard", SlimConfig::standard()),
        ("full", SlimConfig::full()),
    ]
}

fn slim(state: &Value, config: &SlimConfig) -> Value {
    slim_v2(
        &AgentState::from_value(&with_ids(state), &now()).unwrap(),
        config,
    )
}

/// `(turn, preset, report)` for every turn of `case` and every preset.
fn reconcile_all(case: &Value) -> Vec<(usize, &'static str, Report)> {
    let name = case["name"].as_str().unwrap();
    let mut s = Session::new(None);
    let mut out = Vec::new();
    for (t, turn) in case["expected"].as_array().unwrap().iter().enumerate() {
        for env in turn_envelopes(turn, t) {
            let o = s.ingest_value(&env).unwrap();
            assert!(o.applied, "{name} turn {t}: {env}");
            assert!(o.warnings.is_empty(), "{name} turn {t}: {:?}", o.warnings);
        }
        for (p, config) in presets() {
            out.push((t, p, s.reconcile(&slim(&turn["finalState"], &config))));
        }
    }
    out
}

/// The differences as `kind path cause`.
fn described(r: &Report) -> Vec<String> {
    r.differences
        .iter()
        .map(|d| format!("{} {} {}", d.kind, d.path, d.cause.unwrap_or("-")))
        .collect()
}

fn unexplained(r: &Report) -> Vec<String> {
    r.differences
        .iter()
        .filter(|d| d.cause.is_none())
        .map(|d| format!("{} {}: {}", d.kind, d.path, d.message))
        .collect()
}

#[test]
fn every_v2_turn_reconciles_with_every_preset_and_every_difference_named() {
    let mut checked = 0;
    for case in runs() {
        let name = case["name"].as_str().unwrap().to_string();
        for (t, p, r) in reconcile_all(&case) {
            assert_eq!(
                unexplained(&r),
                Vec::<String>::new(),
                "{name} turn {t} [{p}]"
            );
            for d in &r.differences {
                assert!(cause(d.cause.unwrap()).is_some(), "{name}: {:?}", d.cause);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 47 * 3, "42 runs, 47 turns, 3 presets");
}

#[test]
fn a_plain_run_tool_run_and_the_observer_path_are_consistent() {
    for name in [
        "plain final answer [standard]",
        "tool call then answer [debug]",
        "parallel tool calls, two tools [standard]",
        "UseAgentBroadcasting capability (observer) tool call then answer [debug]",
        "real driver: non-streaming tool call then answer [debug]",
        "multi-turn: three turns with tool calls and streaming [debug]",
    ] {
        for (t, p, r) in reconcile_all(&run(name)) {
            assert!(r.consistent(), "{name} turn {t} [{p}]: {:?}", described(&r));
        }
    }
}

/// The causes `name` shows with every preset, as `kind cause` (deduplicated).
fn causes_of(name: &str) -> Vec<String> {
    let mut out: Vec<String> = reconcile_all(&run(name))
        .iter()
        .flat_map(|(_, _, r)| {
            r.differences
                .iter()
                .map(|d| format!("{} {}", d.kind, d.cause.unwrap_or("-")))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_failing_tool_leaves_a_failed_state_after_a_completed_broadcast() {
    for name in [
        "failing tool (throws) then answer [debug]",
        "unknown tool requested [debug]",
        "FakeAgentDriver: error step [standard]",
    ] {
        assert_eq!(
            causes_of(name),
            [format!("status_mismatch {STEP_ERRORS_FAIL_STATE}")],
            "{name}"
        );
    }
}

#[test]
fn a_guard_stop_leaves_a_started_step_that_never_ran() {
    for (name, step) in [
        (
            "steps limit 2 reached (model always calls tools) [standard]",
            3,
        ),
        ("token limit 200 reached after first step [debug]", 2),
        (
            "execution time limit 0s stops before the first step [debug]",
            1,
        ),
        (
            "user cancel via cooperative cancellation (tool requests cancel) [debug]",
            2,
        ),
    ] {
        assert_eq!(
            causes_of(name),
            [format!("extra_step {GUARD_STARTED_STEP}")],
            "{name}"
        );
        let (_, _, r) = &reconcile_all(&run(name))[2];
        assert_eq!(r.differences[0].step, Some(step), "{name}");
    }
}

#[test]
fn an_aborted_step_is_streamed_as_an_attempt_the_state_does_not_record() {
    for (name, step, kinds) in [
        (
            "driver exception on first inference [debug]",
            1,
            &["extra_step"][..],
        ),
        (
            "driver exception after a tool step [minimal]",
            2,
            &["extra_step"],
        ),
        (
            "real driver: HTTP 500 from the provider [debug]",
            1,
            &["extra_step"],
        ),
        // The tool that threw it never completes (item 21).
        (
            "tool throws AgentStopException (stop requested) [debug]",
            1,
            &["extra_step", "lost_event"],
        ),
    ] {
        let expected: Vec<String> = kinds
            .iter()
            .map(|k| format!("{k} {ABORTED_STEP}"))
            .collect();
        assert_eq!(causes_of(name), expected, "{name}");
        for (t, p, r) in reconcile_all(&run(name)) {
            assert!(
                r.differences.iter().all(|d| d.step == Some(step)),
                "{name} turn {t} [{p}]: {:?}",
                described(&r)
            );
        }
    }
}

#[test]
fn an_unforced_stop_broadcast_as_stopped_is_named_only_without_a_continuation() {
    assert_eq!(
        causes_of("autoStatusTracking disabled, tool call then answer [custom]"),
        [format!("status_mismatch {UNFORCED_STOP}")]
    );
    // The debug preset's continuation says the finish-reason guard stopped
    // it: the broadcast's stopped then leads to the completed state.
    assert_eq!(
        causes_of("finish-reason guard stops on tool_calls [debug]"),
        Vec::<String>::new()
    );
}

#[test]
fn streamed_step_durations_may_be_shorter_than_the_states_but_not_longer() {
    let case = run("tool call then answer [debug]");
    let turn = &case["expected"][0];
    let mut state = turn["finalState"].clone();
    // Each step took 4 s; the frozen clock made every date the same instant.
    for (i, se) in state
        .pointer_mut("/execution/stepExecutions")
        .and_then(Value::as_array_mut)
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        *se.pointer_entry("/startedAt").unwrap() =
            Value::from(format!("2026-08-10T12:00:{:02}+00:00", i * 4));
        *se.pointer_entry("/completedAt").unwrap() =
            Value::from(format!("2026-08-10T12:00:{:02}+00:00", i * 4 + 4));
    }
    let mut s = Session::new(None);
    let envelopes = turn_envelopes(turn, 0);
    for env in &envelopes {
        s.ingest_value(env).unwrap();
    }
    // duration_ms covers only the after-step hooks (item 12): no difference.
    let r = s.reconcile(&slim(&state, &SlimConfig::standard()));
    assert!(r.consistent(), "{:?}", described(&r));
    // Streamed durations longer than the state's steps took are one.
    let mut s = Session::new(None);
    for env in &envelopes {
        let mut env = env.clone();
        if env["type"] == "agent.step.completed" {
            *env.pointer_entry("/payload/duration_ms").unwrap() = Value::from(9000.0);
        }
        s.ingest_value(&env).unwrap();
    }
    let r = s.reconcile(&slim(&turn["finalState"], &SlimConfig::standard()));
    assert_eq!(
        described(&r),
        ["field_mismatch /execution/cumulative_seconds -"]
    );
}

#[test]
fn a_cause_is_not_given_where_the_stream_does_not_show_its_situation() {
    // The failing tool's stream with its failure taken out: nothing in the
    // stream explains the failed state any more.
    let case = run("failing tool (throws) then answer [debug]");
    let turn = &case["expected"][0];
    let mut s = Session::new(None);
    for mut env in turn_envelopes(turn, 0) {
        if env["type"] == "agent.tool.completed" {
            *env.pointer_entry("/payload/success").unwrap() = Value::Bool(true);
            *env.pointer_entry("/payload/error").unwrap() = Value::Null;
        }
        if env["type"] == "agent.step.completed" {
            *env.pointer_entry("/payload/errors").unwrap() = Value::from(0);
        }
        s.ingest_value(&env).unwrap();
    }
    let r = s.reconcile(&slim(&turn["finalState"], &SlimConfig::standard()));
    let found = described(&r);
    assert!(
        found.contains(&"status_mismatch /status -".to_string()),
        "{found:?}"
    );
    assert!(r.differences.iter().all(|d| d.cause.is_none()), "{found:?}");

    // A driver exception's attempt whose completion was lost: a failed
    // run's started step is neither an aborted attempt nor a guard's.
    let case = run("driver exception on first inference [debug]");
    let turn = &case["expected"][0];
    let mut s = Session::new(None);
    for env in turn_envelopes(turn, 0) {
        if env["type"] != "agent.step.completed" {
            s.ingest_value(&env).unwrap();
        }
    }
    let r = s.reconcile(&slim(&turn["finalState"], &SlimConfig::standard()));
    assert!(
        described(&r).contains(&"extra_step /stream/steps/1 -".to_string()),
        "{:?}",
        described(&r)
    );

    // A guard stop's started step while the run has not ended (its final
    // statuses lost): not the step a guard stopped.
    let case = run("steps limit 2 reached (model always calls tools) [standard]");
    let turn = &case["expected"][0];
    let envelopes = turn_envelopes(turn, 0);
    let last_start = envelopes
        .iter()
        .rposition(|e| e["type"] == "agent.step.started")
        .unwrap();
    let mut s = Session::new(None);
    for env in &envelopes[..=last_start] {
        s.ingest_value(env).unwrap();
    }
    let r = s.reconcile(&slim(&turn["finalState"], &SlimConfig::standard()));
    assert!(
        described(&r).contains(&"extra_step /stream/steps/3 -".to_string()),
        "{:?}",
        described(&r)
    );
}

#[test]
fn every_listed_cause_is_shown_by_a_run_here() {
    // The v1.22 cause is pinned by tests/session.rs; each v2 one above.
    let pinned = [
        "reference_exception_path",
        STEP_ERRORS_FAIL_STATE,
        UNFORCED_STOP,
        ABORTED_STEP,
        GUARD_STARTED_STEP,
    ];
    let mut listed: Vec<&str> = CAUSES.iter().map(|c| c.name).collect();
    listed.sort_unstable();
    let mut pinned = pinned.to_vec();
    pinned.sort_unstable();
    assert_eq!(listed, pinned);
}

#[test]
fn every_difference_names_its_execution_and_a_step_difference_its_run_step() {
    let mut seen = 0;
    for case in runs() {
        let name = case["name"].as_str().unwrap();
        let ids: Vec<String> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(t, turn)| {
                turn_envelopes(turn, t)[0]["execution_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        for (t, p, r) in reconcile_all(&case) {
            for d in &r.differences {
                seen += 1;
                assert_eq!(
                    d.execution_id.as_deref(),
                    Some(ids[t].as_str()),
                    "{name} turn {t} {p}: {}",
                    d.message
                );
                if d.path.starts_with("/steps/") {
                    assert!(
                        d.step.is_some(),
                        "{name} turn {t} {p}: {} has no step",
                        d.path
                    );
                }
                assert_eq!(d.to_value()["execution_id"], ids[t].as_str());
            }
        }
    }
    assert!(seen > 0, "the corpus shows differences");
}
