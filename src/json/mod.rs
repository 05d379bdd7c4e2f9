//! The core's JSON: the value type ([`Value`], [`Map`], [`Number`]), a strict
//! parser, the compact writer, `json!`, and the bounded parsing and
//! JSON-pointer helpers every decoder shares.
//!
//! All untrusted text enters the core through [`parse`], which rejects input over
//! a byte limit before reading it and nesting deeper than a depth limit as soon as
//! the parser reaches it, so a hostile payload costs at most one linear pass.
//!
//! ```
//! use stepline::json::{self, Limits};
//! let v = json::parse(r#"{"type": "agent.status", "payload": {"status": "processing"}}"#, &Limits::default()).unwrap();
//! assert_eq!(v["payload"]["status"], "processing");
//! let deep = "[".repeat(65) + &"]".repeat(65);
//! assert_eq!(json::parse(&deep, &Limits::default()).unwrap_err().code, stepline::ErrorCode::TooDeep);
//! ```

pub mod fingerprint;
mod fingerprint_ser;
#[macro_use]
mod float;
mod macros;
pub(crate) mod names;
mod parse;
pub mod patch;
mod pointer;
pub mod seen;
mod ser;
mod value;
mod write;

pub use fingerprint_ser::scalar_fingerprint;
pub use float::parse_f64;
#[cfg(feature = "full")]
pub(crate) use parse::from_str_nested;
pub(crate) use parse::short_escape;
pub use parse::{contains_replacement_char, from_str, ParseError, MAX_NESTING};
pub use pointer::At;
pub use ser::{to_ascii_text, to_text, to_value_of, write_ascii_text, write_text};
pub use value::{Entry, Iter, IterMut, Key, Map, Name, Number, Value};
pub use write::{to_string, write_str, write_str_ascii, write_value, WriteJson};

pub(crate) use value::same_key;
pub(crate) use value::write_u64;

use crate::error::{ErrorCode, Result, SteplineError};

/// Any value that converts into a [`Value`], by reference: what `json!` uses for
/// the Rust expressions in a literal, so they stay usable afterwards.
pub fn to_value<T: Clone + Into<Value>>(v: &T) -> Value {
    v.clone().into()
}

/// Size and nesting limits applied to untrusted JSON.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest accepted input, in bytes of UTF-8.
    pub max_bytes: usize,
    /// Deepest accepted nesting of arrays and objects (at most
    /// [`MAX_NESTING`], whatever is asked).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        // 64 MiB holds a 10k-message state with room to spare; 64 levels is far
        // beyond any agent state the reference writes (it nests about 12 deep).
        Limits {
            max_bytes: 64 * 1024 * 1024,
            max_depth: 64,
        }
    }
}

/// Parses untrusted JSON text under `limits`.
pub fn parse(text: &str, limits: &Limits) -> Result<Value> {
    parse_text(text, limits).map(|parsed| parsed.value)
}

/// A parsed text, and whether whitespace in it broke lines (a JSONL log keeps
/// such a text re-written on one line; the parser sees every such byte, so no
/// second scan is needed to know).
pub(crate) struct Parsed {
    /// The value read.
    pub value: Value,
    /// Whether a line break occurred between tokens (JSON text has none elsewhere).
    pub line_breaks: bool,
}

/// [`parse`], also saying whether the text spans lines.
pub(crate) fn parse_text(text: &str, limits: &Limits) -> Result<Parsed> {
    if text.len() > limits.max_bytes {
        return Err(SteplineError::new(
            ErrorCode::TooLarge,
            None,
            format!(
                "expected at most {} bytes of JSON, found {}",
                limits.max_bytes,
                text.len()
            ),
        ));
    }
    parse::from_str_nested(text, limits.max_depth).map_err(|e| match e.reason {
        parse::TOO_DEEP => SteplineError::new(
            ErrorCode::TooDeep,
            None,
            format!(
                "expected JSON nested at most {} levels deep, found deeper nesting at line {} column {}",
                limits.max_depth, e.line, e.column
            ),
        ),
        _ => SteplineError::new(
            ErrorCode::InvalidJson,
            None,
            format!("expected valid JSON: {e}"),
        ),
    })
}

/// Parses untrusted bytes: they must be UTF-8 and then JSON.
pub fn parse_bytes(bytes: &[u8], limits: &Limits) -> Result<Value> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        SteplineError::new(
            ErrorCode::InvalidJson,
            None,
            format!(
                "expected UTF-8 text, found an invalid byte sequence at byte {}",
                e.valid_up_to()
            ),
        )
    })?;
    parse(text, limits)
}

/// A JSON number read where a whole number is expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whole {
    /// An integer that fits in an `i64`.
    Int(i64),
    /// A whole number outside the `i64` range: a `u64` above `i64::MAX`, or a
    /// float of magnitude 2^63 or more (`1e300`, or `2 ** 64` as JavaScript
    /// writes it); every float that large is whole.
    OutOfRange,
    /// A fraction, or a smaller number written as a float (`1.5`, `1.0`): the
    /// vectors keep `.0` precisely so that floats and integers differ.
    NotWhole,
}

