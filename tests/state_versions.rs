//! `parseAgentState`'s version recognition: every stored state of each
//! producer release in the corpora is read by its own release's reader, and
//! never as the other's empty default (a v2.7 final state used to read as an
//! empty v1.22 state: 0 steps, `in_progress`, no usage).

use stepline::json::Value;
use stepline::model::v2::derived::derived;
use stepline::model::v2::Form;
use stepline::state_formats::{State, StateFormats};
use stepline::ErrorCode;

mod common;
use common::{
    vectors, vectors_of, with_ids,
    Corpus::{V1_22, V2_7},
};

/// The name of the format the registry recognises `state` as.
fn version(state: &Value) -> Result<&'static str, stepline::SteplineError> {
    StateFormats::built_in().of(state).map(|f| f.name())
}

/// `state` read by its format's reader, steps as stored.
fn read(
    state: &Value,
    now: &stepline::model::Timestamp,
) -> stepline::error::Result<Box<dyn State>> {
    stepline::state_formats::read(state, now, true)
}

/// Every v1.22 state the v1.22 corpus holds, named.
fn v1_states() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for c in vectors("state-model.json") {
        if c["name"]
            .as_str()
            .unwrap()
            .starts_with("AgentState roundtrip")
        {
            out.push((c["name"].to_string(), c["input"]["data"].clone()));
        }
    }
    for c in vectors("agent-runs.json") {
        for (i, turn) in c["expected"].as_array().unwrap().iter().enumerate() {
            out.push((
                format!("{} turn {i}", c["name"]),
                turn["finalState"].clone(),
            ));
        }
    }
    for file in ["continuation.json", "slim-serializer.json"] {
        for c in vectors(file) {
            if let Some(state) = c["input"].get("state").filter(|s| s.is_object()) {
                out.push((c["name"].to_string(), state.clone()));
            }
        }
    }
    out
}

#[test]
fn every_v2_final_state_reads_as_v2_with_the_runs_derived_values() {
    let mut checked = 0;
    for c in vectors_of(V2_7, "agent-runs.json") {
        for (i, turn) in c["expected"].as_array().unwrap().iter().enumerate() {
            let name = format!("{} turn {i}", c["name"]);
            let state = &with_ids(&turn["finalState"]);
            assert_eq!(version(state), Ok("v2"), "{name}");
            let read = read(state, &V2_7.now()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let Some(s) = read.downcast_ref::<stepline::model::v2::AgentState>() else {
                panic!("{name}: not read as a v2 state");
            };
            let ours = derived(s, &V2_7.now(), Form::Reference);
            for (key, expected) in turn["derived"].as_object().unwrap() {
                assert_eq!(&ours[&**key], expected, "{name}: derived {key}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 42, "only {checked} final states");
}

#[test]
fn every_v1_state_of_the_v1_corpus_reads_as_v1() {
    let states = v1_states();
    assert!(states.len() > 100, "only {} states", states.len());
    for (name, state) in states {
        assert_eq!(version(&state), Ok("v1.22"), "{name}");
        if let Ok(read) = read(&state, &V1_22.now()) {
            assert_eq!(read.format().name(), "v1.22", "{name}");
        }
    }
}

#[test]
fn every_v2_state_of_the_v2_state_model_reads_as_v2_except_the_one_mixing_v1_keys() {
    for c in vectors_of(V2_7, "state-model.json") {
        let Some(state) = c["input"].get("state") else {
            continue;
        };
        let name = c["name"].as_str().unwrap();
        let version = version(state);
        if name == "edge extra unknown fields are ignored" {
            // v2.7 itself ignores the v1 `status`/`steps` keys beside its own; a
            // reader that cannot tell which release wrote it refuses it instead.
            assert_eq!(version.unwrap_err().code, ErrorCode::UnknownStateVersion);
        } else if name == "edge only agentId" {
            // Nothing but an id: the empty state of either release.
            assert_eq!(version, Ok("v1.22"));
        } else {
            assert_eq!(version, Ok("v2"), "{name}");
        }
    }
}

#[test]
fn a_state_of_neither_release_is_refused_not_read_as_empty() {
    for text in [
        r#"{"foo": 1}"#,
        r#"{"agentId": "a", "state": {"steps": []}}"#,
        r#"{"execution": null, "messageStore": {}}"#,
    ] {
        let v = stepline::json::from_str(text).unwrap();
        let err = read(&v, &V1_22.now()).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownStateVersion, "{text}");
        assert_eq!(err.path.as_deref(), Some(""), "{text}");
        assert_eq!(err.code.as_str(), "unknown_state_version");
    }
}

#[test]
fn a_stored_api_key_never_reaches_the_view_an_error_or_debug_output() {
    let key = "sk-test-SEEDED-4f1c2a9e";
    let run = &vectors_of(V2_7, "agent-runs.json")[0];
    let mut state = with_ids(&run["expected"][0]["finalState"]);
    *state.pointer_entry("/llmConfig").unwrap() = stepline::json::from_str(&format!(
        r#"{{"apiUrl": "https://llm.invalid/v1", "apiKey": "{key}", "model": "m"}}"#
    ))
    .unwrap();
    let read_state = read(&state, &V2_7.now()).unwrap();
    let Some(s) = read_state.downcast_ref::<stepline::model::v2::AgentState>() else {
        panic!("not read as v2");
    };
    let view = stepline::model::v2::view::view(s, &V2_7.now());
    assert!(!view.to_string().contains(key), "the view shows the key");
    assert_eq!(view["llmConfig"]["apiKey"], "[redacted]");
    assert!(!format!("{s:?}").contains(key), "Debug shows the key");
    // A bad value elsewhere in the same state: the error names it, not the key.
    *state.pointer_entry("/executionCount").unwrap() = Value::from("1");
    let err = read(&state, &V2_7.now()).unwrap_err();
    assert!(!err.to_string().contains(key));
    assert_eq!(err.path.as_deref(), Some("/executionCount"));
}
