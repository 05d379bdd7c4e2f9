//! A strict JSON parser (RFC 8259) into [`Value`].
//!
//! It accepts exactly what `serde_json` accepts and reads numbers the same way:
//! integers without fraction or exponent stay integers (`-0` is the float -0.0),
//! integers beyond 64 bits and everything else become floats, rounded correctly,
//! and a float beyond f64's range is an error rather than infinity. Strings with
//! escapes for lone surrogates are refused: Rust strings cannot hold them.

use std::cell::Cell;

use super::names;
use super::value::{Map, Name, Number, Value};

/// How deep arrays and objects may nest (as in serde_json) before the parser
/// refuses; keeps recursion off the end of the stack for text no limit checked first.
pub const MAX_NESTING: usize = 127;

/// Why text is not JSON, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    /// What was expected or found, e.g. "expected `,` or `}`".
    pub reason: &'static str,
    /// 1-based line of the offending byte.
    pub line: usize,
    /// 1-based column (in bytes) of the offending byte.
    pub column: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.reason, self.line, self.column
        )
    }
}

/// Parses one JSON text; only whitespace may follow the value.
///
/// ```
/// let v = stepline::json::from_str(r#"{"n": -0, "big": 18446744073709551616}"#).unwrap();
/// assert!(v["n"].is_f64() && v["big"].is_f64());
/// assert!(stepline::json::from_str("[1,]").is_err());
/// ```
pub fn from_str(text: &str) -> Result<Value, ParseError> {
    from_str_nested(text, MAX_NESTING).map(|parsed| parsed.value)
}

/// Why [`from_str_nested`] refused text nested too deep.
pub(crate) const TOO_DEEP: &str = "recursion limit exceeded";

/// [`from_str`] with at most `max_depth` levels of arrays and objects (at most
/// [`MAX_NESTING`], whatever is asked).
pub(crate) fn from_str_nested(text: &str, max_depth: usize) -> Result<super::Parsed, ParseError> {
    let (members, items) = SCRATCH.with(|s| (s.0.take(), s.1.take()));
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        at: 0,
        line_breaks: false,
        members,
        items,
    };
    let read = p.value(max_depth.min(MAX_NESTING));
    let mut done = || {
        p.skip_ws();
        (p.at < p.bytes.len()).then(|| p.fail("trailing characters"))
    };
    let parsed = read.and_then(|value| match done() {
        Some(e) => Err(e),
        None => Ok(value),
    });
    let Parser {
        mut members,
        mut items,
        line_breaks,
        ..
    } = p;
    // An error leaves what was read so far on the stacks; a huge text
    // leaves them large: neither is kept for the next line.
    members.clear();
    items.clear();
    if members.capacity() <= SCRATCH_KEPT && items.capacity() <= SCRATCH_KEPT {
        SCRATCH.with(|s| {
            s.0.set(members);
            s.1.set(items);
        });
    }
    parsed.map(|value| super::Parsed { value, line_breaks })
}

/// The parser's member and item stacks, between texts.
type Stacks = (Cell<Vec<(Name, Value)>>, Cell<Vec<Value>>);

/// How many members (items) of open objects (arrays) the parser's stacks
/// keep room for between texts; beyond it they are freed after the text.
const SCRATCH_KEPT: usize = 1024;

thread_local! {
    /// The parser's member and item stacks, kept between texts: a bulk
    /// replay parses one small text per line, and growing a fresh vector
    /// member by member was about a twentieth of it (bench/findings.md).
    static SCRATCH: Stacks = const {
        (Cell::new(Vec::new()), Cell::new(Vec::new()))
    };
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Whether whitespace between tokens held a line break.
    line_breaks: bool,
    /// The members of the objects being read, innermost last: an object's
    /// members are moved off it into a vector of their exact number when
    /// it closes, one allocation, instead of a vector grown as they come.
    members: Vec<(Name, Value)>,
    /// The same for the items of the arrays being read.
    items: Vec<Value>,
}

type Parsed<T> = Result<T, ParseError>;

/// A string literal's text: borrowed from the input, or unescaped into a copy.
enum Text<'a> {
    Span(&'a str),
    Unescaped(String),
}

impl<'a> Parser<'a> {
    fn fail(&self, reason: &'static str) -> ParseError {
        let upto = self.bytes.get(..self.at).unwrap_or(self.bytes);
        let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
        let column = 1 + upto.len() - upto.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        ParseError {
            reason,
            line,
            column,
        }
    }

