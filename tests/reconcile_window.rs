//! Reconciling runs longer than the snapshot's step window. A slim snapshot
//! lists the run's last N steps numbered 1..N inside the window, with
//! `step_count` the run's total (reference quirk 2); reconcile must place
//! them at the end of the run, leave the steps before the window as streamed
//! and mark them as outside it, not as differences.
//!
//! The long runs are made here the way the producer makes them: its events
//! through stepline's own encoder (debug preset), and alongside them the
//! full `AgentState` its loop builds, which the slim serializer then slims
//! with each preset.

use stepline::envelope::config::BroadcastConfig;
use stepline::envelope::encoder::Encoder;
use stepline::json;
use stepline::json::Value;
use stepline::model::time::{format_precise, from_epoch_millis, Timestamp};
use stepline::model::AgentState;
use stepline::session::reconcile::Report;
use stepline::session::Session;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::SlimConfig;

mod common;
use common::{session_of, vectors};

const START_MS: f64 = 1_768_910_400_000.0; // 2026-01-20T12:00:00Z
const TOOLS: [&str; 3] = ["search_logs", "query_metrics", "read_file"];

/// How the scripted run ends.
#[derive(Clone, Copy, PartialEq)]
enum Ending {
    /// The last step answers without tools; the run completes.
    Answer,
    /// The last step's tool throws: the producer's exception path (quirk 7),
    /// no tool completion, continuation, step completion or final status.
    ToolThrows,
}

/// A recorded run of `steps` steps: the envelopes in send order and the
/// final full state. Each step differs from its neighbours (tools, usage,
/// finish reason, errors), so a misplaced window cannot go unnoticed.
struct Run {
    envelopes: Vec<Value>,
    state: Value,
}

fn at(ms: f64) -> Timestamp {
    from_epoch_millis(ms).unwrap()
}

fn usage(input: i64, output: i64) -> Value {
    json!({"input": input, "output": output, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0})
}

fn outcome(go_on: bool, stop_reason: &str, resolved_by: &str) -> Value {
    let decision = if go_on { "request" } else { "stop" };
    json!({"decision": decision, "shouldContinue": go_on, "resolvedBy": resolved_by,
           "stopReason": stop_reason,
           "evaluations": [{"criterion": "Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck",
                            "decision": decision, "reason": "scripted", "stopReason": null,
                            "context": {"hasToolCalls": go_on}}]})
}

