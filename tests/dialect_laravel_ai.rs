//! laravel/ai broadcast streams, ingested event by event, against the view
//! facts written next to them in `tests/vectors/dialects/laravel-ai/` (built
//! from laravel/ai's stream event classes, provenance in each file and its
//! README): text, reasoning, tools with status, arguments, result and
//! error, usage from `stream_end`, the reason the run ended; a redelivered
//! run changes nothing; bad input is refused with a code and a path.

use std::path::{Path, PathBuf};

use stepline::json::{self, Value};
use stepline::session::Session;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/dialects/laravel-ai")
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    json::parse(&text, &json::Limits::default()).unwrap()
}

/// Every vector file of runs (all but `bad-input.json`), by name.
fn run_vectors() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| !p.ends_with("bad-input.json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                read(&p),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn events(v: &Value) -> &[Value] {
    v["events"].as_array().unwrap()
}

/// Checks that `actual` holds every fact of `expected`: an object's keys
/// (others may exist), an array item for item (same length), a value equal.
fn check(expected: &Value, actual: &Value, at: &str, errors: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e.iter() {
                let path = format!("{at}/{k}");
                match a.get(k.as_ref()) {
                    Some(av) => check(ev, av, &path, errors),
                    None => errors.push(format!(
                        "{path}: missing (expected {})",
                        json::to_string(ev)
                    )),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                errors.push(format!(
                    "{at}: {} items, expected {} ({})",
                    a.len(),
                    e.len(),
                    json::to_string(actual)
                ));
                return;
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                check(ev, av, &format!("{at}/{i}"), errors);
            }
        }
        _ if expected == actual => {}
        _ => errors.push(format!(
            "{at}: {} (expected {})",
            json::to_string(actual),
            json::to_string(expected)
        )),
    }
}

/// Ingests the vector's events one by one; each must be accepted.
fn ingest(name: &str, v: &Value) -> Session {
    let mut s = Session::new(None);
    for (i, e) in events(v).iter().enumerate() {
        let out = s
            .ingest_value(e)
            .unwrap_or_else(|err| panic!("{name}: event {i} refused: {err}"));
        assert!(out.applied, "{name}: event {i} was not applied: {out:?}");
    }
    s
}

#[test]
fn every_vector_run_reads_into_the_view_facts_written_next_to_it() {
    let vectors = run_vectors();
    assert!(vectors.len() >= 11, "{} vector files", vectors.len());
    for (name, v) in &vectors {
        assert!(
            v["provenance"].as_str().is_some_and(|p| !p.is_empty()),
            "{name}: provenance"
        );
        let s = ingest(name, v);
        let view = s.view();
        let mut errors = Vec::new();
        check(
            &v["expected"]["executions"],
            &view["executions"],
            "/executions",
            &mut errors,
        );
        for exec in view["executions"].as_array().unwrap() {
            if exec["dialect"] != "laravel-ai" {
                errors.push(format!("dialect {}", exec["dialect"]));
            }
        }
        let codes: Vec<&Value> = view["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| &w["code"])
            .collect();
        let expected: Vec<&Value> = v["expected"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .collect();
        if codes != expected {
            errors.push(format!("warnings {}", json::to_string(&view["warnings"])));
        }
        assert!(errors.is_empty(), "{name}:\n{}", errors.join("\n"));
    }
}

#[test]
fn a_redelivered_run_adds_nothing_and_counts_every_event_a_duplicate() {
    for (name, v) in run_vectors() {
        let mut s = ingest(&name, &v);
        let before = s.view();
        let applied = s.counts().applied;
        for e in events(&v) {
            let out = s.ingest_value(e).unwrap();
            assert!(out.duplicate && !out.applied, "{name}: {e:?} → {out:?}");
        }
        assert_eq!(s.counts().duplicates, events(&v).len() as u64, "{name}");
        assert_eq!(s.counts().applied, applied, "{name}");
        let mut after = s.view();
        // Only the counts differ.
        let counts = after.as_object_mut().unwrap();
        counts.insert("counts", before["counts"].clone());
        assert_eq!(after, before, "{name}");
    }
}

#[test]
fn stream_end_usage_is_each_steps_usage_and_sums_to_the_runs_total() {
    let v = read(&dir().join("canonical-per-step.json"));
    let s = ingest("canonical-per-step.json", &v);
    let view = s.view();
    let exec = &view["executions"][0];
    let steps = exec["steps"].as_array().unwrap();
    let sent: Vec<&Value> = events(&v)
        .iter()
        .filter(|e| e["type"] == "stream_end")
        .map(|e| &e["usage"])
        .collect();
    assert_eq!(sent.len(), steps.len());
    let mut input = 0;
    for (step, usage) in steps.iter().zip(sent) {
        assert_eq!(step["usage"]["input"], usage["prompt_tokens"]);
        assert_eq!(step["usage"]["output"], usage["completion_tokens"]);
        assert_eq!(step["usage"]["cacheRead"], usage["cache_read_input_tokens"]);
        assert_eq!(
            step["usage"]["cacheWrite"],
            usage["cache_write_input_tokens"]
        );
        assert_eq!(step["usage"]["reasoning"], usage["reasoning_tokens"]);
        input += usage["prompt_tokens"].as_i64().unwrap();
    }
    assert_eq!(exec["usage"]["input"].as_i64(), Some(input));
}

#[test]
fn the_same_run_in_both_layouts_has_the_same_text_tools_and_total_usage() {
    let per_step = ingest(
        "canonical-per-step.json",
        &read(&dir().join("canonical-per-step.json")),
    )
    .view();
    let prism = ingest(
        "canonical-prism-loop.json",
        &read(&dir().join("canonical-prism-loop.json")),
    )
    .view();
    let (a, b) = (&per_step["executions"][0], &prism["executions"][0]);
    assert_eq!(a["usage"], b["usage"]);
    assert_eq!(a["text"], b["text"]);
    assert_eq!(a["final_answer"], b["final_answer"]);
    let steps = |e: &Value| -> Vec<(Value, Value, Value)> {
        e["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["text"].clone(),
                    s["reasoning"].clone(),
                    s["tools"].clone(),
                )
            })
            .collect()
    };
    // Tool timestamps differ between the layouts; names, ids, status, args, result and error do not.
    let strip = |mut v: Vec<(Value, Value, Value)>| {
        for (_, _, tools) in &mut v {
            for t in tools.as_array_mut().unwrap() {
                let t = t.as_object_mut().unwrap();
                t.insert("started_at", Value::Null);
                t.insert("completed_at", Value::Null);
            }
        }
        v
    };
    assert_eq!(strip(steps(a)), strip(steps(b)));
}