    /// The input from the current position on (empty past the end).
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.at..).unwrap_or_default()
    }

    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b' ' | b'\t' => {}
                b'\n' | b'\r' => self.line_breaks = true,
                _ => break,
            }
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        // Most texts (a JSONL line) have no whitespace between tokens:
        // a byte above the space is the token, with no loop.
        match self.bytes.get(self.at) {
            Some(&b) if b > b' ' => Some(b),
            _ => {
                self.skip_ws();
                self.bytes.get(self.at).copied()
            }
        }
    }

    fn literal(&mut self, word: &'static str, v: Value) -> Parsed<Value> {
        if self.rest().starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(v)
        } else {
            Err(self.fail("expected value"))
        }
    }

    fn value(&mut self, depth: usize) -> Parsed<Value> {
        match self.peek() {
            None => Err(self.fail("EOF while parsing a value")),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(_) => Err(self.fail("expected value")),
        }
    }

    fn array(&mut self, depth: usize) -> Parsed<Value> {
        if depth == 0 {
            return Err(self.fail(TOO_DEEP));
        }
        self.at += 1; // [
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(Vec::new()));
        }
        let base = self.items.len();
        loop {
            let v = self.value(depth - 1)?;
            self.items.push(v);
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    let items = self.items.split_off(base);
                    return Ok(Value::Array(items));
                }
                None => return Err(self.fail("EOF while parsing a list")),
                Some(_) => return Err(self.fail("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Parsed<Value> {
        if depth == 0 {
            return Err(self.fail(TOO_DEEP));
        }
        self.at += 1; // {
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(Map::new()));
        }
        let base = self.members.len();
        // One bit per member, by a hash of its key: a key whose bit is
        // clear repeats no earlier key, so an object whose keys all set a
        // new bit needs no check for repeated keys (that check, pairwise,
        // was a thirty-fifth of a bulk replay, bench/findings.md).
        let mut bits = 0u64;
        let mut maybe_repeated = false;
        loop {
            match self.peek() {
                Some(b'"') => {}
                None => return Err(self.fail("EOF while parsing an object")),
                Some(_) => return Err(self.fail("key must be a string")),
            }
            let key = self.key()?;
            let bit = 1u64 << (key_hash(&key) % 64);
            maybe_repeated |= bits & bit != 0;
            bits |= bit;
            match self.peek() {
                Some(b':') => self.at += 1,
                None => return Err(self.fail("EOF while parsing an object")),
                Some(_) => return Err(self.fail("expected `:`")),
            }
            let v = self.value(depth - 1)?;
            self.members.push((key, v));
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    let members = self.members.split_off(base);
                    return Ok(Value::Object(match maybe_repeated {
                        true => Map::from_entries(members),
                        false => Map::from_unique(members),
                    }));
                }
                None => return Err(self.fail("EOF while parsing an object")),
                Some(_) => return Err(self.fail("expected `,` or `}`")),
            }
        }
    }

    /// A string literal starting at the opening quote.
    fn string(&mut self) -> Parsed<String> {
        Ok(match self.literal_text()? {
            Text::Span(s) => s.to_string(),
            Text::Unescaped(s) => s,
        })
    }

    /// An object key: a name the core knows is its shared copy, no allocation.
    fn key(&mut self) -> Parsed<Name> {
        Ok(match self.literal_text()? {
            Text::Span(s) => match names::known(s) {
                Some(name) => Name::Borrowed(name),
                None => Name::Owned(s.to_string()),
            },
            Text::Unescaped(s) => Name::Owned(s),
        })
    }

    /// A string literal's text: the span of the input when it has no escapes.
    fn literal_text(&mut self) -> Parsed<Text<'a>> {
        self.at += 1; // "
        let start = self.at;
        // Fast path: no escapes, the text is copied in one piece. Eight bytes
        // at a time while none of them needs a look.
        // (`try_into` is one load; `copy_from_slice` calls memcpy in the wasm.)
        while let Some(Ok(word)) = self
            .bytes
            .get(self.at..self.at + 8)
            .map(<[u8; 8]>::try_from)
        {
            let mask = look_mask(u64::from_le_bytes(word));
            if mask != 0 {
                // Straight to the first byte that needs a look.
                self.at += (mask.trailing_zeros() / 8) as usize;
                break;
            }
            self.at += 8;
        }
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'"' => {
                    let s = &self.text[start..self.at];
                    self.at += 1;
                    return Ok(Text::Span(s));
                }
                b'\\' => break,
                0..=0x1f => {
                    return Err(self
                        .fail("control character (\\u0000-\\u001F) found while parsing a string"))
                }
                _ => self.at += 1,
            }
        }
        let mut out = String::with_capacity(self.at - start + 16);
        out.push_str(&self.text[start..self.at]);
        let mut run = self.at;
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(self.fail("EOF while parsing a string"));
            };
            match b {
                b'"' => {
                    out.push_str(&self.text[run..self.at]);
                    self.at += 1;
                    return Ok(Text::Unescaped(out));
                }
                b'\\' => {
                    out.push_str(&self.text[run..self.at]);
                    self.at += 1;
                    self.escape(&mut out)?;
                    run = self.at;
                }
                0..=0x1f => {
                    return Err(self
                        .fail("control character (\\u0000-\\u001F) found while parsing a string"))
                }
                _ => self.at += 1,
            }
        }
    }

    /// One escape after its backslash.
    fn escape(&mut self, out: &mut String) -> Parsed<()> {
        let Some(&b) = self.bytes.get(self.at) else {
            return Err(self.fail("EOF while parsing a string"));
        };
        self.at += 1;
        let c = match b {
            b'u' => {
                let first = self.hex4()?;
                let code = match first {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.at) != Some(&b'\\')
                            || self.bytes.get(self.at + 1) != Some(&b'u')
                        {
                            return Err(self.fail("lone leading surrogate in hex escape"));
                        }
                        self.at += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.fail("lone leading surrogate in hex escape"));
                        }
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    }
                    0xDC00..=0xDFFF => {
                        return Err(self.fail("lone trailing surrogate in hex escape"))
                    }
                    c => c,
                };
                match char::from_u32(code) {
                    Some(c) => c,
                    None => return Err(self.fail("invalid unicode code point")),
                }
            }
            _ => match short_escape(b) {
                Some(c) => c,
                None => {
                    self.at -= 1;
                    return Err(self.fail("invalid escape"));
                }
            },
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Parsed<u32> {
        let mut n = 0;
        for _ in 0..4 {
            let digit = match self.bytes.get(self.at) {
                Some(&b @ b'0'..=b'9') => b - b'0',
                Some(&b @ b'a'..=b'f') => b - b'a' + 10,
                Some(&b @ b'A'..=b'F') => b - b'A' + 10,
                None => return Err(self.fail("EOF while parsing a string")),
                Some(_) => return Err(self.fail("invalid escape")),
            };
            n = n * 16 + digit as u32;
            self.at += 1;
        }
        Ok(n)
    }

    fn digits(&mut self) -> usize {
        let from = self.at;
        while let Some(b'0'..=b'9') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.at - from
    }

    fn number(&mut self) -> Parsed<Number> {
        let start = self.at;
        let negative = self.bytes.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        // The integer part's value is read as its digits are scanned (no
        // second pass over them); `fits` says whether it stayed in 64 bits.
        let mut u: u64 = 0;
        let mut fits = true;
        match self.bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if let Some(b'0'..=b'9') = self.bytes.get(self.at) {
                    return Err(self.fail("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                while let Some(&b @ b'0'..=b'9') = self.bytes.get(self.at) {
                    match u
                        .checked_mul(10)
                        .and_then(|x| x.checked_add(u64::from(b - b'0')))
                    {
                        Some(x) => u = x,
                        None => fits = false,
                    }
                    self.at += 1;
                }
            }
            _ => return Err(self.fail("invalid number")),
        }
        let mut float = false;
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.fail("invalid number"));
            }
            float = true;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.fail("invalid number"));
            }
            float = true;
        }
        if !float && fits {
            if !negative {
                return Ok(Number::from_u64(u));
            }
            if u == 0 {
                return Ok(Number::from_f64(-0.0).unwrap_or(Number::from_u64(0)));
            }
            if u <= i64::MAX as u64 + 1 {
                return Ok(Number::from_i64((u as i64).wrapping_neg()));
            }
            return Number::from_f64(-(u as f64)).ok_or_else(|| self.fail("number out of range"));
        }
        // Floats and integers beyond 64 bits, rounded correctly.
        match super::parse_f64(&self.text[start..self.at]).ok_or(()) {
            Ok(f) if f.is_finite() => Ok(Number::from_f64(f).unwrap_or(Number::from_u64(0))),
            _ => {
                self.at = start;
                Err(self.fail("number out of range"))
            }
        }
    }
}

