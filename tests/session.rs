//! Live sessions: the delivery rules (redelivery, any order, foreign
//! sessions, gaps) and reconciliation against the reference's own runs,
//! in order and perturbed.

use stepline::json;
use stepline::json::Value;
use stepline::session::reconcile::Report;
use stepline::session::Session;

mod common;
use common::{session_of, vectors, view_of, Rng};

/// The fuzz checks' model of the JS side's patch application.
#[path = "../fuzz/src/checks.rs"]
mod checks;

fn agent_runs() -> Vec<Value> {
    vectors("agent-runs.json")
}

/// One turn of a reference run: its envelopes and final slim snapshots.
struct Turn {
    envelopes: Vec<Value>,
    slim: Value,
    slim_full: Value,
}

/// Every run as `(name, config, turns)`.
fn runs() -> Vec<(String, String, Vec<Turn>)> {
    agent_runs()
        .into_iter()
        .map(|case| {
            let turns = case["expected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| Turn {
                    envelopes: t["envelopes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| e["envelope"].clone())
                        .collect(),
                    slim: t["slim"].clone(),
                    slim_full: t["slimFull"].clone(),
                })
                .collect();
            (
                case["name"].as_str().unwrap().to_string(),
                case["input"]["broadcastConfig"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                turns,
            )
        })
        .collect()
}

fn kinds(r: &Report) -> Vec<&'static str> {
    r.differences.iter().map(|d| d.kind).collect()
}

/// Differences the reference causes itself (its exception path, quirk 7).
fn unexplained(r: &Report) -> Vec<String> {
    r.differences
        .iter()
        .filter(|d| d.cause.is_none())
        .map(|d| format!("{} {} {}", d.kind, d.path, d.message))
        .collect()
}

fn envelope(kind: &str, payload: Value) -> Value {
    json!({"type": kind, "session_id": "s1", "execution_id": "e1",
           "timestamp": "2026-01-20T12:00:00.250Z", "payload": payload})
}

// ---- reconciliation of the reference's own runs -----------------------------

#[test]
fn every_reference_run_in_order_reconciles_except_for_the_reference_exception_path() {
    let mut checked = 0;
    for (name, _, turns) in runs() {
        let mut s = Session::new(None);
        for turn in &turns {
            for e in &turn.envelopes {
                let out = s.ingest_value(e).unwrap();
                assert!(out.applied, "{name}: {e}");
            }
            for snap in [&turn.slim, &turn.slim_full] {
                let r = s.reconcile(snap);
                assert_eq!(unexplained(&r), Vec::<String>::new(), "{name}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 22);
}

#[test]
fn the_exception_path_is_named_as_the_reference_cause() {
    for (name, _, turns) in runs().into_iter().filter(|r| r.0.contains("throws")) {
        let s = session_of(&turns[0].envelopes);
        let r = s.reconcile(&turns[0].slim);
        assert_eq!(
            kinds(&r),
            [
                "status_mismatch",
                "step_not_completed",
                "tool_call_unexpected"
            ],
            "{name}"
        );
        assert!(r
            .differences
            .iter()
            .all(|d| d.cause == Some("reference_exception_path")));
        assert_eq!(
            r.to_value(&s)["view"]["status"],
            "failed",
            "{name}: the snapshot wins"
        );
        assert_eq!(s.status(), Some("processing"), "{name}: the stream says");
    }
}

#[test]
fn reconcile_reports_status_with_the_state_mapping() {
    // steps_limit stops are broadcast `stopped` but the state says completed.
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.starts_with("steps limit"))
        .unwrap();
    let s = session_of(&turns[0].envelopes);
    assert_eq!(s.view()["state_status"], "completed");
    let mut snap = turns[0].slim.clone();
    *snap.pointer_entry("/status").unwrap() = json!("failed");
    let r = s.reconcile(&snap);
    assert_eq!(kinds(&r), ["status_mismatch"]);
    assert_eq!(r.differences[0].path, "/status");
    assert_eq!(r.differences[0].cause, None);
}

#[test]
fn dropping_any_one_envelope_is_named_by_exactly_one_difference() {
    let mut checked = 0;
    for (name, _, turns) in runs() {
        let turn = &turns[turns.len() - 1];
        let prefix: Vec<Value> = turns[..turns.len() - 1]
            .iter()
            .flat_map(|t| t.envelopes.clone())
            .collect();
        let baseline = kinds(
            &session_of(&[prefix.clone(), turn.envelopes.clone()].concat())
                .reconcile(&turn.slim_full),
        );
        for drop in 0..turn.envelopes.len() {
            let mut events = prefix.clone();
            events.extend(
                turn.envelopes
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != drop)
                    .map(|(_, e)| e.clone()),
            );
            let r = session_of(&events).reconcile(&turn.slim_full);
            let dropped = turn.envelopes[drop]["type"].as_str().unwrap();
            let continuations = turn
                .envelopes
                .iter()
                .filter(|e| e["type"] == "agent.continuation")
                .count();
            let status = turn.envelopes[drop]["payload"]["status"].as_str();
            // The reference's exception path (no final status, no step
            // completion, a throwing tool the final state does not list)
            // leaves some losses with nothing to compare against.
            let exception = baseline.contains(&"step_not_completed");
            let expected: Vec<&str> = match (dropped, status) {
                ("agent.status", Some("processing")) if drop == 0 && exception => vec![],
                // The reference reuses the execution id across turns: without
                // the turn-opening status the second turn merges into the
                // first, whose steps the final state then does not list.
                ("agent.status", Some("processing")) if drop == 0 && !prefix.is_empty() => {
                    vec!["extra_step", "tool_call_unexpected"]
                }
                ("agent.status", Some("processing")) if drop == 0 => vec!["lost_event"],
                ("agent.status", _) => vec!["status_mismatch"],
                ("agent.step.started", _) if exception => vec![],
                // Its tools then count as the previous step's: as redeliveries
                // when byte-identical to that step's, as unexpected runs there
                // otherwise; either way missing from their own step.
                ("agent.step.started", _) => {
                    let mut k = vec!["lost_event"];
                    // Without an earlier step the tools still land in step 1.
                    let previous = previous_start(&turn.envelopes, drop)
                        .map(|p| segment_tools(&turn.envelopes, p));
                    let own = if previous.is_some() {
                        segment_tools(&turn.envelopes, drop)
                    } else {
                        vec![]
                    };
                    let previous = previous.unwrap_or_default();
                    for t in own.iter().filter(|t| t["type"] == "agent.tool.started") {
                        k.push("tool_call_missing");
                        if !previous.contains(t) {
                            k.push("tool_call_unexpected");
                        }
                    }
                    k
                }
                ("agent.step.completed", _) => vec!["step_not_completed"],
                ("agent.tool.started", _) if exception => vec![],
                ("agent.tool.started" | "agent.tool.completed", _) => vec!["lost_event"],
                // Detectable only when the turn streams other decisions.
                ("agent.continuation", _) if continuations > 1 => vec!["lost_event"],
                ("agent.continuation", _) => vec![],
                other => panic!("{name}: unexpected type {other:?}"),
            };
            let mut got = kinds(&r);
            for k in &baseline {
                if let Some(i) = got.iter().position(|g| g == k) {
                    got.remove(i);
                }
            }
            let mut expected = expected;
            got.sort();
            expected.sort();
            assert_eq!(
                got, expected,
                "{name}: drop {drop} ({dropped}): {:?}",
                r.differences
            );
            checked += 1;
        }
    }
    assert!(checked > 60, "{checked}");
}

/// The tool events after the `agent.step.started` at `start`, up to the next one.
fn segment_tools(events: &[Value], start: usize) -> Vec<Value> {
    events[start + 1..]
        .iter()
        .take_while(|e| e["type"] != "agent.step.started")
        .filter(|e| e["type"].as_str().unwrap().starts_with("agent.tool."))
        .cloned()
        .collect()
}

fn previous_start(events: &[Value], start: usize) -> Option<usize> {
    (0..start)
        .rev()
        .find(|&i| events[i]["type"] == "agent.step.started")
}

#[test]
fn redelivering_some_envelopes_changes_neither_view_nor_report() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, _, turns) in runs() {
        let turn = &turns[0];
        let clean = session_of(&turn.envelopes);
        // Step and status events are redelivered anywhere later; tool events
        // (no step number, no call id on this wire) within their step.
        let mut events: Vec<Vec<Value>> = turn.envelopes.iter().map(|e| vec![e.clone()]).collect();
        for _ in 0..3 {
            let i = rng.next(turn.envelopes.len());
            let e = turn.envelopes[i].clone();
            let at = if e["type"].as_str().unwrap().starts_with("agent.tool.") {
                i
            } else {
                i + rng.next(turn.envelopes.len() - i)
            };
            events[at].push(e);
        }
        let events: Vec<Value> = events.concat();
        let noisy = session_of(&events);
        assert_eq!(noisy.counts().duplicates, 3, "{name}");
        assert_eq!(view_of(&noisy), view_of(&clean), "{name}");
        assert_eq!(
            noisy.reconcile(&turn.slim_full).differences,
            clean.reconcile(&turn.slim_full).differences
        );
    }
}

