//! The session after its first i envelopes (`Timeline`, the time slider's
//! view): equal to replaying those envelopes into a new session, whichever
//! kept copy it is rebuilt from; empty at 0; the whole view at the end; and
//! never going back as i grows.

use stepline::json;
use stepline::json::Value;
use stepline::session::timeline::Timeline;
use stepline::session::Session;

mod common;
use common::{vectors_of, Corpus};

/// A v1.22-shaped run of `steps` tool steps and a streamed answer.
fn long_run(steps: i64) -> Vec<Value> {
    let at = |n: i64| {
        format!(
            "2026-01-20T12:{:02}:{:02}.{:03}Z",
            (n / 60_000) % 60,
            (n / 1000) % 60,
            n % 1000
        )
    };
    let env = |n: i64, t: &str, p: Value| json!({"type": t, "session_id": "s", "execution_id": "e", "timestamp": at(n), "payload": p});
    let mut out = vec![env(
        0,
        "agent.status",
        json!({"status": "processing", "previous_status": "idle"}),
    )];
    let mut n = 1;
    for step in 1..=steps {
        let id = format!("call_{step}");
        let failed = step % 7 == 0;
        for (t, p) in [
            (
                "agent.step.started",
                json!({"step_number": step, "message_count": step, "tools_available": 2}),
            ),
            (
                "agent.tool.started",
                json!({"tool": "search", "tool_call_id": id.clone(), "args": {"q": step}}),
            ),
            (
                "agent.tool.completed",
                json!({"tool": "search", "tool_call_id": id.clone(), "success": !failed, "error": if failed { Value::from("boom") } else { Value::Null }}),
            ),
            (
                "agent.continuation",
                json!({"step_number": step, "should_continue": true, "stop_reason": "completed", "resolved_by": "ToolCallPresenceCheck", "evaluations": []}),
            ),
            (
                "agent.step.completed",
                json!({"step_number": step, "has_tool_calls": true, "errors": 0, "usage": {"input": 10, "output": 5}}),
            ),
        ] {
            out.push(env(n, t, p));
            n += 1;
        }
    }
    for i in 0..20 {
        out.push(env(
            n,
            "agent.stream.chunk",
            json!({"content": format!("word{i} "), "is_complete": i == 19, "chunk_index": i}),
        ));
        n += 1;
    }
    out.push(env(
        n,
        "agent.status",
        json!({"status": "completed", "previous_status": "processing"}),
    ));
    out
}

/// The session replaying `envelopes` makes, in the timeline's session (its id
/// is known before the first envelope).
fn session_of(envelopes: &[Value]) -> Session {
    let mut s = Session::new(Some("s".into()));
    for e in envelopes {
        s.ingest_value(e).unwrap();
    }
    s
}

/// `(executions, steps, envelopes applied)` of a view: what only grows.
fn extent(s: &Session) -> (usize, usize, usize) {
    let steps = s.executions().iter().map(|e| e.steps.len()).sum();
    (s.executions().len(), steps, s.log().count())
}

#[test]
fn a_prefix_is_the_session_its_first_envelopes_make_whichever_way_the_slider_moved() {
    let envs = long_run(120); // 621 envelopes, visited forward and back
    let whole = session_of(&envs);
    let mut t = Timeline::new(&whole);
    assert_eq!(t.len(), envs.len());
    for i in (0..=envs.len())
        .step_by(37)
        .chain([1, 63, 64, 65, 127, 128, envs.len() - 1])
    {
        let expected = session_of(envs.get(..i).unwrap());
        assert_eq!(t.at(i).view(), expected.view(), "prefix {i}");
    }
}

#[test]
fn the_end_is_the_view_the_start_is_empty_and_nothing_goes_back() {
    let envs = long_run(60);
    let whole = session_of(&envs);
    let mut t = Timeline::new(&whole);
    assert_eq!(t.at(t.len()).view(), whole.view());
    assert_eq!(
        t.at(t.len() + 5).view(),
        whole.view(),
        "past the end is the end"
    );
    let start = t.at(0).view();
    assert_eq!(start["executions"], json!([]));
    assert_eq!(start["usage"]["input"], 0);
    let mut last = (0, 0, 0);
    for i in 0..=t.len() {
        let now = extent(t.at(i));
        assert!(
            now >= last && now.2 == i,
            "prefix {i}: {now:?} after {last:?}"
        );
        last = now;
    }
}

#[test]
fn a_live_timeline_reads_only_the_new_envelopes() {
    let envs = long_run(800); // 4,021 envelopes
    let mut live = Session::new(None);
    let mut t = Timeline::new(&live);
    assert!(t.is_empty());
    for chunk in envs.chunks(500) {
        for e in chunk {
            live.ingest_value(e).unwrap();
        }
        assert_eq!(t.update(&live), chunk.len());
        assert_eq!(t.at(t.len()).view(), live.view());
    }
    let half = envs.len() / 2;
    assert_eq!(
        t.at(half).view(),
        session_of(envs.get(..half).unwrap()).view()
    );
}

