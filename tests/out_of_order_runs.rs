//! Every corpus run delivered one envelope at a time in reverse order: each
//! envelope is taken (applied, or known as one sent before), and a run of
//! one turn makes the text it makes delivered in order. Debug
//! builds check the stream text's pieces as they read them; an empty chunk
//! at the end of an empty text was read as lying outside it (v2.7's
//! streamed answer with provider frames).

mod common;

use common::{case_envelopes, vectors_of, Corpus};
use stepline::json;
use stepline::session::Session;

fn texts(s: &Session) -> Vec<String> {
    s.executions()
        .iter()
        .map(|e| e.text().into_owned())
        .collect()
}

#[test]
fn every_corpus_run_delivered_in_reverse_order_is_taken_and_a_one_turn_run_makes_the_same_text() {
    let mut runs = 0;
    for corpus in [Corpus::V1_22, Corpus::V2_7] {
        for case in vectors_of(corpus, "agent-runs.json") {
            let lines: Vec<String> = case_envelopes(&case).iter().map(json::to_string).collect();
            let name = format!("{} {}", corpus.folder(), case["name"]);
            let mut in_order = Session::new(None);
            for l in &lines {
                in_order
                    .ingest_text(l)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            let mut reversed = Session::new(None);
            for l in lines.iter().rev() {
                let o = reversed
                    .ingest_text(l)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(
                    o.applied || o.duplicate,
                    "{name}: {l} neither applied nor known"
                );
                reversed.take_patch();
            }
            // A turn opens on its first envelope to arrive, so backwards a
            // later turn's chunks can land in an earlier one: the texts
            // match for a run of one turn.
            if in_order.executions().len() == 1 {
                assert_eq!(texts(&reversed), texts(&in_order), "{name}");
                runs += 1;
            }
        }
    }
    assert!(runs > 30, "{runs} runs of one turn");
}
