//! Slim snapshots beyond the vectors: byte budgets, validation of untrusted
//! snapshots, and the schema agreeing with the validator.

use stepline::json;
use stepline::json::Value;
use stepline::model::AgentState;
use stepline::snapshot::budget::slim_within;
use stepline::snapshot::schema::snapshot_schema;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::source::SlimSource;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::validate_snapshot as validate;
use stepline::ErrorCode;

mod common;
use common::{vectors, Corpus::V1_22};

fn slim_cases() -> Vec<Value> {
    vectors("slim-serializer.json")
}

fn state_of(name: &str) -> AgentState {
    let case = slim_cases()
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap();
    AgentState::from_value(&case["input"]["state"], &V1_22.now()).unwrap()
}

#[test]
fn every_reference_snapshot_validates_without_errors() {
    let mut checked = 0;
    for case in slim_cases() {
        let name = case["name"].as_str().unwrap();
        let snapshot = if name.starts_with("serialize") {
            case["expected"].clone()
        } else if name.starts_with("roundtrip") {
            case["expected"]["slim"].clone()
        } else {
            continue;
        };
        let report = validate(&snapshot);
        assert!(report.valid(), "{name}: {:?}", report.errors);
        assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
        checked += 1;
    }
    assert_eq!(checked, 40);
}

#[test]
fn every_problem_is_reported_with_its_path_not_only_the_first() {
    let broken = json!({
        "agent_id": 7,
        "status": "idle",
        "step_count": -1,
        "usage": {"input": "many"},
        "execution": {"started_at": "yesterday", "cumulative_seconds": -2.5},
        "messages": [{"content": "hi", "_metadata": "x"}, "text"],
        "steps": [{"step_number": 2, "type": "final", "has_tool_calls": "no", "finish_reason": null, "errors": 0, "usage": {"total": 1}, "tool_calls": []}],
        "last_continuation": {"should_continue": "yes"},
        "extra_field": true
    });
    let report = validate(&broken);
    let found: Vec<(&str, &str)> = report
        .errors
        .iter()
        .map(|e| (e.path.as_str(), e.code))
        .collect();
    let expected = [
        ("/agent_id", "wrong_type"),
        ("/status", "invalid_enum"),
        ("/step_count", "out_of_range"),
        ("/usage/input", "wrong_type"),
        ("/execution/started_at", "invalid_timestamp"),
        ("/execution/updated_at", "missing_field"),
        ("/messages/0/role", "missing_field"),
        ("/messages/0/_metadata", "wrong_type"),
        ("/messages/1", "wrong_type"),
        ("/steps/0/type", "invalid_enum"),
        ("/steps/0/has_tool_calls", "wrong_type"),
        ("/last_continuation/should_continue", "wrong_type"),
        ("/last_continuation/stop_reason", "missing_field"),
        ("/last_continuation/resolved_by", "missing_field"),
    ];
    for e in expected {
        assert!(found.contains(&e), "missing {e:?} in {found:?}");
    }
    // A negative duration is the state's own (a stored one, or a v2 step
    // completed before it started): kept, with a warning (tests/snapshot_v2.rs).
    let warnings: Vec<(&str, &str)> = report
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.code))
        .collect();
    assert_eq!(
        warnings,
        [
            ("/execution/cumulative_seconds", "out_of_range"),
            ("/extra_field", "unknown_field")
        ]
    );
}

#[test]
fn inconsistent_counts_and_numbering_are_reported() {
    let mut snapshot = slim_cases()
        .into_iter()
        .find(|c| {
            c["name"] == "serialize [default] tool calls conversation with 3 steps (completed)"
        })
        .unwrap()["expected"]
        .clone();
    *snapshot.pointer_entry("/step_count").unwrap() = json!(2);
    *snapshot.pointer_entry("/steps/1/step_number").unwrap() = json!(5);
    let found: Vec<(String, &str)> = validate(&snapshot)
        .errors
        .into_iter()
        .map(|e| (e.path, e.code))
        .collect();
    assert!(found.contains(&("/step_count".into(), "inconsistent")));
    assert!(found.contains(&("/steps/1/step_number".into(), "inconsistent")));
}

