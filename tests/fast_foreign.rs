//! Foreign text deltas read from their lines (`Translator::translate_line`:
//! laravel/ai's `text_delta` and `reasoning_delta`, the AI SDK's
//! `text-delta`, `reasoning-delta` and `tool-input-delta`, AG-UI's
//! `TEXT_MESSAGE_CONTENT`, `REASONING_MESSAGE_CONTENT` and `TOOL_CALL_ARGS`)
//! give exactly what parsing and translating them gives: the same view,
//! counts, outcomes, warnings, errors and recording, line by line and as
//! one batch. Checked over every event stream of the three dialects'
//! vector files (tests/vectors/dialects/, read from the files), delivered
//! once, whole twice and each event twice, under another session's id and
//! without a log; and over runs of 36 steps in each producer's layout with
//! escapes, non-ASCII text, gaps, departures from the layout, redeliveries
//! of whole runs and of single events, and a second turn.

mod common;

use common::reader_on_off::{same_either_way, Setup};
use stepline::json::{self, Value};

fn vectors_dir() -> String {
    format!("{}/tests/vectors/dialects", env!("CARGO_MANIFEST_DIR"))
}

/// Every array of a vector file whose elements are all objects with a
/// string `type`: each is one producer stream, written compactly in its own
/// key order (as the producers write their events).
fn streams_in(v: &Value, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Array(items) => {
            let events = !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.get("type").and_then(Value::as_str).is_some());
            if events {
                out.push(items.iter().map(json::to_string).collect());
            } else {
                items.iter().for_each(|i| streams_in(i, out));
            }
        }
        Value::Object(m) => m.iter().for_each(|(_, i)| streams_in(i, out)),
        _ => {}
    }
}

/// The streams of every file under `dialect`'s vector folder.
fn vector_streams(dialect: &str) -> Vec<(String, Vec<String>)> {
    let mut files = Vec::new();
    let mut dirs = vec![format!("{}/{dialect}", vectors_dir())];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{dir}: {e}")) {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path.display().to_string());
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut streams = Vec::new();
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => streams_in(&json::from_str(&text).expect("JSON"), &mut streams),
            Some("jsonl") => streams.push(text.lines().map(str::to_string).collect()),
            _ => continue,
        }
        out.extend(streams.into_iter().map(|s| (name.clone(), s)));
    }
    out
}

/// A stream the same either way: once, whole twice, each event twice, and
/// under another session's id and without a log.
fn stream_same_either_way(name: &str, lines: &[String]) {
    for setup in &[
        Setup::default(),
        Setup::under("sess-other"),
        Setup::unrecorded(),
    ] {
        same_either_way(name, setup, &[lines.to_vec()]);
    }
    same_either_way(name, &Setup::default(), &[lines.to_vec(), lines.to_vec()]);
    let doubled: Vec<String> = lines.iter().flat_map(|l| [l.clone(), l.clone()]).collect();
    same_either_way(name, &Setup::default(), &[doubled]);
}

fn vectors_same_either_way(dialect: &str) {
    let streams = vector_streams(dialect);
    assert!(streams.len() >= 5, "{dialect}: {} streams", streams.len());
    for (name, lines) in streams {
        stream_same_either_way(&name, &lines);
    }
}

#[test]
fn laravel_ai_vector_streams_read_the_same_with_and_without_the_line_reader() {
    vectors_same_either_way("laravel-ai");
}

#[test]
fn ai_sdk_vector_streams_read_the_same_with_and_without_the_line_reader() {
    vectors_same_either_way("ai-sdk");
}

#[test]
fn ag_ui_vector_streams_read_the_same_with_and_without_the_line_reader() {
    vectors_same_either_way("ag-ui");
}

/// The text pieces a run streams: plain, escaped, non-ASCII, empty.
fn piece(step: u64, i: u64) -> String {
    match i % 6 {
        0 => format!("step {step} "),
        1 => "zażółć ✅ ".to_string(),
        2 => "a \"quote\" and a \\ back\nslash ".to_string(),
        3 => String::new(),
        4 => "emoji 😀 ".to_string(),
        _ => format!("piece {i}. "),
    }
}

fn quoted(s: &str) -> String {
    json::to_string(&Value::from(s))
}

