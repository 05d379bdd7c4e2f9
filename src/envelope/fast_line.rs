//! An envelope of a known type read from its line without the envelope's
//! value tree: the producer writes every envelope in one layout,
//!
//! ```text
//! {"type":"agent.step.completed","session_id":"…","execution_id":"…","timestamp":"…","payload":{…}}
//! ```
//!
//! (one line, no whitespace, the header's members in that order and the
//! payload last). The stream chunk, most of a run's lines, is read whole by
//! src/envelope/fast_chunk.rs; the other types (a step's start and
//! completion, a tool call's two halves, a status, a continuation, …) have
//! payloads of many shapes (tool arguments, usage, evaluations), so here
//! only the header is read from the bytes, and the payload is parsed by the
//! core parser and normalised by the decoder's own payload pass
//! ([`decode_payload_of`]), as decoding the whole line would. What is saved
//! is the envelope's own tree (its five members, four of them strings), the
//! decoder's pass over it, the header's second reading (`Head::read`) and
//! the fingerprint's walk of the header (bench/findings.md, "Issue 27: the
//! other instructor-php lines read without a tree").
//!
//! The decoded envelope of a line read here is exactly the line's members
//! in the line's order, its payload the decoder's, so the fingerprint
//! `dedup_key` (src/session/mod.rs) takes of it is fed the header's words
//! while they are read, then the decoded payload. A line in any other
//! layout, of an unknown type, with escapes or other than a string in the
//! header, a timestamp that is not RFC 3339, a payload the parser or the
//! decoder refuses, or past the envelope limit is declined whole, and is
//! decoded as before (which then reports its errors).
//!
//! Not in the live entry, for the chunk reader's reason (see
//! [`Build`](crate::envelope::fast_chunk::Build)).

#![cfg_attr(not(feature = "full"), allow(dead_code))]

use crate::envelope::decode::Warning;
use crate::envelope::dialect::WireDialect;
use crate::envelope::fast_chunk::Build;
#[cfg(feature = "full")]
use crate::event::Event;
use crate::json::fingerprint::Fingerprint;
use crate::json::Map;

/// An envelope's line as the session takes it: its header borrowed from
/// the line, its payload decoded.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FastLine<'t> {
    /// The line itself (what a recording keeps).
    pub line: &'t str,
    /// `type`: a known type ([`fields`](crate::envelope::schema::fields)).
    pub kind: &'t str,
    pub session_id: &'t str,
    pub execution_id: &'t str,
    /// An RFC 3339 timestamp.
    pub timestamp: &'t str,
    /// The payload as the decoder normalises it, or the event `to_event`
    /// makes of it.
    pub body: LineBody,
    /// What the decoder kept unread (unknown payload fields).
    pub warnings: Vec<Warning>,
    /// The dialect the decoder reads of the payload.
    pub dialect: WireDialect,
    /// What `dedup_key` gives the decoded envelope, for a type it keys.
    pub fingerprint: Fingerprint,
    /// Nothing, where lines are read.
    build: Build,
}

/// What a line read here becomes an event from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LineBody {
    /// The payload as the decoder normalises it.
    Payload(Map),
    /// A step or tool event in the producer's layout, read straight into
    /// the event `to_event` makes of its decoded payload (boxed: every
    /// envelope's way through the session moves this type). Not in the
    /// live entry's build, whose session would otherwise keep this box's
    /// drop.
    #[cfg(feature = "full")]
    Event(Box<Event>),
}

/// The live entry reads no line here (see the module's comment).
#[cfg(not(feature = "full"))]
#[inline(always)]
pub(crate) fn read(_text: &str) -> Option<FastLine<'_>> {
    None
}

