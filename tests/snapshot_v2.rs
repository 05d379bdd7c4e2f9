//! Slim snapshots of v2.7 states: every v2 final state of the corpus (each
//! agent-runs turn and every state-model `run-final` case), under every
//! preset and a byte budget, gives a snapshot carrying the state's own
//! derived status, step count, usage and stop signal, valid for the one
//! snapshot schema, with no API key and no raw HTTP response; a v2 snapshot
//! restores a v2 state between executions.

use stepline::json::Value;
use stepline::model::v2::derived::derived;
use stepline::model::v2::{AgentState, Form};
use stepline::model::Usage;
use stepline::snapshot::v2::{restore_v2, slim_v2};
use stepline::snapshot::SlimConfig;
use stepline::state_formats::slim as slim_any;
use stepline::state_formats::validate_snapshot as validate;

mod common;
use common::{v2_final_states, vectors_of, with_ids, Corpus::V2_7};

/// `(name, final state, derived values)` of every v2 final state in the corpus.
fn final_states() -> Vec<(String, Value, Value)> {
    let mut out = v2_final_states();
    for case in vectors_of(V2_7, "state-model.json") {
        let name = case["name"].as_str().unwrap();
        if name.starts_with("run-final") {
            let state = with_ids(&case["input"]["state"]);
            // v2 itself cannot restore a state with a failed tool execution
            // (item 25: `expected.throws`); its derived values are stepline's.
            let derived = match case["expected"].get("derived") {
                Some(d) => d.clone(),
                None => {
                    let parsed = AgentState::from_value(&state, &V2_7.now()).unwrap();
                    derived(&parsed, &V2_7.now(), Form::Reference)
                }
            };
            out.push((name.to_string(), state, derived));
        }
    }
    out
}

