//! Diagnostics: each detector fires on real reference data perturbed the way
//! the producer bug perturbs it, and stays silent on the clean runs.

use chrono::Duration;
use stepline::envelope::decode::decode_value;
use stepline::envelope::encoder::step_duration_ms;
use stepline::json;
use stepline::json::Value;
use stepline::lint::{diagnose, diagnose_value, DiagnoseInput, Diagnostic, Severity, CODES};
use stepline::model::time::{format_utc_millis, Timestamp};
use stepline::model::AgentState;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::SlimConfig;
use stepline::ErrorCode;

mod common;
use common::vectors;

fn runs() -> Vec<Value> {
    vectors("agent-runs.json")
}

fn run(name_starts: &str) -> Value {
    runs()
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().starts_with(name_starts))
        .unwrap()
}

/// The envelopes of one turn, in dispatch order, decoded.
fn envelopes(turn: &Value) -> Vec<Value> {
    turn["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| decode_value(&item["envelope"]).unwrap().envelope)
        .collect()
}

/// Envelopes, slim snapshot and full state of a run's first turn.
fn input_of(name_starts: &str) -> DiagnoseInput {
    let case = run(name_starts);
    let turn = &case["expected"][0];
    DiagnoseInput {
        envelopes: envelopes(turn),
        snapshot: Some(turn["slim"].clone()),
        state: Some(turn["finalState"].clone()),
        snapshot_options: None,
    }
}

fn position(envs: &[Value], kind: &str, step: i64) -> usize {
    envs.iter()
        .position(|e| e["type"] == kind && e["payload"]["step_number"] == step)
        .unwrap()
}

fn at(v: &Value) -> Timestamp {
    chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap()
}

fn shift(v: &mut Value, by: Duration) {
    *v = Value::from(format_utc_millis(&(at(v) + by)));
}

fn with_code<'a>(found: &'a [Diagnostic], code: &str) -> Vec<&'a Diagnostic> {
    found.iter().filter(|d| d.code == code).collect()
}

fn codes(found: &[Diagnostic]) -> Vec<&'static str> {
    found.iter().map(|d| d.code).collect()
}

const BROADCAST_TERMINAL: [&str; 4] = ["completed", "failed", "cancelled", "stopped"];

#[test]
fn clean_runs_raise_no_errors_and_only_the_exception_path_warns() {
    let mut checked = 0;
    for case in runs() {
        let name = case["name"].as_str().unwrap();
        for turn in case["expected"].as_array().unwrap() {
            let envs = envelopes(turn);
            let found = diagnose(&DiagnoseInput {
                envelopes: envs.clone(),
                snapshot: Some(turn["slim"].clone()),
                state: Some(turn["finalState"].clone()),
                snapshot_options: Some(SlimConfig::standard()),
            });
            let errors: Vec<_> = found
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{name}: {errors:?}");
            // Quirk 7: a throwing tool leaves the broadcast status at `processing`.
            let ends = envs.iter().any(|e| {
                e["type"] == "agent.status"
                    && BROADCAST_TERMINAL.contains(&e["payload"]["status"].as_str().unwrap())
            });
            let expected: Vec<&str> = if ends {
                vec![]
            } else {
                vec!["final_status_missing"]
            };
            assert_eq!(codes(&found), expected, "{name}");
            checked += 1;
        }
    }
    assert_eq!(checked, 11);
}