/// Reads `text` as an envelope of a known type in the producer's layout,
/// or `None` when it is anything else (then nothing was decided about it).
#[cfg(feature = "full")]
pub(crate) fn read(text: &str) -> Option<FastLine<'_>> {
    use crate::envelope::decode::{decode_payload_of, ENVELOPE_LIMITS};
    use crate::json::Value;
    // The other producers' events end here, on one comparison (their
    // types are no `agent.` type: src/dialects/registry.rs).
    if text.len() > ENVELOPE_LIMITS.max_bytes || !text.starts_with("{\"type\":\"agent.") {
        return None;
    }
    let mut r = crate::envelope::fast_chunk::Reader {
        text,
        at: 0,
        f: crate::json::fingerprint::Fingerprinter::new(),
    };
    r.lit(b"{\"type\":\"")?;
    r.feed("type");
    let kind = r.plain()?;
    crate::envelope::schema::fields(kind)?;
    r.lit(b",\"session_id\":\"")?;
    r.feed("session_id");
    let session_id = r.plain()?;
    let (execution_id, timestamp) = r.execution_and_timestamp()?;
    r.lit(b",\"payload\":")?;
    r.feed("payload");
    // A step's start or completion in the producer's own layout: read
    // straight into its event, the fingerprint fed as it goes. Declined, the
    // payload is read as any other.
    let header = (r.at, r.f.clone());
    if let Some(event) = typed::read(&mut r, kind) {
        return Some(FastLine {
            line: text,
            kind,
            session_id,
            execution_id,
            timestamp,
            body: LineBody::Event(Box::new(event)),
            warnings: Vec::new(),
            // What `detect` reads of these payloads (src/envelope/dialect.rs).
            dialect: WireDialect::Instructor,
            fingerprint: r.f.finish(),
            build: (),
        });
    }
    (r.at, r.f) = header;
    // The payload is the rest of the line but its closing brace: an object
    // (as the decoder takes it), nested one level less deep than the
    // envelope's limit allows the whole line, with no line break (the log
    // would keep the line written again).
    let body = text.get(r.at..text.len().checked_sub(1)?)?;
    if !body.starts_with('{') || !body.ends_with('}') || !text.ends_with('}') {
        return None;
    }
    let parsed = crate::json::from_str_nested(body, ENVELOPE_LIMITS.max_depth - 1).ok()?;
    let Value::Object(payload) = parsed.value else {
        return None;
    };
    if parsed.line_breaks {
        return None;
    }
    let mut warnings = Vec::new();
    let (payload, dialect) =
        decode_payload_of(kind, false, payload, "/payload", &mut warnings).ok()?;
    let Value::Object(payload) = payload else {
        return None;
    };
    // `Fingerprinter::value` of the payload object.
    r.f.bytes(b'{', &payload.len().to_le_bytes());
    for (k, v) in &payload {
        r.f.str(k);
        r.f.member(v);
    }
    Some(FastLine {
        line: text,
        kind,
        session_id,
        execution_id,
        timestamp,
        body: LineBody::Payload(payload),
        warnings,
        dialect,
        fingerprint: r.f.finish(),
        build: (),
    })
}

impl FastLine<'_> {
    /// What a line read here holds besides its fields (see [`Build`]).
    pub(crate) fn build(&self) -> Build {
        self.build
    }

    /// What the line becomes an event from, moved out.
    pub(crate) fn take_body(&mut self) -> TakenBody {
        let body = std::mem::replace(&mut self.body, LineBody::Payload(Map::new()));
        match body {
            LineBody::Payload(p) => TakenBody::Payload(p),
            #[cfg(feature = "full")]
            LineBody::Event(event) => TakenBody::Event(TypedEvent {
                event,
                build: self.build,
            }),
        }
    }
}

/// What a line read here becomes an event from, moved out of it.
pub(crate) enum TakenBody {
    Payload(Map),
    #[cfg(feature = "full")]
    Event(TypedEvent),
}

/// An event read straight from its line.
#[cfg(feature = "full")]
pub(crate) struct TypedEvent {
    pub event: Box<Event>,
    #[expect(dead_code, reason = "held for its type")]
    build: Build,
}

/// A tool event's name, of an event read here.
#[cfg(feature = "full")]
pub(crate) fn tool_name(event: &Event) -> Option<&str> {
    match &event.body {
        crate::event::Body::Tool(t) => Some(&t.name),
        _ => None,
    }
}

/// The step and tool events read straight into their event: the
/// producer's own payloads of `agent.step.started`, `agent.step.completed`,
/// `agent.tool.started` and `agent.tool.completed`,
///
/// ```text
/// {"step_number":N,"message_count":N,"available_tools":N}
/// {"step_number":N,"has_tool_calls":B,"errors":N,"finish_reason":"…",
///  "usage":{"input":N,"output":N,"cacheWrite":N,"cacheRead":N,"reasoning":N},"duration_ms":D}
/// {"tool_name":"…","tool_call_id":S,"args":{…}}  or  …,"args_summary":S}
/// {"tool_name":"…","tool_call_id":S,"success":B,"error":S,"duration_ms":D[,"result_summary":S]}
/// ```
///
/// (counts of 1 to 15 digits, strings with any JSON escape, `S` a string
/// or null, `duration_ms` any number and `args` any value, both read by the
/// core parser). The decoder gives such a payload back as it came (its
/// fields in the schema's order, of their kinds, `usage` in its normal
/// form without a `total`), with no warning and the dialect `instructor`
/// (not a failed attempt: `finish_reason` is not null), so its words are
/// fed to the fingerprint as `dedup_key` feeds them, and the event is what
/// `to_event` makes of it (src/envelope/event.rs). The session's unit test
/// and tests/fast_lines.rs hold both to the decoded envelope's.
#[cfg(feature = "full")]
mod typed {
    use crate::envelope::fast_chunk::Reader;
    use crate::event::{
        Body, Event, ReportedUsage, StepCompleted, StepStarted, ToolEvent, ToolKind,
    };
    use crate::json::Value;
    use crate::model::usage::Usage;

