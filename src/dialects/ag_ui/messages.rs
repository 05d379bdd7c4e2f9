//! Text and reasoning messages, and the `*_CHUNK` sequences that build them.

use super::read::{obj, opt_str};
use super::{Chunking, Ev, Message, State};
use crate::error::Result;
use crate::json::Map;

impl State {
    pub(super) fn text_start(&mut self, id: &str, role: &str, ev: &mut Ev<'_>) {
        if self.messages.get(id).is_some_and(|m| !m.ended) {
            ev.out.duplicate();
            return;
        }
        if role == "assistant" {
            self.content_step(ev);
            if let Some(r) = self.run.as_mut() {
                r.last_text = Some((id.to_string(), String::new()));
            }
        }
        self.messages.insert(
            id,
            Message {
                role: role.to_string(),
                ..Message::default()
            },
        );
    }

    pub(super) fn text_content(&mut self, id: &str, delta: String, ev: &mut Ev<'_>) {
        let assistant = match self.messages.get(id) {
            Some(m) => {
                if m.ended {
                    ev.out.warn(
                        "/messageId",
                        "gap",
                        format!("content for message `{id}` after its TEXT_MESSAGE_END: kept"),
                    );
                }
                m.role == "assistant"
            }
            None => {
                ev.out.warn(
                    "/messageId",
                    "gap",
                    format!("content for message `{id}`, whose TEXT_MESSAGE_START never arrived: kept as assistant text"),
                );
                self.text_start(id, "assistant", ev);
                true
            }
        };
        if !assistant {
            if let Some(m) = self.messages.get_mut(id) {
                m.text.push_str(&delta);
            }
            return;
        }
        if delta.is_empty() {
            return;
        }
        let step = self.content_step(ev);
        if let Some(r) = self.run.as_mut() {
            match &mut r.last_text {
                Some((last, text)) if last == id => text.push_str(&delta),
                slot => *slot = Some((id.to_string(), delta.clone())),
            }
        }
        // The last thing each of its callers does.
        self.emit_delta_last(false, step, delta, ev);
    }

    pub(super) fn text_end(&mut self, id: &str, ev: &mut Ev<'_>) {
        let Some(m) = self.messages.get_mut(id) else {
            ev.out.warn(
                "/messageId",
                "gap",
                format!("message `{id}` ended, but its TEXT_MESSAGE_START never arrived"),
            );
            return;
        };
        if m.ended {
            ev.out.duplicate();
            return;
        }
        m.ended = true;
        if m.role != "assistant" {
            let role = m.role.clone();
            let data = obj([("messageId", id.into()), ("content", m.text.clone().into())]);
            self.data(&format!("message:{role}"), data, ev);
        }
    }

    pub(super) fn text_chunk(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = opt_str(event, "messageId")?;
        let role = opt_str(event, "role")?;
        let delta = opt_str(event, "delta")?;
        opt_str(event, "name")?;
        let open = match &self.chunking {
            Some(Chunking::Text(open, _)) => Some(open.clone()),
            _ => None,
        };
        let id = match (open, id) {
            (Some(open), None) => open,
            (Some(open), Some(id)) if open == id => open,
            (_, Some(id)) => {
                self.close_chunks(ev);
                let opens = self.messages.get(id).is_none_or(|m| m.ended);
                if opens {
                    self.text_start(id, role.unwrap_or("assistant"), ev);
                }
                self.chunking = Some(Chunking::Text(id.to_string(), opens));
                id.to_string()
            }
            (None, None) => {
                self.close_chunks(ev);
                ev.out.warn(
                    "/messageId",
                    "gap",
                    "TEXT_MESSAGE_CHUNK without `messageId` and no chunked message open: its text is kept as assistant text",
                );
                // As a chunk naming it: one already open (by its START) goes on.
                let id = String::new();
                let opens = self.messages.get(&id).is_none_or(|m| m.ended);
                if opens {
                    self.text_start(&id, role.unwrap_or("assistant"), ev);
                }
                self.chunking = Some(Chunking::Text(id.clone(), opens));
                id
            }
        };
        if let Some(delta) = delta {
            self.text_content(&id, delta.to_string(), ev);
        }
        Ok(())
    }

