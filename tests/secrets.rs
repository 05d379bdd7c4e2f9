//! A v2 state stores the resolved `llmConfig`, API key included (item 27).
//! A recognisable key is seeded into v2 final states (the key, an
//! `Authorization` header in the config's options, a key in metadata) and
//! every output of every public function that reads a state or a snapshot is
//! searched for it: views, derived values, slim snapshots under every preset
//! and budget, restored states, guard checks and replays, validation reports,
//! diagnostics, error messages and `Debug` output. `validate` and `diagnose`
//! flag where a key is, with its path, never its value.

use stepline::json;
use stepline::json::Value;
use stepline::lint::{diagnose_value, SECRET_IN_STATE};
use stepline::model::continuation::v2::replay::ReplayClock;
use stepline::model::v2::derived::derived;
use stepline::model::v2::view::view;
use stepline::model::v2::Form;
use stepline::snapshot::v2::restore_v2;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::slim as slim_any;
use stepline::state_formats::validate_snapshot as validate;

mod common;
use common::{v2_final_states, with_ids, Corpus::V2_7};

const KEY: &str = "sk-test-SEEDED-4f1c9a7e2b6d8053abcdef";

/// A state with the key where a real app has it, and where one may put it.
fn seed(state: &Value) -> Value {
    let mut s = with_ids(state);
    let m = s.as_object_mut().unwrap();
    m.insert(
        "llmConfig",
        json!({"driver": "openai", "model": "gpt-4o-mini", "apiKey": KEY,
               "options": {"headers": {"Authorization": format!("Bearer {KEY}")}}}),
    );
    let ctx = m.get_mut("context").and_then(Value::as_object_mut).unwrap();
    ctx.insert("metadata", json!({"tenant": "t1", "apiKey": KEY}));
    s
}

/// Every v2 final state of the corpus, seeded.
fn seeded_states() -> Vec<(String, Value)> {
    v2_final_states()
        .into_iter()
        .map(|(name, state, _)| (name, seed(&state)))
        .collect()
}

fn assert_clean(what: &str, text: &str) {
    assert!(
        !text.contains("SEEDED"),
        "{what}: the seeded key is in the output"
    );
}

#[test]
fn no_output_of_any_state_or_snapshot_function_contains_a_seeded_key() {
    let guards = json!([{"kind": "steps_limit", "max": 1}, {"kind": "token_usage_limit", "max": 10},
                        {"kind": "execution_time_limit", "max": 0}, {"kind": "finish_reason", "stopReasons": ["stop"]}]);
    let states = seeded_states();
    assert_eq!(states.len(), 47);
    for (name, state) in &states {
        assert!(json::to_string(state).contains(KEY), "{name}: seeded");
        let Some(parsed) = stepline::state_formats::read(state, &V2_7.now(), true)
            .unwrap()
            .downcast_ref::<stepline::model::v2::AgentState>()
            .cloned()
        else {
            panic!("{name}: not v2");
        };
        assert_clean(
            &format!("{name}: view"),
            &json::to_string(&view(&parsed, &V2_7.now())),
        );
        assert_clean(
            &format!("{name}: derived"),
            &json::to_string(&derived(&parsed, &V2_7.now(), Form::Stored)),
        );
        // `Debug` (assertion failures, logs) hides the stored config's values;
        // metadata is the application's and prints as stored.
        let mut config_only = parsed.clone();
        config_only.context.metadata = Value::Array(Vec::new());
        assert_clean(&format!("{name}: Debug"), &format!("{config_only:?}"));
        for (preset, config) in [
            ("minimal", SlimConfig::minimal()),
            ("standard", SlimConfig::standard()),
            ("full", SlimConfig::full()),
        ] {
            let fitted = slim_any(state, &config, None, &V2_7.now()).unwrap();
            let text = json::to_string(&fitted.snapshot);
            assert_clean(&format!("{name} [{preset}]: snapshot"), &text);
            let tight = slim_any(state, &config, Some(fitted.bytes / 2 + 400), &V2_7.now());
            if let Ok(t) = tight {
                assert_clean(
                    &format!("{name} [{preset}]: budget"),
                    &json::to_string(&t.snapshot),
                );
            }
            let report = validate(&fitted.snapshot);
            assert!(report.valid(), "{name} [{preset}]: {:?}", report.errors);
            let restored = restore_v2(&fitted.snapshot, &V2_7.now()).unwrap();
            assert_clean(
                &format!("{name} [{preset}]: restored"),
                &json::to_string(&view(&restored, &V2_7.now())),
            );
        }
        let check =
            stepline::state_formats::evaluate_guards(state, &guards, None, V2_7.now(), None)
                .unwrap();
        assert_clean(&format!("{name}: guards"), &json::to_text(&check.view()));
        let replay = stepline::state_formats::replay_guards(
            state,
            &guards,
            ReplayClock::default(),
            V2_7.now(),
        )
        .unwrap();
        assert_clean(&format!("{name}: replay"), &json::to_text(&replay.view()));
        let found = diagnose_value(&json!({"state": state.clone()})).unwrap();
        let text = json::to_text(&found);
        assert_clean(&format!("{name}: diagnose"), &text);
        let paths: Vec<&str> = found
            .iter()
            .filter(|d| d.code == SECRET_IN_STATE)
            .map(|d| d.path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "/state/context/metadata/apiKey",
                "/state/llmConfig/apiKey",
                "/state/llmConfig/options/headers/Authorization"
            ],
            "{name}: every key found, none shown"
        );
    }
}

