//! A foreign event read from its line, member by member, without a value
//! tree: what a translator's [`translate_line`](super::Translator::translate_line)
//! reads its producer's text deltas with. Most of a foreign stream is such
//! deltas, and parsing each into a tree, looking its members up and
//! dropping it was most of a bulk replay's time (bench/findings.md, "Issue
//! 27: foreign text deltas read from their lines").
//!
//! The reader takes one layout only: the members in the order given, no
//! whitespace, nothing after the closing brace, strings with any JSON escape
//! (a lone surrogate's declined, as the parser refuses it), counts of 1 to
//! 15 digits. Anything else declines the line, which is then parsed. As it
//! reads, it feeds the event's redelivery fingerprint (`fingerprint` in
//! src/dialects/mod.rs: each member's name, then its value as
//! `Fingerprinter::value` feeds it).

use std::borrow::Cow;

use crate::envelope::decode::ENVELOPE_LIMITS;
use crate::envelope::fast_chunk::Reader;
use crate::json::fingerprint::{Fingerprint, Fingerprinter};

/// A line being read, from its `{`.
pub(crate) struct Line<'t> {
    r: Reader<'t>,
    /// The fingerprint is fed (a dialect whose events carry ids needs none).
    fed: bool,
}

impl<'t> Line<'t> {
    /// A reader of `text`, if it is an object's line within the envelope
    /// limit the parser would apply; `fingerprinted`: the event's
    /// fingerprint is fed as it is read (else [`end`](Line::end) gives a
    /// fingerprint of nothing).
    pub(crate) fn new(text: &'t str, fingerprinted: bool) -> Option<Line<'t>> {
        (text.len() <= ENVELOPE_LIMITS.max_bytes && text.starts_with('{')).then(|| Line {
            r: Reader {
                text,
                at: 1,
                f: Fingerprinter::new(),
            },
            fed: fingerprinted,
        })
    }

    /// `"name":` (after a `,` unless it is the first member), its name fed.
    /// The name is compared byte by byte: a member's name is short, and a
    /// `memcmp` call cost more than the loop.
    pub(crate) fn key(&mut self, first: bool, name: &str) -> Option<()> {
        let rest = self.r.rest();
        let lead = usize::from(!first);
        let n = name.len();
        let same = |at: usize, bytes: &[u8]| {
            rest.get(at..at + bytes.len())
                .is_some_and(|r| r.iter().zip(bytes).all(|(a, b)| a == b))
        };
        let fits = (first || rest.first() == Some(&b','))
            && rest.get(lead) == Some(&b'"')
            && same(lead + 1, name.as_bytes())
            && same(lead + 1 + n, b"\":");
        if !fits {
            return None;
        }
        self.r.at += lead + n + 3;
        if self.fed {
            self.r.feed(name);
        }
        Some(())
    }

    /// A string value without escapes, borrowed from the line, fed.
    pub(crate) fn word(&mut self) -> Option<&'t str> {
        self.r.lit(b"\"")?;
        let s = self.r.unfed_plain()?;
        if self.fed {
            self.r.feed(s);
        }
        Some(s)
    }

    /// A string value with any escape, fed: borrowed from the line when it
    /// has none.
    pub(crate) fn text(&mut self) -> Option<Cow<'t, str>> {
        self.r.lit(b"\"")?;
        let s = match self.r.unfed_plain() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(self.r.string()?),
        };
        if self.fed {
            self.r.feed(&s);
        }
        Some(s)
    }

    /// A string value with any escape, fed.
    pub(crate) fn string(&mut self) -> Option<String> {
        self.r.lit(b"\"")?;
        let s = self.r.string()?;
        if self.fed {
            self.r.feed(&s);
        }
        Some(s)
    }

    /// A count (1 to 15 digits, no sign, fraction or exponent), fed as an
    /// integer is.
    pub(crate) fn count(&mut self) -> Option<i64> {
        let n = self.r.index()?;
        if self.fed {
            self.r.tagged(b'i', &n.to_le_bytes());
        }
        Some(n)
    }

    /// Whether the object closes here (no member follows).
    pub(crate) fn closes(&self) -> bool {
        self.r.rest().first() == Some(&b'}')
    }

    /// `null`, fed.
    pub(crate) fn null(&mut self) -> Option<()> {
        self.r.lit(b"null")?;
        if self.fed {
            self.r.tagged(b'n', &[]);
        }
        Some(())
    }

    /// The closing brace, the line's last byte: the event's fingerprint.
    pub(crate) fn end(mut self) -> Option<Fingerprint> {
        self.r.lit(b"}")?;
        (self.r.at == self.r.text.len()).then(|| self.r.f.finish())
    }
}

#[cfg(all(test, feature = "full"))]
mod tests {
    use super::Line;
    use crate::json::fingerprint::Fingerprinter;

    /// The fingerprint `fingerprint` in src/dialects/mod.rs takes of the
    /// parsed line.
    fn parsed_fingerprint(line: &str) -> crate::json::fingerprint::Fingerprint {
        let v = crate::json::from_str(line).expect("JSON");
        let mut f = Fingerprinter::new();
        for (k, v) in v.as_object().expect("object") {
            f.str(k);
            f.value(v);
        }
        f.finish()
    }

    fn read(line: &str) -> Option<(String, i64, crate::json::fingerprint::Fingerprint)> {
        let mut l = Line::new(line, true)?;
        l.key(true, "type")?;
        let kind = l.word()?;
        l.key(false, "delta")?;
        let delta = l.string()?;
        l.key(false, "at")?;
        let at = l.count()?;
        l.key(false, "more")?;
        l.null()?;
        Some((format!("{kind}:{delta}"), at, l.end()?))
    }

    #[test]
    fn a_line_in_the_layout_reads_with_the_parsed_events_fingerprint_and_others_decline() {
        for (line, text) in [
            (
                r#"{"type":"d","delta":"Grüezi","at":12,"more":null}"#,
                "d:Grüezi",
            ),
            (
                r#"{"type":"d","delta":"a\"b\\c\n\u00e9\ud83d\ude00","at":0,"more":null}"#,
                "d:a\"b\\c\n\u{e9}\u{1f600}",
            ),
            (
                r#"{"type":"d","delta":"","at":999999999999999,"more":null}"#,
                "d:",
            ),
        ] {
            let (got, _, fp) = read(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(got, text);
            assert_eq!(fp, parsed_fingerprint(line), "{line}");
        }
        for line in [
            r#"{"type":"d","delta":"x","at":1,"more":null} "#,
            r#" {"type":"d","delta":"x","at":1,"more":null}"#,
            r#"{"type": "d","delta":"x","at":1,"more":null}"#,
            r#"{"type":"d\n","delta":"x","at":1,"more":null}"#,
            r#"{"type":"d","delta":"\ud83d","at":1,"more":null}"#,
            r#"{"type":"d","delta":"x","at":1.5,"more":null}"#,
            r#"{"type":"d","delta":"x","at":-1,"more":null}"#,
            r#"{"type":"d","delta":"x","at":01,"more":null}"#,
            r#"{"type":"d","delta":"x","at":1e3,"more":null}"#,
            r#"{"type":"d","delta":"x","at":1234567890123456,"more":null}"#,
            r#"{"type":"d","delta":"x","at":1,"more":null,"extra":1}"#,
            r#"{"delta":"x","type":"d","at":1,"more":null}"#,
            r#"{"type":"d","delta":"x","at":1,"more":null}}"#,
            r#"{"type":"d","delta":"x","at":1}"#,
        ] {
            assert_eq!(read(line), None, "{line}");
        }
    }
}
