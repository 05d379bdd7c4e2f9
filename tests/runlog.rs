//! Recordings and the run log: the reference's ten runs interleaved as
//! parallel workers would send them, summaries checked against figures
//! computed here from the vector data, and save/load round trips.

use std::collections::{BTreeMap, BTreeSet};

use stepline::json;
use stepline::json::Value;
use stepline::session::recording::{Item, Recording};
use stepline::session::runlog::RunLog;
use stepline::session::Session;
use stepline::ErrorCode;

mod common;
use common::vectors;

/// One turn of a reference run: its envelopes and final slim snapshot.
struct Turn {
    envelopes: Vec<Value>,
    slim: Value,
}

/// Every reference run, its session id suffixed with the run's index so
/// each run is a session of its own.
fn runs() -> Vec<(String, Vec<Turn>)> {
    let cases = vectors("agent-runs.json");
    cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let mut id = String::new();
            let turns = case["expected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| Turn {
                    envelopes: t["envelopes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| {
                            let mut env = e["envelope"].clone();
                            id = format!("{}-{i}", env["session_id"].as_str().unwrap());
                            *env.pointer_entry("/session_id").unwrap() = Value::from(id.as_str());
                            env
                        })
                        .collect(),
                    slim: t["slim"].clone(),
                })
                .collect();
            (id, turns)
        })
        .collect()
}

fn envelopes_of(turns: &[Turn]) -> Vec<Value> {
    turns.iter().flat_map(|t| t.envelopes.clone()).collect()
}

/// Round-robin over the runs, one envelope each, as parallel workers
/// interleave; each run's own order is kept.
fn interleaved(runs: &[(String, Vec<Turn>)]) -> Vec<Value> {
    let streams: Vec<Vec<Value>> = runs.iter().map(|(_, t)| envelopes_of(t)).collect();
    let longest = streams.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|k| streams.iter().filter_map(move |s| s.get(k).cloned()))
        .collect()
}

fn alone(envelopes: &[Value]) -> Session {
    let mut s = Session::new(None);
    for e in envelopes {
        s.ingest_value(e).unwrap();
    }
    s
}

fn log_of(envelopes: &[Value]) -> RunLog {
    let mut log = RunLog::new();
    for e in envelopes {
        log.ingest_value(e).unwrap();
    }
    log
}

fn of_type<'a>(envs: &'a [Value], kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    envs.iter().filter(move |e| e["type"] == kind)
}

fn last_status(envs: &[Value]) -> Option<&str> {
    of_type(envs, "agent.status")
        .last()
        .and_then(|e| e["payload"]["status"].as_str())
}

/// Nearest rank, written out independently of the library.
fn nearest_rank(sorted: &[f64], p: f64) -> Value {
    if sorted.is_empty() {
        return Value::Null;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    json!(sorted[rank - 1])
}

fn as_f64_summary(v: &Value) -> Value {
    // Durations keep their JSON form; compare them as numbers.
    json!({
        "p50": v["p50"].as_f64(), "p95": v["p95"].as_f64(),
        "max": v["max"].as_f64(), "count": v["count"],
    })
}

// ---- routing -----------------------------------------------------------------

#[test]
fn interleaved_parallel_runs_each_converge_to_their_run_alone() {
    let runs = runs();
    let log = log_of(&interleaved(&runs));
    let ids: Vec<&str> = log.sessions().map(|(id, _)| id).collect();
    let expected: Vec<&str> = runs.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, expected, "first-seen order");
    for (id, turns) in &runs {
        let s = log.session(id).unwrap();
        assert_eq!(s.view(), alone(&envelopes_of(turns)).view(), "{id}");
        assert_eq!(s.counts().rejected, 0);
    }
}

#[test]
fn envelopes_without_a_session_id_go_to_the_session_keyed_empty() {
    let mut log = RunLog::new();
    let native = json!({"event_type": "agent.step.started", "step_index": 1,
                        "step_id": "st-1", "timestamp": "2026-01-20T12:00:00Z"});
    log.ingest_value(&native).unwrap();
    log.ingest_text(
        r#"{"type":"agent.status","session_id":"w1","payload":{"status":"processing"}}"#,
    )
    .unwrap();
    let keys: Vec<&str> = log.sessions().map(|(id, _)| id).collect();
    assert_eq!(keys, ["", "w1"]);
    let s = log.session("").unwrap();
    assert_eq!(s.session_id(), None);
    assert_eq!(s.executions()[0].steps.len(), 1);
    // Saved as received, so the native form survives a reload.
    let back = RunLog::load(&log.save()).unwrap();
    assert_eq!(back.session("").unwrap().view(), s.view());
}

