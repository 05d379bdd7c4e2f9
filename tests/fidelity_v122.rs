//! Fidelity to the v1.22 reference where the public vectors do not pin it,
//! each case built from what the producer's code does (instructor-php
//! v1.22.0, packages/addons and packages/polyglot, cited per test).

use stepline::envelope::summary::truncate_args;
use stepline::json;
use stepline::json::Value;
use stepline::model::continuation::spec::{default_criteria, parse_criteria, Defaults};
use stepline::model::continuation::{evaluate_all, Observation, Outcome};
use stepline::model::{AgentState, AgentStep, ToolExecution};
use stepline::snapshot::budget::slim_within;
use stepline::snapshot::restore::restore;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::source::SlimSource;
use stepline::snapshot::SlimConfig;
use stepline::ErrorCode;

mod common;
use common::{vectors, Corpus::V1_22};

fn state_model_input(name: &str) -> Value {
    vectors("state-model.json")
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap()["input"]["data"]
        .clone()
}

fn final_state(run: &str) -> Value {
    vectors("agent-runs.json")
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().starts_with(run))
        .unwrap()["expected"][0]["finalState"]
        .clone()
}

fn err_at(result: Result<impl std::fmt::Debug, stepline::SteplineError>) -> (ErrorCode, String) {
    let e = result.unwrap_err();
    (e.code, e.path.unwrap_or_default())
}

fn is_float(v: &Value) -> bool {
    matches!(v, Value::Number(n) if n.is_f64())
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Number(n) if !n.is_f64())
}

// cachedContext: AgentState::cacheFromArray → new CachedContext(responseFormat:
// array) → ResponseFormat::fromData (schema/name/strict ?? json_schema.*), and
// cacheToArray writes type() ?? 'text', schema() ?? [], schemaName() ?? 'schema',
// strict() ?? true.

#[test]
fn a_state_round_trip_keeps_every_cached_context_field_including_a_nested_json_schema() {
    let mut data = state_model_input("AgentState roundtrip full canonical state");
    let schema = json!({"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Rome"]}}, "required": ["city"]});
    *data.pointer_entry("/cachedContext/responseFormat").unwrap() = json!({
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema, "strict": false}
    });
    let once = AgentState::from_value(&data, &V1_22.now())
        .unwrap()
        .to_value();
    let cached = &once["cachedContext"];
    assert_eq!(
        cached["responseFormat"],
        json!({"type": "json_schema", "schema": schema, "name": "answer", "strict": false})
    );
    assert_eq!(cached["messages"], data["cachedContext"]["messages"]);
    assert_eq!(cached["tools"], data["cachedContext"]["tools"]);
    assert_eq!(cached["toolChoice"], data["cachedContext"]["toolChoice"]);
    // The flat form the reference writes reads back to itself.
    let twice = AgentState::from_value(&once, &V1_22.now())
        .unwrap()
        .to_value();
    assert_eq!(twice["cachedContext"], once["cachedContext"]);
}

#[test]
fn response_format_parts_follow_from_data() {
    let read = |rf: Value| {
        let mut data = state_model_input("AgentState roundtrip full canonical state");
        *data.pointer_entry("/cachedContext/responseFormat").unwrap() = rf;
        AgentState::from_value(&data, &V1_22.now())
            .map(|s| s.to_value()["cachedContext"]["responseFormat"].clone())
    };
    // Top-level parts win over the nested ones.
    assert_eq!(
        read(json!({"type": "json_schema", "name": "top", "json_schema": {"name": "nested", "schema": {"a": 1}}})).unwrap(),
        json!({"type": "json_schema", "schema": {"a": 1}, "name": "top", "strict": true})
    );
    // No type: `type()` is `text`.
    assert_eq!(
        read(json!({"json_schema": {"schema": {"a": 1}}})).unwrap(),
        json!({"type": "text", "schema": {"a": 1}, "name": "schema", "strict": true})
    );
    // Nothing fromData knows: isEmpty(), written as [].
    assert_eq!(read(json!({"format": "json"})).unwrap(), json!([]));
    assert_eq!(
        read(json!({"json_schema": "not a map"})).unwrap(),
        json!([])
    );
    // Strict types in the constructor: the reference's TypeError.
    assert_eq!(
        err_at(read(json!({"json_schema": {"strict": "yes"}}))),
        (
            ErrorCode::InvalidType,
            "/cachedContext/responseFormat/json_schema/strict".into()
        )
    );
    assert_eq!(
        err_at(read(json!({"type": 7}))),
        (
            ErrorCode::InvalidType,
            "/cachedContext/responseFormat/type".into()
        )
    );
    assert_eq!(
        err_at(read(json!({"schema": "object"}))),
        (
            ErrorCode::InvalidType,
            "/cachedContext/responseFormat/schema".into()
        )
    );
    let mut data = state_model_input("AgentState roundtrip full canonical state");
    *data.pointer_entry("/cachedContext/tools").unwrap() = json!("search");
    assert_eq!(
        err_at(AgentState::from_value(&data, &V1_22.now())),
        (ErrorCode::InvalidType, "/cachedContext/tools".into())
    );
}