#[test]
fn bad_input_is_refused_with_its_code_and_the_path_into_the_event() {
    let v = read(&dir().join("bad-input.json"));
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let mut s = Session::new(None);
        let err = s
            .ingest_value(&c["event"])
            .expect_err(&format!("{name}: accepted"));
        assert_eq!(
            err.code.as_str(),
            c["code"].as_str().unwrap(),
            "{name}: {err}"
        );
        assert_eq!(err.path.as_deref(), c["path"].as_str(), "{name}: {err}");
        // Nothing of a refused event reaches the view.
        assert_eq!(s.counts().applied, 0, "{name}");
    }
}

#[test]
fn an_error_is_a_refusal_never_a_panic_for_any_field_of_any_event_made_null_or_a_wrong_type() {
    // Every vector event, each of its fields replaced by values of every JSON type.
    let replacements = [
        Value::Null,
        Value::Bool(true),
        Value::from(-1),
        Value::from(1.5),
        Value::from("x"),
        Value::Array(vec![]),
        Value::Object(json::Map::new()),
    ];
    for (name, v) in run_vectors() {
        for e in events(&v) {
            for key in e.as_object().unwrap().keys() {
                for r in &replacements {
                    let mut bad = e.clone();
                    bad.as_object_mut().unwrap().insert(key.clone(), r.clone());
                    let mut s = Session::new(None);
                    // Accepted or refused; a refusal names a path.
                    if let Err(err) = s.ingest_value(&bad) {
                        assert!(err.path.is_some(), "{name}: {key} = {r:?}: {err}");
                    }
                }
            }
        }
    }
}

/// Found by the `dialect_laravel_ai` fuzz target
/// (`fuzz/regressions/dialect_laravel_ai/restarted-invocation-new-event-same-content.jsonl`):
/// an invocation stops for a tool approval, starts again (a new
/// `stream_start` of the same `invocation_id`) and asks again in a new event
/// (a new `id`) whose envelopes equal the first request's, timestamp
/// included. Delivered one by one, the session took those envelopes for
/// redeliveries of the first request's and dropped them, yet logged the
/// event; its recording, replayed as one delivery, applied them: the live
/// turn stayed `processing`, the replayed one `interrupted`. laravel/ai's
/// translator tells a redelivered event by its `id`, so an event it takes
/// as new applies, one by one as in a batch.
#[test]
fn a_new_event_of_a_restarted_invocation_applies_even_when_it_repeats_an_earlier_one() {
    let ask = |id: &str| {
        format!(
            r#"{{"id":"{id}","invocation_id":"inv-1","type":"tool_approval_request","approvals":[{{"id":"call_1","tool":"delete_file","arguments":{{"path":"a.pdf"}},"reason":null,"tool_call_id":"call_1"}}],"timestamp":1795168801}}"#
        )
    };
    let start = |id: &str| {
        format!(
            r#"{{"id":"{id}","invocation_id":"inv-1","type":"stream_start","provider":"anthropic","model":"claude-sonnet-4-5","timestamp":1795168800,"metadata":null}}"#
        )
    };
    let lines = [
        start("evt_1"),
        r#"{"id":"evt_2","invocation_id":"inv-1","type":"tool_call","tool_id":"call_1","tool_name":"delete_file","arguments":{"path":"a.pdf"},"reasoning_id":null,"timestamp":1795168801}"#.to_string(),
        ask("evt_3"),
        start("evt_4"),
        ask("evt_5"),
    ];
    let mut live = Session::new(None);
    for line in &lines {
        let o = live.ingest_text(line).unwrap();
        assert!(o.applied, "{line}");
    }
    let mut batch = Session::new(None);
    batch.ingest_jsonl(&lines.join("\n"));
    let (replayed, _) = Session::from_recording(&live.to_recording()).unwrap();
    let view = live.view();
    assert_eq!(view["executions"], batch.view()["executions"]);
    assert_eq!(view["executions"], replayed.view()["executions"]);
    let turns = view["executions"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "the restart is a second turn");
    assert_eq!(turns[1]["status"], "interrupted");
    assert_eq!(turns[1]["end_reason"], "tool_approval");
}
