//! A stream chunk's redelivery key from its parts, so the stream text need
//! not keep it.
//!
//! Nearly every envelope of a long run is a stream chunk in the producer's
//! one layout,
//!
//! ```text
//! {"type":"agent.stream.chunk","session_id":S,"execution_id":E,"timestamp":T,
//!  "payload":{"content":C,"is_complete":false,"chunk_index":I}}
//! ```
//!
//! whose timestamp is the form [`written_bytes`] writes (milliseconds and
//! `Z`). Its key (`seen_key` of `dedup_key` in src/session/mod.rs: the
//! fingerprint of exactly those members) follows from what the stream text
//! holds anyway (the content, the index) and from the ids and the instant,
//! which take a byte a chunk where the key took eight (bench/findings.md,
//! "Issue 27: a chunk's key from its parts"). [`canonical`] says whether an
//! envelope has that layout; [`chunk_key`] gives the key back.

use crate::json::fingerprint::Fingerprinter;
use crate::json::{Map, Value};
#[cfg(test)]
use crate::session::attribution::instant;
use crate::session::attribution::written_bytes;
use crate::session::dedup::{seen_key, SeenKey};

/// The type of the chunks whose key is made here.
const KIND: &str = "agent.stream.chunk";

/// The ids a stream's chunks carry (the session's and the turn's).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ChunkIds {
    pub session_id: Box<str>,
    pub execution_id: Box<str>,
}

/// The key of the envelope in the layout above with these parts (its
/// first occurrence: `occurrence(f, 1)` is `f`).
pub(crate) fn chunk_key(ids: &ChunkIds, at: i64, content: &str, index: i64) -> SeenKey {
    let mut f = Fingerprinter::new();
    f.str("type");
    f.str(KIND);
    f.str("session_id");
    f.str(&ids.session_id);
    f.str("execution_id");
    f.str(&ids.execution_id);
    f.str("timestamp");
    let ts = written_bytes(at);
    f.str(std::str::from_utf8(ts.as_slice()).unwrap_or_default());
    f.str("payload");
    // An object of three members, as `Fingerprinter::value` feeds one.
    f.bytes(b'{', &3usize.to_le_bytes());
    f.str("content");
    f.str(content);
    f.str("is_complete");
    f.bytes(b'b', &[0]);
    f.str("chunk_index");
    f.bytes(b'i', &index.to_le_bytes());
    seen_key(f.finish())
}