/// Which of eight bytes (little-endian) are a quote, a backslash or a control
/// character: the bytes a string literal's reader must look at, and the ones
/// its writer must escape. The classic has-zero-byte test sets the high bit of
/// each flagged byte; a borrow can flag a byte after a real one, never before
/// it, so the lowest bit set is exactly the first such byte.
pub(super) fn look_mask(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    zero_byte(w ^ (ONES * u64::from(b'"'))) | zero_byte(w ^ (ONES * u64::from(b'\\'))) | below_space
}

/// The character a one-letter escape stands for (`n` in `\n`, `"` in
/// `\"`), or `None` for `u` (four hex digits follow) and for a letter JSON
/// does not allow. The parser and the stream chunk reader
/// (src/envelope/fast_chunk.rs) both read escapes by it.
pub(crate) fn short_escape(b: u8) -> Option<char> {
    Some(match b {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// Whether UTF-8 text holds U+FFFD (EF BF BD), the character a JavaScript
/// string's lone surrogate becomes when it is encoded. Eight bytes at a time
/// while none is EF: `str::contains` with a non-ASCII `char` runs the general
/// substring search, which showed in bulk replay profiles (bench/findings.md).
pub fn contains_replacement_char(text: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const FFFD: [u8; 3] = [0xEF, 0xBF, 0xBD];
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(Ok(word)) = bytes.get(i..i + 8).map(<[u8; 8]>::try_from) {
        let x = u64::from_le_bytes(word) ^ (ONES * 0xEF);
        if x.wrapping_sub(ONES) & !x & HIGH != 0
            && (i..i + 8).any(|j| bytes.get(j..).is_some_and(|r| r.starts_with(&FFFD)))
        {
            return true;
        }
        i += 8;
    }
    bytes
        .get(i..)
        .unwrap_or_default()
        .windows(3)
        .any(|w| w == FFFD)
}

/// A cheap hash of an object key for [`Parser::object`]'s check for
/// repeated keys: equal keys hash equal; most envelope keys differ in it.
fn key_hash(key: &str) -> u32 {
    let b = key.as_bytes();
    let first = b.first().map_or(0, |&c| u32::from(c));
    let last = b.last().map_or(0, |&c| u32::from(c));
    (b.len() as u32)
        .wrapping_mul(31)
        .wrapping_add(first.wrapping_mul(7))
        .wrapping_add(last.wrapping_mul(13))
}

#[cfg(test)]
mod tests {
    use super::{contains_replacement_char, look_mask};

    #[test]
    fn repeated_keys_keep_the_last_value_at_the_first_place_whatever_their_hash() {
        // Keys of one length, first and last byte share a hash; these and
        // keys with a hash of their own, repeated or not, among more
        // members than the hash has bits.
        let mut members: Vec<String> = (0..70).map(|i| format!("\"k{i:02}x\":{i}")).collect();
        members.push("\"k05x\":\"last\"".into());
        members.push("\"type\":1".into());
        members.push("\"status\":2".into());
        members.push("\"type\":3".into());
        let v = crate::json::from_str(&format!("{{{}}}", members.join(","))).unwrap();
        let m = v.as_object().unwrap();
        assert_eq!(m.len(), 72);
        let keys: Vec<&str> = m.keys().map(|k| &**k).collect();
        assert_eq!(keys[5], "k05x");
        assert_eq!(m["k05x"], "last");
        assert_eq!(keys[70..], ["type", "status"]);
        assert_eq!(m["type"], 3);
        for text in [r#"{"a":1,"b":2,"a":3}"#, r#"{"ab":1,"ab":2}"#] {
            let v = crate::json::from_str(text).unwrap();
            assert_eq!(v.as_object().unwrap().len(), text.matches(':').count() - 1);
        }
        let v = crate::json::from_str(r#"{"type":"x","session_id":"s","payload":{}}"#).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 3);
    }

    #[test]
    fn nested_objects_and_arrays_keep_their_own_members_across_texts_and_errors() {
        // The member and item stacks are shared by every object and array
        // open at once, and kept from one text to the next.
        let text = r#"{"a":[1,{"b":[2,3],"c":{}},[]],"d":{"e":[{"f":4}],"g":5},"h":[]}"#;
        let want = crate::json::from_str(text).unwrap();
        assert_eq!(want.to_string(), text);
        for broken in [
            r#"{"a":[1,{"b":[2,3"#,
            r#"[{"x":1},{"y":[1,2,"#,
            r#"{"a":1,"a":"#,
        ] {
            assert!(crate::json::from_str(broken).is_err(), "{broken}");
            let again = crate::json::from_str(text).unwrap();
            assert_eq!(again, want);
            assert_eq!(again.to_string(), text);
        }
        let many = format!("[{}]", vec!["{\"k\":[0]}"; 3000].join(","));
        let v = crate::json::from_str(&many).unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(3000));
        assert_eq!(crate::json::from_str(text).unwrap(), want);
    }

    #[test]
    fn integers_read_while_scanned_keep_their_kind_at_the_64_bit_edges() {
        let read = |t: &str| crate::json::from_str(t).unwrap();
        assert_eq!(read("0").as_u64(), Some(0));
        assert_eq!(read("1795168800000").as_u64(), Some(1_795_168_800_000));
        assert_eq!(read("18446744073709551615").as_u64(), Some(u64::MAX));
        assert_eq!(read("-9223372036854775808").as_i64(), Some(i64::MIN));
        // Past 64 bits, or past i64 when negative: floats, rounded correctly.
        for (t, f) in [
            ("18446744073709551616", 18_446_744_073_709_551_616.0),
            ("-9223372036854775809", -9_223_372_036_854_775_809.0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("12.5", 12.5),
            ("1e3", 1000.0),
        ] {
            let v = read(t);
            assert!(v.is_f64(), "{t}");
            assert_eq!(v.as_f64(), Some(f), "{t}");
        }
        let zero = read("-0").as_f64().unwrap();
        assert!(zero == 0.0 && zero.is_sign_negative());
        for bad in ["01", "-", "1.", "1e", "-01", "1.e1"] {
            assert!(crate::json::from_str(bad).is_err(), "{bad}");
        }
    }

    fn needs_look(w: u64) -> bool {
        look_mask(w) != 0
    }

    #[test]
    fn replacement_char_is_found_at_every_offset_and_only_when_whole() {
        for len in 0..20 {
            for at in 0..=len {
                for fill in ["a", "é", "\u{f000}", "\u{fffc}", "\u{fffe}", "🚀"] {
                    let head = fill.repeat(at);
                    let tail = fill.repeat(len - at);
                    let with = format!("{head}\u{fffd}{tail}");
                    assert!(contains_replacement_char(&with), "{with:?}");
                    let without = format!("{head}{tail}");
                    assert_eq!(
                        contains_replacement_char(&without),
                        without.contains('\u{fffd}'),
                        "{without:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_lowest_flag_is_the_first_byte_that_needs_a_look() {
        let specials = [b'"', b'\\', 0, 0x1f, b'\n'];
        let fills = [b'a', b' ', 0x7f, 0x80, 0xff, b'!', b'#', 0x21, 0x5d];
        for first in 0..8 {
            for &special in &specials {
                for &fill in &fills {
                    for &later in &specials {
                        for second in first + 1..=8 {
                            let mut w = [fill; 8];
                            w[first] = special;
                            if second < 8 {
                                w[second] = later;
                            }
                            let mask = look_mask(u64::from_le_bytes(w));
                            assert_eq!(mask.trailing_zeros() / 8, first as u32, "{w:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn eight_byte_scan_flags_exactly_the_bytes_that_need_a_look() {
        for special in (0u8..0x20).chain([b'"', b'\\']) {
            for at in 0..8 {
                for fill in [b'a', b' ', 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']'] {
                    let mut w = [fill; 8];
                    w[at] = special;
                    assert!(
                        needs_look(u64::from_le_bytes(w)),
                        "{special:#x} at {at} in {fill:#x}"
                    );
                }
            }
        }
        for b in 0x20u8..=0xff {
            if b != b'"' && b != b'\\' {
                assert!(!needs_look(u64::from_le_bytes([b; 8])), "{b:#x}");
                assert!(
                    !needs_look(u64::from_le_bytes([b, 0x20, 0xff, b, 0x7f, b, 0x21, b])),
                    "{b:#x}"
                );
            }
        }
    }
}
