//! Seed 003's registered event prefixes (docs/seeds/003-agent-response-structure.md
//! §与现有模型的衔接: a new sub-flow, such as a planner, adds a prefix like
//! `agent.planner.*` to the event set, which otherwise stays closed). Events
//! under a prefix the application registered are kept as they came, per
//! execution, in an order that does not depend on arrival.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{Map, Value};

/// One event of a registered prefix, as it came.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CustomEvent {
    /// The event's type (`agent.planner.plan`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The envelope's timestamp, when it had one.
    pub timestamp: Option<String>,
    /// The step it names (`step_index`, else `step_number`), when it names one.
    pub step_index: Option<i64>,
    /// Its payload (the native form's fields) as sent.
    #[cfg_attr(feature = "schema", schemars(schema_with = "payload_schema"))]
    pub payload: Map,
    /// The sort key: the payload's text (events equal in time, step and
    /// type are ordered by content, not by arrival).
    #[serde(skip)]
    text: String,
}

impl CustomEvent {
    /// An event of type `kind` sent at `timestamp` with `payload`.
    pub fn new(kind: &str, timestamp: Option<&str>, payload: Map) -> CustomEvent {
        let step_index = payload
            .get("step_index")
            .or_else(|| payload.get("step_number"))
            .and_then(Value::as_i64);
        let text = crate::json::to_string(&Value::Object(payload.clone()));
        CustomEvent {
            kind: kind.to_string(),
            timestamp: timestamp.map(str::to_string),
            step_index,
            payload,
            text,
        }
    }

    fn key(&self) -> (Option<i64>, Option<i64>, &str, &str) {
        let at = self
            .timestamp
            .as_deref()
            .and_then(crate::session::attribution::instant);
        (at, self.step_index, &self.kind, &self.text)
    }
}

/// An execution's custom events, by time, step, type and content.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CustomEvents(Vec<CustomEvent>);

impl CustomEvents {
    /// Adds `event` in its place (the same events in any arrival order give
    /// the same list; the session has already dropped redeliveries).
    pub fn add(&mut self, event: CustomEvent) {
        let at = self.0.partition_point(|e| e.key() <= event.key());
        self.0.insert(at, event);
    }

    /// The events in order.
    pub fn as_slice(&self) -> &[CustomEvent] {
        &self.0
    }
}

/// `prefix` can be registered: `agent.` and at least one more segment,
/// ending with `.`, and no type stepline reads starts with it (a prefix must
/// add types, not take over known ones). Else `invalid_value` at `path`.
pub fn check_prefix(prefix: &str, path: &str) -> Result<()> {
    let refuse = |why: String| Err(SteplineError::at(ErrorCode::InvalidValue, path, why));
    let rest = prefix.strip_prefix("agent.").unwrap_or_default();
    if rest.len() < 2 || !rest.ends_with('.') || rest.starts_with('.') {
        return refuse(format!(
            "expected an event type prefix such as \"agent.planner.\", found {}",
            crate::json::quote(prefix)
        ));
    }
    if let Some(known) = crate::envelope::schema::KNOWN_TYPES
        .iter()
        .find(|k| k.starts_with(prefix))
    {
        return refuse(format!(
            "{} covers the known type {known}",
            crate::json::quote(prefix)
        ));
    }
    Ok(())
}

/// Any JSON object.
#[cfg(feature = "schema")]
fn payload_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_add_types_and_never_take_known_ones() {
        assert!(check_prefix("agent.planner.", "/p").is_ok());
        assert!(check_prefix("agent.critic.review.", "/p").is_ok());
        for bad in [
            "agent.",
            "agent.planner",
            "planner.",
            "agent..",
            "agent.tool.",
            "agent.llm.",
            "",
        ] {
            let err = check_prefix(bad, "/p").unwrap_err();
            assert_eq!(
                (err.code, err.path.as_deref()),
                (ErrorCode::InvalidValue, Some("/p")),
                "{bad}"
            );
        }
    }
}