    /// The event of a step line's payload, from the reader at its `{`.
    pub(super) fn read(r: &mut Reader<'_>, kind: &str) -> Option<Event> {
        let (step, body) = match kind {
            "agent.step.started" => started(r).map(|(n, b)| (Some(n), b))?,
            "agent.step.completed" => completed(r).map(|(n, b)| (Some(n), b))?,
            "agent.tool.started" => (None, tool_started(r)?),
            "agent.tool.completed" => (None, tool_completed(r)?),
            _ => return None,
        };
        r.lit(b"}")?;
        (r.at == r.text.len()).then_some(Event {
            step,
            timestamp: None,
            annotations: Vec::new(),
            body,
        })
    }

    /// `"name":` after `{` or `,`, its name fed.
    fn member(r: &mut Reader<'_>, lead: &[u8], name: &str) -> Option<()> {
        r.lit(lead)?;
        r.lit(b"\"")?;
        r.lit(name.as_bytes())?;
        r.lit(b"\":")?;
        r.feed(name);
        Some(())
    }

    /// A count (1 to 15 digits), fed as `Fingerprinter::value` feeds an
    /// integer.
    fn count(r: &mut Reader<'_>) -> Option<i64> {
        let n = r.index()?;
        r.tagged(b'i', &n.to_le_bytes());
        Some(n)
    }

    fn object(r: &mut Reader<'_>, members: usize) {
        r.tagged(b'{', &members.to_le_bytes());
    }

    /// A string (with any escape) or null, not yet fed.
    fn string_or_null(r: &mut Reader<'_>) -> Option<Option<String>> {
        if r.lit(b"null").is_some() {
            return Some(None);
        }
        r.lit(b"\"")?;
        r.string().map(Some)
    }

    /// Feeds a member's name and its string or null value, as `dedup_key`'s
    /// walk feeds them.
    fn feed(r: &mut Reader<'_>, name: &str, v: Option<&str>) {
        r.feed(name);
        match v {
            Some(s) => r.feed(s),
            None => r.tagged(b'n', &[]),
        }
    }

    /// A number as the core parser reads it (an integer, a float, `-0`: the
    /// wasm's reader is the host's), not yet fed.
    fn number(r: &mut Reader<'_>) -> Option<Value> {
        let len = r
            .rest()
            .iter()
            .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let v = crate::json::from_str(r.text.get(r.at..r.at + len)?).ok()?;
        r.at += len;
        v.is_number().then_some(v)
    }

    /// `"name":` after `lead`, not fed.
    fn key(r: &mut Reader<'_>, lead: &[u8], name: &str) -> Option<()> {
        r.lit(lead)?;
        r.lit(b"\"")?;
        r.lit(name.as_bytes())?;
        r.lit(b"\":")
    }

    fn tool_started(r: &mut Reader<'_>) -> Option<Body> {
        key(r, b"{", "tool_name")?;
        r.lit(b"\"")?;
        let name = r.string()?;
        key(r, b",", "tool_call_id")?;
        let call_id = string_or_null(r)?;
        let mut e = ToolEvent::new(ToolKind::Started, "");
        r.lit(b",\"")?;
        if r.lit(b"args_summary\":").is_some() {
            let summary = string_or_null(r)?;
            object(r, 3);
            feed(r, "tool_name", Some(&name));
            feed(r, "tool_call_id", call_id.as_deref());
            feed(r, "args_summary", summary.as_deref());
            e.args_summary = summary;
        } else {
            r.lit(b"args\":")?;
            // The arguments are the rest of the payload but its closing
            // brace: any value, two levels under the envelope.
            let end = r.text.len().checked_sub(2)?;
            let text = r.text.get(r.at..end)?;
            let depth = crate::envelope::decode::ENVELOPE_LIMITS.max_depth - 2;
            let parsed = crate::json::from_str_nested(text, depth).ok()?;
            if parsed.line_breaks || text.ends_with(|c: char| c.is_ascii_whitespace()) {
                return None;
            }
            r.at = end;
            object(r, 3);
            feed(r, "tool_name", Some(&name));
            feed(r, "tool_call_id", call_id.as_deref());
            r.feed("args");
            r.f.member(&parsed.value);
            e.args = Some(parsed.value).filter(|v| !v.is_null());
        }
        r.lit(b"}")?;
        e.name = name;
        e.call_id = call_id;
        Some(Body::Tool(Box::new(e)))
    }

