//! A long run's streamed text is kept packed behind the block being written
//! (src/session/text_blocks.rs, src/session/text_pack.rs), and everything
//! that reads the text back sees it as streamed: the view, a redelivery of
//! the whole run (each chunk's key is made again from its packed text), a
//! delivery out of order (the text is rebuilt from packed pieces), the
//! recording, and a session restored from it.

mod common;

use common::reader_on_off::{chunk_line, envelope_line};
use stepline::json::Value;
use stepline::session::Session;

/// A 40-step run whose text (about 330 KB, five blocks and more) streams
/// in 9,600 chunks; returns its lines and the text.
fn long_run() -> (Vec<String>, String) {
    let mut lines = vec![envelope_line(
        "exec-p",
        0,
        "agent.status",
        r#"{"status":"processing","previous_status":"idle"}"#,
    )];
    let (mut ms, mut index, mut text) = (0, 0, String::new());
    for step in 1..=40u64 {
        ms += 7;
        let started = format!(r#"{{"step_number":{step},"message_count":2,"available_tools":1}}"#);
        lines.push(envelope_line("exec-p", ms, "agent.step.started", &started));
        for k in 0..240u64 {
            ms += 3;
            let piece = format!(
                "step {step}, part {k}: the lookup found {} rows 晴朗 ✅\n",
                k * 7 % 13
            );
            lines.push(chunk_line("exec-p", ms, index, &piece));
            text.push_str(&piece);
            index += 1;
        }
        ms += 5;
        let completed = format!(r#"{{"step_number":{step},"has_tool_calls":false,"errors":0}}"#);
        lines.push(envelope_line(
            "exec-p",
            ms,
            "agent.step.completed",
            &completed,
        ));
    }
    (lines, text)
}

fn view_text(s: &Session) -> String {
    let view = s.view();
    view["executions"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn duplicates(s: &Session) -> i64 {
    s.view()["counts"]["duplicates"].as_i64().unwrap_or(-1)
}

fn fed(lines: &[String]) -> Session {
    let mut s = Session::new(None);
    for line in lines {
        s.ingest_text(line).expect("a line of the run");
    }
    s
}

#[test]
fn a_long_runs_text_reads_back_as_streamed_and_a_whole_redelivery_is_all_duplicates() {
    let (lines, text) = long_run();
    assert!(text.len() > 5 * 64 * 1024, "{} bytes", text.len());
    let mut s = fed(&lines);
    assert_eq!(view_text(&s), text);
    let executions = s.view()["executions"].clone();
    for line in &lines {
        s.ingest_text(line).expect("a line of the run, again");
    }
    assert_eq!(duplicates(&s), lines.len() as i64);
    assert_eq!(
        s.view()["executions"],
        executions,
        "a redelivery changed the view"
    );
}

#[test]
fn a_long_run_delivered_backwards_in_windows_rebuilds_the_same_text() {
    let (lines, text) = long_run();
    let mut shuffled = Vec::new();
    for window in lines.chunks(97) {
        shuffled.extend(window.iter().rev().cloned());
    }
    let s = fed(&shuffled);
    assert_eq!(view_text(&s), text);
    assert_eq!(
        s.view()["executions"][0]["missing_chunk_count"],
        Value::from(0)
    );
}

#[test]
fn a_long_runs_recording_restores_the_same_view() {
    let (lines, _) = long_run();
    let s = fed(&lines);
    let (restored, warnings) =
        Session::from_recording(&s.to_recording()).expect("its own recording");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(restored.view(), s.view());
}