#[test]
fn both_turns_of_the_multi_turn_run_together_are_clean() {
    let case = run("two turns on one adapter");
    let all: Vec<Value> = case["expected"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(envelopes)
        .collect();
    assert_eq!(all.len(), 12);
    let found = diagnose(&DiagnoseInput {
        envelopes: all,
        ..DiagnoseInput::default()
    });
    assert_eq!(found, vec![]);
}

// 1. tool_args_in_content

#[test]
fn tool_args_copied_into_snapshot_content_are_flagged() {
    let mut input = input_of("tool call then final answer");
    let snapshot = input.snapshot.as_mut().unwrap();
    let call = snapshot["messages"][1]["_metadata"]["tool_calls"][0].clone();
    *snapshot.pointer_entry("/messages/1/content").unwrap() = call["function"]["arguments"].clone();
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["tool_args_in_content"]);
    assert_eq!(found[0].path, "/snapshot/messages/1/content");
    assert_eq!(found[0].severity, Severity::Error);
    assert_eq!(found[0].evidence["tool_call_id"], call["id"]);
    assert_eq!(found[0].evidence["tool_name"], call["function"]["name"]);
    assert_eq!(found[0].evidence["content"], call["function"]["arguments"]);
}

#[test]
fn tool_args_in_state_content_are_flagged_even_when_reformatted() {
    let mut input = input_of("two tool calls in one step");
    let state = input.state.as_mut().unwrap();
    let messages = state
        .pointer_mut("/messageStore/sections/0/messages")
        .and_then(Value::as_array_mut)
        .unwrap();
    let i = messages
        .iter()
        .position(|m| m["_metadata"]["tool_calls"].is_array())
        .unwrap();
    let args = messages[i]["_metadata"]["tool_calls"][0]["function"]["arguments"].clone();
    let parsed: Value = stepline::json::from_str(args.as_str().unwrap()).unwrap();
    // Same JSON value, different text: still the arguments.
    let spaced: Vec<String> = parsed
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("  {} : {}", stepline::json::to_string(&**k), v))
        .collect();
    *messages[i].pointer_entry("/content").unwrap() =
        Value::from(format!("\n{{\n{}\n}}  ", spaced.join(",\n")));
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["tool_args_in_content"]);
    assert_eq!(
        found[0].path,
        format!("/state/messageStore/sections/0/messages/{i}/content")
    );
}

#[test]
fn assistant_text_that_differs_from_its_tool_args_is_not_flagged() {
    let mut input = input_of("tool call then final answer");
    let snapshot = input.snapshot.as_mut().unwrap();
    let args = snapshot["messages"][1]["_metadata"]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap()
        .replace("Paris", "Rome");
    *snapshot.pointer_entry("/messages/1/content").unwrap() = Value::from(args);
    // A tool message whose content equals the arguments is not an assistant message.
    *snapshot.pointer_entry("/messages/2/content").unwrap() =
        snapshot["messages"][1]["_metadata"]["tool_calls"][0]["function"]["arguments"].clone();
    assert!(with_code(&diagnose(&input), "tool_args_in_content").is_empty());
}

// 2. step_timing_inverted / step_timing_from_creation

#[test]
fn step_completed_stamped_before_its_start_is_flagged() {
    let mut input = input_of("tool call then final answer");
    let c = position(&input.envelopes, "agent.step.completed", 1);
    shift(
        input.envelopes[c].pointer_entry("/timestamp").unwrap(),
        Duration::seconds(-5),
    );
    let found = diagnose(&input);
    let inverted = with_code(&found, "step_timing_inverted");
    assert_eq!(inverted.len(), 1, "{found:?}");
    assert_eq!(inverted[0].path, format!("/envelopes/{c}/timestamp"));
    assert_eq!(inverted[0].evidence["step_number"], 1);
    assert_eq!(
        inverted[0].evidence["started_index"],
        position(&input.envelopes, "agent.step.started", 1)
    );
    // The inverted interval is not also reported as a duration mismatch.
    assert!(with_code(&found, "duration_inconsistent").is_empty());
}

#[test]
fn out_of_order_arrival_with_true_timestamps_is_not_inverted() {
    let mut input = input_of("tool call then final answer");
    let s = position(&input.envelopes, "agent.step.started", 2);
    let c = position(&input.envelopes, "agent.step.completed", 2);
    shift(
        input.envelopes[c].pointer_entry("/timestamp").unwrap(),
        Duration::seconds(3),
    );
    *input.envelopes[c]
        .pointer_entry("/payload/duration_ms")
        .unwrap() = json!(3000.0);
    input.envelopes.swap(s, c);
    assert_eq!(diagnose(&input), vec![]);
}