#[test]
fn errors_about_a_state_that_holds_a_key_never_quote_it() {
    let (_, state) = seeded_states().into_iter().next().unwrap();
    let mut broken = Vec::new();
    for (key, bad) in [
        ("executionCount", json!("many")),
        ("createdAt", json!("yesterday-ish")),
        ("execution", json!({"status": "paused"})),
        ("llmConfig", json!(KEY)),
    ] {
        let mut s = state.clone();
        s.as_object_mut().unwrap().insert(key, bad);
        broken.push(s);
    }
    let mut s = state.clone();
    s.as_object_mut().unwrap().insert("steps", json!([]));
    broken.push(s); // both formats' keys: unknown_state_version
    for s in &broken {
        let err = stepline::state_formats::read(s, &V2_7.now(), true).unwrap_err();
        assert_clean("parse error", &format!("{err} {err:?}"));
        let err = slim_any(s, &SlimConfig::full(), None, &V2_7.now()).unwrap_err();
        assert_clean("slim error", &format!("{err} {err:?}"));
    }
}

#[test]
fn validate_and_diagnose_flag_a_snapshot_carrying_a_key_with_its_path_only() {
    let snapshot = json!({
        "state_version": "v2", "agent_id": "a0000000-0000-4000-8000-000000000001", "status": "completed",
        "step_count": 0, "usage": {}, "messages": [{"role": "user", "content": format!("my key is {KEY}")}],
        "execution": {"started_at": "2026-08-10T12:00:00+00:00", "updated_at": "2026-08-10T12:00:00+00:00", "cumulative_seconds": 0},
        "metadata": {"llm": {"api_key": KEY}},
    });
    let report = validate(&snapshot);
    assert!(!report.valid());
    let flagged: Vec<(&str, &str)> = report
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.code))
        .collect();
    assert_eq!(
        flagged,
        [
            ("/messages/0/content", SECRET_IN_STATE),
            ("/metadata/llm/api_key", SECRET_IN_STATE)
        ]
    );
    assert_clean("validate", &json::to_text(&report.view()));
    let found = diagnose_value(&json!({"snapshot": snapshot})).unwrap();
    let secret: Vec<_> = found.iter().filter(|d| d.code == SECRET_IN_STATE).collect();
    assert_eq!(secret.len(), 2);
    assert!(secret.iter().all(|d| d.severity.as_str() == "error"));
    assert_eq!(secret[1].evidence["chars"], KEY.len());
    assert_clean("diagnose", &json::to_text(&found));
    // A redacted key is not a key.
    let clean = json!({"state_version": "v2", "agent_id": "a", "status": null, "step_count": 0, "usage": {}, "messages": [],
        "execution": {"started_at": "2026-08-10T12:00:00+00:00", "updated_at": "2026-08-10T12:00:00+00:00", "cumulative_seconds": 0},
        "metadata": {"apiKey": "[redacted]"}});
    assert!(validate(&clean).valid());
}