#[test]
fn every_corpus_run_ends_as_its_view_and_starts_empty() {
    for corpus in [Corpus::V1_22, Corpus::V2_7] {
        for case in vectors_of(corpus, "agent-runs.json") {
            let mut s = Session::new(None);
            for turn in case["expected"].as_array().unwrap() {
                for b in turn["envelopes"].as_array().unwrap() {
                    s.ingest_value(b.get("envelope").unwrap_or(b)).unwrap();
                }
            }
            let mut t = Timeline::new(&s);
            // The log keeps each envelope once, so only the duplicate count differs.
            let len = t.len();
            let mut end = t.at(len).view();
            let mut view = s.view();
            assert_eq!(end["counts"]["applied"], view["counts"]["applied"]);
            end.as_object_mut().unwrap().remove("counts");
            view.as_object_mut().unwrap().remove("counts");
            assert_eq!(end, view, "{}", case["name"]);
            assert_eq!(t.at(0).view()["executions"], json!([]), "{}", case["name"]);
        }
    }
}

/// Found by the `timeline_view_at` fuzz target
/// (`fuzz/regressions/timeline_view_at/position-0-keeps-the-adopted-session-id.jsonl`):
/// a session created without an id adopts the first envelope's; a timeline
/// made after that started its replays from a session with the adopted id,
/// so position 0 read `session_id: "s"` there and `null` in a timeline made
/// before the first envelope (or reached another way). Position 0 is the
/// session before any envelope, which had no id.
#[test]
fn position_zero_has_the_id_the_session_was_created_with_not_the_adopted_one() {
    let line = r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"processing"}}"#;
    let mut s = Session::new(None);
    let mut early = Timeline::new(&s);
    s.ingest_text(line).unwrap();
    assert_eq!(s.session_id(), Some("s"));
    early.update(&s);
    let mut late = Timeline::new(&s);
    assert_eq!(late.at(0).view()["session_id"], Value::Null);
    assert_eq!(late.at(0).view(), early.at(0).view());
    assert_eq!(late.at(1).view(), s.view());
    // A session given its id keeps it at position 0.
    let mut given = Session::new(Some("s".into()));
    given.ingest_text(line).unwrap();
    assert_eq!(Timeline::new(&given).at(0).view()["session_id"], "s");
}

/// Found by the `timeline_view_at` fuzz target
/// (`fuzz/regressions/timeline_view_at/identical-lines-replayed-one-by-one-as-redeliveries.jsonl`):
/// a session read in two batches applied identical lines as separate
/// occurrences (a batch is one delivery); the timeline replayed its log
/// line by line, where a repeat is a redelivery, so `at(len)` lost them
/// (step 1's `message_count` 5 where the view said 1). The log is replayed
/// as the session received it now, each batch as one batch (#28's fix).
#[test]
fn the_end_of_a_timeline_is_the_view_when_the_session_applied_identical_lines() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/regressions/timeline_view_at/identical-lines-replayed-one-by-one-as-redeliveries.jsonl"
    );
    let data = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&data[data.iter().position(|&b| b == b'\n').unwrap() + 1..])
        .into_owned();
    let mut half = text.len() / 2;
    while !text.is_char_boundary(half) {
        half -= 1;
    }
    let (first, second) = text.split_at(half);
    let mut s = Session::new(None);
    s.ingest_jsonl(first);
    s.ingest_jsonl(second);
    let mut t = Timeline::new(&s);
    let without_counts = |mut v: Value| {
        v.as_object_mut().map(|m| m.remove("counts"));
        v
    };
    let len = t.len();
    assert_eq!(without_counts(t.at(len).view()), without_counts(s.view()));
    assert_eq!(
        s.envelopes_of(0, 1, Some(len))
            .map(|b| json::to_value_of(&b)),
        s.envelopes_of(0, 1, None).map(|b| json::to_value_of(&b))
    );
}

