//! A stream chunk read straight from its line: the producer writes
//! `agent.stream.chunk` envelopes in one layout,
//!
//! ```text
//! {"type":"agent.stream.chunk","session_id":"…","execution_id":"…","timestamp":"…",
//!  "payload":{"content":"…","is_complete":false,"chunk_index":N}}
//! ```
//!
//! (one line, no whitespace), and they are most of a recording's lines
//! (78% of the short-envelope bench recording's). Such a line is read here
//! into what the session needs of it (its ids, timestamp and index, the
//! typed chunk, and the fingerprint `dedup_key` in src/session/mod.rs takes
//! of the decoded envelope), without the value tree, the decoder's pass
//! over it and the fingerprint's walk of it (bench/findings.md, "Issue 27:
//! stream chunks read straight into the typed event").
//!
//! The reader recognises a whole line or declines it: any other type, key
//! order, member, value type, escape it does not read, whitespace, or a
//! line past the envelope limit goes the generic way, which then decides
//! (and reports the errors). What it accepts is exactly what the decoder
//! would normalise to the same members without a warning: the decoded
//! envelope of such a line has the line's own members in the line's own
//! order, so the fingerprint is fed the same words while the line is read.
//!
//! Not in the live entry (`stepline/live`, built without the `full`
//! feature): its size budget (scripts/size-budget.json) has no room for the
//! reader, so there no chunk is read here (see [`Build`]).

// The live entry's build reads nothing here.
#![cfg_attr(not(feature = "full"), allow(dead_code))]

use crate::event::{Body, Chunk, Event};
use crate::json::fingerprint::{Fingerprint, Fingerprinter};

/// A stream chunk line as the session takes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FastChunk<'t> {
    /// The line itself (what a recording keeps).
    pub line: &'t str,
    pub session_id: &'t str,
    pub execution_id: &'t str,
    /// An RFC 3339 timestamp.
    pub timestamp: &'t str,
    pub content: String,
    pub is_complete: bool,
    /// `chunk_index`: from 0, at most 15 digits.
    pub index: i64,
    /// What `dedup_key` gives the decoded envelope.
    pub fingerprint: Fingerprint,
    /// Nothing, where chunks are read.
    build: Build,
}

/// What a chunk read here holds besides its fields: nothing in a build
/// with the `full` feature; in the live entry's a value that cannot exist,
/// so the session's branches for a chunk read here leave its wasm.
#[cfg(feature = "full")]
pub(crate) type Build = ();
#[cfg(not(feature = "full"))]
pub(crate) type Build = std::convert::Infallible;

/// The live entry reads no chunk here (see the module's comment).
#[cfg(not(feature = "full"))]
#[inline(always)]
pub(crate) fn read(_text: &str) -> Option<FastChunk<'_>> {
    None
}

/// The type of the envelopes read here.
pub(crate) const KIND: &str = "agent.stream.chunk";

/// Reads `text` as a stream chunk in the producer's layout, or `None` when
/// it is anything else (then nothing was decided about it).
#[cfg(feature = "full")]
pub(crate) fn read(text: &str) -> Option<FastChunk<'_>> {
    if text.len() > crate::envelope::decode::ENVELOPE_LIMITS.max_bytes {
        return None;
    }
    let mut r = Reader {
        text,
        at: 0,
        f: Fingerprinter::new(),
    };
    // Most lines of other types end here, on one comparison of 24 bytes
    // (a `memcmp` call per line showed on the foreign recordings).
    let head = text.as_bytes().get(..24)?;
    if head != b"{\"type\":\"agent.stream.ch" {
        return None;
    }
    r.lit(b"{\"type\":\"agent.stream.chunk\",\"session_id\":\"")?;
    r.feed("type");
    r.feed(KIND);
    r.feed("session_id");
    let session_id = r.plain()?;
    let (execution_id, timestamp) = r.execution_and_timestamp()?;
    r.lit(b",\"payload\":{\"content\":\"")?;
    r.feed("payload");
    // The payload as an object of three members (`Fingerprinter::value`).
    r.tagged(b'{', &3usize.to_le_bytes());
    r.feed("content");
    let content = r.content()?;
    // Content shaped as a provider frame is decided by the decoder
    // (src/envelope/frames.rs).
    if content.starts_with('{') && content.ends_with('}') {
        return None;
    }
    r.lit(b",\"is_complete\":")?;
    r.feed("is_complete");
    let is_complete = if r.lit(b"true").is_some() {
        true
    } else {
        r.lit(b"false")?;
        false
    };
    r.tagged(b'b', &[u8::from(is_complete)]);
    r.lit(b",\"chunk_index\":")?;
    r.feed("chunk_index");
    let index = r.index()?;
    r.tagged(b'i', &index.to_le_bytes());
    r.lit(b"}}")?;
    if r.at != text.len() {
        return None;
    }
    Some(FastChunk {
        line: text,
        session_id,
        execution_id,
        timestamp,
        content,
        is_complete,
        index,
        fingerprint: r.f.finish(),
        build: (),
    })
}