fn presets() -> [(&'static str, SlimConfig); 3] {
    [
        ("minimal", SlimConfig::minimal()),
        ("standard", SlimConfig::standard()),
        ("full", SlimConfig::full()),
    ]
}

/// Every string a real driver's `responseData` holds: the raw body and each
/// header name and value.
fn response_data_strings(state: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let steps = state["execution"]["stepExecutions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for s in steps {
        let data = &s["step"]["inferenceResponse"]["responseData"];
        if let Some(body) = data["body"].as_str().filter(|b| !b.is_empty()) {
            out.push(body.to_string());
        }
        if let Some(headers) = data["headers"].as_object() {
            for (k, v) in headers.iter() {
                out.push(format!("\"{k}\""));
                if let Some(v) = v.as_str() {
                    out.push(format!("\"{v}\""));
                }
            }
        }
    }
    out
}

#[test]
fn every_v2_final_state_slims_with_its_own_status_steps_usage_and_stop_signal_under_every_preset() {
    let all = final_states();
    assert_eq!(
        all.len(),
        47 + 20,
        "agent-runs turns + state-model run-final cases"
    );
    for (name, state, derived) in &all {
        for (preset, config) in presets() {
            let at = format!("{name} [{preset}]");
            let fitted =
                slim_any(state, &config, None, &V2_7.now()).unwrap_or_else(|e| panic!("{at}: {e}"));
            let s = &fitted.snapshot;
            assert_eq!(s["state_version"], "v2", "{at}");
            assert_eq!(s["status"], derived["status"], "{at}: status");
            assert_eq!(s["step_count"], derived["stepCount"], "{at}: step_count");
            assert_eq!(
                Usage::from_value(&s["usage"], "").unwrap(),
                Usage::from_value(&derived["usage"], "").unwrap(),
                "{at}: usage"
            );
            assert_eq!(s["stop_signal"], derived["stopSignal"], "{at}: stop_signal");
            let kept = (derived["messageCount"].as_i64().unwrap()).min(config.max_messages);
            assert_eq!(
                s["messages"].as_array().unwrap().len() as i64,
                kept,
                "{at}: messages"
            );
            let recorded = derived["steps"].as_array().unwrap();
            let window = if config.include_steps {
                (recorded.len() as i64).min(config.max_steps) as usize
            } else {
                0
            };
            let steps = s["steps"].as_array().unwrap();
            assert_eq!(steps.len(), window, "{at}: steps window");
            for (i, step) in steps.iter().enumerate() {
                let summary = &recorded[recorded.len() - window + i];
                assert_eq!(step["type"], summary["stepType"], "{at}: step {i} type");
                assert_eq!(
                    step["finish_reason"], summary["finishReason"],
                    "{at}: step {i}"
                );
                assert_eq!(step["errors"], summary["errors"], "{at}: step {i} errors");
                assert_eq!(
                    step["stop_signal"], summary["stopSignal"],
                    "{at}: step {i} signal"
                );
            }
            if config.include_continuation_trace {
                assert_eq!(
                    s["continuation"]["explain"], derived["explain"],
                    "{at}: explain"
                );
                assert_eq!(
                    s["continuation"]["should_stop"], derived["shouldStop"],
                    "{at}"
                );
            } else {
                assert_eq!(
                    s["continuation"],
                    Value::Null,
                    "{at}: trace only when asked"
                );
            }
            let report = validate(s);
            assert!(report.errors.is_empty(), "{at}: {:?}", report.errors);
            assert!(report.warnings.is_empty(), "{at}: {:?}", report.warnings);
            assert_eq!(
                fitted.bytes,
                stepline::json::to_string(s).len(),
                "{at}: bytes"
            );
        }
    }
}

#[test]
fn v2_snapshots_never_carry_the_llm_config_key_or_a_real_drivers_raw_http_response() {
    let mut real = 0;
    for (name, state, _) in final_states() {
        let key = state["llmConfig"]["apiKey"]
            .as_str()
            .filter(|k| !k.is_empty())
            .map(String::from);
        let raw = response_data_strings(&state);
        if !raw.is_empty() {
            real += 1;
        }
        for (preset, config) in presets() {
            let text = stepline::json::to_string(
                &slim_any(&state, &config, None, &V2_7.now())
                    .unwrap()
                    .snapshot,
            );
            if let Some(k) = &key {
                assert!(
                    !text.contains(k.as_str()),
                    "{name} [{preset}]: API key in the snapshot"
                );
            }
            assert!(
                !text.contains("llmConfig") && !text.contains("responseData"),
                "{name} [{preset}]"
            );
            for r in &raw {
                assert!(
                    !text.contains(r.as_str()),
                    "{name} [{preset}]: raw HTTP {r} kept"
                );
            }
        }
    }
    // The real-driver runs (with bodies or headers) are among the states checked.
    assert!(
        real >= 8,
        "only {real} states with a real driver's responseData"
    );
}

#[test]
fn a_byte_budget_tightens_v2_snapshots_and_says_what_it_dropped() {
    let runs = vectors_of(V2_7, "agent-runs.json");
    let case = runs
        .iter()
        .find(|c| {
            c["name"]
                .as_str()
                .unwrap()
                .starts_with("multi-turn: three turns")
        })
        .unwrap();
    let state = &with_ids(&case["expected"][2]["finalState"]);
    let whole = slim_any(state, &SlimConfig::full(), None, &V2_7.now()).unwrap();
    let budget = whole.bytes / 2;
    let fitted = slim_any(state, &SlimConfig::full(), Some(budget), &V2_7.now()).unwrap();
    assert!(fitted.bytes <= budget, "{} > {budget}", fitted.bytes);
    let t = fitted.truncation.expect("a truncation report");
    assert!(t.messages_dropped > 0 || t.content_limit < 5000);
    assert!(validate(&fitted.snapshot).valid());
    // Still the same run: status, usage and signal survive any budget.
    for key in ["status", "step_count", "usage", "stop_signal"] {
        assert_eq!(fitted.snapshot[key], whole.snapshot[key], "{key}");
    }
    let err = slim_any(state, &SlimConfig::full(), Some(10), &V2_7.now()).unwrap_err();
    assert_eq!(err.code.as_str(), "too_large");
}

#[test]
fn a_v2_snapshot_restores_the_conversation_between_executions() {
    for (name, state, expected) in final_states() {
        let parsed = AgentState::from_value(&state, &V2_7.now()).unwrap();
        let snapshot = slim_v2(&parsed, &SlimConfig::full());
        let restored = restore_v2(&snapshot, &V2_7.now()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(restored.agent_id, parsed.agent_id, "{name}");
        assert_eq!(restored.execution, None, "{name}: between executions");
        assert_eq!(restored.llm_config, None, "{name}: no key to restore");
        assert_eq!(restored.execution_count, parsed.execution_count, "{name}");
        assert_eq!(
            restored.context.system_prompt, parsed.context.system_prompt,
            "{name}"
        );
        let ours: Vec<(&str, &str)> = restored
            .context
            .messages()
            .iter()
            .map(|m| (m.id.as_str(), m.role.as_str()))
            .collect();
        let theirs: Vec<(&str, &str)> = parsed
            .context
            .messages()
            .iter()
            .rev()
            .take(100)
            .rev()
            .map(|m| (m.id.as_str(), m.role.as_str()))
            .collect();
        assert_eq!(ours, theirs, "{name}: messages");
        assert_eq!(
            restored.context.messages().len() as i64,
            expected["messageCount"].as_i64().unwrap().min(100)
        );
        // Restored, slimmed again: the conversation is the same.
        let again = slim_v2(&restored, &SlimConfig::full());
        assert_eq!(again["messages"], snapshot["messages"], "{name}");
    }
}

#[test]
fn restoring_a_v2_snapshot_refuses_bad_ids_with_their_path() {
    let bad = stepline::json::from_str(
        r#"{"state_version": "v2", "agent_id": "agent-1", "messages": []}"#,
    )
    .unwrap();
    let err = restore_v2(&bad, &V2_7.now()).unwrap_err();
    assert_eq!(
        (err.code.as_str(), err.path.as_deref()),
        ("invalid_value", Some("/agent_id"))
    );
    let bad = stepline::json::from_str(
        r#"{"state_version": "v2", "messages": [{"role": "robot", "content": "x"}]}"#,
    )
    .unwrap();
    let err = restore_v2(&bad, &V2_7.now()).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("/messages/0/role"));
}

#[test]
fn a_v2_state_is_never_slimmed_as_an_empty_v1_state() {
    let (_, state, _) = final_states()
        .into_iter()
        .find(|(n, _, _)| n.starts_with("tool call then answer"))
        .unwrap();
    // Its top-level keys alone (all the selective v1.22 reader has before it
    // reads) name v2, so `slimSnapshot` never hands it to that reader.
    let keys: Vec<String> = state
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.to_string())
        .collect();
    let format = stepline::state_formats::StateFormats::built_in()
        .of_keys(&keys)
        .unwrap();
    assert_eq!(format.name(), "v2");
    assert!(!format.slims_selectively());
    let s = slim_any(&state, &SlimConfig::standard(), None, &V2_7.now())
        .unwrap()
        .snapshot;
    assert_eq!(s["step_count"], 2);
    assert!(s["usage"]["input"].as_i64().unwrap() > 0);
}

