//! Compact JSON text, byte for byte as `serde_json` and `JSON.stringify` write it:
//! no spaces, only `"`, `\` and control characters escaped.

use super::parse::look_mask;
use super::value::{Map, Number, Value};

/// What has a JSON text: values, objects, numbers and strings.
pub trait WriteJson {
    /// Appends the compact JSON text to `out`.
    fn write_json(&self, out: &mut String);
}

impl WriteJson for Value {
    fn write_json(&self, out: &mut String) {
        write_value(out, self);
    }
}

impl WriteJson for Map {
    fn write_json(&self, out: &mut String) {
        write_object(out, self);
    }
}

impl WriteJson for Number {
    fn write_json(&self, out: &mut String) {
        self.write(out);
    }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

/// Compact JSON text.
///
/// ```
/// let v = stepline::json!({"a": [1, 1.5, null], "b": "x\ny"});
/// assert_eq!(stepline::json::to_string(&v), r#"{"a":[1,1.5,null],"b":"x\ny"}"#);
/// assert_eq!(stepline::json::to_string("é\u{1}"), r#""é\u0001""#);
/// ```
pub fn to_string<T: WriteJson + ?Sized>(v: &T) -> String {
    let mut out = String::new();
    v.write_json(&mut out);
    out
}

/// Appends `v`'s compact JSON text to `out`.
pub fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => n.write(out),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(m) => write_object(out, m),
    }
}

fn write_object(out: &mut String, m: &Map) {
    out.push('{');
    for (i, (k, item)) in m.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, k);
        out.push(':');
        write_value(out, item);
    }
    out.push('}');
}

/// Appends `s` as a JSON string literal.
pub fn write_str(out: &mut String, s: &str) {
    write_str_with(out, s, false);
}

/// Appends `s` as a JSON string literal in ASCII: every character past
/// U+007F is written as `\uXXXX` (two for one outside the BMP), as PHP's
/// `json_encode` does by default. For text `JSON.parse` reads at once: V8
/// decodes ASCII bytes several times faster than UTF-8 with any other
/// character in it, and builds one-byte strings from it (bench/findings.md).
///
/// ```
/// let mut out = String::new();
/// stepline::json::write_str_ascii(&mut out, "é😀\n");
/// assert_eq!(out, r#""\u00e9\ud83d\ude00\n""#);
/// ```
pub fn write_str_ascii(out: &mut String, s: &str) {
    write_str_with(out, s, true);
}