/// Shuffles within each step's segment (from one `agent.step.started` to
/// the next; tool completed before started, step completed before started)
/// and moves status and continuation events anywhere. Tool events stay
/// behind their step's start or completion: the v1.22 wire gives them no
/// step number, so arrival is all a consumer can attribute them by.
#[test]
fn shuffling_within_steps_converges_to_the_in_order_view() {
    let mut rng = Rng(42);
    for (name, _, turns) in runs() {
        let turn = &turns[0];
        let clean = session_of(&turn.envelopes);
        for round in 0..20 {
            let mut segments: Vec<Vec<Value>> = vec![vec![]];
            let mut floating = vec![];
            for e in &turn.envelopes {
                match e["type"].as_str().unwrap() {
                    "agent.step.started" => segments.push(vec![e.clone()]),
                    "agent.status" | "agent.continuation" => floating.push(e.clone()),
                    _ => segments.last_mut().unwrap().push(e.clone()),
                }
            }
            let mut events = vec![];
            for mut seg in segments {
                for i in (1..seg.len()).rev() {
                    seg.swap(i, rng.next(i + 1));
                }
                // A step's tools need its start or completion before them.
                let first_tool = seg
                    .iter()
                    .position(|e| e["type"].as_str().unwrap().starts_with("agent.tool."));
                let anchor = seg.iter().position(|e| {
                    e["type"] == "agent.step.started" || e["type"] == "agent.step.completed"
                });
                if let (Some(t), Some(a)) = (first_tool, anchor) {
                    if a > t {
                        let anchor = seg.remove(a);
                        seg.insert(t, anchor);
                    }
                }
                events.extend(seg);
            }
            for e in floating {
                let at = rng.next(events.len() + 1);
                events.insert(at, e);
            }
            let shuffled = session_of(&events);
            assert_eq!(view_of(&shuffled), view_of(&clean), "{name} round {round}");
            let (a, b) = (
                shuffled.reconcile(&turn.slim_full),
                clean.reconcile(&turn.slim_full),
            );
            assert_eq!(a.differences, b.differences, "{name} round {round}");
            assert_eq!(
                a.to_value(&shuffled)["view"]["executions"],
                b.to_value(&clean)["view"]["executions"],
                "{name} round {round}"
            );
        }
    }
}

#[test]
fn a_foreign_sessions_events_are_rejected_counted_and_never_merged() {
    for (name, _, turns) in runs() {
        let turn = &turns[0];
        let clean = session_of(&turn.envelopes);
        let mut s = Session::new(Some("sess-e2e".into()));
        for (i, e) in turn.envelopes.iter().enumerate() {
            s.ingest_value(e).unwrap();
            if i % 2 == 0 {
                let mut other = e.clone();
                *other.pointer_entry("/session_id").unwrap() = json!("sess-other");
                let out = s.ingest_value(&other).unwrap();
                assert_eq!(
                    out.rejected,
                    Some(stepline::session::Rejection::ForeignSession)
                );
                assert!(!out.applied);
            }
        }
        let foreign = turn.envelopes.len().div_ceil(2) as u64;
        assert_eq!(s.counts().rejected, foreign, "{name}");
        assert_eq!(s.foreign()["sess-other"], foreign);
        let mut v = view_of(&s);
        v.as_object_mut().unwrap().remove("rejected_sessions");
        let mut c = view_of(&clean);
        c.as_object_mut().unwrap().remove("rejected_sessions");
        assert_eq!(v, c, "{name}");
    }
}

// ---- delivery rules on hand-made streams -------------------------------------