#[test]
fn the_validator_keeps_v1_statuses_for_v1_snapshots_and_names_v2_fields() {
    let v1 = stepline::json::from_str(
        r#"{"agent_id": "a", "status": "stopped", "step_count": 0, "usage": {}, "messages": [],
            "execution": {"started_at": "2026-08-10T12:00:00+00:00", "updated_at": "2026-08-10T12:00:00+00:00", "cumulative_seconds": 0}}"#,
    )
    .unwrap();
    let report = validate(&v1);
    assert_eq!(
        report
            .errors
            .iter()
            .map(|e| (e.path.as_str(), e.code))
            .collect::<Vec<_>>(),
        [("/status", "invalid_enum")]
    );
    let mut v2 = v1.clone();
    v2.as_object_mut()
        .unwrap()
        .insert("state_version", Value::from("v2"));
    assert!(validate(&v2).valid());
    v2.as_object_mut().unwrap().insert("status", Value::Null);
    assert!(validate(&v2).valid());
    v2.as_object_mut().unwrap().insert(
        "stop_signal",
        stepline::json::from_str(r#"{"reason": "guard", "message": ""}"#).unwrap(),
    );
    let report = validate(&v2);
    assert_eq!(report.errors[0].path, "/stop_signal/reason");
    assert_eq!(report.errors[0].code, "invalid_enum");
}

/// Found by the `state_v2` fuzz target
/// (`fuzz/regressions/state_v2/step-completed-before-started-negative-cumulative-seconds.json`):
/// v2's `cumulative_seconds` is the sum of its steps' `completedAt` less
/// `startedAt`, so a step stored as completed before it started (a clock
/// that stepped back; here `startedAt` in 7849) makes it negative, and
/// stepline's own snapshot of that state failed its own validation
/// (`minimum: 0`). The state is the contract: the snapshot keeps the value
/// and validates with an `out_of_range` warning at its path.
#[test]
fn a_snapshot_of_a_v2_step_completed_before_it_started_validates_with_a_warning() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/regressions/state_v2/step-completed-before-started-negative-cumulative-seconds.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let value = stepline::json::from_str(&text).unwrap();
    let state = AgentState::from_value(&value, &Default::default()).unwrap();
    let snapshot = slim_v2(&state, &SlimConfig::standard());
    let seconds = snapshot["execution"]["cumulative_seconds"]
        .as_f64()
        .unwrap();
    assert!(seconds < 0.0, "{seconds}");
    let report = validate(&snapshot);
    assert!(report.valid(), "{:?}", report.errors);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.path == "/execution/cumulative_seconds" && w.code == "out_of_range"));
}

/// Found by the `state_v2` fuzz target
/// (`fuzz/regressions/state_v2/message-tool-call-without-id-fails-own-validation.json`):
/// v2 keeps a message's `tool_calls` as stored, and the snapshot copied
/// them, so a call without `id` (the key damaged to `i;d`) made stepline's
/// own snapshot fail its own validation. The call is written as the schema
/// takes it: `id: null`, as the redacted form writes it.
#[test]
fn a_v2_message_tool_call_without_an_id_is_written_with_a_null_id() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/regressions/state_v2/message-tool-call-without-id-fails-own-validation.json"
    );
    let value = stepline::json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let state = AgentState::from_value(&value, &Default::default()).unwrap();
    let snapshot = slim_v2(&state, &SlimConfig::standard());
    let call = &snapshot["messages"][1]["tool_calls"][0];
    assert_eq!(call["id"], Value::Null);
    assert_eq!(call["name"], "long_job");
    assert_eq!(call["i;d"], "call_j");
    let report = validate(&snapshot);
    assert!(report.valid(), "{:?}", report.errors);
}