// Legacy tool executions: AgentExecution::hydrateToolCall builds the call from
// `toolCallId ?? tool_call_id ?? ''`, `tool`, `arguments ?? args ?? []`.

#[test]
fn legacy_flat_tool_executions_keep_their_call_id() {
    let flat = json!({
        "tool": "search", "tool_call_id": "call_9", "arguments": {"q": "paris"},
        "args": {"ignored": true}, "result": {"hits": 1},
        "startedAt": "2026-01-20T11:59:59+00:00", "endedAt": "2026-01-20T12:00:00+00:00"
    });
    let e = ToolExecution::from_value(&flat, "", &V1_22.now()).unwrap();
    assert_eq!(e.tool_call.id, "call_9");
    assert_eq!(e.tool_call.arguments, json!({"q": "paris"}));
    assert_eq!(e.to_value()["toolCall"]["id"], "call_9");
    // `toolCallId` is read first; `args` when `arguments` is absent or null.
    let mut both = flat.clone();
    *both.pointer_entry("/toolCallId").unwrap() = Value::from("call_camel");
    *both.pointer_entry("/arguments").unwrap() = Value::Null;
    let e = ToolExecution::from_value(&both, "", &V1_22.now()).unwrap();
    assert_eq!(
        (e.tool_call.id.as_str(), &e.tool_call.arguments),
        ("call_camel", &json!({"ignored": true}))
    );
    // Inside a step the executed call keeps the id too.
    let step = AgentStep::from_value(&json!({"toolExecutions": [flat]}), "", &V1_22.now()).unwrap();
    assert_eq!(step.tool_executions.tool_calls()[0].id, "call_9");
}

// Step errors: new AgentStep(errors:) keeps the normalised explicit errors when
// there are any, else the tool executions' errors — never both. An execution
// fails as AgentExecution::makeResult/makeFailure read `error`.

#[test]
fn a_steps_errors_come_from_its_own_list_or_else_from_its_executions_never_both() {
    let execution = |error: Value| {
        json!({"tool": "search", "toolCallId": "c", "error": error,
               "startedAt": "2026-01-20T12:00:00+00:00", "endedAt": "2026-01-20T12:00:00+00:00"})
    };
    let failing = vec![
        execution(json!({"message": "from message"})),
        execution(json!({"error": "from error"})),
        execution(json!(7)),
        execution(json!("plain")),
        execution(json!("")),
        execution(Value::Null),
    ];
    let step = |errors: Value| {
        AgentStep::from_value(
            &json!({"toolExecutions": failing, "errors": errors}),
            "",
            &V1_22.now(),
        )
        .unwrap()
    };
    // Explicit errors win: one, although four executions failed.
    let s = step(json!([{"message": "model failed", "class": "RuntimeException"}]));
    assert_eq!(s.errors.len(), 1);
    assert_eq!(
        (s.errors[0].message.as_str(), s.errors[0].class.as_str()),
        ("model failed", "RuntimeException")
    );
    assert_eq!(s.step_type.as_str(), "error");
    // Entries that are not arrays are skipped, so the executions' errors count.
    let s = step(json!(["boom", 5]));
    let messages: Vec<&str> = s.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        ["from message", "from error", "Unknown error", "plain"]
    );
    assert!(s
        .errors
        .iter()
        .all(|e| e.class == "Cognesy\\Addons\\Agent\\Exceptions\\ToolExecutionException"));
    assert_eq!(
        s.errors_as_string(),
        "from message\nfrom error\nUnknown error\nplain"
    );
    // `''` and null are successes, with their result kept.
    let ok = ToolExecution::from_value(&execution(json!("")), "", &V1_22.now()).unwrap();
    assert!(!ok.has_error());
    // A failure has no value (toArray writes `result: null`).
    let mut with_result = execution(json!("failed"));
    *with_result.pointer_entry("/result").unwrap() = json!({"partial": true});
    assert_eq!(
        ToolExecution::from_value(&with_result, "", &V1_22.now())
            .unwrap()
            .to_value()["result"],
        Value::Null
    );
    // The slim snapshot counts the same errors.
    let mut state = final_state("tool call then final answer");
    *state.pointer_entry("/steps/0/toolExecutions").unwrap() = Value::Array(failing.clone());
    *state.pointer_entry("/steps/0/errors").unwrap() = json!(["not an array"]);
    // A stored `stepType` wins (AgentStepType::from); without it the type is inferred.
    state
        .pointer_mut("/steps/0")
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove("stepType");
    let snapshot = slim_state(
        &AgentState::from_value(&state, &V1_22.now()).unwrap(),
        &SlimConfig::standard(),
    );
    assert_eq!(snapshot["steps"][0]["errors"], 4);
    assert_eq!(snapshot["steps"][0]["type"], "error");
}