#[test]
fn a_redelivered_envelope_changes_nothing() {
    let e = envelope(
        "agent.step.started",
        json!({"step_number": 1, "message_count": 2, "available_tools": 1}),
    );
    let mut s = Session::new(Some("s1".into()));
    assert!(s.ingest_value(&e).unwrap().applied);
    let before = s.view();
    let again = s.ingest_value(&e).unwrap();
    assert!(again.duplicate && !again.applied);
    assert_eq!(s.view()["executions"], before["executions"]);
    assert_eq!(s.counts().duplicates, 1);
}

#[test]
fn identical_tool_events_in_consecutive_steps_are_two_runs_not_a_redelivery() {
    let tool = envelope(
        "agent.tool.started",
        json!({"tool_name": "search", "tool_call_id": null, "args_summary": "q: 'x'"}),
    );
    let mut s = Session::new(None);
    for e in [
        envelope("agent.step.started", json!({"step_number": 1})),
        tool.clone(),
        envelope("agent.step.started", json!({"step_number": 2})),
        tool,
    ] {
        assert!(s.ingest_value(&e).unwrap().applied);
    }
    let steps = &s.view()["executions"][0]["steps"];
    assert_eq!(steps[0]["tools"].as_array().unwrap().len(), 1);
    assert_eq!(steps[1]["tools"].as_array().unwrap().len(), 1);
}

#[test]
fn a_tool_completed_before_started_pairs_into_one_run() {
    let started = envelope(
        "agent.tool.started",
        json!({"tool_name": "search", "tool_call_id": null, "args": {"q": "x"}}),
    );
    let completed = envelope(
        "agent.tool.completed",
        json!({"tool_name": "search", "tool_call_id": null, "success": true, "duration_ms": 12}),
    );
    let step = envelope("agent.step.started", json!({"step_number": 1}));
    let a = session_of(&[step.clone(), started.clone(), completed.clone()]);
    let b = session_of(&[step, completed, started]);
    assert_eq!(view_of(&a), view_of(&b));
    let run = &a.view()["executions"][0]["steps"][0]["tools"][0];
    assert_eq!(run["status"], "succeeded");
    assert_eq!(run["args"], json!({"q": "x"}));
    assert_eq!(run["duration_ms"], 12);
}

#[test]
fn a_step_completed_before_started_converges() {
    let started = envelope(
        "agent.step.started",
        json!({"step_number": 1, "message_count": 3, "available_tools": 2}),
    );
    let completed = envelope(
        "agent.step.completed",
        json!({"step_number": 1, "has_tool_calls": false, "errors": 0, "finish_reason": "stop", "usage": {"input": 5, "output": 2}, "duration_ms": 40.0}),
    );
    let a = session_of(&[started.clone(), completed.clone()]);
    let b = session_of(&[completed, started]);
    assert_eq!(view_of(&a), view_of(&b));
    let step = &a.view()["executions"][0]["steps"][0];
    assert_eq!(step["type"], "final_response");
    assert_eq!(step["message_count"], 3);
    assert_eq!(step["usage"]["total"], 7);
}

#[test]
fn chunks_out_of_index_order_give_the_text_in_index_order() {
    let chunk = |i: i64, c: &str| {
        envelope(
            "agent.stream.chunk",
            json!({"content": c, "is_complete": false, "chunk_index": i}),
        )
    };
    let mut s = Session::new(None);
    for e in [chunk(0, "Hel"), chunk(2, " world"), chunk(1, "lo,")] {
        s.ingest_value(&e).unwrap();
    }
    assert_eq!(s.view()["executions"][0]["text"], "Hello, world");
    let in_order = session_of(&[chunk(0, "Hel"), chunk(1, "lo,"), chunk(2, " world")]);
    assert_eq!(view_of(&s), view_of(&in_order));
}

#[test]
fn the_reference_order_status_before_the_last_step_completed_is_normal_input() {
    let mut s = Session::new(None);
    for e in [
        envelope(
            "agent.status",
            json!({"status": "processing", "previous_status": "idle"}),
        ),
        envelope("agent.step.started", json!({"step_number": 1})),
        envelope(
            "agent.status",
            json!({"status": "completed", "previous_status": "processing"}),
        ),
        envelope(
            "agent.step.completed",
            json!({"step_number": 1, "has_tool_calls": false, "errors": 0, "finish_reason": "stop"}),
        ),
    ] {
        let out = s.ingest_value(&e).unwrap();
        assert!(out.applied && out.warnings.is_empty());
    }
    assert_eq!(s.status(), Some("completed"));
    assert_eq!(
        s.view()["executions"][0]["steps"][0]["seen"],
        json!({"started": true, "completed": true})
    );
}

#[test]
fn statuses_arriving_out_of_order_end_in_the_chain_end() {
    let mut s = Session::new(None);
    s.ingest_value(&envelope(
        "agent.status",
        json!({"status": "completed", "previous_status": "processing"}),
    ))
    .unwrap();
    s.ingest_value(&envelope(
        "agent.status",
        json!({"status": "processing", "previous_status": "idle"}),
    ))
    .unwrap();
    assert_eq!(s.status(), Some("completed"));
    assert_eq!(s.view()["state_status"], "completed");
}

#[test]
fn a_gap_is_shown_as_missing_not_invented() {
    let s = session_of(&[
        envelope("agent.step.started", json!({"step_number": 1})),
        envelope(
            "agent.step.completed",
            json!({"step_number": 3, "has_tool_calls": false}),
        ),
    ]);
    let exec = &s.view()["executions"][0];
    assert_eq!(exec["missing_steps"], json!([2]));
    assert_eq!(exec["steps"].as_array().unwrap().len(), 2);
    assert_eq!(
        exec["steps"][1]["seen"],
        json!({"started": false, "completed": true})
    );
}

#[test]
fn a_new_turn_starts_with_a_new_execution_id_or_processing_after_a_terminal_status() {
    // The reference adapter keeps its execution id across turns; its second
    // turn starts with processing after completed.
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.contains("two turns"))
        .unwrap();
    let all: Vec<Value> = turns.iter().flat_map(|t| t.envelopes.clone()).collect();
    let s = session_of(&all);
    let execs = s.view()["executions"].as_array().unwrap().clone();
    assert_eq!(execs.len(), 2);
    assert_eq!(execs[0]["steps"].as_array().unwrap().len(), 2);
    assert_eq!(execs[1]["steps"].as_array().unwrap().len(), 1);
    assert_eq!(s.view()["usage"]["total"], json!(312 + 205));
}

// ---- reconciliation on hand-made differences ---------------------------------

