//! The JavaScript-facing view of a v2 state (what `parseAgentState` returns
//! for one): the state as stored, `stateVersion: "v2"`, and its derived values
//! under `derived`, so no consumer re-derives (and possibly disagrees about)
//! the status, the stop signal or the usage.

use crate::json::Value;
use crate::model::time::Timestamp;

use super::derived::derived;
use super::state::AgentState;
use super::Form;

/// What replaces a stored API key in every view.
pub const REDACTED: &str = "[redacted]";

/// Builds the view. The stored `llmConfig.apiKey` is replaced by
/// [`REDACTED`] when non-empty: a view is shown and logged, the key must not be.
///
/// ```
/// use stepline::model::v2::{view::view, AgentState};
/// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
/// let text = r#"{"agentId": "a0000000-0000-4000-8000-000000000001", "llmConfig": {"apiKey": "sk-live"}, "execution": null}"#;
/// let state = AgentState::from_value(&stepline::json::from_str(text).unwrap(), &now).unwrap();
/// let v = view(&state, &now);
/// assert_eq!(v["stateVersion"], "v2");
/// assert_eq!(v["llmConfig"]["apiKey"], "[redacted]");
/// assert_eq!(v["derived"]["status"], stepline::json::Value::Null);
/// ```
pub fn view(state: &AgentState, now: &Timestamp) -> Value {
    let mut out = state.to_value(Form::Stored);
    if let Some(m) = out.as_object_mut() {
        if let Some(key) = m
            .get_mut("llmConfig")
            .and_then(Value::as_object_mut)
            .and_then(|c| c.get_mut("apiKey"))
        {
            if key.as_str().is_none_or(|k| !k.is_empty()) && !key.is_null() {
                *key = Value::from(REDACTED);
            }
        }
        m.insert("stateVersion", Value::from("v2"));
        m.insert("derived", derived(state, now, Form::Stored));
    }
    // Any other credential (an `Authorization` header in llmConfig.options,
    // a key an application put in metadata) is not shown either.
    crate::lint::secrets::redact(&out)
}
