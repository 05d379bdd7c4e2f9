//! What the session reads of a normalised envelope's own members, read
//! once: its type and payload, session and execution ids, timestamp (and
//! the instant it names), a tool event's lack of a step number and a
//! chunk's index. Routing, the redelivery rule and a batch's bookkeeping
//! all ask these of every envelope; each asked the envelope's `Map` again,
//! a scan of its members per question (bench/findings.md, issue 27's bulk
//! replay of the session's side of each line).

use crate::envelope::event::own_step;
use crate::envelope::fast_chunk::Build;
#[cfg(feature = "full")]
use crate::envelope::fast_line::FastLine;
#[cfg(feature = "full")]
use crate::event::Event;
use crate::json::{same_key, Map, Value};
use std::cell::OnceCell;

/// The payload of an envelope without one, and of a chunk or an event read
/// from its line.
static NO_PAYLOAD: Map = Map::new();

/// The envelope's header, borrowed from its normalised `Map`.
pub(crate) struct Head<'a> {
    /// `type` (empty when absent).
    pub kind: &'a str,
    /// `payload` (empty when absent or not an object).
    pub payload: &'a Map,
    pub session_id: Option<&'a str>,
    /// `execution_id` when it is a string.
    pub execution_id: Option<&'a str>,
    /// Whether the envelope has an `execution_id` member at all.
    pub has_execution_id: bool,
    pub timestamp: Option<&'a str>,
    /// A tool event (`agent.tool.*`).
    pub tool: bool,
    /// A tool event without a step number of its own.
    pub stepless_tool: bool,
    /// Of an event read straight from its line (src/envelope/fast_line.rs),
    /// which has no payload here: its step number and a tool's name, which
    /// [`step`](Head::step) and [`tool_name`](Head::tool_name) otherwise
    /// ask the payload. Never in the live entry's build, where nothing is
    /// read from its line (its `Build` cannot exist there), so these
    /// branches leave its wasm.
    typed: Option<(Option<i64>, Option<&'a str>, Build)>,
    /// A stream chunk's own `chunk_index`. A chunk without one is known by
    /// its fingerprint instead: the index `apply` gives it (after the
    /// highest seen) says nothing about whether it arrived before.
    pub chunk_index: Option<i64>,
    /// The timestamp's instant, read when first asked.
    at: OnceCell<Option<i64>>,
}

impl<'a> Head<'a> {
    /// Reads the members in one pass over the envelope.
    pub(crate) fn read(env: &'a Map) -> Head<'a> {
        let mut kind = None;
        let mut payload = None;
        let mut session_id = None;
        let mut execution_id = None;
        let mut has_execution_id = false;
        let mut timestamp = None;
        // The first member of each name, as `Map::get` finds it; told apart
        // by length, then one comparison (`same_key`: eight bytes a step,
        // where the wasm's `memcmp` takes one).
        for (k, v) in env {
            let k: &str = k;
            match k.len() {
                4 if kind.is_none() && same_key(k, "type") => kind = Some(v.as_str()),
                7 if payload.is_none() && same_key(k, "payload") => payload = Some(v.as_object()),
                9 if timestamp.is_none() && same_key(k, "timestamp") => {
                    timestamp = Some(v.as_str());
                }
                10 if session_id.is_none() && same_key(k, "session_id") => {
                    session_id = Some(v.as_str());
                }
                12 if !has_execution_id && same_key(k, "execution_id") => {
                    has_execution_id = true;
                    execution_id = v.as_str();
                }
                _ => {}
            }
        }
        let kind = kind.flatten().unwrap_or_default();
        let payload = payload.flatten().unwrap_or(&NO_PAYLOAD);
        Head::of(
            kind,
            payload,
            session_id.flatten(),
            execution_id,
            has_execution_id,
            timestamp.flatten(),
        )
    }

    /// The header of an envelope of a known type read from its line
    /// (src/envelope/fast_line.rs): what [`read`](Head::read) gives its
    /// decoded envelope.
    pub(crate) fn line(
        kind: &'a str,
        payload: &'a Map,
        session_id: &'a str,
        execution_id: &'a str,
        timestamp: &'a str,
    ) -> Head<'a> {
        Head::of(
            kind,
            payload,
            Some(session_id),
            Some(execution_id),
            true,
            Some(timestamp),
        )
    }