#[test]
fn reconcile_names_tool_calls_missing_and_unexpected() {
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.starts_with("two tool calls"))
        .unwrap();
    let s = session_of(&turns[0].envelopes);
    let mut snap = turns[0].slim.clone();
    *snap.pointer_entry("/steps/0/tool_calls/1/name").unwrap() = json!("get_weather");
    let r = s.reconcile(&snap);
    assert_eq!(kinds(&r), ["tool_call_missing", "tool_call_unexpected"]);
    assert_eq!(r.differences[0].path, "/steps/0/tool_calls/1");
}

#[test]
fn reconcile_names_field_mismatches_with_snapshot_paths() {
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.starts_with("tool call then"))
        .unwrap();
    let s = session_of(&turns[0].envelopes);
    let mut snap = turns[0].slim_full.clone();
    *snap.pointer_entry("/steps/1/finish_reason").unwrap() = json!("length");
    *snap.pointer_entry("/steps/1/usage/total").unwrap() = json!(999);
    *snap
        .pointer_entry("/last_continuation/stop_reason")
        .unwrap() = json!("steps_limit");
    let r = s.reconcile(&snap);
    let paths: Vec<&str> = r.differences.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/steps/1/finish_reason",
            "/steps/1/usage/total",
            "/last_continuation/stop_reason"
        ]
    );
    assert_eq!(
        kinds(&r),
        ["field_mismatch", "field_mismatch", "continuation_mismatch"]
    );
    assert_eq!(
        r.to_value(&s)["view"]["executions"][0]["steps"][1]["finish_reason"],
        "length",
        "the snapshot wins"
    );
}

#[test]
fn reconcile_names_missing_and_extra_steps_within_the_window() {
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.starts_with("tool call then"))
        .unwrap();
    let s = session_of(&turns[0].envelopes[..6]);
    let r = s.reconcile(&turns[0].slim);
    assert!(kinds(&r).contains(&"missing_step"));
    let mut window = turns[0].slim.clone();
    window
        .get_mut("steps")
        .unwrap()
        .as_array_mut()
        .unwrap()
        .remove(0);
    let full = session_of(&turns[0].envelopes);
    assert!(
        full.reconcile(&window).consistent(),
        "step 1 is outside a last-1 window"
    );
    let mut fewer = turns[0].slim.clone();
    fewer
        .get_mut("steps")
        .unwrap()
        .as_array_mut()
        .unwrap()
        .pop();
    *fewer.pointer_entry("/step_count").unwrap() = json!(1);
    let r = full.reconcile(&fewer);
    assert_eq!(kinds(&r), ["extra_step"]);
    assert_eq!(r.differences[0].path, "/stream/steps/2");
}

#[test]
fn reconcile_compares_streamed_text_respecting_truncation() {
    let chunk = |i: i64, c: &str| {
        envelope(
            "agent.stream.chunk",
            json!({"content": c, "chunk_index": i}),
        )
    };
    let s = session_of(&[chunk(0, "It is sunny, "), chunk(1, "21°C today.")]);
    let snap = |content: &str| {
        json!({"step_count": 0, "steps": [],
        "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": content}]})
    };
    assert!(s.reconcile(&snap("It is sunny, 21°C today.")).consistent());
    assert!(
        s.reconcile(&snap("It is sunny...")).consistent(),
        "cut by the content limit"
    );
    let r = s.reconcile(&snap("It is rainy."));
    assert_eq!(kinds(&r), ["text_mismatch"]);
    assert_eq!(r.differences[0].path, "/messages/1/content");
}

#[test]
fn reconcile_names_lost_chunks() {
    let chunk = |i: i64, c: &str| {
        envelope(
            "agent.stream.chunk",
            json!({"content": c, "chunk_index": i}),
        )
    };
    let s = session_of(&[chunk(0, "a"), chunk(2, "c")]);
    let r = s.reconcile(&json!({"messages": [{"role": "assistant", "content": "abc"}]}));
    assert_eq!(kinds(&r), ["text_mismatch", "lost_event"]);
    assert_eq!(r.differences[1].path, "/stream/chunks/1");
}

// ---- cheap reads ---------------------------------------------------------------

/// The session's next patch, parsed (it is JSON text for the JS side).
fn patch(s: &mut Session) -> Value {
    stepline::json::from_str(&s.take_patch()).unwrap()
}

/// The patch crosses into JavaScript as ASCII (`JSON.parse` decodes ASCII
/// text several times faster than UTF-8 with other characters in it); every
/// character past U+007F is an escape that reads back as itself.
#[test]
fn a_patch_is_ascii_and_reads_back_to_the_text_as_streamed() {
    let mut s = Session::new(None);
    let text = ["Grüezi ", "wohl — ", "😀 ", "日本語"];
    s.ingest_value(&envelope("agent.step.started", json!({"step_number": 1})))
        .unwrap();
    for (i, piece) in text.iter().enumerate() {
        s.ingest_value(&envelope(
            "agent.stream.chunk",
            json!({"content": piece, "chunk_index": i}),
        ))
        .unwrap();
    }
    s.ingest_value(&envelope(
        "agent.tool.started",
        json!({"step_number": 1, "tool_name": "suche_café", "args": {"q": "Zürich"}}),
    ))
    .unwrap();
    s.settle();
    let raw = s.take_patch();
    assert!(raw.is_ascii(), "{raw}");
    let first: Value = stepline::json::from_str(&raw).unwrap();
    assert_eq!(first[2][3], text.concat());
    let tools = &first[2][2][0][1]["tools"];
    assert_eq!(tools[0]["name"], "suche_café");
    assert_eq!(tools[0]["args"]["q"], "Zürich");
}