// ---- summary -------------------------------------------------------------------

/// The runs with distinct, made-up durations (the reference reports 0 for
/// everything), so percentiles have something to tell apart.
fn with_durations(runs: &mut [(String, Vec<Turn>)]) {
    let mut k = 0u64;
    for (_, turns) in runs.iter_mut() {
        for t in turns.iter_mut() {
            for e in t.envelopes.iter_mut() {
                let timed =
                    e["type"] == "agent.step.completed" || e["type"] == "agent.tool.completed";
                if timed {
                    k += 1;
                    *e.pointer_entry("/payload/duration_ms").unwrap() = json!((k * 37) % 101);
                }
            }
        }
    }
}

#[test]
fn summary_figures_match_what_the_vector_data_says() {
    let mut runs = runs();
    with_durations(&mut runs);
    // Redeliver every status broadcast right after the original.
    let mut input = Vec::new();
    let mut redelivered = 0u64;
    for e in interleaved(&runs) {
        input.push(e.clone());
        if e["type"] == "agent.status" {
            input.push(e);
            redelivered += 1;
        }
    }
    let summary = stepline::json::to_value_of(&log_of(&input).summary());

    let mut by_status = BTreeMap::<String, u64>::new();
    let mut by_stop = BTreeMap::<String, u64>::new();
    let (mut executions, mut steps, mut steps_with_errors, mut run_errors) =
        (0u64, 0u64, 0u64, 0u64);
    let mut tools = BTreeMap::<String, (u64, u64)>::new();
    let mut tokens = BTreeMap::<&str, i64>::new();
    let (mut step_ms, mut tool_ms) = (Vec::new(), Vec::new());
    for (_, turns) in &runs {
        let all = envelopes_of(turns);
        *by_status
            .entry(last_status(&all).unwrap_or("unknown").to_string())
            .or_default() += 1;
        for t in turns {
            let envs = &t.envelopes;
            executions += 1;
            let numbers: BTreeSet<i64> = envs
                .iter()
                .filter(|e| {
                    e["type"] == "agent.step.started" || e["type"] == "agent.step.completed"
                })
                .map(|e| e["payload"]["step_number"].as_i64().unwrap())
                .collect();
            steps += numbers.len() as u64;
            let last = numbers.iter().next_back().copied();
            let streamed = of_type(envs, "agent.continuation")
                .filter(|c| c["payload"]["step_number"].as_i64() == last)
                .filter_map(|c| c["payload"]["stop_reason"].as_str())
                .last();
            let reason = streamed.unwrap_or(match last_status(envs) {
                Some("completed") => "completed",
                Some("failed") => "error",
                Some("cancelled") => "user_requested",
                Some("stopped") => "stopped",
                _ => "unknown",
            });
            *by_stop.entry(reason.to_string()).or_default() += 1;
            run_errors += u64::from(last_status(envs) == Some("failed"));
            for e in of_type(envs, "agent.step.completed") {
                steps_with_errors += u64::from(e["payload"]["errors"].as_i64().unwrap_or(0) > 0);
                step_ms.extend(e["payload"]["duration_ms"].as_f64());
            }
            for e in of_type(envs, "agent.tool.started") {
                let name = e["payload"]["tool_name"].as_str().unwrap().to_string();
                tools.entry(name).or_default().0 += 1;
            }
            for e in of_type(envs, "agent.tool.completed") {
                if e["payload"]["success"] == false {
                    let name = e["payload"]["tool_name"].as_str().unwrap().to_string();
                    tools.entry(name).or_default().1 += 1;
                }
                tool_ms.extend(e["payload"]["duration_ms"].as_f64());
            }
            for (k, v) in t.slim["usage"].as_object().unwrap() {
                *tokens.entry(&**k).or_default() += v.as_i64().unwrap();
            }
        }
    }
    let total: i64 = tokens.values().sum();
    step_ms.sort_by(f64::total_cmp);
    tool_ms.sort_by(f64::total_cmp);
    let durations = |list: &[f64]| {
        json!({"p50": nearest_rank(list, 50.0), "p95": nearest_rank(list, 95.0),
               "max": list.last(), "count": list.len()})
    };
    let failed_tools: u64 = tools.values().map(|t| t.1).sum();
    let tool_calls: BTreeMap<String, Value> = tools
        .into_iter()
        .map(|(k, (count, failed))| (k, json!({"count": count, "failed": failed})))
        .collect();

    assert_eq!(summary["sessions"], runs.len());
    assert_eq!(summary["by_status"], object(by_status));
    assert_eq!(summary["by_stop_reason"], object(by_stop));
    assert_eq!(summary["executions"], executions);
    assert_eq!(summary["steps"], steps);
    assert_eq!(summary["tool_calls"], object(tool_calls));
    for (k, v) in &tokens {
        assert_eq!(summary["tokens"][*k], *v, "tokens.{k}");
    }
    assert_eq!(summary["tokens"]["total"], total);
    assert_eq!(
        as_f64_summary(&summary["durations"]["step_ms"]),
        durations(&step_ms)
    );
    assert_eq!(
        as_f64_summary(&summary["durations"]["tool_ms"]),
        durations(&tool_ms)
    );
    assert_eq!(
        summary["errors"],
        json!({"steps_with_errors": steps_with_errors, "failed_tools": failed_tools,
               "run_errors": run_errors})
    );
    assert_eq!(summary["duplicates"], redelivered);
    assert_eq!(summary["rejected"], 0);
}

