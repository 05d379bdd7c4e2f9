//! Reading PHP-shaped JSON: maps that may arrive as `[]`, lists that may arrive
//! as objects with index keys, and every failure located by a JSON pointer.

use std::sync::OnceLock;

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{type_name, Whole};

fn empty_map() -> &'static Map {
    static EMPTY: OnceLock<Map> = OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// A PHP array used as a map: a JSON object, or `[]` (PHP's empty array).
pub fn object<'a>(v: &'a Value, path: &str, what: &str) -> Result<&'a Map> {
    match v {
        Value::Object(m) => Ok(m),
        Value::Array(a) if a.is_empty() => Ok(empty_map()),
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!("expected {what} as an object, found {}", type_name(other)),
        )),
    }
}

/// A PHP array used as a list: a JSON array, or an object whose values are read
/// in key order (PHP does not distinguish them). Yields `(key, value)`.
pub fn entries<'a>(v: &'a Value, path: &str, what: &str) -> Result<Vec<(String, &'a Value)>> {
    match v {
        Value::Array(a) => Ok(a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect()),
        Value::Object(m) => Ok(m.iter().map(|(k, v)| (k.to_string(), v)).collect()),
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!("expected {what} as an array, found {}", type_name(other)),
        )),
    }
}

/// An optional string field; null or absent gives `None`.
pub fn opt_str<'a>(m: &'a Map, key: &str, path: &str) -> Result<Option<&'a str>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong_type(path, key, "a string", other)),
    }
}

/// A string field PHP would coerce: numbers and booleans become their string form.
pub fn opt_scalar_string(m: &Map, key: &str, path: &str) -> Result<Option<String>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(crate::json::number_text(n))),
        Some(Value::Bool(b)) => Ok(Some(if *b { "1".into() } else { String::new() })),
        Some(other) => Err(wrong_type(path, key, "a string", other)),
    }
}

/// An optional boolean field with PHP truthiness for non-booleans.
pub fn bool_or(m: &Map, key: &str, default: bool) -> bool {
    match m.get(key) {
        None | Some(Value::Null) => default,
        Some(v) => !crate::php::is_falsy(v),
    }
}

/// Shorthand for a typed error at a path.
pub fn invalid(code: ErrorCode, path: &str, message: impl Into<String>) -> SteplineError {
    SteplineError::at(code, path, message)
}

/// Rejects keys outside `allowed`, so a misspelt option is never silently ignored.
pub fn only_keys(m: &Map, allowed: &[&str], path: &str) -> Result<()> {
    match m.keys().find(|k| !allowed.contains(&&***k)) {
        None => Ok(()),
        Some(k) => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            &crate::json::child(path, k),
            format!(
                "unknown option `{k}`, expected one of: {}",
                allowed.join(", ")
            ),
        )),
    }
}

/// An optional whole-number field (options and specs: no PHP coercion here).
/// A whole number beyond `i64` (`1e300`, `2 ** 64`) is `out_of_range`, not a
/// wrong type; `-0` is 0 (see [`crate::json::whole`]).
pub fn opt_i64(m: &Map, key: &str, path: &str) -> Result<Option<i64>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Number(n)) => match crate::json::whole(n) {
            Whole::Int(i) => Ok(Some(i)),
            Whole::OutOfRange => Err(SteplineError::at(
                ErrorCode::OutOfRange,
                &crate::json::child(path, key),
                format!(
                    "expected `{key}` to be a whole number from -2^63 to 2^63-1, found {}",
                    crate::json::number_text(n)
                ),
            )),
            Whole::NotWhole => Err(wrong_type(path, key, "a whole number", v)),
        },
        Some(other) => Err(wrong_type(path, key, "a whole number", other)),
    }
}

/// An optional boolean field (options and specs: no PHP coercion here).
pub fn opt_bool(m: &Map, key: &str, path: &str) -> Result<Option<bool>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(wrong_type(path, key, "a boolean", other)),
    }
}

/// `key` under `path` holds the wrong kind of value.
pub fn wrong_type(path: &str, key: &str, expected: &str, found: &Value) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidType,
        &crate::json::child(path, key),
        format!(
            "expected `{key}` to be {expected}, found {}",
            type_name(found)
        ),
    )
}