#[test]
fn patches_carry_only_what_changed() {
    let mut s = Session::new(None);
    s.ingest_value(&envelope("agent.step.started", json!({"step_number": 1})))
        .unwrap();
    // [session, warnings, ...executions: [index, header, steps, text, replaced]]
    let first = patch(&mut s);
    assert_eq!(first[0]["session_id"], "s1", "all fields at first");
    assert_eq!(first[1], 0, "no warnings");
    let new = &first[2];
    assert_eq!(new[0], 0);
    assert_eq!(
        new[1]["execution_id"], "e1",
        "a new execution is sent whole"
    );
    assert_eq!(new[2].as_array().unwrap().len(), 1);
    assert_eq!((&new[3], &new[4]), (&json!(""), &json!(true)));
    s.ingest_value(&envelope("agent.step.started", json!({"step_number": 2})))
        .unwrap();
    let second = patch(&mut s);
    assert_eq!(
        second[0],
        json!({"counts": {"applied": 2, "duplicates": 0, "rejected": 0}}),
        "only the fields that changed"
    );
    let exec = &second[2];
    assert_eq!(exec[1], 0, "the execution's own fields did not change");
    let steps = exec[2].as_array().unwrap();
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0][0], 2, "[number, fields, text, reasoning]");
    assert_eq!(steps[0][1]["number"], 2, "a new step's fields, all of them");
    assert_eq!(
        (&steps[0][2], &steps[0][3]),
        (&json!(0), &json!(0)),
        "no text yet"
    );
    assert_eq!(exec[3], Value::Null, "nor did its text");
    let chunk = |i: i64, c: &str| {
        envelope(
            "agent.stream.chunk",
            json!({"content": c, "chunk_index": i}),
        )
    };
    s.ingest_value(&chunk(0, "ab")).unwrap();
    s.ingest_value(&chunk(2, "ef")).unwrap();
    let gap = patch(&mut s);
    assert_eq!(
        gap[2],
        json!([0, {"missing_chunks": [1], "missing_chunk_count": 1}, 0, "abef", false])
    );
    s.ingest_value(&chunk(1, "cd")).unwrap();
    let filled = patch(&mut s);
    assert_eq!(
        (&filled[2][3], &filled[2][4]),
        (&json!("abcdef"), &json!(true))
    );
    assert_eq!(patch(&mut s), json!([0, 0]), "nothing changed");
}

#[test]
fn a_steps_streamed_text_is_sent_as_what_was_appended_not_whole_on_every_read() {
    // A seed-003 / foreign-dialect step text grows with every delta: sending
    // the step whole made each read cost the text so far (quadratic).
    let mut s = Session::new(None);
    let delta = |d: &str| {
        envelope(
            "agent.llm.output_text.delta",
            json!({"step_number": 1, "text_delta": d}),
        )
    };
    s.ingest_value(&delta("Hello")).unwrap();
    let first = patch(&mut s);
    let step = &first[2][2][0];
    assert_eq!(
        (&step[0], &step[1]["text"], &step[2]),
        (&json!(1), &json!(""), &json!("Hello"))
    );
    for word in [", ", "world"] {
        s.ingest_value(&delta(word)).unwrap();
        let next = patch(&mut s);
        assert_eq!(
            next[2][2],
            json!([[1, 0, word, 0]]),
            "only the delta, no field"
        );
    }
    assert_eq!(
        s.view()["executions"][0]["steps"][0]["text"],
        "Hello, world"
    );
}

#[test]
fn an_executions_data_is_sent_again_only_when_a_value_in_it_was_set() {
    let mut s = Session::new(None);
    let data =
        |name: &str, value: Value| envelope("agent.data", json!({"name": name, "data": value}));
    s.ingest_value(&data("state", json!({"items": [1, 2, 3]})))
        .unwrap();
    assert_eq!(
        patch(&mut s)[2][1]["data"],
        json!({"state": {"items": [1, 2, 3]}})
    );
    s.ingest_value(&envelope("agent.step.started", json!({"step_number": 1})))
        .unwrap();
    let after_step = patch(&mut s);
    assert!(after_step[2][1].get("data").is_none(), "{after_step}");
    s.ingest_value(&data("state", json!({"items": [1, 2, 3, 4]})))
        .unwrap();
    assert_eq!(
        patch(&mut s)[2][1]["data"],
        json!({"state": {"items": [1, 2, 3, 4]}})
    );
}

/// Ingests `envelopes` one at a time and checks after each that the patches
/// so far, applied as the JS side applies them, give exactly the view.
fn patches_rebuild_the_view(name: &str, envelopes: &[Value]) {
    let mut s = Session::new(None);
    let mut mirror = Value::Null;
    for (i, e) in envelopes.iter().enumerate() {
        let _ = s.ingest_value(e);
        checks::apply_patch(&mut mirror, &checks::take_patch(&mut s));
        assert_eq!(mirror, s.view(), "{name}: after envelope {i}");
    }
}

#[test]
fn patches_rebuild_the_view_after_every_envelope_of_every_reference_run() {
    for (name, _, turns) in runs() {
        let all: Vec<Value> = turns.iter().flat_map(|t| t.envelopes.clone()).collect();
        patches_rebuild_the_view(&format!("{name} in order"), &all);
        // Backwards: gaps open and close, chunks land inside the text.
        let back: Vec<Value> = all.iter().rev().cloned().collect();
        patches_rebuild_the_view(&format!("{name} backwards"), &back);
        // Every envelope twice, a foreign one and one with unknown fields
        // (warnings) in between.
        let mut noisy = Vec::new();
        for (i, e) in all.iter().enumerate() {
            noisy.push(e.clone());
            noisy.push(e.clone());
            let mut odd = e.clone();
            if i % 3 == 0 {
                *odd.pointer_entry("/session_id").unwrap() = json!(format!("other-{}", i % 2));
            } else {
                odd.as_object_mut()
                    .unwrap()
                    .insert(format!("x_{i}"), json!(i));
            }
            noisy.push(odd);
        }
        patches_rebuild_the_view(&format!("{name} with noise"), &noisy);
    }
}

#[test]
fn a_new_execution_id_is_a_new_turn() {
    let mut second = envelope("agent.step.started", json!({"step_number": 1}));
    *second.pointer_entry("/execution_id").unwrap() = json!("e2");
    let s = session_of(&[
        envelope("agent.step.started", json!({"step_number": 1})),
        second,
    ]);
    let execs = s.view()["executions"].as_array().unwrap().clone();
    assert_eq!(execs.len(), 2);
    assert_eq!(execs[1]["execution_id"], "e2");
}

/// Under the reference's frozen clock a late redelivery of step 1's
/// tool.started (after step 2 completed without tool calls) is byte-identical
/// to nothing step 2 could still hold: it is a redelivery, not a new call.
#[test]
fn a_late_tool_redelivery_across_a_step_boundary_changes_nothing() {
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.starts_with("tool call then"))
        .unwrap();
    let clean = session_of(&turns[0].envelopes);
    let mut events = turns[0].envelopes.clone();
    events.push(turns[0].envelopes[2].clone()); // tool.started of step 1, after step 2
    let late = session_of(&events);
    assert_eq!(late.view()["executions"], clean.view()["executions"]);
    assert_eq!(late.counts().duplicates, 1);
    assert!(kinds(&late.reconcile(&turns[0].slim_full)).is_empty());
}

