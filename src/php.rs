//! PHP value semantics the reference producer relies on: `empty()`, `(int)` and
//! `(float)` casts, `array_filter` truthiness and `json_encode` with default flags.
//! Matching these is what makes the core agree with the producer byte for byte.

use crate::json::{Map, Value};

/// PHP `empty()` / falsiness: null, false, 0, 0.0, "", "0" and empty arrays.
pub fn is_falsy(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty() || s == "0",
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// PHP falsiness of a string: `""` and `"0"`.
pub fn is_falsy_str<S: AsRef<str> + ?Sized>(s: &S) -> bool {
    matches!(s.as_ref(), "" | "0")
}

/// PHP `isset($a[$k])`-style lookup: a present key holding null counts as absent.
pub fn get<'a>(map: &'a Map, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

/// True for `[]` or `{}`: PHP writes an empty map as `[]`.
pub fn is_empty_array(v: &Value) -> bool {
    matches!(v, Value::Array(a) if a.is_empty()) || matches!(v, Value::Object(o) if o.is_empty())
}

/// A map as PHP writes it: an empty one is `[]`.
pub fn map_value(m: &Map) -> Value {
    if m.is_empty() {
        Value::Array(Vec::new())
    } else {
        Value::Object(m.clone())
    }
}

/// PHP `(int)` cast (PHP 8 rules: numeric prefix of strings, truncation of floats).
pub fn int_cast(v: &Value) -> i64 {
    match v {
        Value::Null => 0,
        Value::Bool(b) => i64::from(*b),
        Value::Number(n) => n
            .as_i64()
            .unwrap_or_else(|| float_to_int(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => {
            let f = numeric_prefix(s);
            match f {
                Some(NumPrefix::Int(i)) => i,
                Some(NumPrefix::Float(f)) => float_to_int(f),
                None => 0,
            }
        }
        Value::Array(a) => i64::from(!a.is_empty()),
        Value::Object(o) => i64::from(!o.is_empty()),
    }
}

/// PHP `(float)` cast.
pub fn float_cast(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(0.0),
        Value::String(s) => match numeric_prefix(s) {
            Some(NumPrefix::Int(i)) => i as f64,
            Some(NumPrefix::Float(f)) => f,
            None => 0.0,
        },
        Value::Array(a) => f64::from(u8::from(!a.is_empty())),
        Value::Object(o) => f64::from(u8::from(!o.is_empty())),
    }
}

fn float_to_int(f: f64) -> i64 {
    // PHP 8 on 64-bit: NaN/Inf become 0; out-of-range values are undefined, we saturate.
    if f.is_finite() {
        f.trunc() as i64
    } else {
        0
    }
}

enum NumPrefix {
    Int(i64),
    Float(f64),
}

/// The leading numeric part of a string, as PHP's casts read it.
fn numeric_prefix(s: &str) -> Option<NumPrefix> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = t.as_bytes();
    let sign = |i: usize| matches!(b.get(i), Some(b'+' | b'-'));
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    if sign(i) {
        i += 1;
    }
    let int_start = i;
    while digit(i) {
        i += 1;
    }
    let mut is_float = false;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while digit(j) {
            j += 1;
            frac_digits += 1;
        }
        if frac_digits > 0 || i > int_start {
            is_float = true;
            i = j;
        }
    }
    if i == int_start && !is_float {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if sign(j) {
            j += 1;
        }
        let exp_start = j;
        while digit(j) {
            j += 1;
        }
        if j > exp_start {
            is_float = true;
            i = j;
        }
    }
    let text = &t[..i];
    if is_float {
        crate::json::parse_f64(text).map(NumPrefix::Float)
    } else {
        match text.parse::<i64>() {
            Ok(n) => Some(NumPrefix::Int(n)),
            // Integer overflow: PHP reads it as a float.
            Err(_) => crate::json::parse_f64(text).map(NumPrefix::Float),
        }
    }
}

/// `json_encode($value)` with PHP's default flags: `/` escaped as `\/`, every
/// non-ASCII character as a lowercase `\uXXXX` escape (surrogate pairs above the
/// BMP), floats with an integral value keep `.0`, empty maps become `[]`, and an
/// object whose keys are exactly "0".."n-1" in order is a list (PHP arrays).
pub fn json_encode(v: &Value) -> String {
    let mut out = String::new();
    encode_into(v, &mut out);
    out
}

fn encode_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_f64() {
                out.push_str(&format_php_float(n.as_f64().unwrap_or(0.0)));
            } else {
                out.push_str(&crate::json::number_text(n));
            }
        }
        Value::String(s) => encode_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode_into(item, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            if o.is_empty() {
                out.push_str("[]");
                return;
            }
            if is_php_list(o) {
                out.push('[');
                for (i, item) in o.values().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    encode_into(item, out);
                }
                out.push(']');
                return;
            }
            out.push('{');
            for (i, (k, item)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode_string(k, out);
                out.push(':');
                encode_into(item, out);
            }
            out.push('}');
        }
    }
}