fn long_run(steps: i64, ending: Ending) -> Run {
    let mut encoder = Encoder::new("sess-long", "exec-long", BroadcastConfig::debug());
    let mut envelopes = Vec::new();
    let mut clock = START_MS;
    let mut emit = |event: &str, args: Value, clock: f64| {
        for b in encoder.push(event, &args, &at(clock)).unwrap() {
            envelopes.push(b.envelope);
        }
    };
    let mut messages = vec![json!({"role": "user", "content": "Why did checkout get slow?"})];
    let mut state_steps = Vec::new();
    let mut results = Vec::new();
    let mut total = usage(0, 0);
    for k in 1..=steps {
        let last = k == steps;
        let started = clock;
        let input_messages = Value::Array(messages.clone());
        emit(
            "AgentStepStarted",
            json!({"agentId": "agent-long", "parentAgentId": null, "stepNumber": k,
                   "messageCount": messages.len(), "availableTools": TOOLS.len()}),
            clock,
        );
        let throws = last && ending == Ending::ToolThrows;
        // Tool steps call one tool, every third step two; the answer none.
        let calls: Vec<&str> = match (last && !throws, k % 3) {
            (true, _) => vec![],
            (false, 0) => vec![TOOLS[0], TOOLS[1]],
            (false, r) => vec![TOOLS[r as usize]],
        };
        let text = match (last, throws) {
            (true, false) => format!("All {steps} steps done: the pool size halved at the deploy."),
            (true, true) => String::new(),
            _ => format!("Step {k}: asking {}.\n\n", calls.join(" and ")),
        };
        for piece in text.split_inclusive(' ') {
            clock += 5.0;
            emit("StreamEventReceived", json!({ "content": piece }), clock);
        }
        let step_usage = usage(100 + k, 10 + k % 7);
        let tool_calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(j, name)| json!({"name": name, "arguments": {"step": k}, "id": format!("call_{k}_{j}")}))
            .collect();
        let mut executions = Vec::new();
        let mut errors = Vec::new();
        let mut outputs = vec![if tool_calls.is_empty() {
            json!({"role": "assistant", "content": text})
        } else {
            json!({"role": "assistant", "content": text, "_metadata": {"tool_calls": tool_calls.iter().map(|c| json!({
                "id": c["id"], "type": "function",
                "function": {"name": c["name"], "arguments": json::to_string(&c["arguments"])}})).collect::<Vec<_>>()}})
        }];
        for (j, name) in calls.iter().enumerate() {
            clock += 10.0;
            let tool_started = clock;
            emit(
                "ToolCallStarted",
                json!({"tool": name, "args": {"step": k}}),
                clock,
            );
            if throws {
                errors.push(json!({"message": "Connection refused", "class": "RuntimeException"}));
                break;
            }
            clock += 30.0 + j as f64;
            // Every tenth step's first tool fails (and the run goes on).
            let failed = k % 10 == 0 && j == 0;
            let error = failed.then(|| format!("timeout in step {k}"));
            emit(
                "ToolCallCompleted",
                json!({"tool": name, "success": !failed, "error": error,
                       "startedAt": format_precise(&at(tool_started)), "endedAt": format_precise(&at(clock))}),
                clock,
            );
            let result = if failed {
                Value::Null
            } else {
                json!({ "rows": k })
            };
            executions.push(
                json!({"toolCall": tool_calls[j], "tool": name, "args": {"step": k},
                "result": result, "error": error,
                "startedAt": format_precise(&at(tool_started)), "endedAt": format_precise(&at(clock))}),
            );
            outputs.push(json!({"role": "tool", "content": if failed { format!("Error in tool call: timeout in step {k}") } else { json::to_string(&result) },
                "_metadata": {"tool_call_id": tool_calls[j]["id"], "tool_name": name, "result": result}}));
            if let Some(e) = error {
                errors.push(json!({"message": e, "class": "RuntimeException"}));
            }
        }
        clock += 20.0;
        let finish = if calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        let step_type = match (errors.is_empty(), calls.is_empty()) {
            (false, _) => "error",
            (true, false) => "tool_execution",
            (true, true) => "final_response",
        };
        let step = if throws {
            // What the producer keeps of a step whose tool threw (agent-runs.json).
            outputs.clear();
            json!({"stepInfo": {"id": format!("step-{k}"), "createdAt": format_precise(&at(started))},
                "inputMessages": input_messages, "outputMessages": [], "toolCalls": [], "toolExecutions": [],
                "errors": errors, "usage": usage(0, 0),
                "inferenceResponse": {"content": "", "finishReason": "", "toolCalls": [], "reasoningContent": "",
                    "usage": usage(0, 0), "responseData": {"statusCode": 0, "body": "", "headers": [], "isStreamed": false},
                    "isPartial": false, "id": format!("inf-{k}"), "createdAt": format_precise(&at(started)),
                    "updatedAt": format_precise(&at(clock))},
                "stepType": "error"})
        } else {
            json!({"stepInfo": {"id": format!("step-{k}"), "createdAt": format_precise(&at(started))},
                "inputMessages": input_messages, "outputMessages": outputs, "toolCalls": tool_calls,
                "toolExecutions": executions, "errors": errors, "usage": step_usage,
                "inferenceResponse": {"content": text, "finishReason": finish, "toolCalls": tool_calls,
                    "reasoningContent": "", "usage": step_usage,
                    "responseData": {"statusCode": 200, "body": "", "headers": [], "isStreamed": true},
                    "isPartial": false, "id": format!("inf-{k}"), "createdAt": format_precise(&at(started)),
                    "updatedAt": format_precise(&at(clock))},
                "stepType": step_type})
        };
        let outcome = match (last, throws) {
            (false, _) => outcome(
                true,
                "completed",
                "Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck",
            ),
            (true, false) => outcome(false, "completed", "aggregate"),
            (true, true) => outcome(
                false,
                "error",
                "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ErrorPolicyCriterion",
            ),
        };
        if !throws {
            total = usage(
                total["input"].as_i64().unwrap() + step_usage["input"].as_i64().unwrap(),
                total["output"].as_i64().unwrap() + step_usage["output"].as_i64().unwrap(),
            );
            // The producer evaluates continuation before it announces the
            // step's completion (quirk 6).
            emit(
                "ContinuationEvaluated",
                json!({"agentId": "agent-long", "parentAgentId": null, "stepNumber": k, "outcome": outcome}),
                clock,
            );
            let messages_text: Vec<Value> = errors.iter().map(|e| e["message"].clone()).collect();
            emit(
                "AgentStepCompleted",
                json!({"agentId": "agent-long", "parentAgentId": null, "stepNumber": k,
                       "hasToolCalls": !calls.is_empty(), "errorCount": errors.len(),
                       "errorMessages": messages_text.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; "),
                       "usage": step_usage, "finishReason": finish, "startedAt": format_precise(&at(started))}),
                clock,
            );
        }
        messages.extend(outputs);
        results.push(json!({"step": step, "outcome": outcome,
            "startedAt": format_precise(&at(started)), "completedAt": format_precise(&at(clock))}));
        state_steps.push(step);
    }
    let status = if ending == Ending::ToolThrows {
        "failed"
    } else {
        "completed"
    };
    let state = json!({
        "agentId": "agent-long", "parentAgentId": null,
        "currentStepStartedAt": null, "executionStartedAt": format_precise(&at(START_MS)),
        "metadata": [], "cachedContext": {"messages": [], "tools": [], "toolChoice": [], "responseFormat": []},
        "usage": total,
        "messageStore": {"sections": [{"name": "messages", "messages": messages}], "parameters": []},
        "stateInfo": {"id": "state-long", "startedAt": format_precise(&at(START_MS - 60_000.0)),
                      "updatedAt": format_precise(&at(clock)), "cumulativeExecutionSeconds": 0.0},
        "currentStep": state_steps.last().cloned(), "status": status,
        "steps": state_steps, "stepResults": results,
    });
    Run { envelopes, state }
}

