//! Class 5 of issue 28: inputs the producer throws on are refused, with a
//! typed error whose code names the producer's failure, by every API that
//! reads them, in the default mode and under `compat: true` alike (no seed
//! defines a fix for any of them).

use stepline::json::{self, Value};
use stepline::model::continuation::spec::{default_criteria, Defaults};
use stepline::model::time::{parse, Timestamp};
use stepline::session::Session;
use stepline::snapshot::budget::slim_within;
use stepline::snapshot::restore::restore;
use stepline::snapshot::source::SlimSource;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::evaluate_state;
use stepline::{ErrorCode, SteplineError};

fn now() -> Timestamp {
    parse("2026-01-20T12:00:00Z", &chrono::DateTime::default()).unwrap()
}

/// A stored v1.22 state (`AgentState::toArray()`) with `patch` merged in at the top.
fn state_with(patch: Value) -> Value {
    let mut s = json::from_str(
        r#"{"agentId": "agent-main", "parentAgentId": null, "currentStepStartedAt": null,
            "executionStartedAt": null, "metadata": [],
            "cachedContext": {"messages": [], "tools": [], "toolChoice": [], "responseFormat": []},
            "usage": {"input": 0, "output": 0, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0},
            "messageStore": {"sections": [{"name": "messages", "messages": [{"role": "user", "content": "hi"}]}], "parameters": []},
            "stateInfo": {"id": "state-1", "startedAt": "2026-01-20T11:59:00+00:00", "updatedAt": "2026-01-20T11:59:59+00:00", "cumulativeExecutionSeconds": 0.0},
            "currentStep": null, "status": "in_progress", "steps": [], "stepResults": []}"#,
    )
    .unwrap();
    let Value::Object(patch) = patch else {
        panic!("a patch is an object")
    };
    for (k, v) in patch {
        s.as_object_mut().unwrap().insert(k, v);
    }
    s
}

/// What each state-reading API answers for `state`, by name: its error, or `None` when it accepted.
fn every_state_reader(state: &Value, config: &SlimConfig) -> Vec<(String, Option<SteplineError>)> {
    let now = now();
    let mut out = Vec::new();
    for compat in [false, true] {
        let mode = if compat { "compat" } else { "default" };
        out.push((
            format!("parseAgentState ({mode})"),
            stepline::state_formats::read(state, &now, compat).err(),
        ));
        out.push((
            format!("evaluateContinuation ({mode})"),
            evaluate_state(
                state,
                &default_criteria(&Defaults::default()),
                now,
                None,
                compat,
            )
            .err(),
        ));
        let mut c = *config;
        c.compat = compat;
        out.push((
            format!("slimSnapshot ({mode})"),
            SlimSource::from_doc(&state, &c, &now)
                .and_then(|s| slim_within(&s, &c, None))
                .err(),
        ));
    }
    out.push((
        "ingestFinalState".into(),
        Session::new(None).ingest_final_state(state, &now).err(),
    ));
    out
}

fn assert_all_refuse(answers: Vec<(String, Option<SteplineError>)>, code: ErrorCode, path: &str) {
    for (api, answer) in answers {
        let e = answer.unwrap_or_else(|| panic!("{api} accepted what the producer throws on"));
        assert_eq!(
            (e.code, e.path.as_deref()),
            (code, Some(path)),
            "{api}: {e}"
        );
    }
}

/// instructor-php v1.22.0 `packages/addons/src/Agent/Core/Data/AgentState.php`
/// line 369: `AgentStatus::from($data['status'])` throws `ValueError` for a
/// status the enum does not have (`"idle"` is the broadcaster's, not the
/// state's; the state-model vector `AgentState::fromArray status "idle"`).
#[test]
fn an_unknown_state_status_is_refused_by_every_state_reader() {
    let state = state_with(stepline::json!({"status": "idle"}));
    assert_all_refuse(
        every_state_reader(&state, &SlimConfig::standard()),
        ErrorCode::InvalidValue,
        "/status",
    );
}