#[test]
fn seed_003_lifecycle_events_feed_the_same_view_and_collect_builds_the_response() {
    let events = [
        json!({"event_type": "agent.llm.started", "step_index": 1, "step_id": "st-1"}),
        json!({"event_type": "agent.llm.output_text.delta", "step_index": 1, "step_id": "st-1", "text_delta": "Let me "}),
        json!({"event_type": "agent.llm.output_text.delta", "step_index": 1, "step_id": "st-1", "text_delta": "look."}),
        json!({"event_type": "agent.tool.started", "step_index": 1, "step_id": "st-1", "tool_name": "search",
               "tool_call": {"id": "c1", "name": "search", "arguments": {"q": "paris"}}}),
        json!({"event_type": "agent.tool.output", "step_index": 1, "step_id": "st-1", "tool_name": "search", "text_delta": "21C"}),
        json!({"event_type": "agent.tool.failed", "step_index": 1, "step_id": "st-1", "tool_name": "search",
               "tool_call": {"id": "c1", "name": "search"}, "error": "timeout"}),
        json!({"event_type": "agent.step.completed", "step_index": 1, "step_id": "st-1"}),
        json!({"event_type": "agent.llm.started", "step_index": 2, "step_id": "st-2"}),
        json!({"event_type": "agent.llm.output_text.delta", "step_index": 2, "step_id": "st-2", "text_delta": "Sunny."}),
        json!({"event_type": "agent.run.completed", "step_index": 2, "step_id": "st-2", "final_answer": "Sunny."}),
    ];
    let s = session_of(&events);
    assert_eq!(s.status(), Some("completed"));
    let view = s.view();
    let step1 = &view["executions"][0]["steps"][0];
    assert_eq!(step1["step_id"], "st-1");
    assert_eq!(step1["text"], "Let me look.");
    assert_eq!(step1["tools"][0]["status"], "failed");
    assert_eq!(step1["tools"][0]["error"], "timeout");
    assert_eq!(step1["tools"][0]["output"], "21C");
    let r = stepline::json::to_value_of(&s.collect());
    assert_eq!(r["final_output"], "Sunny.");
    assert_eq!(r["turns"].as_array().unwrap().len(), 2);
    assert_eq!(
        r["turns"][0]["tool_results"][0],
        json!({"call": {"id": "c1", "name": "search", "arguments": {"q": "paris"}}, "output": "21C", "error": "timeout",
               "result_summary": null, "result": null, "duration_ms": null})
    );
    assert_eq!(r["turns"][1]["llm_response"]["text"], "Sunny.");
}