// Continuation contexts: StepsLimit/TokenUsageLimit/ExecutionTimeLimit write
// ints (stepCount(), usage()->total(), getTimestamp() differences, int max);
// CumulativeExecutionTimeLimit writes the float StateInfo keeps ((float) cast
// in StateInfo::fromArray) beside its int max.

#[test]
fn continuation_contexts_keep_the_references_int_and_float_kinds() {
    let mut state = final_state("tool call then final answer");
    *state
        .pointer_entry("/stateInfo/cumulativeExecutionSeconds")
        .unwrap() = json!(3);
    let state = AgentState::from_value(&state, &V1_22.now()).unwrap();
    let defaults = Defaults {
        cumulative_timeout: Some(60),
        ..Defaults::default()
    };
    let outcome = evaluate_all(
        &default_criteria(&defaults),
        &Observation::from_state(&state, V1_22.now(), None),
    );
    let context = |class: &str| {
        outcome
            .evaluations
            .iter()
            .find(|e| e.criterion.ends_with(class))
            .unwrap_or_else(|| panic!("{class}"))
            .context
            .clone()
    };
    let steps = context("\\StepsLimit");
    assert!(
        is_int(&steps["currentSteps"]) && is_int(&steps["maxSteps"]),
        "{steps}"
    );
    let tokens = context("\\TokenUsageLimit");
    assert!(
        is_int(&tokens["currentUsage"]) && is_int(&tokens["maxTokens"]),
        "{tokens}"
    );
    let cumulative = context("\\CumulativeExecutionTimeLimit");
    assert!(is_float(&cumulative["cumulativeSeconds"]), "{cumulative}");
    assert_eq!(cumulative["cumulativeSeconds"].as_f64(), Some(3.0));
    assert!(is_int(&cumulative["maxSeconds"]), "{cumulative}");
    let criteria =
        parse_criteria(&json!([{"kind": "execution_time_limit", "max": 300}]), "").unwrap();
    let timed = evaluate_all(
        &criteria,
        &Observation::from_state(&state, V1_22.now(), None),
    );
    let elapsed = &timed.evaluations[0].context;
    assert!(
        is_int(&elapsed["elapsedSeconds"]) && is_int(&elapsed["maxSeconds"]),
        "{elapsed}"
    );
    // A stored context is `array $context`: kept as written, 3 and 3.0 apart.
    let stored = json!({"shouldContinue": false, "evaluations": [{
        "criterion": "X\\A", "decision": "stop", "reason": "r",
        "context": {"int": 3, "float": 3.0, "nested": {"f": 0.0, "i": 0}}
    }]});
    let again = Outcome::from_value(&stored, "").unwrap().to_value();
    let ctx = &again["evaluations"][0]["context"];
    assert!(is_int(&ctx["int"]) && is_float(&ctx["float"]), "{ctx}");
    assert!(
        is_float(&ctx["nested"]["f"]) && is_int(&ctx["nested"]["i"]),
        "{ctx}"
    );
}

