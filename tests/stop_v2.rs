//! v2's stop logic as data (what `stopReasons`, `resolveStopSignals`,
//! `explainContinuation`, `evaluateGuards` and `replayGuards` return): the
//! continuation corpus's `a.`/`b.`/`c.`/`e.` cases, and the what-if replay of
//! every guarded agent run, which under the run's own guards stops exactly
//! where the producer stopped.

use stepline::json;
use stepline::json::Value;
use stepline::model::continuation::v2::data;
use stepline::model::continuation::v2::replay::ReplayClock;

mod common;
use common::{guard_spec, vectors_of, with_ids, Corpus::V2_7};

#[test]
fn the_stop_reason_table_has_the_producers_ten_reasons_priorities_and_force_flags() {
    let table = json::to_value_of(&data::stop_reasons());
    let table = table.as_array().unwrap();
    assert_eq!(table.len(), 10);
    let mut checked = 0;
    for c in vectors_of(V2_7, "continuation.json") {
        let name = c["name"].as_str().unwrap();
        if !name.starts_with("a. StopReason ") || c["expected"].get("throws").is_some() {
            continue;
        }
        let row = table
            .iter()
            .find(|r| r["reason"] == c["input"]["reason"])
            .unwrap_or_else(|| panic!("{name}: not in the table"));
        assert_eq!(row["priority"], c["expected"]["priority"], "{name}");
        assert_eq!(row["caseName"], c["expected"]["name"], "{name}");
        assert_eq!(row["forceStop"], c["expected"]["wasForceStopped"], "{name}");
        checked += 1;
    }
    assert_eq!(
        checked, 8,
        "the corpus pins eight of the ten reasons one by one"
    );
    let priorities: Vec<i64> = table
        .iter()
        .map(|r| r["priority"].as_i64().unwrap())
        .collect();
    assert_eq!(
        priorities,
        (0..10).collect::<Vec<_>>(),
        "highest priority first"
    );
}

#[test]
fn signals_resolve_and_continuations_explain_as_the_corpus_says() {
    let (mut b, mut c) = (0, 0);
    for case in vectors_of(V2_7, "continuation.json") {
        let name = case["name"].as_str().unwrap();
        let expected = &case["expected"];
        if name.starts_with("b.") {
            let got = data::resolve_signals(&case["input"]["signals"], "/signals");
            match expected.get("throws") {
                Some(_) => assert!(got.is_err(), "{name}"),
                None => assert_eq!(
                    json::to_value_of(&got.unwrap())["stopSignal"],
                    expected["highest"],
                    "{name}"
                ),
            }
            b += 1;
        } else if name.starts_with("c.") {
            let got = data::explain_continuation(&case["input"]["continuation"], "/c");
            match expected.get("throws") {
                Some(_) => assert!(got.is_err(), "{name}"),
                None => {
                    let got = json::to_value_of(&got.unwrap());
                    for key in [
                        "shouldStop",
                        "stopSignal",
                        "isContinuationRequested",
                        "explain",
                    ] {
                        assert_eq!(got[key], expected[key], "{name}: {key}");
                    }
                }
            }
            c += 1;
        }
    }
    assert_eq!((b, c), (86, 20));
}