impl FastChunk<'_> {
    /// The typed chunk, its content moved out.
    pub(crate) fn take_chunk(&mut self) -> TakenChunk {
        TakenChunk {
            chunk: Chunk {
                index: Some(self.index),
                content: std::mem::take(&mut self.content),
                provider_frame: false,
                is_complete: self.is_complete,
            },
            build: self.build,
        }
    }
}

/// The typed chunk of a line read here (as [`FastChunk`], it cannot exist
/// in the live entry's build).
pub(crate) struct TakenChunk {
    chunk: Chunk,
    // Held for its type only: uninhabited where nothing is read here.
    #[cfg_attr(feature = "full", expect(dead_code, reason = "held for its type"))]
    build: Build,
}

/// The event `to_event` makes of the decoded envelope of a chunk read here
/// (src/envelope/event.rs).
pub(crate) fn event(taken: TakenChunk) -> Event {
    Event {
        step: None,
        timestamp: None,
        annotations: Vec::new(),
        body: Body::StreamChunk(taken.chunk),
    }
}

/// A line read from its start, its strings fed to the fingerprint as
/// they are read (the line reader, src/envelope/fast_line.rs, reads its
/// header with it too).
pub(crate) struct Reader<'t> {
    pub(crate) text: &'t str,
    pub(crate) at: usize,
    pub(crate) f: Fingerprinter,
}

impl<'t> Reader<'t> {
    pub(crate) fn rest(&self) -> &'t [u8] {
        self.text.as_bytes().get(self.at..).unwrap_or_default()
    }

    /// Feeds a string to the fingerprint, as `Fingerprinter::str` does
    /// (inlined: a constant name's words fold into constants).
    pub(crate) fn feed(&mut self, s: &str) {
        self.f.str(s);
    }

    /// Feeds a tagged run of bytes, as `Fingerprinter::value` feeds a scalar.
    pub(crate) fn tagged(&mut self, tag: u8, bytes: &[u8]) {
        self.f.bytes(tag, bytes);
    }

    /// `,"execution_id":"…","timestamp":"…"`, the rest of the header
    /// after the session id in the producer's layout, both fed with their
    /// names; the timestamp must be RFC 3339. Inlined, as `feed` is.
    #[inline(always)]
    pub(crate) fn execution_and_timestamp(&mut self) -> Option<(&'t str, &'t str)> {
        self.lit(b",\"execution_id\":\"")?;
        self.feed("execution_id");
        let execution_id = self.plain()?;
        self.lit(b",\"timestamp\":\"")?;
        self.feed("timestamp");
        let timestamp = self.plain()?;
        crate::model::time::is_rfc3339(timestamp).then_some((execution_id, timestamp))
    }

    /// Steps over `s`, if the text goes on with it.
    pub(crate) fn lit(&mut self, s: &[u8]) -> Option<()> {
        self.rest().starts_with(s).then(|| self.at += s.len())
    }

    /// A string without escapes up to its closing quote (the opening one
    /// read), fed to the fingerprint.
    pub(crate) fn plain(&mut self) -> Option<&'t str> {
        let s = self.unfed_plain()?;
        self.feed(s);
        Some(s)
    }

    /// [`plain`](Reader::plain) without feeding it.
    pub(crate) fn unfed_plain(&mut self) -> Option<&'t str> {
        let rest = self.rest();
        let end = first_special(rest)?;
        if rest.get(end) != Some(&b'"') {
            return None;
        }
        // Cut at ASCII quotes: both ends are character boundaries.
        let s = self.text.get(self.at..self.at + end)?;
        self.at += end + 1;
        Some(s)
    }

    /// A string with the escapes JSON has, up to its closing quote, fed
    /// to the fingerprint. A lone surrogate's escape is declined (the
    /// parser refuses it).
    pub(crate) fn content(&mut self) -> Option<String> {
        let out = self.string()?;
        self.feed(&out);
        Some(out)
    }

    /// [`content`](Reader::content) without feeding it.
    pub(crate) fn string(&mut self) -> Option<String> {
        // Most strings have no escape: copied once, at their length.
        let rest = self.rest();
        let end = first_special(rest)?;
        if rest.get(end) == Some(&b'"') {
            let s = self.text.get(self.at..self.at + end)?.to_owned();
            self.at += end + 1;
            return Some(s);
        }
        let bytes = self.text.as_bytes();
        let mut out = String::new();
        let mut from = self.at;
        let mut i = self.at;
        loop {
            i += first_special(bytes.get(i..)?)?;
            match *bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    out.push_str(self.text.get(from..i)?);
                    let e = *bytes.get(i + 1)?;
                    i += 2;
                    let c = match e {
                        b'u' => {
                            let hi = hex4(bytes.get(i..i + 4)?)?;
                            i += 4;
                            let code = match hi {
                                0xd800..=0xdbff => {
                                    if bytes.get(i..i + 2)? != b"\\u" {
                                        return None;
                                    }
                                    let lo = hex4(bytes.get(i + 2..i + 6)?)?;
                                    if !(0xdc00..=0xdfff).contains(&lo) {
                                        return None;
                                    }
                                    i += 6;
                                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                                }
                                0xdc00..=0xdfff => return None,
                                _ => hi,
                            };
                            char::from_u32(code)?
                        }
                        _ => crate::json::short_escape(e)?,
                    };
                    out.push(c);
                    from = i;
                }
                _ => return None,
            }
        }
        out.push_str(self.text.get(from..i)?);
        self.at = i + 1;
        Some(out)
    }

    /// A non-negative integer of at most 15 digits (exact in any reader of
    /// numbers), without a leading zero; anything else declines.
    pub(crate) fn index(&mut self) -> Option<i64> {
        let rest = self.rest();
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 15 || (digits > 1 && rest.first() == Some(&b'0')) {
            return None;
        }
        let n = rest
            .get(..digits)?
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        self.at += digits;
        Some(n)
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether a byte of `w` is a quote, a backslash or a control character
/// (a zero byte of `w ^ quotes`, of `w ^ backslashes`, or a byte below
/// 0x20: exact, whatever the other bytes).
fn special(w: u64) -> bool {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\'))) | control != 0
}

/// Where the first quote, backslash or control character of `bytes` is:
/// eight bytes a step to the word that holds it (a byte a step was most
/// of the reader's time), then byte by byte.
fn first_special(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let w = <[u8; 8]>::try_from(word).map_or(0, u64::from_le_bytes);
        if special(w) {
            break;
        }
        i += 8;
    }
    let at = bytes
        .get(i..)?
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(i + at)
}

