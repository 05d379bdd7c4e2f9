//! Whole runs sent again in the dialects without event ids (AG-UI, the AI
//! SDK): dropped while they repeat the run to its end; a stream that reuses
//! the run's id and then goes on differently is new, held events included.

use stepline::session::Session;

/// One AI SDK response with one step of `text`, under `message_id`.
fn response(message_id: &str, text: &str) -> Vec<String> {
    vec![
        format!(r#"{{"type":"start","messageId":"{message_id}"}}"#),
        r#"{"type":"start-step"}"#.to_string(),
        r#"{"type":"text-start","id":"t0"}"#.to_string(),
        format!(r#"{{"type":"text-delta","id":"t0","delta":"{text}"}}"#),
        r#"{"type":"text-end","id":"t0"}"#.to_string(),
        r#"{"type":"finish-step"}"#.to_string(),
        r#"{"type":"finish","finishReason":"stop"}"#.to_string(),
    ]
}

fn ingest_all(s: &mut Session, lines: &[String]) -> (u64, u64) {
    let (mut applied, mut duplicates) = (0, 0);
    for l in lines {
        let o = s.ingest_text(l).unwrap();
        applied += u64::from(o.applied);
        duplicates += u64::from(o.duplicate);
    }
    (applied, duplicates)
}

fn texts(s: &Session) -> Vec<String> {
    let v = s.view();
    v["executions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["steps"].as_array().unwrap().clone())
        .map(|step| step["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_whole_ai_sdk_run_sent_again_changes_nothing() {
    let run = response("msg-1", "Grüße");
    let mut once = Session::new(Some("s".into()));
    ingest_all(&mut once, &run);
    let mut twice = Session::new(Some("s".into()));
    ingest_all(&mut twice, &run);
    let (applied, duplicates) = ingest_all(&mut twice, &run);
    assert_eq!((applied, duplicates), (0, run.len() as u64));
    assert_eq!(twice.view()["executions"], once.view()["executions"]);
}

#[test]
fn a_second_response_under_the_same_message_id_keeps_its_held_prefix() {
    let mut lines = response("msg-1", "First");
    lines.extend(response("msg-1", "Second"));
    let mut s = Session::new(Some("s".into()));
    ingest_all(&mut s, &lines);
    let t = texts(&s);
    assert_eq!(t.concat(), "FirstSecond");
    assert_eq!(t.len(), 2, "the second response's step is its own: {t:?}");
    assert_eq!(s.view()["counts"]["duplicates"], 0);
    // Its recording replays to the same view: the held events were logged, in order.
    let text: String = s.log().map(|l| l + "\n").collect();
    let mut replay = Session::new(Some("s".into()));
    let out = replay.ingest_jsonl(&text);
    assert_eq!(out.errors.len(), 0);
    assert_eq!(replay.view()["executions"], s.view()["executions"]);
}

#[test]
fn an_ag_ui_run_sent_again_after_a_reconnect_is_dropped_and_new_events_after_it_apply() {
    let run: Vec<String> = vec![
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#.into(),
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#.into(),
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"ja"}"#.into(),
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"ja"}"#.into(),
    ];
    let mut s = Session::new(Some("t".into()));
    ingest_all(&mut s, &run);
    let (applied, duplicates) = ingest_all(&mut s, &run);
    assert_eq!((applied, duplicates), (0, 4));
    ingest_all(
        &mut s,
        &[
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"!"}"#.into(),
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#.into(),
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}"#.into(),
        ],
    );
    assert_eq!(texts(&s).concat(), "jaja!");
}

/// An AG-UI run id started again after the run ended opens a second turn,
/// whose first step repeats the first turn's envelopes (no ids, no
/// timestamps). The dialect tells redeliveries apart itself (whole runs,
/// src/dialects/mod.rs), so the session takes none of them for one: line by
/// line, the second turn's step 1 was dropped as the first turn's, while a
/// batch (and so the recording's replay) kept it (fuzz finding #15).
#[test]
fn an_ag_ui_run_started_again_after_its_end_keeps_its_steps_line_by_line() {
    let lines = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"eins"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        r#"{"type":"RUN_ERROR","message":"boom"}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"zwei"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"x"}"#,
    ];
    let mut single = Session::new(None);
    for l in lines {
        single.ingest_text(l).unwrap();
    }
    let mut batch = Session::new(None);
    batch.ingest_jsonl(&lines.join("\n"));
    let v = single.view();
    let turns = v["executions"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    let second = &turns[1]["steps"][0];
    assert_eq!(second["text"], "zwei");
    assert_eq!(second["seen"]["started"], true);
    assert_eq!(second["seen"]["completed"], true);
    assert_eq!(v["executions"], batch.view()["executions"]);
}