fn slim(state: &Value, config: &SlimConfig) -> Value {
    let now = at(START_MS + 3_600_000.0);
    slim_state(&AgentState::from_value(state, &now).unwrap(), config)
}

fn presets() -> [(&'static str, SlimConfig); 3] {
    [
        ("standard", SlimConfig::standard()),
        ("minimal", SlimConfig::minimal()),
        ("full", SlimConfig::full()),
    ]
}

fn described(r: &Report) -> Vec<String> {
    r.differences
        .iter()
        .map(|d| format!("{} {} {}", d.kind, d.path, d.message))
        .collect()
}

fn reconciled_steps(r: &Report, s: &Session) -> Vec<Value> {
    r.to_value(s)["view"]["executions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["steps"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_30_and_a_120_step_run_reconcile_as_consistent_with_every_preset() {
    for steps in [30, 120] {
        let run = long_run(steps, Ending::Answer);
        let s = session_of(&run.envelopes);
        assert_eq!(
            s.view()["executions"][0]["steps"].as_array().unwrap().len() as i64,
            steps
        );
        for (preset, config) in presets() {
            let snapshot = slim(&run.state, &config);
            assert_eq!(snapshot["step_count"], steps, "{steps} {preset}");
            let r = s.reconcile(&snapshot);
            assert_eq!(
                described(&r),
                Vec::<String>::new(),
                "{steps} steps, {preset}"
            );
            assert!(r.consistent());
            let listed = config.max_steps.min(steps) * i64::from(config.include_steps);
            assert_eq!(r.window.listed as i64, listed, "{steps} {preset}");
            assert_eq!(r.window.last, steps);
            assert_eq!(r.window.first, steps - listed + 1, "{steps} {preset}");
            assert_eq!(
                r.window.outside,
                (1..=steps - listed).collect::<Vec<_>>(),
                "{steps} {preset}"
            );
        }
    }
}

#[test]
fn every_step_keeps_its_own_data_and_steps_outside_the_window_are_marked() {
    let run = long_run(120, Ending::Answer);
    let s = session_of(&run.envelopes);
    let streamed = s.view()["executions"][0]["steps"].clone();
    for (preset, config) in presets() {
        let r = s.reconcile(&slim(&run.state, &config));
        let first = r.window.first;
        let steps = reconciled_steps(&r, &s);
        assert_eq!(steps.len(), 120, "{preset}");
        for (k, step) in steps.iter().enumerate() {
            let n = k as i64 + 1;
            let mut own = step.clone();
            let marker = own.as_object_mut().unwrap().remove("snapshot_window");
            let expected = if n >= first { "inside" } else { "outside" };
            assert_eq!(marker, Some(Value::from(expected)), "{preset} step {n}");
            assert_eq!(own, streamed[k], "{preset}: step {n} keeps its own data");
        }
        let v = r.window.to_value();
        assert_eq!(v["outside_step_count"], first - 1, "{preset}");
    }
    let r = s.reconcile(&slim(&run.state, &SlimConfig::standard()));
    let v = r.to_value(&s);
    assert_eq!(
        v["window"],
        json!({"step_count": 120, "listed": 20, "first_step": 101, "last_step": 120,
               "outside_steps": (1..=100).collect::<Vec<i64>>(), "outside_step_count": 100})
    );
    // Each step's own finish reason and usage, e.g. a tool step and the answer.
    let steps = reconciled_steps(&r, &s);
    assert_eq!(steps[0]["finish_reason"], "tool_calls");
    assert_eq!(steps[0]["usage"]["total"], 101 + 11);
    assert_eq!(steps[119]["finish_reason"], "stop");
    assert_eq!(steps[119]["usage"]["total"], 220 + 10 + 120 % 7);
}

/// The reproduction: a 2-step reference run against a last-1 window
/// used to report six differences and write step 2's `stop` onto step 1.
#[test]
fn a_reference_run_against_a_last_1_window_is_consistent_and_keeps_step_1() {
    let case = vectors("agent-runs.json")
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("tool call then"))
        .unwrap();
    let turn = &case["expected"][0];
    let envelopes: Vec<Value> = turn["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["envelope"].clone())
        .collect();
    let s = session_of(&envelopes);
    let config = SlimConfig {
        max_steps: 1,
        ..SlimConfig::standard()
    };
    let snapshot = slim(&turn["finalState"], &config);
    assert_eq!(
        snapshot["steps"][0]["step_number"], 1,
        "numbered in the window"
    );
    let r = s.reconcile(&snapshot);
    assert_eq!(described(&r), Vec::<String>::new());
    let steps = reconciled_steps(&r, &s);
    assert_eq!(steps[0]["finish_reason"], "tool_calls");
    assert_eq!(steps[0]["snapshot_window"], "outside");
    assert_eq!(steps[1]["finish_reason"], "stop");
    assert_eq!(steps[1]["snapshot_window"], "inside");
    assert_eq!(r.window.outside, [1]);
}

#[test]
fn a_difference_inside_the_window_names_the_run_step() {
    let run = long_run(30, Ending::Answer);
    let s = session_of(&run.envelopes);
    let mut snapshot = slim(&run.state, &SlimConfig::standard());
    *snapshot.pointer_entry("/steps/0/finish_reason").unwrap() = json!("length");
    let r = s.reconcile(&snapshot);
    assert_eq!(
        described(&r),
        ["field_mismatch /steps/0/finish_reason step 11: `finish_reason` differs between stream and final state"]
    );
    assert_eq!(r.differences[0].step, Some(11));
    assert_eq!(r.to_value(&s)["differences"][0]["step"], 11);
    assert_eq!(
        reconciled_steps(&r, &s)[10]["finish_reason"],
        "length",
        "the snapshot wins on run step 11"
    );
}

#[test]
fn a_window_step_that_never_streamed_is_missing_at_its_run_number() {
    let run = long_run(30, Ending::Answer);
    let step_of = |e: &Value| e["payload"]["step_number"].as_i64();
    // Drop every envelope from step 25's start up to step 26's start.
    let mut inside = false;
    let kept: Vec<Value> = run
        .envelopes
        .iter()
        .filter(|e| {
            if e["type"] == "agent.step.started" {
                inside = step_of(e) == Some(25);
            }
            !inside
        })
        .cloned()
        .collect();
    let s = session_of(&kept);
    let r = s.reconcile(&slim(&run.state, &SlimConfig::standard()));
    let missing: Vec<_> = r
        .differences
        .iter()
        .filter(|d| d.kind == "missing_step")
        .map(|d| (d.path.as_str(), d.step))
        .collect();
    assert_eq!(missing, [("/steps/14", Some(25))]);
    // Besides: its lost events (the step, and its text's chunks).
    let others: Vec<_> = r
        .differences
        .iter()
        .filter(|d| d.kind != "missing_step")
        .map(|d| (d.kind, d.step, d.path.split('/').nth(2).unwrap_or("")))
        .collect();
    assert_eq!(others[0], ("lost_event", Some(25), "steps"));
    assert!(others.len() > 1);
    assert!(others[1..]
        .iter()
        .all(|d| *d == ("lost_event", None, "chunks")));
}

#[test]
fn steps_streamed_past_the_snapshot_count_are_extra_not_outside() {
    let run = long_run(30, Ending::Answer);
    let s = session_of(&run.envelopes);
    let mut snapshot = slim(&run.state, &SlimConfig::minimal());
    *snapshot.pointer_entry("/step_count").unwrap() = json!(28);
    let r = s.reconcile(&snapshot);
    let extra: Vec<_> = r.differences.iter().map(|d| (d.kind, d.step)).collect();
    assert_eq!(extra, [("extra_step", Some(29)), ("extra_step", Some(30))]);
    let steps = reconciled_steps(&r, &s);
    assert_eq!(steps[27]["snapshot_window"], "outside");
    assert_eq!(steps[28]["snapshot_window"], "beyond");
    assert_eq!(r.window.outside.len(), 28);
}

#[test]
fn a_long_run_on_the_exception_path_differs_only_by_the_reference_cause() {
    let run = long_run(30, Ending::ToolThrows);
    let s = session_of(&run.envelopes);
    for (preset, config) in presets() {
        let r = s.reconcile(&slim(&run.state, &config));
        let unexplained: Vec<_> = r
            .differences
            .iter()
            .filter(|d| d.cause.is_none())
            .map(|d| format!("{} {} {}", d.kind, d.path, d.message))
            .collect();
        assert_eq!(unexplained, Vec::<String>::new(), "{preset}");
        let kinds: Vec<_> = r.differences.iter().map(|d| (d.kind, d.step)).collect();
        let expected: &[(&str, Option<i64>)] = if config.include_steps {
            &[
                ("status_mismatch", None),
                ("step_not_completed", Some(30)),
                ("tool_call_unexpected", Some(30)),
            ]
        } else {
            &[("status_mismatch", None)]
        };
        assert_eq!(kinds, expected, "{preset}");
        assert_eq!(
            r.to_value(&s)["view"]["status"],
            "failed",
            "{preset}: the snapshot wins"
        );
    }
}

#[test]
fn reconcile_of_a_session_without_steps_against_a_long_snapshot_names_every_listed_step() {
    let run = long_run(30, Ending::Answer);
    let s = Session::new(None);
    let r = s.reconcile(&slim(&run.state, &SlimConfig::standard()));
    let missing: Vec<_> = r
        .differences
        .iter()
        .filter(|d| d.kind == "missing_step")
        .filter_map(|d| d.step)
        .collect();
    assert_eq!(missing, (11..=30).collect::<Vec<_>>());
    assert!(r.window.outside.is_empty());
}
