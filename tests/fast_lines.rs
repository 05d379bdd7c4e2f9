//! Envelopes of the known types besides stream chunks read from their line
//! without the envelope's tree (src/envelope/fast_line.rs) give exactly
//! what their generic decoding gives: the same view, counts, outcomes,
//! warnings, errors and recording, line by line and as one batch, for both
//! reference corpora and the bench layer's two instructor-php recordings,
//! for the departures from the producer's layout in
//! `tests/fixtures/fast-line/lines.jsonl` (read from the file),
//! redelivered, in runs of 30 and more steps with tool calls and
//! continuations, under another session's id and without a log.

mod common;

use common::reader_on_off::{
    chunk_line, corpora_same_either_way, envelope_line, fixture_same_either_way, lines_of,
    same_either_way, Setup,
};

const LINES: &str = include_str!("fixtures/fast-line/lines.jsonl");

fn fixture_lines() -> Vec<String> {
    lines_of(LINES)
}

/// A run of `steps` steps, each with a tool call (its arguments an
/// object), `per_step` chunks, a continuation with evaluations and a
/// completion with usage, as the producer writes them.
fn tool_run(exec: &str, steps: u64, per_step: u64, from_ms: u64) -> Vec<String> {
    let mut lines = vec![envelope_line(
        exec,
        from_ms,
        "agent.status",
        r#"{"status":"processing","previous_status":"idle"}"#,
    )];
    let mut ms = from_ms;
    let mut index = 0;
    for step in 1..=steps {
        ms += 7;
        lines.push(envelope_line(
            exec,
            ms,
            "agent.step.started",
            &format!(
                r#"{{"step_number":{step},"message_count":{},"available_tools":6}}"#,
                2 * step
            ),
        ));
        ms += 5;
        // Every third step's call at the previous call's millisecond.
        let at = if step % 3 == 0 { ms - 5 } else { ms };
        lines.push(envelope_line(
            exec,
            at,
            "agent.tool.started",
            &format!(r#"{{"tool_name":"fetch_page","tool_call_id":null,"args":{{"query":"found {step} \"é\"","limit":{step}}}}}"#),
        ));
        ms += 9;
        lines.push(envelope_line(
            exec,
            ms,
            "agent.tool.completed",
            &format!(r#"{{"tool_name":"fetch_page","tool_call_id":null,"success":{},"error":{},"duration_ms":9,"result_summary":null}}"#,
                step % 4 != 0,
                if step % 4 == 0 { r#""failed \\ here""# } else { "null" }),
        ));
        for k in 0..per_step {
            ms += 3;
            lines.push(chunk_line(exec, ms, index, &format!("s{step} k{k} ")));
            index += 1;
        }
        let last = step == steps;
        ms += 2;
        lines.push(envelope_line(
            exec,
            ms,
            "agent.continuation",
            &format!(r#"{{"step_number":{step},"should_continue":{},"stop_reason":"completed","resolved_by":"Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck","evaluations":[{{"criterion":"StepsLimit","decision":"allow","reason":"Steps under limit: {step}/100"}},{{"criterion":"ToolCallPresenceCheck","decision":"{}","reason":"r"}}]}}"#,
                !last, if last { "stop" } else { "request" }),
        ));
        if last {
            lines.push(envelope_line(
                exec,
                ms,
                "agent.status",
                r#"{"status":"completed","previous_status":"processing"}"#,
            ));
        }
        ms += 2;
        lines.push(envelope_line(
            exec,
            ms,
            "agent.step.completed",
            &format!(r#"{{"step_number":{step},"has_tool_calls":{},"errors":0,"finish_reason":"{}","usage":{{"input":{},"output":{step},"cacheWrite":0,"cacheRead":0,"reasoning":0}},"duration_ms":{}.5}}"#,
                !last, if last { "stop" } else { "tool_calls" }, 1000 + step, step),
        ));
    }
    lines
}

#[test]
fn reference_corpora_ingest_the_same_with_the_line_reader() {
    corpora_same_either_way(&[Setup::default(), Setup::unrecorded()], true);
}

#[test]
fn departures_from_the_layout_ingest_the_same_with_the_line_reader() {
    let lines = fixture_lines();
    assert!(lines.len() > 80, "the fixture's lines");
    fixture_same_either_way(&lines);
}

#[test]
fn runs_of_many_steps_with_tools_redelivered_ingest_the_same_with_the_line_reader() {
    let first = tool_run("exec-1", 34, 4, 0);
    let second = tool_run("exec-2", 3, 10, 600_000);
    let mut both = first.clone();
    both.extend(second.iter().cloned());
    // The same execution id opened again as a second turn.
    let again = tool_run("exec-1", 2, 3, 1_200_000);
    for setup in [
        Setup::default(),
        Setup::text_limited(300),
        Setup::under("sess-other"),
        Setup::unrecorded(),
    ] {
        same_either_way("two runs", &setup, std::slice::from_ref(&both));
        same_either_way(
            "two runs redelivered",
            &setup,
            &[both.clone(), both.clone()],
        );
        same_either_way(
            "first run, its second half first, then all of it",
            &setup,
            &[first[first.len() / 2..].to_vec(), first.clone()],
        );
        let mut turns = first.clone();
        turns.extend(again.iter().cloned());
        same_either_way(
            "a second turn under one id",
            &setup,
            &[turns.clone(), turns],
        );
    }
}

/// The bench layer's generators write what the producer writes: their
/// first lines, and a stretch of the bench recording with chunks, read the
/// same way either way (needs node; skipped without it).
#[test]
fn the_bench_generators_lines_ingest_the_same_with_the_line_reader() {
    for (script, skip, take) in [
        ("bench/generate-short-envelopes.mjs", 0, 3000),
        ("bench/generate-envelopes.mjs", 15_000, 3000),
    ] {
        let out = std::process::Command::new("node")
            .arg(format!("{}/{script}", env!("CARGO_MANIFEST_DIR")))
            .args(["--envelopes", "20000"])
            .output();
        let Some(out) = out.ok().filter(|o| o.status.success()) else {
            eprintln!("skipped {script}: no node");
            continue;
        };
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let lines: Vec<String> = text
            .lines()
            .skip(skip)
            .take(take)
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), take, "{script}");
        same_either_way(script, &Setup::default(), &[lines.clone(), lines]);
    }
}
