//! The line readers on and off (src/envelope/fast_chunk.rs,
//! src/envelope/fast_line.rs): a session made either way, what it shows
//! after the same deliveries, and the producer's lines to feed it.

use stepline::json::{self, Value};
use stepline::session::{Session, SessionOptions};

use super::{case_envelopes, vectors_of, Corpus};

/// How a session is made for one comparison.
#[derive(Clone, Default)]
pub struct Setup {
    pub session_id: Option<String>,
    pub text_limit: Option<u64>,
    pub record: Option<bool>,
}

impl Setup {
    /// Under the session id `id`.
    pub fn under(id: &str) -> Setup {
        Setup {
            session_id: Some(id.into()),
            ..Setup::default()
        }
    }

    /// With the text limit `bytes`.
    pub fn text_limited(bytes: u64) -> Setup {
        Setup {
            text_limit: Some(bytes),
            ..Setup::default()
        }
    }

    /// Without a log.
    pub fn unrecorded() -> Setup {
        Setup {
            record: Some(false),
            ..Setup::default()
        }
    }

    pub fn session(&self, fast: bool) -> Session {
        let mut s = Session::with_options(&SessionOptions {
            session_id: self.session_id.clone(),
            max_text_bytes: self.text_limit,
            record: self.record,
            ..SessionOptions::default()
        });
        s.set_fast_chunks(fast);
        s
    }
}

/// Everything a session shows after `lines`, delivered one at a time
/// (`live`) or as one batch, as text.
pub fn observe(setup: &Setup, fast: bool, deliveries: &[Vec<String>], live: bool) -> String {
    let mut s = setup.session(fast);
    let mut out = String::new();
    for lines in deliveries {
        if live {
            for line in lines {
                out.push_str(&format!("{:?}\n", s.ingest_text(line)));
            }
        } else {
            let o = s.ingest_jsonl(&lines.join("\n"));
            out.push_str(&format!("{:?}\n", o));
            out.push_str(&json::to_string(&json::to_value_of(&o.view())));
        }
    }
    out.push_str(&json::to_string(&s.view()));
    out.push_str(&format!("\n{:?}\n{:?}\n", s.counts(), s.warnings()));
    if s.records() {
        for (delivery, line) in s.log_delivered() {
            out.push_str(&format!("{delivery} {line}\n"));
        }
        out.push_str(&s.to_recording());
    }
    out
}

/// The reader on and off give the same, line by line and as batches.
pub fn same_either_way(what: &str, setup: &Setup, deliveries: &[Vec<String>]) {
    for live in [true, false] {
        let slow = observe(setup, false, deliveries, live);
        let fast = observe(setup, true, deliveries, live);
        assert!(
            slow == fast,
            "{what} (live: {live}) differs with the fast reader:\n--- generic\n{slow}\n--- fast\n{fast}"
        );
    }
}

/// A fixture's lines give the same either way: as one delivery, twice,
/// each line twice and reversed; under no session id, the fixture's, another
/// one, a text limit of 40 bytes and without a log.
pub fn fixture_same_either_way(lines: &[String]) {
    for setup in [
        Setup::default(),
        Setup::under("sess-f"),
        Setup::under("sess-other"),
        Setup::text_limited(40),
        Setup::unrecorded(),
    ] {
        same_either_way("fixture", &setup, &[lines.to_vec()]);
        same_either_way("fixture twice", &setup, &[lines.to_vec(), lines.to_vec()]);
        let doubled: Vec<String> = lines.iter().flat_map(|l| [l.clone(), l.clone()]).collect();
        same_either_way("fixture, each line twice", &setup, &[doubled]);
        let reversed: Vec<String> = lines.iter().rev().cloned().collect();
        same_either_way("fixture reversed", &setup, &[reversed]);
    }
}

/// A fixture file's lines.
pub fn lines_of(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// Both reference corpora the same either way: each run under each of
/// `setups` delivered once and again whole, and each of its lines twice;
/// then every envelope of their files in one delivery (two with
/// `every_envelope_twice`).
pub fn corpora_same_either_way(setups: &[Setup], every_envelope_twice: bool) {
    for corpus in [Corpus::V1_22, Corpus::V2_7] {
        for case in vectors_of(corpus, "agent-runs.json") {
            let lines: Vec<String> = case_envelopes(&case).iter().map(json::to_string).collect();
            let name = format!("{} {}", corpus.folder(), case["name"]);
            for setup in setups {
                same_either_way(&name, setup, std::slice::from_ref(&lines));
                same_either_way(&name, setup, &[lines.clone(), lines.clone()]);
            }
            let doubled: Vec<String> = lines.iter().flat_map(|l| [l.clone(), l.clone()]).collect();
            same_either_way(&name, &Setup::default(), &[doubled]);
        }
        for file in ["envelopes.json", "agent-runs.json"] {
            let mut lines = Vec::new();
            for case in vectors_of(corpus, file) {
                envelopes_in(&case, &mut lines);
            }
            assert!(!lines.is_empty(), "{} {file}", corpus.folder());
            let name = format!("{} {file}, every envelope", corpus.folder());
            let deliveries = if every_envelope_twice {
                vec![lines.clone(), lines]
            } else {
                vec![lines]
            };
            same_either_way(&name, &Setup::default(), &deliveries);
        }
    }
}

/// A stream chunk line in the producer's layout, `ms` into the run.
pub fn chunk_line(exec: &str, ms: u64, index: u64, content: &str) -> String {
    format!(
        r#"{{"type":"agent.stream.chunk","session_id":"sess-g","execution_id":"{exec}","timestamp":"2026-01-20T12:{:02}:{:02}.{:03}Z","payload":{{"content":{},"is_complete":false,"chunk_index":{index}}}}}"#,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000,
        json::to_string(&Value::from(content)),
    )
}

/// An envelope line of `kind` in the producer's layout, its payload's JSON as given.
pub fn envelope_line(exec: &str, ms: u64, kind: &str, payload: &str) -> String {
    format!(
        r#"{{"type":"{kind}","session_id":"sess-g","execution_id":"{exec}","timestamp":"2026-01-20T12:{:02}:{:02}.{:03}Z","payload":{payload}}}"#,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000,
    )
}

/// Every envelope of a vector file (any object with an `agent.` type and a
/// payload), written compactly in its own key order: chunks as the
/// producers write them.
pub fn envelopes_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            let is_envelope = m
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.starts_with("agent."))
                && m.contains_key("payload");
            if is_envelope {
                out.push(json::to_string(v));
                return;
            }
            for (_, item) in m {
                envelopes_in(item, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| envelopes_in(i, out)),
        _ => {}
    }
}