/// A laravel/ai run of `steps` steps, as its `toArray()` writes the events,
/// under invocation `inv`; every seventh delta with a departure from the
/// layout the reader takes (extra key, member order, a float timestamp).
fn laravel_run(inv: &str, steps: u64, first_id: u64) -> Vec<String> {
    let mut id = first_id;
    let mut next = || {
        id += 1;
        format!("evt_{id:020}")
    };
    let ts = 1_795_168_800u64;
    let mut lines = vec![format!(
        r#"{{"id":"{}","invocation_id":"{inv}","type":"stream_start","provider":"openai","model":"gpt-5-mini","timestamp":{ts},"metadata":null}}"#,
        next()
    )];
    for step in 1..=steps {
        let rs = format!("rs_{inv}_{step}");
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"reasoning_start","reasoning_id":"{rs}","timestamp":{ts}}}"#,
            next()
        ));
        for i in 0..4 {
            lines.push(format!(
                r#"{{"id":"{}","invocation_id":"{inv}","type":"reasoning_delta","reasoning_id":"{rs}","delta":{},"timestamp":{},"summary":null}}"#,
                next(),
                quoted(&piece(step, i)),
                ts + step
            ));
        }
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"reasoning_end","reasoning_id":"{rs}","timestamp":{ts},"summary":null}}"#,
            next()
        ));
        let msg = format!("msg_{inv}_{step}");
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"text_start","message_id":"{msg}","timestamp":{ts}}}"#,
            next()
        ));
        for i in 0..8 {
            let delta = quoted(&piece(step, i));
            let at = ts + step;
            let e = next();
            lines.push(match (step * 8 + i) % 7 {
                0 => format!(
                    r#"{{"id":"{e}","invocation_id":"{inv}","type":"text_delta","message_id":"{msg}","delta":{delta},"timestamp":{at},"extra":1}}"#
                ),
                3 => format!(
                    r#"{{"invocation_id":"{inv}","id":"{e}","type":"text_delta","message_id":"{msg}","delta":{delta},"timestamp":{at}}}"#
                ),
                5 => format!(
                    r#"{{"id":"{e}","invocation_id":"{inv}","type":"text_delta","message_id":"{msg}","delta":{delta},"timestamp":{at}.5}}"#
                ),
                _ => format!(
                    r#"{{"id":"{e}","invocation_id":"{inv}","type":"text_delta","message_id":"{msg}","delta":{delta},"timestamp":{at}}}"#
                ),
            });
        }
        // Every fifth step a delta of a message whose start never came.
        if step % 5 == 0 {
            lines.push(format!(
                r#"{{"id":"{}","invocation_id":"{inv}","type":"text_delta","message_id":"msg_unseen_{step}","delta":"gap","timestamp":{ts}}}"#,
                next()
            ));
        }
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"text_end","message_id":"{msg}","timestamp":{ts}}}"#,
            next()
        ));
        let call = format!("call_{inv}_{step}");
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"tool_call","tool_id":"{call}","tool_name":"search","arguments":{{"q":"step {step}"}},"reasoning_id":null,"timestamp":{ts}}}"#,
            next()
        ));
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"tool_result","tool_id":"{call}","tool_name":"search","result":"found {step}","successful":true,"error":null,"timestamp":{ts}}}"#,
            next()
        ));
        let reason = if step == steps { "stop" } else { "tool_calls" };
        lines.push(format!(
            r#"{{"id":"{}","invocation_id":"{inv}","type":"stream_end","reason":"{reason}","usage":{{"prompt_tokens":12,"completion_tokens":3,"cache_write_input_tokens":0,"cache_read_input_tokens":0,"reasoning_tokens":1}},"timestamp":{ts}}}"#,
            next()
        ));
        if step < steps {
            lines.push(format!(
                r#"{{"id":"{}","invocation_id":"{inv}","type":"stream_start","provider":"openai","model":"gpt-5-mini","timestamp":{ts},"metadata":null}}"#,
                next()
            ));
        }
    }
    lines
}