/// The slim snapshot's `deserialize` (v1.22.0
/// `packages/addons/src/Agent/Serialization/SlimAgentStateSerializer.php`
/// line 49) passes `status` to the same `AgentStatus::from`.
#[test]
fn an_unknown_snapshot_status_is_refused_by_restore_and_the_final_state_reader() {
    let snapshot = stepline::json!({"agent_id": "a", "status": "idle", "messages": []});
    let e = restore(&snapshot, &now()).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidValue, Some("/status"))
    );
    let e = Session::new(None)
        .ingest_final_state(&snapshot, &now())
        .unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidValue, Some("/status")),
        "{e}"
    );
}

/// v1.22.0 `packages/messages/src/Support/MessagesInput.php` lines 18–30:
/// each stored message that is not a string must pass `Message::isMessage`
/// (`packages/messages/src/Message.php` line 285: `role` set, and `content`
/// or `_metadata` set), else `InvalidArgumentException('Invalid message
/// array - missing role or content keys')`. A message without a role is
/// refused (`missing_field` at its `role`); stepline read `{"content": "x"}`
/// as a user message.
#[test]
fn a_stored_message_without_a_role_is_refused_by_every_state_reader() {
    let state = state_with(
        stepline::json!({"messageStore": {"sections": [{"name": "messages", "messages": [{"content": "x"}]}]}}),
    );
    assert_all_refuse(
        every_state_reader(&state, &SlimConfig::standard()),
        ErrorCode::MissingField,
        "/messageStore/sections/0/messages/0/role",
    );
    let snapshot = stepline::json!({"agent_id": "a", "messages": [{"content": "x"}]});
    let e = restore(&snapshot, &now()).unwrap_err();
    assert_eq!(e.code, ErrorCode::MissingField, "{e}");
}

/// v1.22.0 `packages/addons/src/Agent/Serialization/SlimAgentStateSerializer.php`
/// lines 109–121: with `redactToolArgs`, `array_map(fn(array $toolCall) …,
/// $metadata['tool_calls'])` under `strict_types` throws `TypeError` for an
/// entry that is not an array; stepline wrote `{id: null, name: "unknown"}`.
/// Without redaction the entry passes through untouched (the vector
/// `serialize [default] tool_calls entry that is not an array`).
#[test]
fn a_tool_calls_entry_that_is_not_an_array_is_refused_when_redacting() {
    let state = state_with(
        stepline::json!({"messageStore": {"sections": [{"name": "messages", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "_metadata": {"tool_calls": [{"id": "c1", "name": "search"}, "just-a-string"]}}
        ]}]}}),
    );
    let mut config = SlimConfig::standard();
    config.redact_tool_args = true;
    for compat in [false, true] {
        config.compat = compat;
        let e = SlimSource::from_doc(&&state, &config, &now())
            .and_then(|s| slim_within(&s, &config, None))
            .unwrap_err();
        assert_eq!(
            (e.code, e.path.as_deref()),
            (
                ErrorCode::InvalidType,
                Some("/messageStore/sections/0/messages/1/_metadata/tool_calls/1")
            ),
            "compat {compat}: {e}"
        );
    }
    // A source built from a parsed state is refused too, at the snapshot's path.
    let parsed = stepline::model::AgentState::from_value(&state, &now()).unwrap();
    let e = slim_within(&SlimSource::from_state(&parsed, &config), &config, None).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (
            ErrorCode::InvalidType,
            Some("/messages/1/_metadata/tool_calls/1")
        )
    );
    config.redact_tool_args = false;
    let s = SlimSource::from_doc(&&state, &config, &now()).unwrap();
    let fitted = slim_within(&s, &config, None).unwrap();
    assert_eq!(
        fitted.snapshot["messages"][1]["_metadata"]["tool_calls"][1],
        "just-a-string"
    );
}