#[test]
fn by_status_counts_each_session_once_by_its_latest_status() {
    let runs = runs();
    let summary = stepline::json::to_value_of(&log_of(&interleaved(&runs)).summary());
    let counted: u64 = summary["by_status"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(counted, runs.len() as u64);
    // The exception path never broadcasts a final status (quirk 7).
    let throwing = runs
        .iter()
        .filter(|(_, t)| last_status(&envelopes_of(t)) == Some("processing"))
        .count();
    assert_eq!(summary["by_status"]["processing"], throwing);
    assert!(throwing > 0);
}

#[test]
fn percentiles_are_nearest_rank_over_the_values_that_occurred() {
    let mut log = RunLog::new();
    // Durations 1..=20 in scrambled order, one step each.
    for k in 0..20u64 {
        let ms = (k * 7) % 20 + 1;
        let line = json!({"type": "agent.step.completed", "session_id": "p", "execution_id": "e",
                          "payload": {"step_number": k + 1, "duration_ms": ms}});
        log.ingest_value(&line).unwrap();
    }
    let summary = stepline::json::to_value_of(&log.summary());
    let d = &summary["durations"];
    // Nearest rank: p50 is the 10th of 20 sorted values, p95 the 19th.
    assert_eq!(
        d["step_ms"],
        json!({"p50": 10, "p95": 19, "max": 20, "count": 20})
    );
    assert_eq!(
        d["tool_ms"],
        json!({"p50": null, "p95": null, "max": null, "count": 0})
    );
}

// ---- save and load --------------------------------------------------------------

#[test]
fn save_then_load_gives_equal_summaries_views_and_snapshots() {
    let runs = runs();
    let mut input = interleaved(&runs);
    let again = input[3].clone();
    input.push(again.clone()); // a redelivery is counted in the header, not written again
    let mut log = log_of(&input);
    for (id, turns) in &runs {
        for t in turns {
            log.add_snapshot(id, t.slim.clone());
        }
    }
    let saved = log.save();
    let first: Value = stepline::json::from_str(saved.lines().next().unwrap()).unwrap();
    let dup_session = again["session_id"].as_str().unwrap();
    assert_eq!(
        first,
        json!({"stepline_recording": 1, "kind": "runlog",
               "sessions": {dup_session: {"duplicates": 1}}})
    );
    assert_eq!(
        saved.lines().count(),
        1 + input.len() - 1 + log.snapshots().count()
    );
    let back = RunLog::load(&saved).unwrap();
    assert_eq!(back.summary(), log.summary());
    assert_eq!(back.summary().duplicates, 1);
    let views = |l: &RunLog| -> Vec<(String, Value)> {
        l.sessions()
            .map(|(id, s)| (id.to_string(), s.view()))
            .collect()
    };
    assert_eq!(views(&back), views(&log));
    let snaps: Vec<(Option<&str>, &Value)> = back.snapshots().collect();
    assert_eq!(snaps, log.snapshots().collect::<Vec<_>>());
    assert_eq!(snaps.len(), runs.iter().map(|r| r.1.len()).sum::<usize>());
    assert_eq!(back.save(), saved, "a reload saves the same file");
}

#[test]
fn save_keeps_envelopes_as_received_in_global_arrival_order() {
    let runs = runs();
    let input = interleaved(&runs);
    let saved = log_of(&input).save();
    let lines: Vec<Value> = saved
        .lines()
        .skip(1)
        .map(|l| stepline::json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, input);
}

#[test]
fn a_session_saved_and_loaded_gives_an_identical_view() {
    for (id, turns) in runs() {
        let s = alone(&envelopes_of(&turns));
        let text = s.to_recording();
        let (back, snapshots) = Session::from_recording(&text).unwrap();
        assert_eq!(back.view(), s.view(), "{id}");
        assert_eq!(back.session_id(), Some(id.as_str()));
        assert!(snapshots.is_empty());
    }
}

#[test]
fn a_session_recording_returns_its_snapshots_for_reconcile() {
    let (id, turns) = runs().swap_remove(0);
    let s = alone(&envelopes_of(&turns));
    let mut text = s.to_recording();
    let line = json!({"stepline_snapshot": turns[0].slim, "session_id": id});
    text.push_str(&line.to_string());
    text.push('\n');
    let (back, snapshots) = Session::from_recording(&text).unwrap();
    assert_eq!(snapshots, [turns[0].slim.clone()]);
    assert_eq!(back.reconcile(&snapshots[0]), s.reconcile(&turns[0].slim));
}

#[test]
fn a_recording_without_header_adopts_the_first_envelopes_session() {
    let (id, turns) = runs().swap_remove(1);
    let text: String = turns[0]
        .envelopes
        .iter()
        .map(|e| format!("{e}\n"))
        .collect();
    let (s, _) = Session::from_recording(&text).unwrap();
    assert_eq!(s.session_id(), Some(id.as_str()));
    assert_eq!(s.view(), alone(&turns[0].envelopes).view());
}

#[test]
fn a_header_line_and_snapshot_lines_survive_the_round_trip() {
    let (id, turns) = runs().swap_remove(0);
    let header = json!({"stepline_recording": 1, "session_id": id,
                        "created_at": "2026-01-20T12:00:00Z", "meta": {"worker": 3}});
    let mut text = format!("{header}\n");
    for e in &turns[0].envelopes {
        text.push_str(&format!("{e}\n"));
    }
    let snap =
        json!({"stepline_snapshot": turns[0].slim, "session_id": id, "execution_id": "exec-1"});
    text.push_str(&format!("{snap}\n"));

    let rec = Recording::parse(&text).unwrap();
    assert_eq!(rec.header, Some(header.clone()));
    assert_eq!(rec.items.len(), turns[0].envelopes.len() + 1);
    assert_eq!(
        rec.items.last(),
        Some(&Item::Snapshot {
            session_id: Some(id.clone()),
            execution_id: Some("exec-1".into()),
            snapshot: turns[0].slim.clone(),
            error: None,
        })
    );
    assert_eq!(rec.to_jsonl(), text, "envelopes written as given");
    assert_eq!(Recording::parse(&rec.to_jsonl()).unwrap(), rec);

    // Through a run log: the header's created_at and meta are saved again.
    let log = RunLog::load(&text).unwrap();
    let saved = log.save();
    let first: Value = stepline::json::from_str(saved.lines().next().unwrap()).unwrap();
    assert_eq!(first["meta"], header["meta"]);
    assert_eq!(first["created_at"], header["created_at"]);
    assert_eq!(saved.lines().last(), text.lines().last());
}

#[test]
fn an_empty_file_gives_an_empty_log() {
    for text in ["", "\n", "  \n\r\n\t\n", "\u{feff}"] {
        let log = RunLog::load(text).unwrap();
        assert_eq!(log.sessions().count(), 0);
        let s = log.summary();
        assert_eq!(s.sessions, 0);
        assert_eq!(s.steps, 0);
        assert_eq!(s.durations.step_ms.p50, None);
        assert_eq!(Recording::parse(text).unwrap(), Recording::default());
        let (session, snaps) = Session::from_recording(text).unwrap();
        assert!(session.executions().is_empty() && snaps.is_empty());
        assert_eq!(RunLog::load(&log.save()).unwrap().sessions().count(), 0);
    }
}

// ---- bad input ----------------------------------------------------------------

const STATUS: &str =
    r#"{"type":"agent.status","session_id":"s","payload":{"status":"processing"}}"#;

#[test]
fn recording_errors_name_the_line_and_the_path_inside_it() {
    let cases: [(String, ErrorCode, &str); 7] = [
        (
            format!("{STATUS}\n\n{{not json\n"),
            ErrorCode::InvalidJson,
            "/lines/3",
        ),
        (
            format!(
                "{STATUS}\n{}\n",
                r#"{"type":"agent.status","session_id":"s","payload":{"status":7}}"#
            ),
            ErrorCode::InvalidType,
            "/lines/2/payload/status",
        ),
        (
            format!("{STATUS}\n[1,2]\n"),
            ErrorCode::InvalidType,
            "/lines/2",
        ),
        (
            format!("{STATUS}\n{}\n", r#"{"stepline_recording":1}"#),
            ErrorCode::InvalidValue,
            "/lines/2/stepline_recording",
        ),
        (
            r#"{"stepline_recording":2}"#.into(),
            ErrorCode::InvalidValue,
            "/lines/1/stepline_recording",
        ),
        (
            format!("{STATUS}\n{}\n", r#"{"stepline_snapshot":[]}"#),
            ErrorCode::InvalidType,
            "/lines/2/stepline_snapshot",
        ),
        (
            format!(
                "{STATUS}\n{}\n",
                r#"{"stepline_snapshot":{},"session_id":5}"#
            ),
            ErrorCode::InvalidType,
            "/lines/2/session_id",
        ),
    ];
    for (text, code, path) in cases {
        for err in [
            Recording::parse(&text).unwrap_err(),
            RunLog::load(&text).unwrap_err(),
            Session::from_recording(&text).unwrap_err(),
        ] {
            assert_eq!(
                (err.code, err.path.as_deref()),
                (code, Some(path)),
                "{text}"
            );
        }
    }
}

#[test]
fn ingest_jsonl_keeps_going_past_bad_lines_and_numbers_them() {
    let text = format!(
        "{STATUS}\n{{oops\n{STATUS}\n{}\n\n{}\n",
        r#"{"type":"agent.step.started","session_id":"s","payload":{}}"#,
        r#"{"stepline_snapshot":{"status":"completed"},"session_id":"s"}"#
    );
    let mut log = RunLog::new();
    let out = log.ingest_jsonl(&text);
    assert_eq!((out.applied, out.duplicates, out.snapshots), (1, 1, 1));
    let where_: Vec<(usize, Option<&str>)> = out
        .errors
        .iter()
        .map(|(n, e)| (*n, e.path.as_deref()))
        .collect();
    assert_eq!(
        where_,
        [
            (2, Some("/lines/2")),
            (4, Some("/lines/4/payload/step_number"))
        ]
    );
    let v = stepline::json::to_value_of(&out.view());
    assert_eq!(v["errors"][1]["line"], 4);
    assert_eq!(v["errors"][1]["error"]["code"], "missing_field");
}

#[test]
fn hostile_lines_are_errors_never_panics() {
    let deep = "[".repeat(200) + &"]".repeat(200);
    let huge = format!("\"{}\"", "x".repeat(2 * 1024 * 1024));
    let lines = [
        "null", "1", "\"s\"", "{}", "[]", "{\"type\":5}", "{\"stepline_recording\":\"1\"}",
        "{\"stepline_recording\":1,\"session_id\":[]}", "{\"stepline_snapshot\":null}",
        "{\"type\":\"agent.status\",\"session_id\":\"s\",\"timestamp\":\"yesterday\",\"payload\":{\"status\":\"x\"}}",
        deep.as_str(), huge.as_str(), "\u{0}", "{\"a\":1}{\"b\":2}",
    ];
    for (i, line) in lines.iter().enumerate() {
        let text = format!("{STATUS}\n{line}\n");
        let err = Recording::parse(&text).unwrap_err();
        assert_eq!(
            err.path.as_deref().map(|p| p.starts_with("/lines/2")),
            Some(true),
            "{i}"
        );
        assert!(RunLog::load(&text).is_err());
        assert!(Session::from_recording(&text).is_err());
        let mut log = RunLog::new();
        assert_eq!(log.ingest_jsonl(&text).errors.len(), 1, "{i}");
        assert!(log.ingest_text(line).is_err());
    }
}

// ---- memory bounds ---------------------------------------------------------------

#[test]
fn redeliveries_are_counted_not_kept_and_a_reloaded_log_counts_them_again() {
    let runs = runs();
    let input = interleaved(&runs);
    let mut log = log_of(&input);
    let single = log.save();
    let mut duplicates = 0;
    for _ in 0..3 {
        for e in &input {
            duplicates += usize::from(log.ingest_value(e).unwrap().duplicate);
        }
    }
    // Chunks without an index have no identity: each is more text.
    let unindexed = 3 * input.len() - duplicates;
    assert!(duplicates > 2 * input.len());
    let saved = log.save();
    assert_eq!(
        saved.lines().count(),
        single.lines().count() + unindexed,
        "no redelivered line is written"
    );
    let back = RunLog::load(&saved).unwrap();
    assert_eq!(back.summary(), log.summary());
    assert_eq!(back.summary().duplicates, duplicates as u64);
    let views = |l: &RunLog| l.sessions().map(|(_, s)| s.view()).collect::<Vec<_>>();
    assert_eq!(views(&back), views(&log));
    assert_eq!(
        back.save(),
        saved,
        "saving a loaded log writes the same file"
    );
    // The same through a batch into an empty log.
    let mut batch = RunLog::new();
    let out = batch.ingest_jsonl(&saved);
    assert_eq!(out.errors.count, 0);
    assert_eq!(batch.summary(), log.summary());
}

#[test]
fn a_saved_header_naming_an_unknown_session_is_refused_with_its_path() {
    let line = r#"{"type":"agent.status","session_id":"a","payload":{"status":"processing"}}"#;
    for (sessions, path) in [
        (r#"{"b":{"duplicates":2}}"#, "/lines/1/sessions/b"),
        (
            r#"{"a":{"duplicates":-2}}"#,
            "/lines/1/sessions/a/duplicates",
        ),
        (r#"[]"#, "/lines/1/sessions"),
    ] {
        let text = format!(
            "{{\"stepline_recording\":1,\"kind\":\"runlog\",\"sessions\":{sessions}}}\n{line}\n"
        );
        let err = RunLog::load(&text).unwrap_err();
        assert_eq!(err.path.as_deref(), Some(path), "{sessions}");
        let out = RunLog::new().ingest_jsonl(&text);
        assert_eq!(out.errors[0].1.path.as_deref(), Some(path));
    }
}

#[test]
fn a_run_log_keeps_its_sessions_text_within_the_limit_and_saves_what_it_dropped() {
    let chunk = |s: &str, i: usize| {
        json!({"type": "agent.stream.chunk", "session_id": s, "execution_id": "e",
               "payload": {"content": "y".repeat((1 << 20) - 200), "chunk_index": i}})
    };
    let mut log = RunLog::new();
    for i in 0..12 {
        log.ingest_value(&chunk("a", i)).unwrap();
        log.ingest_value(&chunk("b", 11 - i)).unwrap();
    }
    let saved = log.save();
    // Per session the chunks within 8 MiB and the one crossing it, not all 12.
    assert!(saved.len() < (2 * 9) << 20, "{} bytes saved", saved.len());
    let back = RunLog::load(&saved).unwrap();
    for id in ["a", "b"] {
        let e = &back.session(id).unwrap().view()["executions"][0];
        assert_eq!(e["text"].as_str().unwrap().len(), 8 << 20);
        assert_eq!(e["text_dropped_bytes"], 12 * ((1 << 20) - 200) - (8 << 20));
        assert_eq!(e, &log.session(id).unwrap().view()["executions"][0]);
    }
}

/// A map as the JSON object the summary writes (keys in sorted order).
fn object<V: Into<Value>>(m: BTreeMap<String, V>) -> Value {
    Value::Object(m.into_iter().map(|(k, v)| (k, v.into())).collect())
}

/// A resync of a run log: the whole recording of every run (interleaved)
/// ingested into a log that holds the start of each leaves every session's
/// executions as the whole run's, and counts the held envelopes as
/// redeliveries (under the reference's frozen clock, identical tool events
/// of consecutive steps are told apart by their place in the recording).
#[test]
fn a_recording_merged_into_a_run_log_holding_the_start_of_each_run_gives_the_whole_runs() {
    let runs = runs();
    let mut whole = RunLog::new();
    for (_, turns) in &runs {
        for e in envelopes_of(turns) {
            whole.ingest_value(&e).unwrap();
        }
    }
    let recording = whole.save();
    for held_share in [0usize, 1, 2, 3] {
        let mut log = RunLog::new();
        let mut held = 0;
        for (_, turns) in &runs {
            let all = envelopes_of(turns);
            for e in &all[..all.len() * held_share / 3] {
                log.ingest_value(e).unwrap();
                held += 1;
            }
        }
        let out = log.ingest_jsonl(&recording);
        assert_eq!(out.duplicates, held, "holding {held_share}/3");
        for (id, _) in &runs {
            assert_eq!(
                log.session(id).unwrap().view()["executions"],
                whole.session(id).unwrap().view()["executions"],
                "{id}, holding {held_share}/3"
            );
        }
    }
}