/// How `n` reads as an integer. The one place integer fields and options are
/// read, so every reader agrees on `-0` and on numbers out of range.
pub fn whole(n: &Number) -> Whole {
    if let Some(i) = n.as_i64() {
        return Whole::Int(i);
    }
    if n.is_u64() {
        return Whole::OutOfRange;
    }
    match n.as_f64() {
        // The parser reads the token `-0` as the float -0.0 (as serde_json does); JSON.parse reads
        // it as 0 and JSON.stringify writes 0, so the object form of the same
        // input is the integer 0. (`-0.0` reads the same and cannot be told apart.)
        Some(f) if f == 0.0 && f.is_sign_negative() => Whole::Int(0),
        Some(f) if f.abs() >= 9_223_372_036_854_775_808.0 => Whole::OutOfRange,
        _ => Whole::NotWhole,
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub(crate) fn child(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 1);
    out.push_str(path);
    push_token(&mut out, key);
    out
}

/// Appends `/` and `key` as a JSON pointer token, escaping `~` and `/` (RFC 6901).
pub(crate) fn push_token(out: &mut String, key: &str) {
    out.push('/');
    for ch in key.chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Appends an array index to a JSON pointer.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}/{i}")
}

/// Builds a JSON object from key/value pairs, in order (keys must differ). Used
/// instead of `json!` in the library, which clones every interpolated value.
pub fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A number's JSON text: `3`, `-7`, `1.5`, `1.0`, `1e21`.
pub(crate) fn number_text(n: &Number) -> String {
    let mut out = String::new();
    n.write(&mut out);
    out
}

/// A JavaScript number as JavaScript writes it (`Number.prototype.toString`),
/// for error messages: `3`, `1.5`, `1e+21`, `18446744073709552000`, `NaN`.
/// The shortest round-tripping digits come from the JSON number writer, laid
/// out by JavaScript's rules. (f64's `Display` would pull core's exact float
/// formatting into the wasm, and prints other digits.)
pub fn js_number_text(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(x.abs());
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The value is 0.DIGITS × 10^n.
    let int_part = int_part.trim_start_matches('0');
    let n = if int_part.is_empty() {
        exp - (frac_part.len() - frac_part.trim_start_matches('0').len()) as i32
    } else {
        int_part.len() as i32 + exp
    };
    let all = format!("{int_part}{frac_part}");
    let digits = all.trim_start_matches('0').trim_end_matches('0');
    let k = digits.len() as i32;
    let mut out = String::from(if x < 0.0 { "-" } else { "" });
    if k <= n && n <= 21 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n > 0 { '+' } else { '-' });
        value::write_u64(&mut out, u64::from((n - 1).unsigned_abs()));
    }
    out
}

/// A string as a JSON string literal, for error messages. (`{:?}` would pull
/// core's Unicode printability tables into the wasm.)
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::new();
    write_str(&mut out, s);
    out
}

/// Names a JSON value's type for error messages ("a string", "an object", ...).
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_numbers_read_as_javascript_writes_them() {
        // Expected texts are what Node prints for `String(x)`.
        for (x, text) in [
            (3.0, "3"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (2f64.powi(53), "9007199254740992"),
            (2f64.powi(53) + 2.0, "9007199254740994"),
            (1e20, "100000000000000000000"),
            (2f64.powi(64), "18446744073709552000"),
            (2f64.powi(63), "9223372036854776000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e21, "1e+21"),
            (1e300, "1e+300"),
            (f64::MAX, "1.7976931348623157e+308"),
            (123e-20, "1.23e-18"),
            (5e-324, "5e-324"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (-2.5e-5, "-0.000025"),
            (100.0, "100"),
            (-1.5, "-1.5"),
            (4.35, "4.35"),
            (12345.678, "12345.678"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(js_number_text(x), text, "{x:?}");
        }
    }

    #[test]
    fn deep_nesting_is_rejected_before_parsing() {
        let text = "[".repeat(100) + &"]".repeat(100);
        let err = parse(&text, &Limits::default()).unwrap_err();
        assert_eq!(err.code, ErrorCode::TooDeep);
    }

    #[test]
    fn brackets_inside_strings_do_not_count_as_nesting() {
        let text = format!("{{\"a\": \"{}\"}}", "[".repeat(500));
        assert!(parse(&text, &Limits::default()).is_ok());
    }

    #[test]
    fn oversized_input_is_rejected() {
        let limits = Limits {
            max_bytes: 10,
            max_depth: 8,
        };
        let err = parse("[1,2,3,4,5,6]", &limits).unwrap_err();
        assert_eq!(err.code, ErrorCode::TooLarge);
    }

    #[test]
    fn invalid_utf8_bytes_are_rejected() {
        let err = parse_bytes(b"\"\xff\"", &Limits::default()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidJson);
        assert!(err.message.contains("UTF-8"));
    }

    #[test]
    fn minus_zero_is_the_integer_zero_and_huge_whole_numbers_are_out_of_range() {
        let read = |text: &str| match parse(text, &Limits::default()).unwrap() {
            Value::Number(n) => whole(&n),
            other => panic!("{other}"),
        };
        assert_eq!(read("-0"), Whole::Int(0));
        assert_eq!(read("-7"), Whole::Int(-7));
        assert_eq!(read("9223372036854775807"), Whole::Int(i64::MAX));
        for big in [
            "9223372036854775808",
            "18446744073709552000",
            "1e300",
            "-1e19",
        ] {
            assert_eq!(read(big), Whole::OutOfRange, "{big}");
        }
        for not in ["1.5", "1.0", "0.0", "-1e-300"] {
            assert_eq!(read(not), Whole::NotWhole, "{not}");
        }
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(child("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(index("/steps", 3), "/steps/3");
    }
}
