//! How envelopes travel over a Pusher-protocol server (Laravel Reverb, Pusher,
//! sockudo): which event names on an `agent.{session_id}` channel carry one.
//!
//! This is the one place that decides what an incoming event name means; every
//! listener stepline ships (the devtools panel, the demos, the README's
//! examples) asks here instead of comparing strings of its own.
//!
//! - instructor-php v2's Laravel transport (`LaravelAgentEventTransport`)
//!   broadcasts every envelope under one name, `instructor.agent.event` unless
//!   the app configured another (`instructor.agents.broadcasting.event_name`,
//!   env `INSTRUCTOR_NATIVE_AGENT_BROADCAST_EVENT`). A configured name replaces
//!   the default, as it does in the producer: only one name is ever broadcast.
//! - v1.22 had no transport: apps chose their own event name, most often the
//!   envelope's `type` (`agent.step.started`, …). Any `agent.*` name is
//!   therefore accepted whatever the configured name is.
//! - Everything else on the channel (`pusher:`/`pusher_internal:` protocol
//!   events, an app's own `App\Events\…` classes, client whispers) is not an
//!   envelope and is ignored.
//!
//! - laravel/ai broadcasts each stream event under its `type` (`stream_start`,
//!   `text_delta`, …) on a channel the app chose: with the event's data, a
//!   name equal to the type of an event a dialect translator claims is read
//!   too (`carries_event` in src/dialects/mod.rs, where the dialects are known).
//!
//! Laravel Echo writes names without its event namespace with a leading dot
//! (`.listen('.instructor.agent.event', …)`, and `listenToAll` hands such names
//! over as `.instructor.agent.event`); one leading dot is therefore ignored, in
//! the incoming name and in the configured one.

use crate::error::{ErrorCode, Result, SteplineError};
// Not `{:?}`: it would pull core's Unicode printability tables into the wasm.
use crate::json::quote;

/// The event name instructor-php v2's Laravel transport broadcasts under by default.
pub const DEFAULT_EVENT_NAME: &str = "instructor.agent.event";

/// Prefixes the Pusher protocol reserves: no backend can broadcast such a name.
const RESERVED_PREFIXES: [&str; 2] = ["pusher:", "pusher_internal:"];

/// The prefix of the names v1.22 apps gave their events (the envelope types).
const AGENT_PREFIX: &str = "agent.";

/// Which event names carry envelopes: the transport's name and any `agent.*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventNames {
    event_name: String,
}

impl Default for EventNames {
    fn default() -> Self {
        EventNames {
            event_name: DEFAULT_EVENT_NAME.to_string(),
        }
    }
}

impl EventNames {
    /// The names for a configured transport event name (`None`: the default).
    /// `path` locates the setting in an error. An empty name, or one the Pusher
    /// protocol reserves, is `invalid_value`: it could never arrive, so a
    /// listener configured with it would silently show nothing.
    pub fn new(configured: Option<&str>, path: &str) -> Result<EventNames> {
        let Some(configured) = configured else {
            return Ok(EventNames::default());
        };
        let name = without_echo_dot(configured);
        if name.trim().is_empty() {
            return Err(SteplineError::new(
                ErrorCode::InvalidValue,
                Some(path.to_string()),
                format!(
                    "expected the broadcast event name (such as {}), found {}",
                    quote(DEFAULT_EVENT_NAME),
                    quote(configured)
                ),
            ));
        }
        if RESERVED_PREFIXES.iter().any(|p| name.starts_with(p)) {
            return Err(SteplineError::new(
                ErrorCode::InvalidValue,
                Some(path.to_string()),
                format!(
                    "expected the broadcast event name, found {}: names starting with \
                     \"pusher:\" or \"pusher_internal:\" belong to the Pusher protocol",
                    quote(configured)
                ),
            ));
        }
        Ok(EventNames {
            event_name: name.to_string(),
        })
    }

    /// The transport event name, without Echo's dot (`instructor.agent.event`).
    pub fn event_name(&self) -> &str {
        &self.event_name
    }

    /// Whether an event arriving under `name` carries an envelope.
    pub fn carries_envelope(&self, name: &str) -> bool {
        let name = without_echo_dot(name);
        if name == self.event_name {
            return true;
        }
        name.strip_prefix(AGENT_PREFIX)
            .is_some_and(|rest| !rest.is_empty())
    }
}

/// `name` without the one leading dot Echo uses for names outside its namespace.
pub(crate) fn without_echo_dot(name: &str) -> &str {
    name.strip_prefix('.').unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_are_the_v2_transport_name_and_agent_types() {
        let names = EventNames::default();
        assert!(names.carries_envelope("instructor.agent.event"));
        assert!(names.carries_envelope(".instructor.agent.event"));
        assert!(names.carries_envelope("agent.step.started"));
        assert!(names.carries_envelope(".agent.stream.chunk"));
        for other in [
            "pusher:subscription_succeeded",
            "pusher_internal:subscription_succeeded",
            "App\\Events\\Foo",
            "Foo",
            "agent",
            "agent.",
            ".agent.",
            "client-agent.step.started",
            "instructor.agent.event.extra",
            "..instructor.agent.event",
            "",
        ] {
            assert!(
                !names.carries_envelope(other),
                "{other:?} is not an envelope"
            );
        }
    }

    #[test]
    fn a_configured_name_replaces_the_default_and_agent_types_still_arrive() {
        let names = EventNames::new(Some(".acme.agent"), "/eventName").unwrap();
        assert_eq!(names.event_name(), "acme.agent");
        assert!(names.carries_envelope("acme.agent"));
        assert!(names.carries_envelope(".acme.agent"));
        assert!(names.carries_envelope("agent.status"));
        assert!(!names.carries_envelope("instructor.agent.event"));
    }

    #[test]
    fn empty_or_protocol_reserved_configured_names_are_refused_with_their_path() {
        for bad in [
            "",
            ".",
            "  ",
            "pusher:subscription_succeeded",
            ".pusher_internal:x",
        ] {
            let e = EventNames::new(Some(bad), "/options/eventName").unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidValue, "{bad:?}");
            assert_eq!(e.path.as_deref(), Some("/options/eventName"), "{bad:?}");
        }
    }
}