#[test]
fn state_step_result_completing_before_it_starts_is_flagged() {
    let mut input = input_of("direct final answer");
    let state = input.state.as_mut().unwrap();
    *state.pointer_entry("/stepResults/0/startedAt").unwrap() =
        json!("2026-01-20T12:00:05.000000+00:00");
    *state.pointer_entry("/stepResults/0/completedAt").unwrap() =
        json!("2026-01-20T12:00:00.250000+00:00");
    let found = diagnose(&input);
    let inverted = with_code(&found, "step_timing_inverted");
    assert_eq!(inverted.len(), 1, "{found:?}");
    assert_eq!(inverted[0].path, "/state/stepResults/0/completedAt");
}

#[test]
fn step_start_after_its_own_tool_started_is_creation_time() {
    let mut input = input_of("tool call then final answer");
    let state = input.state.as_mut().unwrap();
    let result = state.pointer_mut("/stepResults/0").unwrap();
    // The tool ran at 12:00:00 (whole seconds); the step object was created after it.
    let tool_start = at(&result["step"]["toolExecutions"][0]["startedAt"]);
    *result.pointer_entry("/startedAt").unwrap() =
        Value::from(format_utc_millis(&(tool_start + Duration::seconds(2))));
    *result.pointer_entry("/completedAt").unwrap() =
        Value::from(format_utc_millis(&(tool_start + Duration::seconds(3))));
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["step_timing_from_creation"]);
    assert_eq!(found[0].path, "/state/stepResults/0/startedAt");
    assert_eq!(found[0].evidence["tool_call_id"], "call_1");
}

#[test]
fn step_start_within_the_tool_start_second_is_not_creation_time() {
    let mut input = input_of("tool call then final answer");
    let state = input.state.as_mut().unwrap();
    let result = state.pointer_mut("/stepResults/0").unwrap();
    // DATE_ATOM drops the fraction: a tool "at 12:00:00" may have started at 12:00:00.9.
    let tool_start = at(&result["step"]["toolExecutions"][0]["startedAt"]);
    *result.pointer_entry("/startedAt").unwrap() = Value::from(format_utc_millis(
        &(tool_start + Duration::milliseconds(900)),
    ));
    *result.pointer_entry("/completedAt").unwrap() =
        Value::from(format_utc_millis(&(tool_start + Duration::seconds(2))));
    assert_eq!(diagnose(&input), vec![]);
}

// 3. duration_inconsistent

#[test]
fn step_duration_without_minutes_is_the_reference_quirk() {
    let mut input = input_of("direct final answer");
    let s = position(&input.envelopes, "agent.step.started", 1);
    let c = position(&input.envelopes, "agent.step.completed", 1);
    shift(
        input.envelopes[s].pointer_entry("/timestamp").unwrap(),
        -Duration::milliseconds(123_500),
    );
    let (start, end) = (
        at(&input.envelopes[s]["timestamp"]),
        at(&input.envelopes[c]["timestamp"]),
    );
    // What the reference writes for this interval (quirk 4): 3.5 s.
    *input.envelopes[c]
        .pointer_entry("/payload/duration_ms")
        .unwrap() = json!(step_duration_ms(&start, &end, true));
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["duration_inconsistent"]);
    assert_eq!(found[0].path, format!("/envelopes/{c}/payload/duration_ms"));
    assert_eq!(
        found[0].evidence["likely_cause"],
        "reference_minutes_dropped"
    );
    assert_eq!(found[0].evidence["duration_ms"], 3500.0);
    assert_eq!(found[0].evidence["interval_ms"], 123_500.0);
    assert!(
        found[0].message.contains("2 whole minute"),
        "{}",
        found[0].message
    );

    // The fixed encoder's duration agrees with the timestamps.
    *input.envelopes[c]
        .pointer_entry("/payload/duration_ms")
        .unwrap() = json!(step_duration_ms(&start, &end, false));
    assert_eq!(diagnose(&input), vec![]);
}