// Stored outcomes: ContinuationEvaluation::fromArray calls StopReason::from
// (ValueError on an unknown value) into a constructor with strict types;
// ContinuationOutcome's constructor takes `bool $shouldContinue`.

#[test]
fn stored_outcomes_refuse_what_the_reference_refuses() {
    let base = final_state("tool call then final answer");
    let outcome_path = "/stepResults/0/outcome";
    let read = |pointer: &str, value: Value| {
        let mut s = base.clone();
        *s.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value;
        AgentState::from_value(&s, &V1_22.now()).map(|_| ())
    };
    let eval0 = format!("{outcome_path}/evaluations/0");
    assert!(
        base.pointer(&eval0).is_some(),
        "the run records evaluations"
    );
    for (field, value, code) in [
        ("stopReason", json!("gave_up"), ErrorCode::InvalidValue),
        ("stopReason", json!(5), ErrorCode::InvalidType),
        ("decision", json!("maybe"), ErrorCode::InvalidValue),
        ("criterion", json!(7), ErrorCode::InvalidType),
        ("reason", json!(["x"]), ErrorCode::InvalidType),
        ("context", json!("x"), ErrorCode::InvalidType),
    ] {
        let mut s = base.clone();
        *s.pointer_entry(&format!("{eval0}/{field}")).unwrap() = value.clone();
        let got = err_at(AgentState::from_value(&s, &V1_22.now()));
        assert_eq!(got, (code, format!("{eval0}/{field}")), "{field}: {value}");
    }
    assert_eq!(
        err_at(read(
            &format!("{outcome_path}/shouldContinue"),
            json!("yes")
        )),
        (
            ErrorCode::InvalidType,
            format!("{outcome_path}/shouldContinue")
        )
    );
    // Every StopReason case reads; null is no stop reason.
    for reason in [
        "completed",
        "steps_limit",
        "token_limit",
        "time_limit",
        "retry_limit",
        "error",
        "finish_reason",
        "guard",
        "user_requested",
    ] {
        let mut s = base.clone();
        *s.pointer_entry(&format!("{eval0}/stopReason")).unwrap() = Value::from(reason);
        AgentState::from_value(&s, &V1_22.now()).unwrap();
    }
    read(&format!("{eval0}/stopReason"), Value::Null).unwrap();
    // StepResult::fromArray hands `$data['outcome']` to fromArray(array): required,
    // whether the state is read whole or selectively for a snapshot.
    let mut s = base.clone();
    s.pointer_mut("/stepResults/0")
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove("outcome");
    let want = (ErrorCode::MissingField, outcome_path.to_string());
    assert_eq!(err_at(AgentState::from_value(&s, &V1_22.now())), want);
    let last = s["stepResults"].as_array().unwrap().len() - 1;
    s.pointer_mut(&format!("/stepResults/{last}"))
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove("outcome");
    let trace = SlimConfig {
        include_continuation_trace: true,
        ..SlimConfig::standard()
    };
    let (code, path) = err_at(SlimSource::from_doc(&&s, &trace, &V1_22.now()).map(|_| ()));
    assert_eq!(
        (code, path),
        (
            ErrorCode::MissingField,
            format!("/stepResults/{last}/outcome")
        )
    );
}

// Zero limits: SlimAgentStateSerializer truncates only when maxContentLength
// > 0 and keeps no messages/steps when maxMessages/maxSteps <= 0; the
// adapter's truncateArgs cuts `strlen($v) > $max` with substr (0 cuts every
// non-empty string, a negative max is PHP's negative length); StepsLimit and
// TokenUsageLimit take any int, the time limits throw for <= 0.

