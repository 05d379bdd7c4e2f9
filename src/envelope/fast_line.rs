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
    /// The payload as the decoder normalises it.
    pub payload: Map,
    /// What the decoder kept unread (unknown payload fields).
    pub warnings: Vec<Warning>,
    /// The dialect the decoder reads of the payload.
    pub dialect: WireDialect,
    /// What `dedup_key` gives the decoded envelope, for a type it keys.
    pub fingerprint: Fingerprint,
    /// Nothing, where lines are read.
    build: Build,
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
    if text.len() > ENVELOPE_LIMITS.max_bytes {
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
    r.lit(b",\"execution_id\":\"")?;
    r.feed("execution_id");
    let execution_id = r.plain()?;
    r.lit(b",\"timestamp\":\"")?;
    r.feed("timestamp");
    let timestamp = r.plain()?;
    if !crate::model::time::is_rfc3339(timestamp) {
        return None;
    }
    r.lit(b",\"payload\":")?;
    r.feed("payload");
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
        payload,
        warnings,
        dialect,
        fingerprint: r.f.finish(),
        build: (),
    })
}

impl FastLine<'_> {
    /// The decoded payload, moved out (what `apply` makes the event of).
    pub(crate) fn take_payload(&mut self) -> Map {
        std::mem::take(&mut self.payload)
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
