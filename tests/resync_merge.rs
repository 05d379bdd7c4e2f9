//! A page that joins a run late and merges the server's log (a resync) ends
//! with the view of a page that saw the whole run, wherever it joined. The
//! case that needs care: a step's continuation broadcast again later (a
//! guard's stop after the step's own decision). A page whose first event is
//! that later one gets the earlier one from the log afterwards; the step keeps
//! the one sent last, not the one merged last.

use stepline::json::{self, Value};
use stepline::session::Session;

mod common;
use common::{jsonl, vectors_of, view_of, Corpus};

/// Every single-turn v2.7 run, on a running clock (1 ms apart): the
/// recordings' frozen clock gives every event the same millisecond.
fn runs() -> Vec<(String, Vec<Value>)> {
    vectors_of(Corpus::V2_7, "agent-runs.json")
        .into_iter()
        .filter(|run| run["expected"].as_array().is_some_and(|t| t.len() == 1))
        .map(|run| {
            let envelopes = run["expected"][0]["envelopes"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let mut e = e["envelope"].clone();
                    let ts = format!("2026-08-10T12:00:{:02}.{:03}Z", i / 1000, i % 1000);
                    e.as_object_mut()
                        .unwrap()
                        .insert("timestamp".to_string(), Value::String(ts));
                    e
                })
                .collect();
            (run["name"].as_str().unwrap().to_string(), envelopes)
        })
        .collect()
}

#[test]
fn a_page_joining_at_a_re_sent_continuation_keeps_the_later_decision_after_the_resync() {
    let mut checked = 0;
    for (name, envelopes) in runs() {
        let mut whole = Session::new(None);
        for e in &envelopes {
            whole.ingest_text(&json::to_string(e)).unwrap();
        }
        for (k, e) in envelopes.iter().enumerate() {
            let step = &e["payload"]["step_number"];
            let re_sent = e["type"] == "agent.continuation"
                && envelopes[..k].iter().any(|p| {
                    p["type"] == "agent.continuation" && &p["payload"]["step_number"] == step
                });
            if !re_sent {
                continue;
            }
            let mut late = Session::new(None);
            late.ingest_text(&json::to_string(e)).unwrap();
            late.ingest_jsonl(&jsonl(&envelopes[..=k]));
            for rest in &envelopes[k + 1..] {
                late.ingest_text(&json::to_string(rest)).unwrap();
            }
            assert_eq!(
                view_of(&late)["executions"],
                view_of(&whole)["executions"],
                "{name}: joined at event {k}"
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "the corpus has runs with a re-sent continuation ({checked} found)"
    );
}