    /// The header of a step event or a tool event read straight into its
    /// event from its line (src/envelope/fast_line.rs): what
    /// [`read`](Head::read) gives its decoded envelope. Its payload is not
    /// asked of such an event, only its step number and a tool's name.
    #[cfg(feature = "full")]
    pub(crate) fn typed(line: &'a FastLine<'_>, event: &'a Event) -> Head<'a> {
        let kind = line.kind;
        let tool = kind.starts_with("agent.tool.");
        let step = event.step;
        let name = crate::envelope::fast_line::tool_name(event);
        Head {
            kind,
            payload: &NO_PAYLOAD,
            session_id: Some(line.session_id),
            execution_id: Some(line.execution_id),
            has_execution_id: true,
            timestamp: Some(line.timestamp),
            tool,
            stepless_tool: tool && step.is_none(),
            typed: Some((step, name, line.build())),
            chunk_index: None,
            at: OnceCell::new(),
        }
    }

    /// The header of a delta a translator emitted typed
    /// (src/dialects/mod.rs's `Delta`), under the session `session_id`
    /// (`None`: the session's own, which the header then need not name):
    /// what [`read`](Head::read) gives the envelope it stands for.
    #[cfg(feature = "full")]
    pub(crate) fn delta(session_id: Option<&'a str>, d: &'a crate::dialects::Delta) -> Head<'a> {
        Head {
            kind: d.kind(),
            payload: &NO_PAYLOAD,
            session_id,
            execution_id: d.execution_id.as_deref(),
            has_execution_id: true,
            timestamp: d.timestamp.as_deref(),
            tool: false,
            stepless_tool: false,
            typed: Some((Some(d.step), None, ())),
            chunk_index: None,
            at: OnceCell::new(),
        }
    }

    /// The step number the payload carries itself
    /// ([`own_step`](crate::envelope::event::own_step)).
    pub(crate) fn step(&self) -> Option<i64> {
        match self.typed {
            Some((step, _, _)) => step,
            None => own_step(self.payload),
        }
    }

    /// A tool event's name: `tool_name`, else its `tool_call`'s `name`
    /// (empty when neither is a string).
    pub(crate) fn tool_name(&self) -> &'a str {
        if let Some((_, name, _)) = self.typed {
            return name.unwrap_or_default();
        }
        let p = self.payload;
        p.get("tool_name")
            .or_else(|| p.get("tool_call").and_then(|c| c.get("name")))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The header of members read: what is derived from them.
    #[inline]
    fn of(
        kind: &'a str,
        payload: &'a Map,
        session_id: Option<&'a str>,
        execution_id: Option<&'a str>,
        has_execution_id: bool,
        timestamp: Option<&'a str>,
    ) -> Head<'a> {
        let tool = kind.starts_with("agent.tool.");
        let chunk_index = match kind {
            "agent.stream.chunk" => payload.get("chunk_index").and_then(Value::as_i64),
            _ => None,
        };
        Head {
            kind,
            payload,
            session_id,
            execution_id,
            has_execution_id,
            timestamp,
            tool,
            stepless_tool: tool && own_step(payload).is_none(),
            typed: None,
            chunk_index,
            at: OnceCell::new(),
        }
    }

    /// The header of a stream chunk read straight from its line
    /// (src/envelope/fast_chunk.rs): what [`read`](Head::read) gives its
    /// decoded envelope. Its payload is not asked of a chunk.
    pub(crate) fn chunk(
        session_id: &'a str,
        execution_id: &'a str,
        timestamp: &'a str,
        index: i64,
    ) -> Head<'a> {
        Head {
            kind: crate::envelope::fast_chunk::KIND,
            payload: &NO_PAYLOAD,
            session_id: Some(session_id),
            execution_id: Some(execution_id),
            has_execution_id: true,
            timestamp: Some(timestamp),
            tool: false,
            stepless_tool: false,
            typed: None,
            chunk_index: Some(index),
            at: OnceCell::new(),
        }
    }

    /// The timestamp as µs since the epoch ([`instant`](crate::session::attribution::instant)).
    pub(crate) fn at(&self) -> Option<i64> {
        *self.at.get_or_init(|| {
            self.timestamp
                .and_then(crate::session::attribution::instant)
        })
    }
}