#[test]
fn a_snapshot_that_is_not_an_object_is_one_error() {
    let report = validate(&json!([1, 2]));
    assert_eq!(report.errors.len(), 1);
    assert_eq!(
        (report.errors[0].path.as_str(), report.errors[0].code),
        ("", "wrong_type")
    );
}

#[test]
fn the_schema_lists_what_the_validator_requires() {
    let schema = snapshot_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        required,
        [
            "agent_id",
            "status",
            "step_count",
            "usage",
            "execution",
            "messages"
        ]
    );
    // A v1.22 snapshot (no state_version) has one of v1.22's statuses; a v2
    // one may also be pending, stopped, or null between executions.
    assert_eq!(
        schema["then"]["properties"]["status"]["enum"],
        json!(["in_progress", "completed", "failed"])
    );
    assert_eq!(
        schema["properties"]["status"]["enum"],
        json!([
            "in_progress",
            "completed",
            "failed",
            "pending",
            "stopped",
            null
        ])
    );
    assert_eq!(
        schema["properties"]["steps"]["items"]["properties"]["step_number"]["minimum"],
        1
    );
    assert_eq!(
        schema["properties"]["parent_agent_id"]["type"],
        json!(["string", "null"])
    );
}

/// The published schema is generated from the declared snapshot type and
/// committed; `snapshotSchema()` returns the committed file.
#[cfg(feature = "schema")]
#[test]
fn the_published_schema_is_what_the_declarations_generate() {
    let generated = stepline::schema::snapshot().to_string();
    let generated = stepline::json::from_str(&generated).unwrap();
    assert_eq!(snapshot_schema(), generated, "run `npm run gen`");
}

#[test]
fn a_budget_tightens_content_then_messages_then_steps_and_says_so() {
    let state = state_of("serialize [default] 65 messages");
    let config = SlimConfig::default();
    let unlimited = slim_within(&SlimSource::from_state(&state, &config), &config, None).unwrap();
    assert!(unlimited.truncation.is_none());
    assert_eq!(
        unlimited.bytes,
        stepline::json::to_string(&unlimited.snapshot).len()
    );

    let fitted = slim_within(
        &SlimSource::from_state(&state, &config),
        &config,
        Some(unlimited.bytes / 3),
    )
    .unwrap();
    assert!(fitted.bytes <= unlimited.bytes / 3);
    let t = fitted.truncation.unwrap();
    assert_eq!(
        t.messages_dropped,
        50 - fitted.snapshot["messages"].as_array().unwrap().len()
    );
    // Deterministic: the same budget gives the same snapshot.
    assert_eq!(
        slim_within(
            &SlimSource::from_state(&state, &config),
            &config,
            Some(unlimited.bytes / 3)
        )
        .unwrap(),
        fitted
    );
    // The newest messages are the ones kept.
    let last_kept = fitted.snapshot["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let last_all = unlimited.snapshot["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last_kept["role"], last_all["role"]);
}