/// An AI SDK UI message stream of `steps` steps under `message`; every
/// seventh delta departs from the layout (provider metadata, member order).
fn ai_sdk_run(message: &str, steps: u64) -> Vec<String> {
    let mut lines = vec![format!(r#"{{"type":"start","messageId":"{message}"}}"#)];
    for step in 1..=steps {
        lines.push(r#"{"type":"start-step"}"#.to_string());
        let r = format!("reasoning-{step}");
        lines.push(format!(r#"{{"type":"reasoning-start","id":"{r}"}}"#));
        for i in 0..3 {
            lines.push(format!(
                r#"{{"type":"reasoning-delta","id":"{r}","delta":{}}}"#,
                quoted(&piece(step, i))
            ));
        }
        lines.push(format!(r#"{{"type":"reasoning-end","id":"{r}"}}"#));
        let t = format!("text-{step}");
        lines.push(format!(r#"{{"type":"text-start","id":"{t}"}}"#));
        for i in 0..8 {
            let delta = quoted(&piece(step, i));
            lines.push(match (step * 8 + i) % 7 {
                0 => format!(
                    r#"{{"type":"text-delta","id":"{t}","delta":{delta},"providerMetadata":{{"openai":{{"x":1}}}}}}"#
                ),
                3 => format!(r#"{{"id":"{t}","type":"text-delta","delta":{delta}}}"#),
                _ => format!(r#"{{"type":"text-delta","id":"{t}","delta":{delta}}}"#),
            });
        }
        if step % 5 == 0 {
            lines.push(r#"{"type":"text-delta","id":"text-unseen","delta":"gap"}"#.to_string());
        }
        lines.push(format!(r#"{{"type":"text-end","id":"{t}"}}"#));
        let call = format!("call-{step}");
        lines.push(format!(
            r#"{{"type":"tool-input-start","toolCallId":"{call}","toolName":"search"}}"#
        ));
        for part in [r#"{\"q\":"#, r#"\"step "#, r#"\"}"#] {
            lines.push(format!(
                r#"{{"type":"tool-input-delta","toolCallId":"{call}","inputTextDelta":"{part}"}}"#
            ));
        }
        lines.push(format!(
            r#"{{"type":"tool-input-available","toolCallId":"{call}","toolName":"search","input":{{"q":"step "}}}}"#
        ));
        lines.push(format!(
            r#"{{"type":"tool-output-available","toolCallId":"{call}","output":"found {step}"}}"#
        ));
        lines.push(r#"{"type":"finish-step"}"#.to_string());
    }
    lines.push(r#"{"type":"finish","finishReason":"stop"}"#.to_string());
    // A delta after the run finished reopens it: read by the parser.
    lines.push(r#"{"type":"text-delta","id":"late","delta":"late"}"#.to_string());
    lines
}

/// An AG-UI run of `steps` steps under `run`, timestamps in milliseconds;
/// every seventh delta departs from the layout (no timestamp, a `null` one,
/// member order).
fn ag_ui_run(thread: &str, run: &str, steps: u64, from_ms: u64) -> Vec<String> {
    let mut ms = from_ms;
    // An event of the members `body`, stamped 15 ms after the one before.
    let mut event = |body: String| {
        ms += 15;
        format!(r#"{{{body},"timestamp":{ms}}}"#)
    };
    let mut lines = vec![event(format!(
        r#""type":"RUN_STARTED","threadId":"{thread}","runId":"{run}""#
    ))];
    for step in 1..=steps {
        let r = format!("reasoning-{run}-{step}");
        lines.push(event(format!(
            r#""type":"REASONING_START","messageId":"{r}""#
        )));
        lines.push(event(format!(
            r#""type":"REASONING_MESSAGE_START","messageId":"{r}","role":"reasoning""#
        )));
        for i in 0..3 {
            let delta = quoted(&piece(step, i));
            lines.push(event(format!(
                r#""type":"REASONING_MESSAGE_CONTENT","messageId":"{r}","delta":{delta}"#
            )));
        }
        lines.push(event(format!(
            r#""type":"REASONING_MESSAGE_END","messageId":"{r}""#
        )));
        lines.push(event(format!(
            r#""type":"REASONING_END","messageId":"{r}""#
        )));
        let m = format!("msg-{run}-{step}");
        lines.push(event(format!(
            r#""type":"TEXT_MESSAGE_START","messageId":"{m}","role":"assistant""#
        )));
        for i in 0..8 {
            let delta = quoted(&piece(step, i));
            let content =
                format!(r#""type":"TEXT_MESSAGE_CONTENT","messageId":"{m}","delta":{delta}"#);
            lines.push(match (step * 8 + i) % 7 {
                0 => format!("{{{content}}}"),
                2 => format!(r#"{{{content},"timestamp":null}}"#),
                4 => event(format!(
                    r#""messageId":"{m}","type":"TEXT_MESSAGE_CONTENT","delta":{delta}"#
                )),
                _ => event(content),
            });
        }
        if step % 5 == 0 {
            lines.push(event(
                r#""type":"TEXT_MESSAGE_CONTENT","messageId":"unseen","delta":"gap""#.to_string(),
            ));
        }
        lines.push(event(format!(
            r#""type":"TEXT_MESSAGE_END","messageId":"{m}""#
        )));
        let call = format!("call-{run}-{step}");
        lines.push(event(format!(
            r#""type":"TOOL_CALL_START","toolCallId":"{call}","toolCallName":"search""#
        )));
        for part in [r#"{\"q\":"#, r#"\"step "#, r#"\"}"#] {
            lines.push(event(format!(
                r#""type":"TOOL_CALL_ARGS","toolCallId":"{call}","delta":"{part}""#
            )));
        }
        lines.push(event(format!(
            r#""type":"TOOL_CALL_END","toolCallId":"{call}""#
        )));
        lines.push(event(format!(
            r#""type":"TOOL_CALL_RESULT","messageId":"result-{call}","toolCallId":"{call}","content":"found {step}","role":"tool""#
        )));
    }
    lines.push(event(format!(
        r#""type":"RUN_FINISHED","threadId":"{thread}","runId":"{run}""#
    )));
    // Content after the run ended: a gap, read by the parser.
    lines.push(event(
        r#""type":"TEXT_MESSAGE_CONTENT","messageId":"late","delta":"late""#.to_string(),
    ));
    lines
}

/// Long runs of a dialect the same either way: one run, the run sent again
/// whole, each event twice, a second run after it, the second run's first
/// half and then all of it, reversed.
fn runs_same_either_way(name: &str, first: &[String], second: &[String]) {
    assert!(first.len() > 500, "{name}: {} lines", first.len());
    stream_same_either_way(name, first);
    let both: Vec<String> = first.iter().chain(second).cloned().collect();
    same_either_way(name, &Setup::default(), std::slice::from_ref(&both));
    let half = second.get(..second.len() / 2).unwrap_or_default().to_vec();
    same_either_way(
        name,
        &Setup::default(),
        &[first.to_vec(), half, second.to_vec()],
    );
    let reversed: Vec<String> = both.iter().rev().cloned().collect();
    same_either_way(name, &Setup::default(), &[reversed]);
}

#[test]
fn long_laravel_ai_runs_read_the_same_with_and_without_the_line_reader() {
    runs_same_either_way(
        "laravel/ai",
        &laravel_run("inv-1", 36, 0),
        &laravel_run("inv-2", 36, 10_000),
    );
}

#[test]
fn long_ai_sdk_runs_read_the_same_with_and_without_the_line_reader() {
    runs_same_either_way("AI SDK", &ai_sdk_run("msg-1", 36), &ai_sdk_run("msg-2", 36));
}

#[test]
fn long_ag_ui_runs_read_the_same_with_and_without_the_line_reader() {
    runs_same_either_way(
        "AG-UI",
        &ag_ui_run("thread-1", "run-1", 36, 1_795_168_800_000),
        &ag_ui_run("thread-1", "run-2", 36, 1_795_168_900_000),
    );
}

#[test]
fn the_three_dialects_interleaved_read_the_same_with_and_without_the_line_reader() {
    let (a, b, c) = (
        laravel_run("inv-1", 6, 0),
        ai_sdk_run("msg-1", 6),
        ag_ui_run("thread-1", "run-1", 6, 1_795_168_800_000),
    );
    let mut mixed = Vec::new();
    for i in 0..a.len().max(b.len()).max(c.len()) {
        mixed.extend(
            [a.get(i), b.get(i), c.get(i)]
                .into_iter()
                .flatten()
                .cloned(),
        );
    }
    same_either_way("interleaved", &Setup::default(), &[mixed.clone()]);
    same_either_way("interleaved", &Setup::default(), &[mixed.clone(), mixed]);
}