/// `at`, the instant of `ts` (as `instant` reads it), when
/// [`written_bytes`] gives `ts` back exactly: the producer's form
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` with every field in its range. Told by the
/// shape and the ranges: writing the instant back to compare cost about
/// 650 instructions a chunk (bench/findings.md).
pub(crate) fn written_instant(ts: &str, at: Option<i64>) -> Option<i64> {
    const FORM: &[u8; 24] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    let b = ts.as_bytes();
    let formed = b.len() == FORM.len()
        && b.iter().zip(FORM).all(|(&c, &f)| match f {
            b'd' => c.is_ascii_digit(),
            _ => c == f,
        });
    if !formed {
        return None;
    }
    // The number in bytes `from..to` (digits, checked above).
    let num = |from: usize, to: usize| {
        b.get(from..to)
            .unwrap_or_default()
            .iter()
            .fold(0u32, |n, &c| n * 10 + u32::from(c - b'0'))
    };
    let year = num(0, 4);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match num(5, 7) {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    let in_range = (1..=days).contains(&num(8, 10))
        && num(11, 13) < 24
        && num(14, 16) < 60
        && num(17, 19) < 60;
    in_range.then_some(at).flatten()
}

/// The instant of a decoded envelope's timestamp when the envelope is a
/// chunk in the layout above (string ids, content a string, not complete,
/// an integer index, no other member, in that order), so that its key is
/// [`chunk_key`] of its parts.
pub(crate) fn canonical(env: &Map, at: Option<i64>) -> Option<i64> {
    let mut members = env.iter();
    let mut next = |name: &str| {
        let (k, v) = members.next()?;
        let k: &str = k;
        (k == name).then_some(v)
    };
    if next("type")?.as_str()? != KIND {
        return None;
    }
    next("session_id")?.as_str()?;
    next("execution_id")?.as_str()?;
    let at = written_instant(next("timestamp")?.as_str()?, at)?;
    let Value::Object(payload) = next("payload")? else {
        return None;
    };
    if members.next().is_some() {
        return None;
    }
    let mut fields = payload.iter();
    let mut field = |name: &str| {
        let (k, v) = fields.next()?;
        let k: &str = k;
        (k == name).then_some(v)
    };
    field("content")?.as_str()?;
    if field("is_complete")?.as_bool()? {
        return None;
    }
    field("chunk_index")?.as_i64()?;
    fields.next().is_none().then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key made from the parts is the one the session takes of the
    /// decoded envelope, for every variant the layout allows; and a
    /// departure from the layout is not taken for it.
    #[test]
    fn a_chunks_key_from_its_parts_is_the_decoded_envelopes() {
        let contents = ["", "a", "zażółć 天气 🌤️ ", "\"quoted\"\n\\", "{not a frame"];
        let times = [
            "2026-01-20T12:00:00.000Z",
            "2026-01-20T12:00:13.383Z",
            "1999-12-31T23:59:59.999Z",
            "2024-02-29T00:00:00.001Z",
        ];
        for (n, (content, ts)) in contents.iter().zip(times.iter().cycle()).enumerate() {
            for index in [0i64, 7, 123_456_789_012] {
                let env = crate::json!({
                    "type": "agent.stream.chunk",
                    "session_id": "sess-1",
                    "execution_id": format!("exec-{n}"),
                    "timestamp": ts,
                    "payload": {"content": content, "is_complete": false, "chunk_index": index}
                });
                let decoded = crate::envelope::decode::decode_value(&env).expect("decodes");
                let Value::Object(map) = &decoded.envelope else {
                    panic!("an object")
                };
                let ts = map
                    .get("timestamp")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let at = canonical(map, instant(ts)).expect("canonical");
                let ids = ChunkIds {
                    session_id: "sess-1".into(),
                    execution_id: format!("exec-{n}").into(),
                };
                let expected = crate::session::dedup_key(map, KIND).map(seen_key);
                assert_eq!(Some(chunk_key(&ids, at, content, index)), expected, "{env}");
            }
        }
        let base = crate::json!({
            "type": "agent.stream.chunk", "session_id": "s", "execution_id": "e",
            "timestamp": "2026-01-20T12:00:00.000Z",
            "payload": {"content": "x", "is_complete": false, "chunk_index": 1}
        });
        let mut departures = Vec::new();
        let mut with = |f: &dyn Fn(&mut Map)| {
            let mut v = base.clone();
            if let Value::Object(m) = &mut v {
                f(m);
            }
            departures.push(v);
        };
        with(&|m| {
            m.insert("extra", Value::from(1));
        });
        with(&|m| {
            m.insert("timestamp", Value::from("2026-01-20T12:00:00Z"));
        });
        with(&|m| {
            m.insert("timestamp", Value::from("2026-01-20T12:00:00.000+00:00"));
        });
        with(&|m| {
            m.insert("execution_id", Value::Null);
        });
        for ts in [
            "2026-01-20T12:00:13.383123Z",
            "2026-01-20T12:00:13.383000Z",
            "2026-01-20t12:00:13.383Z",
            "2026-01-20T12:00:13.383z",
            "2026-02-29T12:00:13.383Z",
            "2026-04-31T12:00:13.383Z",
            "2026-13-01T12:00:13.383Z",
            "2026-01-20T24:00:00.000Z",
            "2026-01-20T23:60:00.000Z",
            "2026-01-20T23:59:60.000Z",
        ] {
            with(&|m| {
                m.insert("timestamp", Value::from(ts));
            });
        }
        with(&|m| {
            if let Some(Value::Object(p)) = m.get_mut("payload") {
                p.insert("is_complete", Value::from(true));
            }
        });
        with(&|m| {
            if let Some(Value::Object(p)) = m.get_mut("payload") {
                p.insert("extra", Value::from(1));
            }
        });
        for v in departures {
            let Value::Object(m) = &v else { unreachable!() };
            let ts = m
                .get("timestamp")
                .and_then(Value::as_str)
                .unwrap_or_default();
            assert_eq!(canonical(m, instant(ts)), None, "{v}");
        }
    }

    /// The form check takes exactly the timestamps the instant writes back:
    /// every day of two centuries and their edges, and a few times a day.
    #[test]
    fn a_timestamp_is_taken_exactly_when_its_instant_writes_it_back() {
        let mut at = instant("1899-12-30T00:00:00.000Z").expect("an instant");
        let end = instant("2101-01-03T00:00:00.000Z").expect("an instant");
        let day = 86_400_000_000i64;
        // Midnight, a millisecond past, a minute's last, the day's last.
        let times = [0, 1_000, 59_999_000, 86_399_999_000];
        while at < end {
            for t in times {
                let w = written_bytes(at + t);
                let ts = std::str::from_utf8(w.as_slice()).expect("ASCII");
                assert_eq!(written_instant(ts, instant(ts)), Some(at + t), "{ts}");
            }
            at += day;
        }
        // A day past its month's end reads as an instant of the next month.
        for ts in [
            "1900-02-29T00:00:00.000Z",
            "2100-02-29T00:00:00.000Z",
            "2023-02-29T00:00:00.000Z",
        ] {
            assert!(instant(ts).is_some());
            assert_eq!(written_instant(ts, instant(ts)), None, "{ts}");
        }
        for ts in ["2000-02-29T00:00:00.000Z", "2024-02-29T23:59:59.999Z"] {
            assert_eq!(written_instant(ts, instant(ts)), instant(ts), "{ts}");
        }
    }
}