#[test]
fn a_budget_smaller_than_an_empty_history_is_a_typed_error() {
    let state = state_of("serialize [default] tool calls conversation with 3 steps (completed)");
    let err = slim_within(
        &SlimSource::from_state(&state, &SlimConfig::default()),
        &SlimConfig::default(),
        Some(50),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
    assert!(err.message.contains("maxBytes 50"));
}

#[test]
fn steps_are_dropped_when_messages_alone_cannot_make_it_fit() {
    let state = state_of("serialize [default] 25 steps");
    let full = slim_within(
        &SlimSource::from_state(&state, &SlimConfig::default()),
        &SlimConfig::default(),
        None,
    )
    .unwrap();
    let without_messages = slim_state(
        &state,
        &SlimConfig {
            max_messages: 0,
            ..SlimConfig::default()
        },
    );
    let budget = stepline::json::to_string(&without_messages).len() - 200;
    let fitted = slim_within(
        &SlimSource::from_state(&state, &SlimConfig::default()),
        &SlimConfig::default(),
        Some(budget),
    )
    .unwrap();
    let t = fitted.truncation.unwrap();
    assert_eq!(fitted.snapshot["messages"], json!([]));
    assert!(t.steps_dropped > 0 && t.steps_dropped < 20, "{t:?}");
    assert!(fitted.bytes <= budget && fitted.bytes < full.bytes);
    assert!(validate(&fitted.snapshot).valid());
}

#[test]
fn negative_token_counts_are_valid_with_a_warning_and_the_schema_agrees() {
    // The reference keeps negative counts it reads (state-model vectors), so
    // stepline's own snapshot of such a state must validate.
    let state = AgentState::parse(
        r#"{"usage":{"input":-3,"cacheRead":-1},"steps":[{"usage":{"input":-2}}]}"#,
        &V1_22.now(),
    )
    .unwrap();
    let snapshot = slim_state(&state, &SlimConfig::full());
    assert_eq!(snapshot["usage"]["cacheRead"], -1);
    let report = validate(&snapshot);
    assert!(report.valid(), "{:?}", report.errors);
    let warned: Vec<(&str, &str)> = report
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.code))
        .collect();
    assert!(
        warned.contains(&("/usage/input", "out_of_range")),
        "{warned:?}"
    );
    assert!(
        warned.contains(&("/usage/cacheRead", "out_of_range")),
        "{warned:?}"
    );
    let schema = snapshot_schema();
    let cache_read = &schema["properties"]["usage"]["properties"]["cacheRead"];
    assert_eq!(cache_read["type"], "integer");
    assert!(cache_read.get("minimum").is_none(), "{cache_read}");
    // Other counts keep their minimum, and a token count must still be an integer.
    assert_eq!(schema["properties"]["step_count"]["minimum"], 0);
    let mut broken = snapshot.clone();
    *broken.pointer_entry("/usage/input").unwrap() = json!(1.5);
    let errors: Vec<(String, &str)> = validate(&broken)
        .errors
        .into_iter()
        .map(|e| (e.path, e.code))
        .collect();
    assert_eq!(errors, [("/usage/input".to_string(), "wrong_type")]);
}

#[test]
fn whole_numbers_beyond_the_integer_range_in_options_are_out_of_range() {
    for (key, text) in [
        ("maxBytes", "1e300"),
        ("maxContentLength", "9223372036854775808"),
        ("maxMessages", "18446744073709552000"),
    ] {
        let opts: Value = stepline::json::from_str(&format!(r#"{{"{key}":{text}}}"#)).unwrap();
        let e = SlimConfig::from_options(opts.as_object().unwrap(), "/options").unwrap_err();
        assert_eq!(e.code, ErrorCode::OutOfRange, "{key}={text}");
        assert_eq!(e.path.as_deref(), Some(format!("/options/{key}").as_str()));
    }
    let fraction: Value = stepline::json::from_str(r#"{"maxSteps":2.5}"#).unwrap();
    let e = SlimConfig::from_options(fraction.as_object().unwrap(), "/options").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidType);
    let minus_zero: Value = stepline::json::from_str(r#"{"maxSteps":-0}"#).unwrap();
    let (config, _) =
        SlimConfig::from_options(minus_zero.as_object().unwrap(), "/options").unwrap();
    assert_eq!(config.max_steps, 0);
    // The broadcaster's options go through the same reader.
    let big: Value = stepline::json::from_str(r#"{"maxArgLength":1e300}"#).unwrap();
    let e = stepline::envelope::BroadcastConfig::from_options(big.as_object().unwrap(), "/options")
        .unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::OutOfRange, Some("/options/maxArgLength"))
    );
    let offset: Value =
        stepline::json::from_str(r#"{"compat":{"utcOffsetMinutes":4611686018427387904}}"#).unwrap();
    let e =
        stepline::envelope::BroadcastConfig::from_options(offset.as_object().unwrap(), "/options")
            .unwrap_err();
    assert_eq!(e.code, ErrorCode::OutOfRange);
}
