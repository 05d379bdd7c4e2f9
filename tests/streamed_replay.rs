//! "What if" from a streamed execution (`Session::replay_streamed`): the
//! state built from the stream replays under other criteria, each step keeps
//! the continuation it streamed as its recorded outcome, and the result says
//! how the run itself ended as streamed — a run whose driver threw never
//! finished; it did not "stop (completed)".

use stepline::json;
use stepline::json::Value;
use stepline::model::continuation::spec::parse_criteria;
use stepline::session::Session;

mod common;
use common::{corpus_session, Corpus};

fn criteria(v: Value) -> Vec<stepline::model::continuation::Criterion> {
    parse_criteria(&v, "/criteria").unwrap()
}

const P: &str = "Cognesy\\Addons\\Agent\\Core\\Continuation\\";

/// A v1.22 debug-preset run of `steps` steps: tool steps that request
/// another step, then an answer step that ends it (as bench/generate-envelopes.mjs).
fn v122_run(steps: i64) -> Session {
    let mut s = Session::new(None);
    let mut n = 0;
    let mut push = |t: &str, p: Value| {
        n += 1;
        let at = format!("2026-01-20T12:{:02}:{:02}.000Z", n / 60, n % 60);
        s.ingest_value(&json!({"type": t, "session_id": "s", "execution_id": "e", "timestamp": at, "payload": p}))
            .unwrap();
    };
    push(
        "agent.status",
        json!({"status": "processing", "previous_status": "idle"}),
    );
    for step in 1..=steps {
        let more = step < steps;
        push("agent.step.started", json!({"step_number": step}));
        if more {
            let id = format!("call_{step}");
            push(
                "agent.tool.started",
                json!({"tool": "search", "tool_call_id": id.clone(), "args": {"q": step}}),
            );
            push(
                "agent.tool.completed",
                json!({"tool": "search", "tool_call_id": id, "success": true}),
            );
        } else {
            push(
                "agent.status",
                json!({"status": "completed", "previous_status": "processing"}),
            );
        }
        let resolved = if more {
            format!("{P}ToolCallPresenceCheck")
        } else {
            "aggregate".into()
        };
        let last = if more {
            json!({"criterion": format!("{P}ToolCallPresenceCheck"), "decision": "request", "reason": "Tool calls present, requesting continuation"})
        } else {
            json!({"criterion": format!("{P}ToolCallPresenceCheck"), "decision": "stop", "reason": "No tool calls, allowing stop"})
        };
        push(
            "agent.continuation",
            json!({"step_number": step, "should_continue": more, "stop_reason": "completed", "resolved_by": resolved,
            "evaluations": [{"criterion": format!("{P}StepsLimit"), "decision": "allow", "reason": format!("Steps under limit: {step}/100")}, last]}),
        );
        push(
            "agent.step.completed",
            json!({"step_number": step, "has_tool_calls": more, "errors": 0, "finish_reason": if more { "tool_calls" } else { "stop" }, "usage": {"input": 100, "output": 10}}),
        );
    }
    s
}

/// The latest execution replayed from its stream under `criteria` (a criteria spec).
fn latest_under(
    s: &Session,
    criteria_spec: Value,
    now: stepline::model::Timestamp,
) -> stepline::session::streamed_replay::StreamedReplay {
    s.replay_streamed(
        None,
        None,
        &criteria(criteria_spec),
        Default::default(),
        now,
    )
    .unwrap()
}

fn now() -> stepline::model::Timestamp {
    Corpus::V1_22.now()
}

