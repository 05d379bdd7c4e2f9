//! `new Session({ record: false })`: the session keeps no envelope text, its
//! view is the same as a recording session's for every run of both corpora
//! (delivered twice, so redelivery is exercised too), and what reads the
//! envelopes says so with a typed error at `/options/record`.

mod common;

use common::{case_envelopes, vectors_of, view_of, Corpus};
use stepline::error::ErrorCode;
use stepline::json::{self, Limits, Map, Value};
use stepline::session::{Session, SessionOptions};

fn session(record: bool) -> Session {
    Session::with_options(&SessionOptions {
        record: Some(record),
        ..SessionOptions::default()
    })
}

#[test]
fn every_corpus_run_has_the_same_view_with_recording_off() {
    let mut runs = 0;
    for corpus in [Corpus::V1_22, Corpus::V2_7] {
        for case in vectors_of(corpus, "agent-runs.json") {
            let envelopes = case_envelopes(&case);
            let (mut on, mut off) = (session(true), session(false));
            // Delivered twice: the second delivery is all redeliveries.
            for e in envelopes.iter().chain(envelopes.iter()) {
                let a = on.ingest_value(e).unwrap();
                let b = off.ingest_value(e).unwrap();
                assert_eq!(a, b, "{}: {e}", case["name"]);
            }
            assert_eq!(view_of(&on), view_of(&off), "{}", case["name"]);
            assert_eq!(on.view()["counts"], off.view()["counts"]);
            assert!(on.log().count() > 0 && off.log().count() == 0);
            runs += 1;
        }
    }
    assert!(runs >= 50, "{runs} runs");
}

#[test]
fn what_reads_the_envelopes_is_a_typed_error_at_the_option() {
    let case = vectors_of(Corpus::V1_22, "agent-runs.json")
        .into_iter()
        .next()
        .unwrap();
    let mut s = session(false);
    for e in case_envelopes(&case) {
        s.ingest_value(&e).unwrap();
    }
    assert!(!s.records());
    let err = s.diagnose(&Value::Object(Map::new())).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidValue);
    assert_eq!(err.path.as_deref(), Some("/options/record"));
    assert!(err.message.contains("diagnose()"), "{}", err.message);
    let err = s.require_recording("toRecording()").unwrap_err();
    assert!(err.message.contains("{ record: false }"), "{}", err.message);

    let mut on = session(true);
    for e in case_envelopes(&case) {
        on.ingest_value(&e).unwrap();
    }
    assert!(on.require_recording("toRecording()").is_ok());
    assert!(on.diagnose(&Value::Object(Map::new())).is_ok());
}

#[test]
fn the_option_is_read_with_its_path_and_defaults_to_recording() {
    let read = |text: &str| {
        let v = json::parse(text, &Limits::default()).unwrap();
        SessionOptions::from_map(v.as_object().unwrap(), "/options")
    };
    assert_eq!(read(r#"{"record": false}"#).unwrap().record, Some(false));
    assert_eq!(read(r#"{"record": null}"#).unwrap().record, None);
    let err = read(r#"{"record": "no"}"#).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidType);
    assert_eq!(err.path.as_deref(), Some("/options/record"));
    assert!(Session::with_options(&SessionOptions::default()).records());
}