    /// Ends what an open chunk sequence built (a tool call's end is its
    /// `agent.tool.started`). What it ended stays in `ev.closed` until the
    /// event is translated: an event refused or taken for a redelivery is not
    /// logged, so it must leave the chunks open ([`State::reopen_chunks`]).
    pub(super) fn close_chunks(&mut self, ev: &mut Ev<'_>) {
        let Some(open) = self.chunking.take() else {
            return;
        };
        let ended = match &open {
            Chunking::Text(id, opened) => end(self.messages.get_mut(id).filter(|_| *opened)),
            Chunking::Tool(id) => {
                // A call whose TOOL_CALL_END came before its chunks has no end
                // left to give (`tool_end` would take this event for a redelivery).
                let ends = self.calls.get(id).is_some_and(|c| !c.ended);
                if ends {
                    self.tool_end(id, ev);
                }
                ends
            }
            Chunking::Reasoning(id, opened) => end(self.reasoning.get_mut(id).filter(|_| *opened)),
        };
        ev.closed = Some((open, ended));
    }

    /// Undoes [`State::close_chunks`] (its envelopes are dropped with the
    /// event's): `ended` says it ended the message or call the chunks built.
    pub(super) fn reopen_chunks(&mut self, (open, ended): (Chunking, bool)) {
        if ended {
            match &open {
                Chunking::Text(id, _) => {
                    if let Some(m) = self.messages.get_mut(id) {
                        m.ended = false;
                    }
                }
                Chunking::Tool(id) => {
                    if let Some(c) = self.calls.get_mut(id) {
                        c.ended = false;
                    }
                }
                Chunking::Reasoning(id, _) => {
                    if let Some(m) = self.reasoning.get_mut(id) {
                        m.ended = false;
                    }
                }
            }
        }
        self.chunking = Some(open);
    }

    pub(super) fn reasoning_start(&mut self, id: &str, ev: &mut Ev<'_>) {
        if self.reasoning.get(id).is_some_and(|m| !m.ended) {
            ev.out.duplicate();
            return;
        }
        self.content_step(ev);
        self.reasoning.insert(
            id,
            Message {
                role: "reasoning".into(),
                ..Message::default()
            },
        );
    }

    /// `id` is `None` for the pre-1.0 `THINKING_TEXT_MESSAGE_CONTENT`, which names no message.
    pub(super) fn reasoning_content(&mut self, id: Option<&str>, delta: String, ev: &mut Ev<'_>) {
        if let Some(id) = id {
            if !self.reasoning.contains_key(id) {
                ev.out.warn(
                    "/messageId",
                    "gap",
                    format!("reasoning for message `{id}`, whose REASONING_MESSAGE_START never arrived: kept"),
                );
                self.reasoning_start(id, ev);
            }
        }
        if delta.is_empty() {
            return;
        }
        let step = self.content_step(ev);
        // The last thing each of its callers does.
        self.emit_delta_last(true, step, delta, ev);
    }

    pub(super) fn reasoning_end(&mut self, id: &str, ev: &mut Ev<'_>) {
        match self.reasoning.get_mut(id) {
            None => ev.out.warn(
                "/messageId",
                "gap",
                format!(
                    "reasoning message `{id}` ended, but its REASONING_MESSAGE_START never arrived"
                ),
            ),
            Some(m) if m.ended => ev.out.duplicate(),
            Some(m) => m.ended = true,
        }
    }

    pub(super) fn reasoning_chunk(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = opt_str(event, "messageId")?.filter(|s| !s.is_empty());
        let delta = opt_str(event, "delta")?;
        let open = match &self.chunking {
            Some(Chunking::Reasoning(open, _)) => Some(open.clone()),
            _ => None,
        };
        let id = match (open, id) {
            (Some(open), None) => open,
            (Some(open), Some(id)) if open == id => open,
            (_, Some(id)) => {
                self.close_chunks(ev);
                let opens = self.reasoning.get(id).is_none_or(|m| m.ended);
                if opens {
                    self.reasoning_start(id, ev);
                }
                self.chunking = Some(Chunking::Reasoning(id.to_string(), opens));
                id.to_string()
            }
            (None, None) => {
                self.close_chunks(ev);
                ev.out.warn(
                    "/messageId",
                    "gap",
                    "REASONING_MESSAGE_CHUNK without `messageId` and no chunked reasoning open: kept",
                );
                let id = String::new();
                let opens = self.reasoning.get(&id).is_none_or(|m| m.ended);
                if opens {
                    self.reasoning_start(&id, ev);
                }
                self.chunking = Some(Chunking::Reasoning(id.clone(), opens));
                id
            }
        };
        if let Some(delta) = delta {
            self.reasoning_content(Some(&id), delta.to_string(), ev);
        }
        Ok(())
    }
}

/// Ends `m` unless it already ended; whether it did.
fn end(m: Option<&mut Message>) -> bool {
    match m {
        Some(m) if !m.ended => {
            m.ended = true;
            true
        }
        _ => false,
    }
}