#[test]
fn a_39_step_v1_22_run_stops_where_the_new_limit_says_and_keeps_what_it_streamed() {
    let s = v122_run(39);
    let r = s
        .replay_streamed(
            None,
            Some("e"),
            &criteria(json!({"defaults": {"maxSteps": 10}})),
            Default::default(),
            now(),
        )
        .unwrap();
    assert_eq!(r.replay.steps.len(), 39);
    assert_eq!(r.replay.stops_at_step(), Some(10));
    let ten = &r.replay.steps[9];
    assert!(
        ten.changed(),
        "the stream went on after step 10; the new limit stops it"
    );
    let recorded = ten.recorded.as_ref().unwrap();
    assert!(recorded.should_continue);
    assert!(
        !r.replay.steps[38]
            .recorded
            .as_ref()
            .unwrap()
            .should_continue
    );
    assert!(r.recorded_run.ended);
    assert_eq!(r.recorded_run.status.as_deref(), Some("completed"));
    assert_eq!(r.recorded_run.last_step, Some(39));
    assert_eq!(
        r.recorded_run.summary,
        "Ended completed after step 39. Stopped (completed): nothing requested another step, so the run ended."
    );
    // Under the limits it streamed with, nothing changes.
    let same = s
        .replay_streamed(
            Some(0),
            None,
            &criteria(json!({"defaults": {"maxSteps": 100}})),
            Default::default(),
            now(),
        )
        .unwrap();
    assert!(
        same.replay.steps.iter().all(|st| !st.changed()),
        "{:?}",
        same.replay
            .steps
            .iter()
            .map(|s| s.outcome.explanation())
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_v1_22_run_whose_tool_threw_never_finished_as_streamed() {
    let s = corpus_session(
        Corpus::V1_22,
        "tool throws (exception escapes ToolExecutor), default policy [debug]",
    );
    let r = latest_under(&s, json!({"defaults": {}}), now());
    assert!(!r.recorded_run.ended, "{:?}", r.recorded_run);
    assert!(
        r.recorded_run
            .summary
            .starts_with("Never finished: no final status was streamed"),
        "{}",
        r.recorded_run.summary
    );
    assert!(!r.recorded_run.summary.contains("stopped (completed)"));
}

#[test]
fn v2_7_runs_replay_from_their_stream_and_say_how_they_ended() {
    let s = corpus_session(
        Corpus::V2_7,
        "steps limit 2 reached (model always calls tools) [debug]",
    );
    let r = latest_under(
        &s,
        json!([{"kind": "steps_limit", "max": 1}]),
        Corpus::V2_7.now(),
    );
    assert_eq!(r.replay.stops_at_step(), Some(1));
    assert!(r.replay.steps[0].changed());
    assert_eq!(r.recorded_run.status.as_deref(), Some("stopped"));

    let failed = corpus_session(Corpus::V2_7, "driver exception on first inference [debug]");
    let r = latest_under(&failed, json!({"defaults": {}}), Corpus::V2_7.now());
    assert!(r.recorded_run.ended);
    assert_eq!(r.recorded_run.status.as_deref(), Some("failed"));
    assert!(
        r.recorded_run.summary.starts_with("Failed"),
        "{}",
        r.recorded_run.summary
    );
    assert!(r.recorded_run.error.is_some(), "{:?}", r.recorded_run);
}

#[test]
fn an_unknown_execution_is_a_typed_error_with_its_path() {
    let s = v122_run(2);
    let e = s
        .replay_streamed(
            Some(3),
            None,
            &criteria(json!([])),
            Default::default(),
            now(),
        )
        .unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (stepline::ErrorCode::InvalidValue, Some("/execution"))
    );
    let e = s
        .replay_streamed(
            None,
            Some("nope"),
            &criteria(json!([])),
            Default::default(),
            now(),
        )
        .unwrap_err();
    assert!(e.message.contains("nope"));
}

#[test]
fn a_step_whose_continuation_was_not_streamed_replays_without_a_recorded_outcome() {
    let s = corpus_session(
        Corpus::V1_22,
        "tool throws (exception escapes ToolExecutor), default policy [debug]",
    );
    let r = latest_under(&s, json!({"defaults": {}}), now());
    let last = r.replay.steps.last().unwrap();
    assert!(
        last.recorded.is_none(),
        "the thrown step streamed no continuation"
    );
    assert!(!last.changed());
    println!("{}", r.recorded_run.summary);
}
