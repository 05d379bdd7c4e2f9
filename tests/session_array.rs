//! A batch may be a JSON array of events instead of JSONL (what
//! `JSON.stringify(events)` writes, and what front ends dump): the session
//! reads it element by element, exactly as it reads the same events as lines.

use stepline::json::{self, Value};
use stepline::session::Session;

mod common;
use common::{jsonl, vectors, view_of};

/// Every reference run's envelopes, turn after turn.
fn runs() -> Vec<(String, Vec<Value>)> {
    vectors("agent-runs.json")
        .into_iter()
        .map(|run| {
            let name = run["name"].as_str().unwrap().to_string();
            let envelopes = run["expected"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|turn| turn["envelopes"].as_array().unwrap().clone())
                .map(|e| e["envelope"].clone())
                .collect();
            (name, envelopes)
        })
        .collect()
}

/// Pretty-printed, as a person saves it: elements span lines.
fn pretty_array(envelopes: &[Value]) -> String {
    let elements: Vec<String> = envelopes
        .iter()
        .map(|e| format!("  {}", json::to_string(e).replace(",\"", ",\n    \"")))
        .collect();
    format!("\u{feff}\n[\n{}\n]\n", elements.join(",\n"))
}

#[test]
fn a_json_array_of_events_gives_the_view_jsonl_of_them_gives() {
    for (name, envelopes) in runs() {
        let mut from_lines = Session::new(None);
        let lines = from_lines.ingest_jsonl(&jsonl(&envelopes));
        let mut from_array = Session::new(None);
        let array = from_array.ingest_jsonl(&pretty_array(&envelopes));
        assert!(array.errors.is_empty(), "{name}: {:?}", array.errors.listed);
        assert_eq!(
            (array.applied, array.duplicates, array.rejected),
            (lines.applied, lines.duplicates, lines.rejected),
            "{name}"
        );
        assert!(array.applied > 0, "{name}");
        assert_eq!(view_of(&from_array), view_of(&from_lines), "{name}");
    }
}

#[test]
fn a_bad_element_is_reported_by_its_position_and_the_others_still_read() {
    let (_, envelopes) = runs().remove(0);
    let mut elements: Vec<String> = envelopes.iter().map(json::to_string).collect();
    elements.insert(2, "{\"type\": 7}".into());
    elements.insert(4, "\"not an event\"".into());
    let text = format!("[{}]", elements.join(","));
    let mut s = Session::new(None);
    let out = s.ingest_jsonl(&text);
    let failed: Vec<usize> = out.errors.listed.iter().map(|(n, _)| *n).collect();
    assert_eq!(failed, vec![3, 5]);
    assert_eq!(out.applied as usize, envelopes.len());
    let v = json::to_value_of(&out.view());
    assert_eq!(v["errors"][0]["line"], 3);
    assert_eq!(v["errors"][0]["error"]["path"], "/type");
}

#[test]
fn an_unterminated_array_keeps_its_complete_elements_and_says_what_is_missing() {
    let (_, envelopes) = runs().remove(0);
    let whole = format!("[{}]", jsonl(&envelopes).replace('\n', ","));
    let cut = &whole[..whole.len() - 1];
    let mut s = Session::new(None);
    let out = s.ingest_jsonl(cut);
    assert_eq!(out.applied as usize, envelopes.len());
    assert_eq!(out.errors.listed.len(), 1);
    let (number, error) = &out.errors.listed[0];
    assert_eq!(*number, envelopes.len() + 1);
    assert_eq!(error.code.as_str(), "invalid_json");
}

#[test]
fn a_recording_may_be_a_json_array_and_replays_into_one_line_per_event() {
    for (name, envelopes) in runs() {
        let (from_lines, _) = Session::from_recording(&jsonl(&envelopes)).unwrap();
        let (from_array, _) = Session::from_recording(&pretty_array(&envelopes)).unwrap();
        assert_eq!(view_of(&from_array), view_of(&from_lines), "{name}");
        // Its own recording is JSONL again: every event on one line.
        let again = from_array.to_recording();
        let (replayed, _) = Session::from_recording(&again).unwrap();
        assert_eq!(view_of(&replayed), view_of(&from_lines), "{name}");
        assert_eq!(
            again.lines().count(),
            from_lines.log().count() + 1,
            "{name}"
        );
    }
}
