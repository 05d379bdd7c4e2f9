//! Which producer's dialect an envelope is, decided from what it carries.
//!
//! Most envelope shapes are the same in instructor-php v1.22 and v2.7 (a
//! step start, a tool run, a stream chunk): those are `instructor`, and the
//! run's other envelopes tell the version. What only one producer sends:
//! - `v2`: a continuation with `should_stop`; a four-key `agent.status`
//!   (`previous_status` plus `error_message`/`last_response`); the failed
//!   attempt's step completion (`finish_reason` null with zero usage, README
//!   item 9);
//! - `v1.22`: a continuation with `should_continue` (and `evaluations`);
//! - `seed-000`: a status without `previous_status`, tools as names, usage
//!   as `{prompt, completion, total}`;
//! - `seed-003`: the native form (`event_type`), its own event types, or
//!   its lifecycle fields (`step_index`, `step_id`, `annotations`).
//!
//! ```
//! use stepline::envelope::decode::decode_text;
//! let d = decode_text(r#"{"type":"agent.continuation","session_id":"s","payload":{"step_number":1,"should_stop":true,"stop_reason":null,"resolved_by":""}}"#).unwrap();
//! assert_eq!(d.dialect.as_str(), "v2");
//! ```

use crate::json::{Map, Value};

/// Which producer's dialect an envelope is in, decided from what it carries:
/// `"instructor"` is a shape instructor-php v1.22 and v2.7 both send (the
/// run's other envelopes tell which); another producer's events are in the
/// dialect that translated them (src/dialects/).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum WireDialect {
    /// A shape instructor-php v1.22 and v2.7 both send.
    #[default]
    Instructor,
    /// The seed-000 document's envelopes.
    Seed000,
    /// Seed 003's lifecycle events.
    Seed003,
    /// What only instructor-php v1.22 sends.
    V1_22,
    /// What only instructor-php v2.x sends.
    V2,
    /// Another producer's events, by its dialect's name (`"laravel-ai"`,
    /// `"ag-ui"`, `"ai-sdk"`, or a dialect an application added).
    Foreign(&'static str),
}

impl WireDialect {
    /// `"instructor"`, `"seed-000"`, `"seed-003"`, `"v1.22"`, `"v2"`, or a
    /// foreign dialect's name (`"laravel-ai"`, `"ag-ui"`, `"ai-sdk"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            WireDialect::Instructor => "instructor",
            WireDialect::Seed000 => "seed-000",
            WireDialect::Seed003 => "seed-003",
            WireDialect::V1_22 => "v1.22",
            WireDialect::V2 => "v2",
            WireDialect::Foreign(name) => name,
        }
    }

    /// How much a dialect tells about the producer: a shape both
    /// instructor-php versions send least, a foreign producer's most.
    fn specificity(self) -> u8 {
        match self {
            WireDialect::Instructor => 0,
            WireDialect::Seed000 => 1,
            WireDialect::Seed003 => 2,
            WireDialect::V1_22 => 3,
            WireDialect::V2 => 4,
            WireDialect::Foreign(_) => 5,
        }
    }

    /// The more telling of two dialects seen in one run (a specific one
    /// over `instructor`; of two equally telling, the later).
    pub fn most_specific(self, other: WireDialect) -> WireDialect {
        if other.specificity() >= self.specificity() {
            other
        } else {
            self
        }
    }
}

impl serde::Serialize for WireDialect {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The dialect of an envelope of type `kind` with the payload `p` as it
/// arrived (`native`: seed 003's `event_type` form).
pub(crate) fn detect(kind: &str, native: bool, p: &Map) -> WireDialect {
    let has = |k: &str| p.get(k).is_some_and(|v| !v.is_null());
    if native
        || !matches!(
            kind,
            "agent.status"
                | "agent.step.started"
                | "agent.step.completed"
                | "agent.tool.started"
                | "agent.tool.completed"
                | "agent.stream.chunk"
                | "agent.continuation"
        )
        || has("step_index")
        || has("step_id")
        || has("annotations")
    {
        return WireDialect::Seed003;
    }
    let seed_usage = p
        .get("usage")
        .and_then(Value::as_object)
        .is_some_and(|u| !u.contains_key("input") && u.contains_key("prompt"));
    match kind {
        "agent.continuation" if p.contains_key("should_stop") => WireDialect::V2,
        "agent.continuation" => WireDialect::V1_22,
        "agent.status" if !p.contains_key("previous_status") || p.contains_key("step_count") => {
            WireDialect::Seed000
        }
        "agent.status" if p.contains_key("error_message") || p.contains_key("last_response") => {
            WireDialect::V2
        }
        "agent.step.started" if p.get("available_tools").is_some_and(Value::is_array) => {
            WireDialect::Seed000
        }
        "agent.step.completed" if seed_usage => WireDialect::Seed000,
        "agent.step.completed" if failed_attempt(p) => WireDialect::V2,
        _ => WireDialect::Instructor,
    }
}

/// v2.7's completion of a step whose inference failed (README item 9): no
/// finish reason, no usage, no tool calls, numbered by the steps recorded
/// before it.
pub(crate) fn failed_attempt(p: &Map) -> bool {
    let zero_usage = p.get("usage").is_some_and(|u| match u {
        Value::Object(m) => m.values().all(|v| v.as_i64() == Some(0)),
        Value::Array(a) => a.is_empty(),
        _ => false,
    });
    p.get("finish_reason").is_some_and(Value::is_null)
        && zero_usage
        && p.get("has_tool_calls").and_then(Value::as_bool) == Some(false)
        && p.get("errors").and_then(Value::as_i64) == Some(0)
}