fn write_str_with(out: &mut String, s: &str, ascii: bool) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Bytes past ASCII are looked at too when they are to be escaped.
    let also = if ascii { HIGH } else { 0 };
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        // Eight bytes at a time while none of them needs escaping: most text
        // needs none, and a view's text is most of what it writes.
        while let Some(Ok(word)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
            let word = u64::from_le_bytes(word);
            let mask = look_mask(word) | (word & also);
            if mask != 0 {
                i += (mask.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        if bytes.len() - i < 8 {
            // The last 1 to 7 bytes as one word too: most strings of a view
            // are shorter than 16 bytes (keys, ids, timestamps), and their
            // tail taken a byte at a time was most of the writer's time.
            match first_to_escape(bytes, i, also) {
                Some(at) => i = at,
                None => break,
            }
        }
        let Some(&b) = bytes.get(i) else { break };
        if b >= 0x80 {
            if ascii {
                out.push_str(s.get(start..i).unwrap_or_default());
                let c = s
                    .get(i..)
                    .and_then(|r| r.chars().next())
                    .unwrap_or('\u{fffd}');
                for unit in c.encode_utf16(&mut [0; 2]) {
                    out.push_str("\\u");
                    for shift in [12, 8, 4, 0] {
                        let d = u32::from((*unit >> shift) & 0xf);
                        out.push(char::from_digit(d, 16).unwrap_or('0'));
                    }
                }
                i += c.len_utf8();
                start = i;
            } else {
                i += 1;
            }
            continue;
        }
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            // A control character: two lowercase hex digits, as serde_json writes them.
            let hex = |d: u8| char::from_digit(u32::from(d), 16).unwrap_or('0');
            out.push_str("\\u00");
            out.push(hex(b >> 4));
            out.push(hex(b & 0xf));
        } else {
            out.push_str(escape);
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Where the first byte at or after `i` that may need escaping is in the
/// last 1 to 7 bytes of `bytes` (`i` is within eight of its end), or `None`
/// when none does (nor when nothing is left). Read as one word: the last
/// eight bytes of the string, or the rest zero-padded when it is shorter,
/// shifted so that only the bytes from `i` count (padding above them is
/// masked off; `look_mask`'s borrows run upwards, so it cannot mark a byte
/// below the padding).
#[inline]
fn first_to_escape(bytes: &[u8], i: usize, also: u64) -> Option<usize> {
    let left = bytes.len().checked_sub(i).filter(|&n| n > 0 && n < 8)?;
    let word = match bytes
        .len()
        .checked_sub(8)
        .and_then(|from| bytes.get(from..))
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
    {
        Some(last8) => u64::from_le_bytes(last8) >> ((8 - left) * 8),
        None => {
            let mut padded = [0u8; 8];
            if let (Some(to), Some(from)) = (padded.get_mut(..left), bytes.get(i..)) {
                to.copy_from_slice(from);
            }
            u64::from_le_bytes(padded)
        }
    };
    let mask = (look_mask(word) | (word & also)) & ((1u64 << (left * 8)) - 1);
    (mask != 0).then(|| i + (mask.trailing_zeros() / 8) as usize)
}

#[cfg(test)]
mod tests {
    use super::{write_str, write_str_ascii};

    /// The byte-at-a-time writer the eight-byte scan must agree with.
    fn reference(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// Strings of `fill` repeated with two `special`s, the first at every
    /// offset: every place the eight-byte scan can meet a character to escape.
    fn cases<'a>(fills: &'a [&str], specials: &'a [char]) -> impl Iterator<Item = String> + 'a {
        fills.iter().flat_map(move |fill| {
            (0..20).flat_map(move |len| {
                let plain = std::iter::once(fill.repeat(len));
                plain.chain((0..=len).flat_map(move |at| {
                    specials.iter().map(move |&special| {
                        let mut s: String = fill.repeat(at);
                        s.push(special);
                        s.push_str(&fill.repeat(len - at));
                        s.push(special);
                        s
                    })
                }))
            })
        })
    }

    #[test]
    fn string_escaping_matches_the_byte_at_a_time_writer_at_every_offset() {
        let specials: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
        for s in cases(&["a", "é", "🚀", " ", "\u{7f}"], &specials) {
            let mut out = String::new();
            write_str(&mut out, &s);
            assert_eq!(out, reference(&s), "{s:?}");
        }
    }

    /// `reference` with every character past U+007F as `\uXXXX` (UTF-16).
    fn reference_ascii(s: &str) -> String {
        reference(s)
            .chars()
            .map(|c| match c {
                c if c.is_ascii() => c.to_string(),
                c => c
                    .encode_utf16(&mut [0; 2])
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn ascii_escaping_matches_the_byte_at_a_time_writer_at_every_offset_and_reads_back() {
        let specials: Vec<char> = (0u8..0x20)
            .map(char::from)
            .chain(['"', '\\', 'é', '€', '🚀', '\u{80}', '\u{ffff}'])
            .collect();
        for s in cases(&["a", "é", "🚀", " ", "\u{7f}", "ab€"], &specials) {
            let mut out = String::new();
            write_str_ascii(&mut out, &s);
            assert_eq!(out, reference_ascii(&s), "{s:?}");
            assert!(out.is_ascii());
            let back = crate::json::from_str(&out).expect("valid JSON");
            assert_eq!(back.as_str(), Some(s.as_str()));
        }
    }
}