#[test]
fn collect_on_a_reference_run_lists_every_step_with_its_tools() {
    let (_, _, turns) = runs()
        .into_iter()
        .find(|r| r.0.starts_with("two tool calls"))
        .unwrap();
    let r = stepline::json::to_value_of(&session_of(&turns[0].envelopes).collect());
    let steps = r["turns"].as_array().unwrap();
    assert_eq!(
        steps.len(),
        turns[0].slim["steps"].as_array().unwrap().len()
    );
    let names: Vec<&str> = steps[0]["tool_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["call"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["search", "get_time"]);
}

#[test]
fn a_session_recording_replays_native_events_and_unknown_fields_to_the_same_view() {
    let mut s = Session::new(None);
    s.ingest_value(&json!({"event_type": "agent.llm.started", "step_index": 1, "step_id": "a"}))
        .unwrap();
    s.ingest_value(
        &json!({"event_type": "agent.run.completed", "step_index": 1, "final_answer": "ok"}),
    )
    .unwrap();
    let mut odd = envelope(
        "agent.step.started",
        json!({"step_number": 2, "novel": true}),
    );
    *odd.pointer_entry("/session_id").unwrap() = Value::Null;
    *odd.pointer_entry("/extra_top").unwrap() = json!(1);
    *odd.pointer_entry("/session_id").unwrap() = json!("s1");
    s.ingest_value(&odd).unwrap();
    let (back, _) = Session::from_recording(&s.to_recording()).unwrap();
    assert_eq!(back.view(), s.view());
}

#[test]
fn a_hostile_chunk_index_costs_a_range_not_a_list() {
    let chunk = |i: i64| {
        envelope(
            "agent.stream.chunk",
            json!({"content": "x", "chunk_index": i}),
        )
    };
    let s = session_of(&[chunk(0), chunk(1_000_000_000_000_000)]);
    let exec = &s.view()["executions"][0];
    assert_eq!(exec["missing_chunks"].as_array().unwrap().len(), 1000);
    assert_eq!(exec["missing_chunk_count"], 999_999_999_999_999u64);
}

#[test]
fn a_jsonl_batch_counts_what_it_did_and_names_bad_lines() {
    let e = envelope("agent.step.started", json!({"step_number": 1}));
    let mut foreign = e.clone();
    *foreign.pointer_entry("/session_id").unwrap() = json!("other");
    let text = format!("{e}\n\n{e}\nnot json\n{foreign}\n");
    let mut s = Session::new(Some("s1".into()));
    let out = s.ingest_jsonl(&text);
    assert_eq!((out.applied, out.duplicates, out.rejected), (1, 1, 1));
    assert_eq!(out.errors.len(), 1);
    assert_eq!(out.errors[0].0, 4);
    let v = stepline::json::to_value_of(&out.view());
    assert_eq!(v["errors"][0]["line"], 4);
    assert_eq!(v["errors"][0]["error"]["code"], "invalid_json");
    assert_eq!(v["applied"], 1);
}

#[test]
fn text_streamed_before_a_tool_call_does_not_count_against_the_final_answer() {
    // v1.22 chunks carry no step: "Checking." (step 1, before its tool call)
    // and "All good." (step 2) make one execution text, while the final
    // assistant message is step 2's text alone.
    let chunk = |i: i64, c: &str| {
        envelope(
            "agent.stream.chunk",
            json!({"content": c, "is_complete": false, "chunk_index": i}),
        )
    };
    let started = |n: i64| envelope("agent.step.started", json!({"step_number": n}));
    let s = session_of(&[
        started(1),
        chunk(0, "Checking."),
        started(2),
        chunk(1, "All good."),
    ]);
    assert_eq!(s.view()["executions"][0]["text"], "Checking.All good.");
    let snapshot = |answer: &str| {
        json!({"status": "in_progress", "step_count": 2,
               "messages": [{"role": "user", "content": "ok?", "_metadata": []},
                            {"role": "assistant", "content": "Checking.", "_metadata": []},
                            {"role": "assistant", "content": answer, "_metadata": []}],
               "steps": [], "last_continuation": null})
    };
    let texts = |r: &Report| {
        r.differences
            .iter()
            .filter(|d| d.kind == "text_mismatch")
            .count()
    };
    assert_eq!(texts(&s.reconcile(&snapshot("All good."))), 0);
    assert_eq!(texts(&s.reconcile(&snapshot("Something else."))), 1);
}

// ---- memory bounds: the text limit, and costs that must stay linear --------------

fn chunk(i: i64, c: &str) -> Value {
    envelope(
        "agent.stream.chunk",
        json!({"content": c, "chunk_index": i}),
    )
}

fn capped(limit: usize, envelopes: &[Value]) -> Session {
    let mut s = Session::with_text_limit(None, limit);
    for e in envelopes {
        s.ingest_value(e).unwrap();
    }
    s
}

#[test]
fn chunks_in_reverse_order_give_the_view_of_chunks_in_order() {
    let forward: Vec<Value> = (0..2000)
        .map(|i| chunk(i, &format!("part {i}. ")))
        .collect();
    let mut reverse = forward.clone();
    reverse.reverse();
    for limit in [usize::MAX, 5000] {
        let (a, b) = (capped(limit, &forward), capped(limit, &reverse));
        assert_eq!(view_of(&a), view_of(&b), "limit {limit}");
        let whole: String = (0..2000).map(|i| format!("part {i}. ")).collect();
        let text = a.view()["executions"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(text, whole[..limit.min(whole.len())], "limit {limit}");
    }
    let mut deferred = Session::with_text_limit(None, 5000);
    for e in &reverse {
        deferred.ingest_text_deferred(&e.to_string()).unwrap();
    }
    assert_eq!(
        view_of(&deferred),
        view_of(&capped(5000, &forward)),
        "the view reads stale text up to date"
    );
    deferred.settle();
    assert_eq!(
        deferred.executions()[0].text(),
        capped(5000, &forward).executions()[0].text()
    );
}

#[test]
fn streamed_text_past_the_limit_is_cut_at_a_character_boundary_and_flagged() {
    // 3 + 4 + 4 bytes; the limit falls inside the euro sign of the second chunk.
    let s = capped(5, &[chunk(0, "abc"), chunk(1, "d€"), chunk(2, "wxyz")]);
    let e = &s.view()["executions"][0];
    assert_eq!(e["text"], "abcd");
    assert_eq!(e["text_truncated"], true);
    assert_eq!(e["text_dropped_bytes"], 3 + 4);
    assert_eq!(e["missing_chunks"], json!([]));
    let whole = capped(100, &[chunk(0, "abc"), chunk(1, "d€"), chunk(2, "wxyz")]);
    let e = &whole.view()["executions"][0];
    assert_eq!(
        (&e["text"], &e["text_truncated"], &e["text_dropped_bytes"]),
        (&json!("abcd€wxyz"), &json!(false), &json!(0))
    );
}

#[test]
fn chunks_past_the_limit_leave_no_text_in_the_log_and_their_redelivery_is_a_duplicate() {
    let chunks: Vec<Value> = (0..100).map(|i| chunk(i, &"x".repeat(1000))).collect();
    let mut s = capped(10_000, &chunks);
    assert_eq!(
        s.log().count(),
        10,
        "only the chunks whose text shows are logged"
    );
    assert!(s.to_recording().len() < 11 * 1200);
    for e in [&chunks[0], &chunks[50], &chunks[99]] {
        let out = s.ingest_value(e).unwrap();
        assert!(
            out.duplicate && !out.applied,
            "{}",
            e["payload"]["chunk_index"]
        );
    }
    // In reverse order every chunk shows at first, then drops out of the log.
    let mut reverse = chunks.clone();
    reverse.reverse();
    let r = capped(10_000, &reverse);
    assert_eq!(r.log().count(), 10);
    assert_eq!(r.counts().applied, 100);
    assert_eq!(r.view()["executions"][0]["text_dropped_bytes"], 90_000);
    assert!(s.ingest_value(&reverse[0]).unwrap().duplicate);
}

#[test]
fn a_capped_sessions_recording_replays_to_the_same_view() {
    let mut envelopes = vec![envelope(
        "agent.status",
        json!({"status": "processing", "previous_status": "idle"}),
    )];
    envelopes.extend((0..50).rev().map(|i| chunk(i, "0123456789")));
    envelopes.push(chunk(60, "past a gap past the cut"));
    let s = capped(105, &envelopes);
    let recording = s.to_recording();
    let header: Value = stepline::json::from_str(recording.lines().next().unwrap()).unwrap();
    assert_eq!(header["text_limit"], 105);
    assert_eq!(
        header["text_dropped"],
        json!([{"execution": 0, "bytes": 39 * 10 + 23,
                 "first_at": "2026-01-20T12:00:00.250Z", "last_at": "2026-01-20T12:00:00.250Z"}]),
        "chunks 11..49 and 60 dropped whole; chunk 10 is kept and cut"
    );
    let (back, _) = Session::from_recording(&recording).unwrap();
    assert_eq!(view_of(&back), view_of(&s));
    let e = &back.view()["executions"][0];
    assert_eq!(e["text"].as_str().unwrap().len(), 105);
    assert_eq!(e["text_dropped_bytes"], 50 * 10 + 23 - 105);
    assert_eq!(
        e["missing_chunks"],
        json!([]),
        "gaps past the cut are not listed"
    );
    assert_eq!(back.to_recording(), recording);
}

#[test]
fn a_recording_with_a_bad_text_dropped_entry_is_refused_with_its_path() {
    let line = chunk(0, "a").to_string();
    for (header, path) in [
        (
            r#"{"stepline_recording":1,"text_limit":-1}"#,
            "/lines/1/text_limit",
        ),
        (
            r#"{"stepline_recording":1,"text_dropped":[{"execution":3,"bytes":1}]}"#,
            "/lines/1/text_dropped/0/execution",
        ),
        (
            r#"{"stepline_recording":1,"text_dropped":[{"execution":0,"bytes":"x"}]}"#,
            "/lines/1/text_dropped/0/bytes",
        ),
        (
            r#"{"stepline_recording":1,"text_dropped":{}}"#,
            "/lines/1/text_dropped",
        ),
    ] {
        let err = Session::from_recording(&format!("{header}\n{line}\n")).unwrap_err();
        assert_eq!(err.path.as_deref(), Some(path), "{header}");
    }
}

#[test]
fn reconcile_compares_a_truncated_stream_within_what_was_kept() {
    let s = capped(12, &[chunk(0, "Checking. "), chunk(1, "The answer is 42.")]);
    assert_eq!(s.view()["executions"][0]["text"], "Checking. Th");
    let snap = |content: &str| json!({"messages": [{"role": "assistant", "content": content}]});
    let texts = |r: &Report| kinds(r).iter().filter(|k| **k == "text_mismatch").count();
    assert_eq!(
        texts(&s.reconcile(&snap("The answer is 42."))),
        0,
        "overlap agrees"
    );
    assert_eq!(texts(&s.reconcile(&snap("Checking. The answer is 42."))), 0);
    assert_eq!(
        texts(&s.reconcile(&snap("answer is 42."))),
        0,
        "starts past the kept text"
    );
    assert_eq!(
        texts(&s.reconcile(&snap("Tx answer is 42."))),
        1,
        "the overlap differs"
    );
    assert_eq!(
        texts(&s.reconcile(&snap("Longer than all that was streamed."))),
        1
    );
}

#[test]
fn seed_003_deltas_and_tool_output_stop_at_the_limit() {
    let delta = |t: &str| {
        envelope(
            "agent.llm.output_text.delta",
            json!({"step_index": 1, "text_delta": t}),
        )
    };
    let output = |t: &str| {
        envelope(
            "agent.tool.output",
            json!({"step_index": 1, "tool_name": "sh", "text_delta": t}),
        )
    };
    let s = capped(
        6,
        &[
            delta("abcd"),
            delta("efgh"),
            delta("ijkl"),
            output("1234"),
            output("5678"),
        ],
    );
    let e = &s.view()["executions"][0];
    assert_eq!(
        (&e["text"], &e["text_dropped_bytes"]),
        (&json!("abcdef"), &json!(6))
    );
    assert_eq!(e["steps"][0]["text"], "abcdef");
    assert_eq!(e["steps"][0]["tools"][0]["output"], "123456");
    assert_eq!(e["steps"][0]["tools"][0]["output_dropped_bytes"], 2);
    assert_eq!(s.log().count(), 4, "the delta dropped whole is not logged");
    let (back, _) = Session::from_recording(&s.to_recording()).unwrap();
    assert_eq!(view_of(&back), view_of(&s));
}

#[test]
fn many_turns_each_find_their_own_execution() {
    let mut s = Session::new(None);
    for round in 0..2 {
        for i in 0..3000 {
            let mut e = envelope("agent.step.started", json!({"step_number": round + 1}));
            *e.pointer_entry("/execution_id").unwrap() = json!(format!("e{i}"));
            s.ingest_value(&e).unwrap();
        }
    }
    let v = s.view();
    let execs = v["executions"].as_array().unwrap();
    assert_eq!(execs.len(), 3000);
    assert!(execs
        .iter()
        .all(|e| e["steps"].as_array().unwrap().len() == 2));
    assert_eq!(execs[2999]["execution_id"], "e2999");
}

#[test]
fn warnings_are_listed_up_to_a_thousand_and_all_counted() {
    let mut s = Session::new(None);
    for i in 0..1500 {
        s.ingest_value(&envelope("agent.custom", json!({"n": i})))
            .unwrap();
    }
    let v = s.view();
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1000);
    assert_eq!(v["warning_count"], 1500);
}

#[test]
fn view_warnings_name_the_envelope_they_came_from() {
    let mut s = Session::new(None);
    let mut e = envelope(
        "agent.step.started",
        json!({"step_number": 1, "mood": "calm"}),
    );
    *e.pointer_entry("/timestamp").unwrap() = json!("2026-01-20T12:00:01.000Z");
    s.ingest_value(&e).unwrap();
    let v = s.view();
    let w = &v["warnings"][0];
    assert_eq!(w["path"], "/payload/mood");
    assert_eq!(w["code"], "unknown_field");
    assert_eq!(w["type"], "agent.step.started");
    assert_eq!(w["timestamp"], "2026-01-20T12:00:01.000Z");
}

#[test]
fn a_jsonl_batch_lists_its_warnings_by_line_up_to_a_thousand_and_counts_all() {
    let mut s = Session::new(None);
    let mut lines = vec![envelope("agent.status", json!({"status": "processing"})).to_string()];
    lines.push(String::new());
    for i in 0..1200 {
        lines.push(envelope("agent.custom", json!({"n": i})).to_string());
    }
    let out = s.ingest_jsonl(&lines.join("\n"));
    assert_eq!(out.warning_count, 1200);
    assert_eq!(out.warnings.len(), 1000);
    // Line 1 is clean and line 2 blank: the first warning is line 3's.
    assert_eq!(out.warnings[0].0, 3);
    assert_eq!(out.warnings[0].1.code, "unknown_type");
    let v = stepline::json::to_value_of(&out.view());
    assert_eq!(v["warningCount"], 1200);
    assert_eq!(v["warnings"][999]["line"], 1002);
    assert_eq!(v["warnings"][0]["warning"]["path"], "/type");
}

/// The log keeps each envelope on one JSONL line: text that breaks lines in
/// its whitespace is kept re-written compactly, one-line text as it came.
#[test]
fn envelope_text_spanning_lines_is_logged_on_one_line() {
    let one_line = envelope("agent.status", json!({"status": "processing"})).to_string();
    let spread = "{\r\n  \"type\": \"agent.status\",\n  \"session_id\": \"s1\",\n  \"execution_id\": \"e1\",\n  \"timestamp\": \"2026-01-20T12:00:01Z\",\n  \"payload\": {\"status\": \"completed\"}\n}\n";
    let mut s = Session::new(None);
    s.ingest_text(&one_line).unwrap();
    s.ingest_text(spread).unwrap();
    let recording = s.to_recording();
    let lines: Vec<&str> = recording.lines().collect();
    assert!(lines.contains(&one_line.as_str()), "{recording}");
    let compact = stepline::json::to_string(&stepline::json::from_str(spread).unwrap());
    assert!(lines.contains(&compact.as_str()), "{recording}");
    let (back, _) = Session::from_recording(&recording).unwrap();
    assert_eq!(back.view(), s.view());
}