#[test]
fn step_duration_off_by_other_than_minutes_has_no_likely_cause() {
    let mut input = input_of("direct final answer");
    let c = position(&input.envelopes, "agent.step.completed", 1);
    *input.envelopes[c]
        .pointer_entry("/payload/duration_ms")
        .unwrap() = json!(10_000.0);
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["duration_inconsistent"]);
    assert_eq!(found[0].evidence["likely_cause"], Value::Null);
    // Within a second: broadcast timestamps trail the producer's own clock reads.
    *input.envelopes[c]
        .pointer_entry("/payload/duration_ms")
        .unwrap() = json!(900.0);
    assert_eq!(diagnose(&input), vec![]);
}

#[test]
fn negative_tool_duration_is_flagged() {
    let mut input = input_of("two tool calls in one step");
    let t = input
        .envelopes
        .iter()
        .rposition(|e| e["type"] == "agent.tool.completed")
        .unwrap();
    *input.envelopes[t]
        .pointer_entry("/payload/duration_ms")
        .unwrap() = json!(-998);
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["duration_inconsistent"]);
    assert_eq!(found[0].path, format!("/envelopes/{t}/payload/duration_ms"));
    assert_eq!(
        found[0].evidence["tool_name"],
        input.envelopes[t]["payload"]["tool_name"]
    );
}

// 4. time_limit_from_session_start

fn time_evaluation(evaluations: &Value) -> usize {
    evaluations
        .as_array()
        .unwrap()
        .iter()
        .position(|e| {
            e["criterion"]
                .as_str()
                .unwrap()
                .ends_with("ExecutionTimeLimit")
        })
        .unwrap()
}

#[test]
fn execution_time_measured_from_the_session_start_is_flagged() {
    let mut input = input_of("tool call then final answer");
    let c = position(&input.envelopes, "agent.continuation", 1);
    let evaluations = input.envelopes[c]
        .pointer_mut("/payload/evaluations")
        .unwrap();
    let j = time_evaluation(evaluations);
    // The session began an hour before this execution (the state was restored).
    let reason = evaluations[j]["reason"]
        .as_str()
        .unwrap()
        .replacen("0s/", "3600s/", 1);
    *evaluations.pointer_entry(&format!("/{j}/reason")).unwrap() = Value::from(reason);
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["time_limit_from_session_start"]);
    assert_eq!(
        found[0].path,
        format!("/envelopes/{c}/payload/evaluations/{j}/reason")
    );
    assert_eq!(found[0].evidence["reported_elapsed_seconds"], 3600.0);
    assert_eq!(found[0].evidence["execution_start_index"], 0);
}

#[test]
fn execution_time_close_to_the_real_interval_is_not_flagged() {
    let mut input = input_of("tool call then final answer");
    let c = position(&input.envelopes, "agent.continuation", 2);
    // The execution really ran ten minutes.
    for e in &mut input.envelopes[c..] {
        shift(
            e.pointer_entry("/timestamp").unwrap(),
            Duration::minutes(10),
        );
    }
    let evaluations = input.envelopes[c]
        .pointer_mut("/payload/evaluations")
        .unwrap();
    let j = time_evaluation(evaluations);
    let reason = evaluations[j]["reason"]
        .as_str()
        .unwrap()
        .replacen("0s/", "600s/", 1);
    *evaluations.pointer_entry(&format!("/{j}/reason")).unwrap() = Value::from(reason);
    // (The last step.completed moved with it: its duration now disagrees, nothing else.)
    assert_eq!(codes(&diagnose(&input)), vec!["duration_inconsistent"]);
}

