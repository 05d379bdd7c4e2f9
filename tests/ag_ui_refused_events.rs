//! An AG-UI line the session refuses is not logged, so it must change
//! nothing: neither the translator (open chunks, the run) nor the run
//! redelivery rule (held events). Otherwise the session's recording replays
//! to another view (fuzz finding #14, `fuzz/regressions/dialect_ag_ui/`).
//! Each test sends a hand-written sequence line by line, as `ingest_text`
//! does, and checks the refusals, the view and that the recording replays to it.

use stepline::json::Value;
use stepline::session::Session;

/// Sends `lines` one by one; which of them were refused (1-based).
fn send(s: &mut Session, lines: &[&str]) -> Vec<usize> {
    let mut refused = vec![];
    for (i, line) in lines.iter().enumerate() {
        if s.ingest_text(line).is_err() {
            refused.push(i + 1);
        }
    }
    refused
}

/// The view without what a replay does not keep (counts, rejected sessions).
fn replayable(s: &Session) -> Value {
    let mut v = s.view();
    if let Some(m) = v.as_object_mut() {
        m.remove("counts");
        m.remove("rejected_sessions");
    }
    v
}

fn assert_replays(s: &Session) {
    let (back, _) = Session::from_recording(&s.to_recording()).unwrap();
    assert_eq!(
        replayable(&back),
        replayable(s),
        "the recording replays to the same view"
    );
}

fn tool_names(s: &Session) -> Vec<String> {
    s.view()["executions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["steps"].as_array().unwrap().clone())
        .flat_map(|step| step["tools"].as_array().unwrap().clone())
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn warnings(s: &Session) -> Vec<(String, String)> {
    s.view()["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["type"].as_str().unwrap().to_string(),
                w["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The tool-call chunks' call stays open through a refused
/// `TOOL_CALL_RESULT` (no `toolCallId`): the next event closes it and the
/// tool shows. Before, reading the refused result closed the call and its
/// `agent.tool.started` was dropped with the error: no tool live, `search`
/// running in the replay.
#[test]
fn a_refused_tool_result_leaves_the_chunked_call_open() {
    let mut s = Session::new(None);
    let refused = send(
        &mut s,
        &[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"search","delta":"{\"q\":"}"#,
            r#"{"type":"TOOL_CALL_CHUNK","delta":"1}"}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","content":"x"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"fertig"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        ],
    );
    assert_eq!(refused, vec![4]);
    assert_eq!(tool_names(&s), vec!["search"]);
    assert_replays(&s);
}

/// A `RUN_STARTED` whose `input.resume` holds a non-object, and a
/// `RUN_FINISHED` whose second interrupt is not an object, are refused
/// before they start or end anything: the text after them stays in run
/// `r1`. Before, the start had already made `r2` the current run (the text
/// went to it live, to `r1` in the replay) and the finish had ended `r1`.
#[test]
fn a_refused_run_start_or_finish_leaves_the_run_as_it_was() {
    let mut s = Session::new(None);
    let refused = send(
        &mut s,
        &[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"eins"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r2","input":{"resume":[42]}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" zwei"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"confirm"},42]}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" drei"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}"#,
        ],
    );
    assert_eq!(refused, vec![4, 6]);
    let v = s.view();
    let runs: Vec<&str> = v["executions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["execution_id"].as_str().unwrap())
        .collect();
    assert_eq!(runs, vec!["r1"]);
    assert_eq!(v["executions"][0]["text"], "eins zwei drei");
    assert_eq!(v["executions"][0]["status"], "completed");
    assert!(warnings(&s).is_empty(), "{:?}", warnings(&s));
    assert_replays(&s);
}

/// Run `r` sent again is held while it repeats; a refused line in the
/// middle releases nothing, and the rest of the repetition completes it: a
/// redelivery, dropped, and the `CUSTOM` event after it applies alone.
/// Before, the refused line released the held `RUN_STARTED` and
/// `TEXT_MESSAGE_START` (the translator took them, their envelopes and
/// lines were lost with the error) and the rest was translated as new text;
/// and then (a later finding) the two released events had already joined
/// run `r` when the refusal put them back, so the repetition never matched
/// `r` whole and the `CUSTOM` event released it as a second turn.
#[test]
fn a_refused_line_inside_a_repeated_run_releases_nothing() {
    let run = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hallo"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ];
    let mut once = Session::new(None);
    assert!(send(&mut once, &run).is_empty());

    let mut s = Session::new(None);
    let mut lines = run.to_vec();
    lines.extend(&run[..2]);
    lines.push(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}"#);
    lines.extend(&run[2..]);
    let custom = r#"{"type":"CUSTOM","name":"n","value":1}"#;
    lines.push(custom);
    let refused = send(&mut s, &lines);
    assert_eq!(refused, vec![8]);
    send(&mut once, &[custom]);
    assert_eq!(replayable(&s), replayable(&once));
    let c = s.counts();
    assert_eq!((c.applied, c.duplicates), (6, 5));
    assert_replays(&s);
}

/// Held events released by a later, different event are translated with
/// it; a warning about one of them names that event's type, not the
/// releasing event's. Before, both `STEP_FINISHED` gap warnings of the second
/// run were listed under `CUSTOM`, and a replay (which may release the held
/// events at another event) listed them otherwise.
#[test]
fn warnings_of_released_held_events_carry_their_own_type() {
    let run = [
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"STEP_FINISHED","stepName":"x"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ];
    let mut s = Session::new(None);
    let mut lines = run.to_vec();
    lines.extend(&run[..2]);
    lines.push(r#"{"type":"CUSTOM","name":"n","value":1}"#);
    assert!(send(&mut s, &lines).is_empty());
    let steps: Vec<String> = warnings(&s)
        .into_iter()
        .filter(|(_, m)| m.contains("step `x` finished"))
        .map(|(t, _)| t)
        .collect();
    assert_eq!(steps, vec!["STEP_FINISHED", "STEP_FINISHED"]);
    assert_replays(&s);
}

/// A run sent again whole is dropped, and leaves the redelivery rule with
/// the run before it, as a replay (which never sees the repetition) has it:
/// here run `r` comes again after `q` (dropped: 5 duplicates), then a
/// `CUSTOM` event, which joins `q` (the translator keeps it under `q`
/// too), so `q` sent again without it is not `q` whole: translated when the
/// next event differs. Before, the dropped repetition left `r` current and
/// the `CUSTOM` event joined `r`: live, `q`'s repetition was dropped too
/// (12 applied, 10 duplicates), while the replay translated it.
#[test]
fn a_run_sent_again_whole_leaves_later_events_with_the_run_before_it() {
    let run = |id: &str, msg: &str, text: &str| {
        vec![
            format!(r#"{{"type":"RUN_STARTED","threadId":"t","runId":"{id}"}}"#),
            format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{msg}","role":"assistant"}}"#),
            format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{msg}","delta":"{text}"}}"#),
            format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{msg}"}}"#),
            format!(r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"{id}"}}"#),
        ]
    };
    let (r, q) = (run("r", "a", "eins"), run("q", "b", "zwei"));
    let mut lines: Vec<String> = [r.clone(), q.clone(), r].concat();
    lines.push(r#"{"type":"CUSTOM","name":"late","value":1}"#.to_string());
    lines.extend(q);
    lines.push(r#"{"type":"CUSTOM","name":"later","value":2}"#.to_string());
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut s = Session::new(None);
    assert!(send(&mut s, &lines).is_empty());
    assert_replays(&s);
    let c = s.counts();
    assert_eq!((c.applied, c.duplicates), (17, 5));
}
