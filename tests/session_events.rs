//! `ingest_event_deferred`: an event as a broadcast client hands it over (its
//! Pusher event name and data) is read when the name carries an agent event
//! and skipped, reading nothing, when it does not — the decision of
//! `EventNames::carries_event`, so a front end never filters names itself.

use stepline::envelope::EventNames;
use stepline::json::{self, Value};
use stepline::session::Session;

mod common;
use common::{vectors, view_of};

/// The first reference run's envelopes.
fn reference_envelopes() -> Vec<Value> {
    let runs = vectors("agent-runs.json");
    runs[0]["expected"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|turn| turn["envelopes"].as_array().unwrap().clone())
        .map(|e| e["envelope"].clone())
        .collect()
}

fn laravel_ai_events() -> Vec<Value> {
    let text = std::fs::read_to_string("tests/vectors/dialects/laravel-ai/canonical-per-step.json")
        .unwrap();
    json::from_str(&text).unwrap()["events"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn envelopes_under_the_transport_name_give_the_view_ingest_gives() {
    let envelopes = reference_envelopes();
    let names = EventNames::default();
    let mut by_event = Session::new(None);
    let mut by_ingest = Session::new(None);
    for e in &envelopes {
        let text = json::to_string(e);
        let read = by_event.ingest_event_deferred(&names, ".instructor.agent.event", &text);
        assert!(read
            .expect("the transport name carries an envelope")
            .is_ok());
        // Pusher's own events and the app's other events on the same channel are skipped.
        assert!(by_event
            .ingest_event_deferred(&names, "pusher:subscription_succeeded", "{}")
            .is_none());
        assert!(by_event
            .ingest_event_deferred(&names, "App\\Events\\OrderShipped", r#"{"id":7}"#)
            .is_none());
        by_ingest.ingest_text(&text).unwrap();
    }
    by_event.settle();
    assert_eq!(view_of(&by_event), view_of(&by_ingest));
}

#[test]
fn a_configured_name_replaces_the_default_and_agent_type_names_still_count() {
    let envelopes = reference_envelopes();
    let names = EventNames::new(Some("acme.agent"), "/eventName").unwrap();
    let text = json::to_string(&envelopes[0]);
    let mut s = Session::new(None);
    assert!(s
        .ingest_event_deferred(&names, ".instructor.agent.event", &text)
        .is_none());
    assert!(s
        .ingest_event_deferred(&names, ".acme.agent", &text)
        .is_some());
    let v122_name = envelopes[1]["type"].as_str().unwrap().to_string();
    assert!(s
        .ingest_event_deferred(&names, &v122_name, &json::to_string(&envelopes[1]))
        .is_some());
}

#[test]
fn a_laravel_ai_event_counts_under_its_own_type_and_not_under_another() {
    let events = laravel_ai_events();
    let names = EventNames::default();
    let mut by_event = Session::new(None);
    let mut by_ingest = Session::new(None);
    for e in &events {
        let text = json::to_string(e);
        let name = format!(".{}", e["type"].as_str().unwrap());
        assert!(by_event
            .ingest_event_deferred(&names, "text_delta_other", &text)
            .is_none());
        let read = by_event.ingest_event_deferred(&names, &name, &text);
        assert!(read
            .expect("laravel/ai broadcasts each event under its type")
            .is_ok());
        by_ingest.ingest_text(&text).unwrap();
    }
    by_event.settle();
    assert_eq!(view_of(&by_event), view_of(&by_ingest));
}

#[test]
fn a_bad_envelope_under_the_transport_name_is_an_error_and_text_under_another_name_is_skipped() {
    let names = EventNames::default();
    let mut s = Session::new(None);
    let err = s
        .ingest_event_deferred(
            &names,
            "instructor.agent.event",
            r#"{"type":"agent.step.started"}"#,
        )
        .expect("read")
        .unwrap_err();
    assert!(!err.path.clone().unwrap_or_default().is_empty(), "{err:?}");
    assert!(s
        .ingest_event_deferred(&names, "stream_start", "not json")
        .is_none());
}