#[test]
fn state_continuation_measured_from_the_session_start_is_flagged() {
    let mut input = input_of("direct final answer");
    let state = input.state.as_mut().unwrap();
    let last = state["stepResults"].as_array().unwrap().len() - 1;
    let evaluations = state
        .pointer_mut(&format!("/stepResults/{last}/outcome/evaluations"))
        .unwrap();
    let j = time_evaluation(evaluations);
    *evaluations
        .pointer_entry(&format!("/{j}/context/elapsedSeconds"))
        .unwrap() = json!(7200);
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["time_limit_from_session_start"]);
    assert_eq!(
        found[0].path,
        format!("/state/stepResults/{last}/outcome/evaluations/{j}/context/elapsedSeconds")
    );
    // Without executionStartedAt (never restored from storage) there is nothing to compare.
    *input
        .state
        .as_mut()
        .unwrap()
        .pointer_entry("/executionStartedAt")
        .unwrap() = Value::Null;
    assert_eq!(diagnose(&input), vec![]);
}

// 5. final_status_missing

#[test]
fn the_exception_path_never_broadcasts_a_final_status() {
    let input = input_of("tool throws (exception escapes ToolExecutor), default");
    let found = diagnose(&input);
    assert_eq!(codes(&found), vec!["final_status_missing"]);
    let last = input.envelopes.len() - 1;
    assert_eq!(found[0].severity, Severity::Warning);
    assert_eq!(found[0].path, format!("/envelopes/{last}"));
    assert_eq!(
        found[0].evidence["last_type"],
        input.envelopes[last]["type"]
    );
    assert_eq!(found[0].evidence["snapshot_status"], "failed");
    assert!(
        found[0].message.contains("\"failed\""),
        "{}",
        found[0].message
    );
}

#[test]
fn a_run_whose_terminal_status_was_lost_is_flagged() {
    let mut input = input_of("direct final answer");
    let terminal = input
        .envelopes
        .iter()
        .position(|e| e["type"] == "agent.status" && e["payload"]["status"] == "completed")
        .unwrap();
    input.envelopes.remove(terminal);
    assert_eq!(codes(&diagnose(&input)), vec!["final_status_missing"]);
}

#[test]
fn a_failed_turn_followed_by_a_new_turn_on_the_same_execution_is_flagged() {
    // After the exception path the status stays `processing`, so the next turn
    // (a minute later) broadcasts no `processing` again (only changes are).
    let throws = input_of("tool throws (exception escapes ToolExecutor), default").envelopes;
    let mut next = input_of("direct final answer").envelopes;
    next.remove(0);
    for e in &mut next {
        shift(e.pointer_entry("/timestamp").unwrap(), Duration::minutes(1));
    }
    let thrown = throws.len();
    let mut envelopes = throws;
    envelopes.extend(next);
    let found = diagnose(&DiagnoseInput {
        envelopes,
        ..DiagnoseInput::default()
    });
    assert_eq!(codes(&found), vec!["final_status_missing"]);
    assert_eq!(found[0].evidence["last_index"], thrown - 1);
}

#[test]
fn turns_are_told_apart_by_session_as_well_as_execution_id() {
    // Two sessions reusing one execution id, interleaved: the session whose tool
    // threw never ended, whatever the other session broadcast meanwhile.
    let label = |mut envs: Vec<Value>, session: &str| {
        for e in &mut envs {
            *e.pointer_entry("/session_id").unwrap() = json!(session);
            *e.pointer_entry("/execution_id").unwrap() = json!("exec-shared");
        }
        envs
    };
    let throws = label(
        input_of("tool throws (exception escapes ToolExecutor), default").envelopes,
        "session-a",
    );
    let clean = label(input_of("direct final answer").envelopes, "session-b");
    let mut envelopes = Vec::new();
    let (mut a, mut b) = (throws.into_iter(), clean.into_iter());
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        envelopes.extend(x.into_iter().chain(y));
    }
    let found = diagnose(&DiagnoseInput {
        envelopes: envelopes.clone(),
        ..DiagnoseInput::default()
    });
    assert_eq!(codes(&found), vec!["final_status_missing"]);
    let last_a = envelopes
        .iter()
        .rposition(|e| e["session_id"] == "session-a")
        .unwrap();
    assert_eq!(found[0].path, format!("/envelopes/{last_a}"));
}