#[test]
fn zero_and_negative_slim_limits_mean_what_they_mean_in_the_reference() {
    let mut data = final_state("tool call then final answer");
    let long = "x".repeat(3000);
    *data
        .pointer_entry("/messageStore/sections/0/messages/0/content")
        .unwrap() = Value::from(long.as_str());
    let state = AgentState::from_value(&data, &V1_22.now()).unwrap();
    for compat in [true, false] {
        for max in [0, -1] {
            let c = SlimConfig {
                max_content_length: max,
                compat,
                ..SlimConfig::standard()
            };
            let s = slim_state(&state, &c);
            assert_eq!(
                s["messages"][0]["content"],
                long.as_str(),
                "max {max}, compat {compat}"
            );
        }
        let none = slim_state(
            &state,
            &SlimConfig {
                max_messages: 0,
                max_steps: 0,
                compat,
                ..SlimConfig::standard()
            },
        );
        assert_eq!(
            (
                none["messages"].as_array().unwrap().len(),
                none["steps"].as_array().unwrap().len()
            ),
            (0, 0)
        );
        assert_eq!(none["step_count"], 2);
    }
    // With no content limit, a byte budget still tightens from the longest content.
    let c = SlimConfig {
        max_content_length: 0,
        ..SlimConfig::standard()
    };
    let fitted = slim_within(&SlimSource::from_state(&state, &c), &c, Some(2000)).unwrap();
    assert!(fitted.bytes <= 2000);
    let t = fitted.truncation.unwrap();
    assert_eq!(t.messages_dropped, 0, "{t:?}");
    assert!(t.content_limit > 0 && t.content_limit < 3000, "{t:?}");
}

#[test]
fn zero_and_negative_argument_limits_cut_as_php_substr() {
    let args = json!({"q": "paris", "empty": "", "n": 5});
    for compat in [true, false] {
        assert_eq!(
            truncate_args(&args, 0, compat),
            json!({"q": "...", "empty": "", "n": 5})
        );
        assert_eq!(
            truncate_args(&args, -2, compat),
            json!({"q": "par...", "empty": "...", "n": 5})
        );
        assert_eq!(
            truncate_args(&args, -10, compat),
            json!({"q": "...", "empty": "...", "n": 5})
        );
    }
}

#[test]
fn zero_step_and_token_limits_stop_every_time_and_zero_time_limits_are_refused() {
    let state = AgentState::from_value(&final_state("direct final answer"), &V1_22.now()).unwrap();
    for spec in [
        json!([{"kind": "steps_limit", "max": 0}]),
        json!([{"kind": "token_usage_limit", "max": 0}]),
        json!([{"kind": "steps_limit", "max": -3}]),
        json!([{"kind": "retry_limit", "max": 0}]),
    ] {
        let criteria = parse_criteria(&spec, "").unwrap();
        let outcome = evaluate_all(
            &criteria,
            &Observation::from_state(&state, V1_22.now(), None),
        );
        assert_eq!(outcome.evaluations[0].decision.as_str(), "forbid", "{spec}");
        assert!(!outcome.should_continue);
    }
    let defaults =
        parse_criteria(&json!({"defaults": {"maxSteps": 0, "maxTokens": 0}}), "").unwrap();
    let outcome = evaluate_all(
        &defaults,
        &Observation::from_state(&state, V1_22.now(), None),
    );
    assert_eq!(outcome.stop_reason(), "steps_limit");
    for spec in [
        json!([{"kind": "execution_time_limit", "max": 0}]),
        json!([{"kind": "cumulative_execution_time_limit", "max": -1}]),
        json!({"defaults": {"maxExecutionTime": 0}}),
    ] {
        assert_eq!(
            parse_criteria(&spec, "/c").unwrap_err().code,
            ErrorCode::InvalidValue,
            "{spec}"
        );
    }
}

// Reading a snapshot (SlimAgentStateSerializer::deserialize → AgentState::
// fromArray: AgentStatus::from for a set status, InProgress when null or
// absent) and its messages (MessageInput::fromArray: a message needs `role`
// and `content` or `_metadata`; metadata is `_metadata ?? metadata`).

#[test]
fn restore_refuses_statuses_the_reference_refuses_and_defaults_a_missing_one() {
    let base = json!({"agent_id": "a", "messages": []});
    for status in ["in_progress", "completed", "failed"] {
        let mut s = base.clone();
        *s.pointer_entry("/status").unwrap() = Value::from(status);
        assert_eq!(
            restore(&s, &V1_22.now()).unwrap().to_value()["status"],
            status
        );
    }
    assert_eq!(
        restore(&base, &V1_22.now()).unwrap().to_value()["status"],
        "in_progress"
    );
    let mut s = base.clone();
    *s.pointer_entry("/status").unwrap() = Value::Null;
    assert_eq!(
        restore(&s, &V1_22.now()).unwrap().to_value()["status"],
        "in_progress"
    );
    // Broadcast words are not state statuses; case matters.
    for status in ["processing", "stopped", "idle", "Completed"] {
        let mut s = base.clone();
        *s.pointer_entry("/status").unwrap() = Value::from(status);
        assert_eq!(
            err_at(restore(&s, &V1_22.now())),
            (ErrorCode::InvalidValue, "/status".into()),
            "{status}"
        );
    }
}

