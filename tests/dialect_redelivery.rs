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