#[test]
fn a_redelivered_step_start_does_not_open_a_new_turn() {
    let mut input = input_of("direct final answer");
    let s = position(&input.envelopes, "agent.step.started", 1);
    let again = input.envelopes[s].clone();
    input.envelopes.insert(s + 1, again);
    assert_eq!(diagnose(&input), vec![]);
}

// 6. tool_results_not_excluded

fn slim_case(name: &str) -> Value {
    vectors("slim-serializer.json")
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap()
}

const NO_RESULTS: &str =
    "serialize [includeToolResults=false] tool calls conversation with 3 steps (completed)";

#[test]
fn the_reference_snapshot_without_tool_results_still_leaks_them() {
    let case = slim_case(NO_RESULTS);
    let snapshot = case["expected"].clone();
    let config = SlimConfig::from_reference(&case["input"]["config"]).unwrap();
    assert!(!config.include_tool_results);
    let found = diagnose(&DiagnoseInput {
        snapshot: Some(snapshot.clone()),
        snapshot_options: Some(config),
        ..DiagnoseInput::default()
    });
    let leaking: Vec<String> = snapshot["messages"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "tool" && !m["_metadata"]["result"].is_null())
        .map(|(i, _)| format!("/snapshot/messages/{i}/_metadata/result"))
        .collect();
    assert!(!leaking.is_empty());
    let paths: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, leaking);
    assert!(found.iter().all(|d| d.code == "tool_results_not_excluded"));
    // The evidence names the call, not the leaked value.
    assert!(found[0].evidence["tool_call_id"].is_string());
    assert!(found[0].evidence.get("result").is_none());
}

#[test]
fn stepline_snapshot_without_tool_results_holds_none() {
    let case = slim_case(NO_RESULTS);
    let config = SlimConfig::from_reference(&case["input"]["config"]).unwrap();
    let now = at(&json!("2026-01-20T12:00:00.250Z"));
    let state = AgentState::from_value(&case["input"]["state"], &now).unwrap();
    let found = diagnose(&DiagnoseInput {
        snapshot: Some(slim_state(&state, &config)),
        snapshot_options: Some(config),
        ..DiagnoseInput::default()
    });
    assert_eq!(found, vec![]);
}

#[test]
fn a_snapshot_with_full_tool_messages_under_include_false_is_flagged_twice_per_message() {
    let mut input = input_of("tool call then final answer");
    input.snapshot_options = Some(SlimConfig::minimal());
    let found = diagnose(&input);
    let paths: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/snapshot/messages/2/_metadata/result",
            "/snapshot/messages/2/content"
        ]
    );
    // Taken with results included, the same snapshot is fine.
    input.snapshot_options = Some(SlimConfig::standard());
    assert_eq!(diagnose(&input), vec![]);
}

// diagnose_value: the JSON entry point