#[test]
fn restore_reads_messages_as_the_reference_does() {
    let restored = |messages: Value| {
        restore(
            &json!({"agent_id": "a", "messages": messages}),
            &V1_22.now(),
        )
        .map(|s| s.to_value()["messageStore"]["sections"][0]["messages"].clone())
    };
    // Seed 000's `metadata` alias is read; written back as `_metadata`.
    assert_eq!(
        restored(json!([{"role": "tool", "content": "{}", "metadata": {"tool_call_id": "c1"}}]))
            .unwrap(),
        json!([{"role": "tool", "content": "{}", "_metadata": {"tool_call_id": "c1"}}])
    );
    // No content but `_metadata`: a message (an assistant's tool call).
    assert_eq!(
        restored(json!([{"role": "assistant", "_metadata": {"tool_calls": [{"id": "c1"}]}}]))
            .unwrap(),
        json!([{"role": "assistant", "_metadata": {"tool_calls": [{"id": "c1"}]}}])
    );
    // Neither content nor `_metadata` (the alias does not count): refused.
    let (code, path) = err_at(restored(
        json!([{"role": "tool", "metadata": {"tool_call_id": "c1"}}]),
    ));
    assert_eq!(code, ErrorCode::MissingField);
    assert!(
        path.starts_with("/messageStore/sections/0/messages/0"),
        "{path}"
    );
    // Metadata that is not a map: the constructor's InvalidArgumentException.
    let (code, _) = err_at(restored(
        json!([{"role": "user", "content": "x", "_metadata": "nope"}]),
    ));
    assert_eq!(code, ErrorCode::InvalidType);
}

// The error an ErrorPolicyCriterion sees: AgentErrorContextResolver takes the
// current step's first failed execution's error before the step's own
// errors, classifies by the error's class (rate limit, timeout), then by
// where errors are (executions: tool; the step: model), and counts failed
// steps from the end and in total.

#[test]
fn the_error_context_prefers_a_failed_execution_over_the_steps_own_errors() {
    let rate_limit = "Cognesy\\Polyglot\\Inference\\Exceptions\\ProviderRateLimitException";
    let execution = json!({"tool": "search", "toolCallId": "c", "error": {"message": "timed out calling search"},
        "startedAt": "2026-01-20T12:00:00+00:00", "endedAt": "2026-01-20T12:00:00+00:00"});
    let context_of = |step: Value| {
        let mut state = final_state("tool call then final answer");
        let failed = step.clone();
        *state.pointer_entry("/steps").unwrap() = json!([failed, step.clone()]);
        *state.pointer_entry("/currentStep").unwrap() = step;
        let state = AgentState::from_value(&state, &V1_22.now()).unwrap();
        let criteria = parse_criteria(
            &json!([{"kind": "error_policy", "policy": "retryToolErrors(5)"}]),
            "",
        )
        .unwrap();
        evaluate_all(
            &criteria,
            &Observation::from_state(&state, V1_22.now(), None),
        )
        .evaluations[0]
            .context
            .clone()
    };
    // Both places: the execution's error decides type, message and tool.
    let both = context_of(json!({"toolExecutions": [execution.clone()],
        "errors": [{"message": "slow down", "class": rate_limit}]}));
    assert_eq!(both["errorType"], "tool");
    assert_eq!(both["toolName"], "search");
    assert_eq!(
        (
            both["consecutiveFailures"].clone(),
            both["totalFailures"].clone()
        ),
        (json!(2), json!(2))
    );
    // Only the step's own error: its class decides.
    let own = context_of(json!({"errors": [{"message": "slow down", "class": rate_limit}]}));
    assert_eq!(own["errorType"], "rate_limit");
    assert_eq!(own["toolName"], Value::Null);
    let model =
        context_of(json!({"errors": [{"message": "bad output", "class": "RuntimeException"}]}));
    assert_eq!(model["errorType"], "model");
}