#[test]
fn guards_evaluated_on_a_state_add_the_producers_signals_below_at_and_above_their_limits() {
    let mut checked = 0;
    for case in vectors_of(V2_7, "continuation.json") {
        let name = case["name"].as_str().unwrap();
        if !name.starts_with("e.") {
            continue;
        }
        let input = &case["input"];
        let hook = input["hook"].as_str().unwrap();
        let spec =
            guard_spec(hook, &input["params"]).unwrap_or_else(|| panic!("unknown hook {hook}"));
        let guards = Value::Array(vec![spec]);
        let trigger = data::trigger(Some(&input["trigger"]), "/trigger").unwrap();
        // Under the harness's frozen clock the time hook's start is `now`.
        let got = stepline::state_formats::evaluate_guards(
            &input["state"],
            &guards,
            trigger,
            V2_7.now(),
            Some(V2_7.now()),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = json::to_value_of(&got.view());
        for key in ["addedSignals", "shouldStop", "stopReason"] {
            assert_eq!(got[key], case["expected"][key], "{name}: {key}");
        }
        checked += 1;
    }
    assert_eq!(checked, 24);
}

/// A run's `guards` input (`UseGuards` parameters) as guard specs.
fn run_guards(g: &Value) -> Value {
    let mut out = Vec::new();
    if let Some(n) = g.get("maxSteps").filter(|v| !v.is_null()) {
        out.push(json!({"kind": "steps_limit", "max": n.clone()}));
    }
    if let Some(n) = g.get("maxTokens").filter(|v| !v.is_null()) {
        out.push(json!({"kind": "token_usage_limit", "max": n.clone()}));
    }
    if let Some(n) = g.get("maxExecutionTime").filter(|v| !v.is_null()) {
        out.push(json!({"kind": "execution_time_limit", "max": n.clone()}));
    }
    if let Some(r) = g.get("finishReasons").filter(|v| !v.is_null()) {
        out.push(json!({"kind": "finish_reason", "stopReasons": r.clone()}));
    }
    Value::Array(out)
}

const GUARD_REASONS: [&str; 4] = ["steps_limit", "token_limit", "time_limit", "finish_reason"];

#[test]
fn replaying_a_guarded_run_under_its_own_guards_stops_exactly_where_the_producer_stopped() {
    let mut checked = 0;
    for case in vectors_of(V2_7, "agent-runs.json") {
        let name = case["name"].as_str().unwrap();
        let Some(g) = case["input"].get("guards").filter(|g| g.is_object()) else {
            continue;
        };
        let turn = &case["expected"][0];
        let derived = &turn["derived"];
        if !GUARD_REASONS.contains(&derived["stopReason"].as_str().unwrap_or("")) {
            continue; // stopped by a cancel or a failure, not by a guard
        }
        let state = with_ids(&turn["finalState"]);
        let r = stepline::state_formats::replay_guards(
            &state,
            &run_guards(g),
            ReplayClock::default(),
            V2_7.now(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = json::to_value_of(&r.view());
        assert_eq!(r["stopSignal"], derived["stopSignal"], "{name}: signal");
        assert_eq!(r["stepsRun"], derived["stepCount"], "{name}: steps run");
        assert_eq!(r["recordedStopSignal"], derived["stopSignal"], "{name}");
        assert_eq!(r["runsPastRecord"], false, "{name}");
        let n = derived["stepCount"].as_i64().unwrap();
        if derived["stopReason"] == "finish_reason" {
            assert_eq!(r["stopsAfterStep"], n, "{name}: after the step");
        } else {
            // Before-step guards: the step after the last recorded one never ran.
            assert_eq!(r["stopsBeforeStep"], n + 1, "{name}: before the next step");
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
}

#[test]
fn a_what_if_under_other_limits_marks_where_the_run_would_have_stopped() {
    let runs = vectors_of(V2_7, "agent-runs.json");
    let run = runs
        .iter()
        .find(|c| {
            c["name"]
                .as_str()
                .unwrap()
                .starts_with("steps limit 2 reached (model always calls tools) [debug]")
        })
        .unwrap();
    let state = with_ids(&run["expected"][0]["finalState"]);
    let tighter = stepline::state_formats::replay_guards(
        &state,
        &json!([{"kind": "steps_limit", "max": 1}]),
        ReplayClock::default(),
        V2_7.now(),
    )
    .unwrap();
    let tighter = json::to_value_of(&tighter.view());
    assert_eq!(tighter["stepsRun"], 1);
    assert_eq!(tighter["stopsBeforeStep"], 2);
    assert_eq!(tighter["stopSignal"]["message"], "Step limit reached: 1/1");
    assert_eq!(tighter["steps"][1]["wouldStop"], true);
    assert_eq!(
        tighter["steps"][1]["recorded"], true,
        "step 2 ran in the record"
    );
    let looser = stepline::state_formats::replay_guards(
        &state,
        &json!([{"kind": "steps_limit", "max": 5}]),
        ReplayClock::default(),
        V2_7.now(),
    )
    .unwrap();
    let looser = json::to_value_of(&looser.view());
    assert_eq!(looser["stepsRun"], 2);
    assert_eq!(looser["stopSignal"], Value::Null);
    assert_eq!(
        looser["runsPastRecord"], true,
        "the model kept calling tools"
    );
    let tokens = stepline::state_formats::replay_guards(
        &state,
        &json!([{"kind": "token_usage_limit", "max": 15}]),
        ReplayClock::default(),
        V2_7.now(),
    )
    .unwrap();
    let tokens = json::to_value_of(&tokens.view());
    assert_eq!(
        tokens["stopsBeforeStep"], 2,
        "15 tokens after the first step"
    );
    assert_eq!(tokens["stopSignal"]["reason"], "token_limit");
    let finish = stepline::state_formats::replay_guards(
        &state,
        &json!([{"kind": "finish_reason", "stopReasons": ["tool_calls"]}]),
        ReplayClock::default(),
        V2_7.now(),
    )
    .unwrap();
    let finish = json::to_value_of(&finish.view());
    assert_eq!(finish["stopsAfterStep"], 1);
}

#[test]
fn stop_logic_refuses_the_other_versions_state_instead_of_reading_it_empty() {
    let v1_state = json!({"agentId": "agent-1", "steps": [], "status": "in_progress"});
    let err =
        stepline::state_formats::evaluate_guards(&v1_state, &json!([]), None, V2_7.now(), None)
            .unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.path.as_deref()),
        ("invalid_value", Some(""))
    );
    let v2_state = json!({"agentId": "a0000000-0000-4000-8000-000000000001", "execution": null, "executionCount": 0});
    let err = stepline::state_formats::evaluate_state(&v2_state, &[], V2_7.now(), None, false)
        .unwrap_err();
    assert_eq!(err.code.as_str(), "invalid_value");
    assert!(err.message.contains("evaluateGuards"));
    let bad = stepline::state_formats::evaluate_guards(
        &v2_state,
        &json!([{"kind": "guard"}]),
        None,
        V2_7.now(),
        None,
    )
    .unwrap_err();
    assert_eq!(bad.path.as_deref(), Some("/guards/0/kind"));
}