fn raw_input(name_starts: &str) -> Value {
    let case = run(name_starts);
    let turn = &case["expected"][0];
    let raw: Vec<Value> = turn["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["envelope"].clone())
        .collect();
    json!({"envelopes": raw, "snapshot": turn["slim"], "state": turn["finalState"]})
}

#[test]
fn diagnose_value_decodes_raw_envelopes_and_reads_the_options() {
    let mut raw = raw_input("tool call then final answer");
    *raw.pointer_entry("/includeToolResults").unwrap() = json!(false);
    let found = diagnose_value(&raw).unwrap();
    let mut input = input_of("tool call then final answer");
    input.snapshot_options = Some(SlimConfig {
        include_tool_results: false,
        ..SlimConfig::default()
    });
    assert_eq!(found, diagnose(&input));
    assert_eq!(codes(&found), vec!["tool_results_not_excluded"; 2]);
    let v = stepline::json::to_value_of(&found[0]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| &**k).collect();
    assert_eq!(keys, ["code", "severity", "path", "message", "evidence"]);
    assert_eq!(v["severity"], "error");
    assert!(CODES.contains(&v["code"].as_str().unwrap()));
}

#[test]
fn diagnose_value_errors_carry_a_code_and_a_path() {
    let mut raw = raw_input("direct final answer");
    *raw.pointer_entry("/envelopes/2/timestamp").unwrap() = json!("yesterday");
    let err = diagnose_value(&raw).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidTimestamp);
    assert_eq!(err.path.as_deref(), Some("/envelopes/2/timestamp"));

    let mut raw = raw_input("direct final answer");
    raw.pointer_mut("/envelopes/1/payload")
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove("step_number");
    let err = diagnose_value(&raw).unwrap_err();
    assert_eq!(err.code, ErrorCode::MissingField);
    assert_eq!(
        err.path.as_deref(),
        Some("/envelopes/1/payload/step_number")
    );

    for (bad, code, path) in [
        (
            json!({"envelope": []}),
            ErrorCode::InvalidValue,
            "/envelope",
        ),
        (
            json!({"envelopes": {}}),
            ErrorCode::InvalidType,
            "/envelopes",
        ),
        (
            json!({"envelopes": [7]}),
            ErrorCode::InvalidType,
            "/envelopes/0",
        ),
        (
            json!({"snapshot": "x"}),
            ErrorCode::InvalidType,
            "/snapshot",
        ),
        (json!({"state": [1]}), ErrorCode::InvalidType, "/state"),
        (
            json!({"includeToolResults": "no"}),
            ErrorCode::InvalidType,
            "/includeToolResults",
        ),
        (json!([]), ErrorCode::InvalidType, ""),
    ] {
        let err = diagnose_value(&bad).unwrap_err();
        assert_eq!((err.code, err.path.as_deref()), (code, Some(path)), "{bad}");
    }
}

#[test]
fn odd_shapes_and_text_never_panic() {
    // Every value of every state-model and slim vector, in every slot.
    let mut values: Vec<Value> = vec![];
    for file in ["state-model.json", "slim-serializer.json"] {
        for case in vectors(file) {
            values.push(case["input"].clone());
            values.push(case["expected"].clone());
        }
    }
    let odd = json!({
        "messages": [1, {"role": "assistant", "content": "ż{\"a\":1}", "_metadata": {"tool_calls": [7, {"arguments": "ż{\"a\":1}"}]}},
                     {"role": "tool", "content": ["x"], "_metadata": 3}],
        "stepResults": [{"startedAt": "ż", "completedAt": 5,
                         "outcome": {"evaluations": [{"criterion": "ExecutionTimeLimit", "reason": "ąs: ∞s/ NaNs/-s"}]}}],
        "executionStartedAt": "2026-01-20T12:00:00+00:00"
    });
    values.push(odd.clone());
    for v in &values {
        let input = DiagnoseInput {
            envelopes: vec![v.clone(), odd.clone()],
            snapshot: Some(v.clone()),
            state: Some(v.clone()),
            snapshot_options: Some(SlimConfig::minimal()),
        };
        let _ = diagnose(&input);
        let _ = diagnose_value(&json!({"snapshot": v, "state": v}));
    }
    let found = diagnose(&DiagnoseInput {
        snapshot: Some(odd.clone()),
        state: Some(odd),
        ..DiagnoseInput::default()
    });
    // The odd assistant message's content does equal its call's arguments.
    assert_eq!(codes(&found), vec!["tool_args_in_content"]);
}