fn is_php_list(o: &Map) -> bool {
    o.keys().enumerate().all(|(i, k)| {
        k.parse::<usize>().ok() == Some(i)
            && !k.starts_with('+')
            && (k == "0" || !k.starts_with('0'))
    })
}

/// PHP float to string with `serialize_precision = -1` (shortest round trip),
/// keeping `.0` on integral values as `json_encode` does.
pub fn format_php_float(f: f64) -> String {
    if !f.is_finite() {
        return "0".to_string();
    }
    if f == f.trunc() && f.abs() < 1e15 {
        // Integral: PHP keeps ".0". (Avoids `{:.1}`, whose exact-float formatter is large in wasm.)
        return format!("{}.0", f as i64);
    }
    // Shortest round-trip digits from the JSON number writer (zmij), re-laid out the
    // way PHP prints them: plain below 1e15 and from 1e-4, else `1.5e+15` / `1.0e-5`.
    let shortest = crate::json::Number::from_f64(f.abs())
        .map_or_else(|| "0".to_string(), |n| crate::json::number_text(&n));
    let (mantissa, exp) = match shortest.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (shortest.as_str(), 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = format!("{int_part}{frac_part}");
    let lead = all.find(|c| c != '0').unwrap_or(0);
    let digits = all[lead..].trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    // Value = 0.d1d2d3... × 10^point
    let point = int_part.len() as i32 - lead as i32 + exp;
    let sign = if f < 0.0 { "-" } else { "" };
    let abs = f.abs();
    if !(1e-4..1e15).contains(&abs) {
        let (head, tail) = digits.split_at(1);
        let tail = if tail.is_empty() { "0" } else { tail };
        let e = point - 1;
        let esign = if e < 0 { "-" } else { "+" };
        return format!("{sign}{head}.{tail}e{esign}{}", e.unsigned_abs());
    }
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{text}")
}

fn encode_string(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", unit));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn int_cast_reads_numeric_prefixes_like_php() {
        assert_eq!(int_cast(&json!("12")), 12);
        assert_eq!(int_cast(&json!("3.9")), 3);
        assert_eq!(int_cast(&json!(3.9)), 3);
        assert_eq!(int_cast(&json!(-1)), -1);
        assert_eq!(int_cast(&json!("abc")), 0);
        assert_eq!(int_cast(&json!(" 7 apples")), 7);
        assert_eq!(int_cast(&json!(true)), 1);
        assert_eq!(int_cast(&json!(null)), 0);
    }

    #[test]
    fn float_cast_reads_strings() {
        assert_eq!(float_cast(&json!("2.5")), 2.5);
        assert_eq!(float_cast(&json!(5)), 5.0);
        assert_eq!(float_cast(&json!("1e3")), 1000.0);
    }

    #[test]
    fn json_encode_escapes_like_php_defaults() {
        assert_eq!(
            json_encode(&json!({"q": "x", "path": "/a/b"})),
            r#"{"q":"x","path":"\/a\/b"}"#
        );
        assert_eq!(
            json_encode(&json!({"t": "ó🚀"})),
            r#"{"t":"\u00f3\ud83d\ude80"}"#
        );
        assert_eq!(json_encode(&json!({})), "[]");
        assert_eq!(json_encode(&json!({"0": "a", "1": "b"})), r#"["a","b"]"#);
        assert_eq!(json_encode(&json!(1500.0)), "1500.0");
        assert_eq!(json_encode(&json!(0.1)), "0.1");
        assert_eq!(json_encode(&json!(1.5e16)), "1.5e+16");
        assert_eq!(json_encode(&json!(0.00001234)), "1.234e-5");
        assert_eq!(json_encode(&json!(-2.5)), "-2.5");
        assert_eq!(json_encode(&json!(123456.789)), "123456.789");
        assert_eq!(json_encode(&json!(0.00012)), "0.00012");
        assert_eq!(json_encode(&json!(-0.3)), "-0.3");
    }

    #[test]
    fn falsiness_matches_php_empty() {
        for v in [
            json!(null),
            json!(false),
            json!(0),
            json!(0.0),
            json!(""),
            json!("0"),
            json!([]),
            json!({}),
        ] {
            assert!(is_falsy(&v), "{v} should be falsy");
        }
        for v in [json!(" "), json!("00"), json!([0]), json!(1)] {
            assert!(!is_falsy(&v), "{v} should be truthy");
        }
    }
}