/// Found by the `timeline_view_at` fuzz target (#28,
/// `fuzz/regressions/timeline_view_at/two-deliveries-replayed-as-one-judge-a-repeat-otherwise.jsonl`,
/// after #26's fix replayed the whole log as one batch). A batch follows
/// the step it last saw started or completed, and a stepless tool event
/// repeated in a new step of the batch is a new occurrence. The session
/// read `[status, step 1 started]` and then `[completion, step 1 completed,
/// the same completion]`: the second batch saw the first completion before
/// any step and the second in step 1, two contexts, so it applied both. One
/// batch over the log saw step 1 start before both: one context, and the
/// second was a redelivery, one tool run fewer at the timeline's end than
/// in the view. The log now keeps where each delivery ended (a delivery
/// number per run of lines) and the timeline replays each batch as one.
/// Failed before.
#[test]
fn the_end_of_a_timeline_is_the_view_when_the_session_read_its_lines_in_two_batches() {
    let env = |kind: &str, payload: &str| {
        format!(
            r#"{{"type":"{kind}","session_id":"s","execution_id":"e","timestamp":"2026-08-10T12:00:00Z","payload":{payload}}}"#
        )
    };
    let completion = env(
        "agent.tool.completed",
        r#"{"tool_name":"get_weather","tool_call_id":null,"success":true}"#,
    );
    let first = [
        env(
            "agent.status",
            r#"{"status":"processing","previous_status":"idle"}"#,
        ),
        env("agent.step.started", r#"{"step_number":1}"#),
    ];
    let second = [
        completion.clone(),
        env("agent.step.completed", r#"{"step_number":1}"#),
        completion,
    ];
    let mut s = Session::new(None);
    s.ingest_jsonl(&first.join("\n"));
    s.ingest_jsonl(&second.join("\n"));
    let tools = |v: &Value| {
        v["executions"][0]["steps"][0]["tools"]
            .as_array()
            .map(Vec::len)
    };
    assert_eq!(tools(&s.view()), Some(2), "the second batch applied both");
    let deliveries: Vec<u32> = s.log_delivered().map(|(d, _)| d).collect();
    assert_eq!(deliveries.len(), 5);
    assert!(deliveries[..2].iter().all(|&d| d == deliveries[0] && d > 0));
    assert!(deliveries[2..]
        .iter()
        .all(|&d| d == deliveries[2] && d != deliveries[0]));
    let mut t = Timeline::new(&s);
    assert_eq!(t.at(5).view(), s.view());
    assert_eq!(
        s.envelopes_of(0, 1, Some(5)).map(|b| json::to_value_of(&b)),
        s.envelopes_of(0, 1, None).map(|b| json::to_value_of(&b))
    );
}

/// Found by the `timeline_view_at` fuzz target (#30,
/// `fuzz/regressions/timeline_view_at/redelivery-in-a-batch-judged-the-batch-s-later-repeat.jsonl`,
/// after #28's fix). A batch remembers every line it delivered, the ones the
/// session took for redeliveries too: the second batch's first `search`
/// start (the first batch's, again) was a redelivery, yet made the same
/// start after step 2's a new occurrence in a new step of the batch, which
/// the session applied. The log keeps no redelivery, so the timeline's
/// replay of the second batch saw that start first and took it for the
/// first batch's again: one tool run fewer. A replay of the log now takes
/// a logged line its judgement would drop as a further occurrence (the
/// session applied every logged line). Failed before.
#[test]
fn the_end_of_a_timeline_is_the_view_when_a_redelivery_in_a_batch_made_a_later_repeat_new() {
    let env = |kind: &str, payload: &str| {
        format!(
            r#"{{"type":"{kind}","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00Z","payload":{payload}}}"#
        )
    };
    let start = env(
        "agent.tool.started",
        r#"{"tool_name":"search","tool_call_id":null,"args_summary":"q"}"#,
    );
    let first = [
        env(
            "agent.status",
            r#"{"status":"processing","previous_status":"idle"}"#,
        ),
        env("agent.step.started", r#"{"step_number":1}"#),
        start.clone(),
    ];
    let second = [
        start.clone(),
        env("agent.step.started", r#"{"step_number":2}"#),
        start,
    ];
    let mut s = Session::new(None);
    s.ingest_jsonl(&first.join("\n"));
    let o = s.ingest_jsonl(&second.join("\n"));
    assert_eq!((o.applied, o.duplicates), (2, 1));
    let runs = |v: &Value| {
        v["executions"][0]["steps"].as_array().map(|steps| {
            steps
                .iter()
                .map(|s| s["tools"].as_array().map_or(0, Vec::len))
                .sum::<usize>()
        })
    };
    assert_eq!(runs(&s.view()), Some(2), "the session applied both starts");
    let mut t = Timeline::new(&s);
    assert_eq!(
        t.len(),
        5,
        "one position per applied line, none for the redelivery"
    );
    let without_counts = |mut v: Value| {
        v.as_object_mut().map(|m| m.remove("counts"));
        v
    };
    assert_eq!(without_counts(t.at(5).view()), without_counts(s.view()));
    assert_eq!(
        s.envelopes_of(0, 2, Some(5)).map(|b| json::to_value_of(&b)),
        s.envelopes_of(0, 2, None).map(|b| json::to_value_of(&b))
    );
    // The recording keeps the applied lines only.
    assert_eq!(s.to_recording().lines().count(), 1 + 5);
}
