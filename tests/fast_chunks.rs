//! Stream chunk lines read straight into the typed chunk
//! (src/envelope/fast_chunk.rs) give exactly what their generic decoding
//! gives: the same view, counts, outcomes, warnings, errors and recording,
//! line by line and as one batch, for both reference corpora, for the
//! departures from the producer's layout in
//! `tests/fixtures/fast-chunk/chunks.jsonl`, redelivered, past the text
//! limit, in long runs and under another session's id. The seed's own
//! chunk (docs/seeds/000-slim-serialization-and-adapter.md
//! §`agent.stream.chunk`: `chunk` where producers write `content`) is one
//! of the fixture's departures, which the reader declines.

mod common;

use common::reader_on_off::{
    chunk_line, corpora_same_either_way, envelope_line, fixture_same_either_way, lines_of,
    same_either_way, Setup,
};

const CHUNKS: &str = include_str!("fixtures/fast-chunk/chunks.jsonl");

fn fixture_lines() -> Vec<String> {
    lines_of(CHUNKS)
}

/// A run of `steps` steps, each streaming `per_step` chunks, indexes
/// counted across the run; `restart` opens it as a second turn.
fn long_run(exec: &str, steps: u64, per_step: u64, from_ms: u64) -> Vec<String> {
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
            &format!(r#"{{"step_number":{step},"message_count":2,"available_tools":0}}"#),
        ));
        for k in 0..per_step {
            ms += 3;
            lines.push(chunk_line(exec, ms, index, &format!("s{step} k{k} é\n\"")));
            index += 1;
        }
        ms += 5;
        lines.push(envelope_line(
            exec,
            ms,
            "agent.step.completed",
            &format!(r#"{{"step_number":{step},"has_tool_calls":false,"errors":0}}"#),
        ));
    }
    lines.push(envelope_line(
        exec,
        ms + 9,
        "agent.status",
        r#"{"status":"completed","previous_status":"processing"}"#,
    ));
    lines
}

#[test]
fn reference_corpora_ingest_the_same_with_the_chunk_reader() {
    corpora_same_either_way(&[Setup::default()], false);
}

#[test]
fn departures_from_the_chunk_layout_ingest_the_same_with_the_chunk_reader() {
    let lines = fixture_lines();
    fixture_same_either_way(&lines);
}

#[test]
fn long_runs_redelivered_and_cut_by_the_text_limit_ingest_the_same_with_the_chunk_reader() {
    let first = long_run("exec-1", 32, 6, 0);
    let second = long_run("exec-2", 3, 40, 600_000);
    let mut both = first.clone();
    both.extend(second.iter().cloned());
    // The same execution id opened again as a second turn.
    let again = long_run("exec-1", 2, 5, 1_200_000);
    for setup in [
        Setup::default(),
        Setup::text_limited(300),
        Setup {
            record: Some(false),
            ..Setup::text_limited(1000)
        },
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

#[test]
fn a_chunk_of_two_megabytes_ingests_the_same_with_the_chunk_reader() {
    let big = "x".repeat(2 * 1024 * 1024);
    let near = "y".repeat(1024 * 1024 - 400);
    let lines = vec![
        envelope_line(
            "exec-1",
            0,
            "agent.status",
            r#"{"status":"processing","previous_status":"idle"}"#,
        ),
        chunk_line("exec-1", 5, 0, &big),
        chunk_line("exec-1", 6, 1, &near),
        chunk_line("exec-1", 7, 2, "after"),
    ];
    // The line past the envelope limit fails either way; the one just
    // under it is read.
    same_either_way("a 2 MB chunk", &Setup::default(), &[lines]);
}
