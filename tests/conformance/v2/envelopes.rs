//! v2.7 envelopes.json: `AgentEventBroadcaster` fed hand-built events, checked
//! like v1.22's (compat mode against the recorded envelopes, fixed mode with
//! true UTC timestamps and character-boundary cuts) with the encoder in the
//! v2 dialect.

use stepline::envelope::config::Dialect;
use stepline::json::Value;

/// The offsets of the default timezones the vectors use, at the vectors'
/// instant (August 2026, summer time where there is one).
fn offset_minutes(zone: Option<&str>) -> Option<i32> {
    match zone {
        None | Some("UTC") => Some(0),
        Some("Europe/Warsaw") => Some(120),
        Some("America/New_York") => Some(-240),
        Some("Asia/Kolkata") => Some(330),
        Some(_) => None,
    }
}

pub fn check(_name: &str, case: &Value) -> Option<Result<(), String>> {
    crate::envelopes::check_as(&with_event_data(case), Dialect::V2, offset_minutes)
}

/// The harness built `AgentStepStarted` from a state it made up: where an op
/// leaves out the message or tool count, the event carried the state's
/// (`event_data[i].data.messages`/`tools`), and that is what the broadcaster read.
fn with_event_data(case: &Value) -> Value {
    let mut case = case.clone();
    let data: Vec<Value> = case["event_data"]
        .as_array()
        .map(|d| d.iter().map(|e| e["data"].clone()).collect())
        .unwrap_or_default();
    let ops = case
        .get_mut("input")
        .and_then(|i| i.get_mut("ops"))
        .and_then(Value::as_array_mut);
    let events = ops
        .into_iter()
        .flatten()
        .filter(|op| op.get("event").is_some());
    for (op, data) in events.zip(data) {
        if op["event"] != "AgentStepStarted" {
            continue;
        }
        let Some(args) = op.get_mut("args").and_then(Value::as_object_mut) else {
            continue;
        };
        for (arg, field) in [("messageCount", "messages"), ("availableTools", "tools")] {
            if !args.contains_key(arg) {
                if let Some(v) = data.get(field) {
                    args.insert(arg, v.clone());
                }
            }
        }
    }
    case
}