    fn tool_completed(r: &mut Reader<'_>) -> Option<Body> {
        key(r, b"{", "tool_name")?;
        r.lit(b"\"")?;
        let name = r.string()?;
        key(r, b",", "tool_call_id")?;
        let call_id = string_or_null(r)?;
        key(r, b",", "success")?;
        let success = if r.lit(b"true").is_some() {
            true
        } else {
            r.lit(b"false")?;
            false
        };
        key(r, b",", "error")?;
        let error = string_or_null(r)?;
        key(r, b",", "duration_ms")?;
        let duration = number(r)?;
        let summary = match r.lit(b"}") {
            Some(()) => None,
            None => {
                key(r, b",", "result_summary")?;
                let s = string_or_null(r)?;
                r.lit(b"}")?;
                Some(s)
            }
        };
        object(r, if summary.is_some() { 6 } else { 5 });
        feed(r, "tool_name", Some(&name));
        feed(r, "tool_call_id", call_id.as_deref());
        r.feed("success");
        r.tagged(b'b', &[u8::from(success)]);
        feed(r, "error", error.as_deref());
        r.feed("duration_ms");
        r.f.member(&duration);
        if let Some(s) = &summary {
            feed(r, "result_summary", s.as_deref());
        }
        let mut e = ToolEvent::new(ToolKind::Completed, "");
        e.name = name;
        e.call_id = call_id;
        e.error = error;
        e.success = Some(success);
        e.duration_ms = Some(duration);
        e.result_summary = summary.flatten();
        Some(Body::Tool(Box::new(e)))
    }

    fn started(r: &mut Reader<'_>) -> Option<(i64, Body)> {
        object(r, 3);
        member(r, b"{", "step_number")?;
        let step = count(r)?;
        member(r, b",", "message_count")?;
        let message_count = count(r)?;
        member(r, b",", "available_tools")?;
        let available_tools = count(r)?;
        r.lit(b"}")?;
        Some((
            step,
            Body::StepStarted(StepStarted {
                step_id: None,
                message_count: Some(message_count),
                available_tools: Some(available_tools),
            }),
        ))
    }

    fn completed(r: &mut Reader<'_>) -> Option<(i64, Body)> {
        object(r, 6);
        member(r, b"{", "step_number")?;
        let step = count(r)?;
        member(r, b",", "has_tool_calls")?;
        let has_tool_calls = if r.lit(b"true").is_some() {
            true
        } else {
            r.lit(b"false")?;
            false
        };
        r.tagged(b'b', &[u8::from(has_tool_calls)]);
        member(r, b",", "errors")?;
        let errors = count(r)?;
        member(r, b",", "finish_reason")?;
        r.lit(b"\"")?;
        let finish_reason = r.content()?;
        member(r, b",", "usage")?;
        object(r, 5);
        member(r, b"{", "input")?;
        let input = count(r)?;
        member(r, b",", "output")?;
        let output = count(r)?;
        member(r, b",", "cacheWrite")?;
        let cache_write = count(r)?;
        member(r, b",", "cacheRead")?;
        let cache_read = count(r)?;
        member(r, b",", "reasoning")?;
        let reasoning = count(r)?;
        r.lit(b"}")?;
        member(r, b",", "duration_ms")?;
        let duration = number(r)?;
        r.f.member(&duration);
        r.lit(b"}")?;
        Some((
            step,
            Body::StepCompleted(Box::new(StepCompleted {
                llm: false,
                attempt_failed: false,
                step_id: None,
                has_tool_calls: Some(has_tool_calls),
                errors: Some(errors),
                finish_reason: Some(finish_reason),
                usage: Some(ReportedUsage {
                    usage: Usage {
                        input,
                        output,
                        cache_write,
                        cache_read,
                        reasoning,
                    },
                    reported_total: None,
                }),
                duration_ms: Some(duration),
                continuation: None,
                step_object: None,
            })),
        ))
    }
}

#[cfg(all(test, feature = "full"))]
mod tests {
    use super::read;

    #[test]
    fn a_known_type_in_the_producers_layout_is_read_and_anything_else_declined() {
        let line = r#"{"type":"agent.step.completed","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00.250Z","payload":{"step_number":1,"has_tool_calls":true,"errors":0,"finish_reason":"tool_calls","usage":{"input":120,"output":30,"cacheWrite":0,"cacheRead":0,"reasoning":0},"duration_ms":0.0}}"#;
        let l = read(line).expect("read");
        assert_eq!(
            (l.kind, l.session_id, l.execution_id),
            ("agent.step.completed", "s", "e")
        );
        assert!(l.warnings.is_empty());
        for other in [
            line.replace("\"s\"", " \"s\""),
            line.replace("agent.step.completed", "agent.step.done"),
            line.replace("\"e\"", "null"),
            line.replace("2026-01-20T12", "yesterday"),
            line.replace("\"step_number\":1", "\"step_number\":1.5"),
            line.replace("}}", "}\n}"),
            line.replace("0.0}}", "0.0}}}"),
            format!("{line} "),
        ] {
            assert_eq!(read(&other), None, "{other}");
        }
    }
}