/// Four hex digits.
fn hex4(h: &[u8]) -> Option<u32> {
    h.iter().try_fold(0u32, |n, &d| {
        let v = (d as char).to_digit(16)?;
        Some(n << 4 | v)
    })
}

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn the_word_scan_finds_the_first_quote_backslash_or_control_byte() {
        let plain = [
            b'a', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff,
        ];
        for len in 0..40usize {
            for special in [
                None,
                Some(b'"'),
                Some(b'\\'),
                Some(0),
                Some(0x1f),
                Some(b'\n'),
            ] {
                for at in 0..len.max(1) {
                    let mut bytes: Vec<u8> = (0..len)
                        .map(|i| plain[(i * 7 + at) % plain.len()])
                        .collect();
                    if let (Some(b), Some(slot)) = (special, bytes.get_mut(at)) {
                        *slot = b;
                    }
                    let naive = bytes
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20);
                    assert_eq!(super::first_special(&bytes), naive, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn a_chunk_in_the_producers_layout_is_read_and_anything_else_declined() {
        let line = r#"{"type":"agent.stream.chunk","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00.250Z","payload":{"content":"a\"\\\n\u00e9\ud83c\udf24b","is_complete":true,"chunk_index":12}}"#;
        let c = read(line).expect("read");
        assert_eq!(c.content, "a\"\\\né\u{1f324}b");
        assert!(c.is_complete);
        assert_eq!((c.session_id, c.execution_id, c.index), ("s", "e", 12));
        for other in [
            line.replace("\"s\"", " \"s\""),
            line.replace("12}}", "-1}}"),
            line.replace("12}}", "012}}"),
            line.replace("12}}", "1.5}}"),
            line.replace("\\ud83c\\udf24", "\\ud83c"),
            line.replace("\"e\"", "null"),
            line.replace("2026-01-20T12", "yesterday"),
            format!("{line} "),
        ] {
            assert_eq!(read(&other), None, "{other}");
        }
    }
}
