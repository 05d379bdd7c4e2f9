//! Decoding envelopes from any producer into one model. Known types are
//! strict (a wrong type or a missing required field is an error with a path);
//! unknown types and unknown fields are kept and reported as warnings, so a
//! newer producer never breaks an older UI.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::envelope::schema::{fields, Field, Kind};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, obj, type_name, Limits, Whole};
use crate::model::time::is_rfc3339;

/// A non-fatal finding: something kept but not understood.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    pub path: String,
    /// `unknown_type` or `unknown_field`.
    pub code: &'static str,
    pub message: String,
}

impl Warning {
    pub fn to_value(&self) -> Value {
        obj([
            ("path", Value::from(self.path.as_str())),
            ("code", Value::from(self.code)),
            ("message", Value::from(self.message.as_str())),
        ])
    }
}

/// A decoded envelope in the normalised form, and what was kept unread.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// `{type, session_id, execution_id, timestamp, payload, extra?}` with the
    /// payload's fields under their normalised names (unknown ones in `payload.extra`).
    pub envelope: Value,
    pub warnings: Vec<Warning>,
}

/// The envelope's own keys (anything else at the top level is `extra`).
const ENVELOPE_KEYS: &[&str] = &[
    "type",
    "event_type",
    "session_id",
    "execution_id",
    "timestamp",
    "payload",
];

/// `truncated: true`: the payload was shortened to fit the broadcaster's limit.
const TRUNCATED: &str = "truncated";

/// Limits for one envelope: far above what a broadcaster delivers (10 KB by
/// default), far below what would hurt a browser tab.
pub const ENVELOPE_LIMITS: Limits = Limits {
    max_bytes: 1024 * 1024,
    max_depth: 64,
};

/// Decodes JSON text holding one envelope.
pub fn decode_text(text: &str) -> Result<Decoded> {
    decode_value(&crate::json::parse(text, &ENVELOPE_LIMITS)?)
}

/// Decodes one envelope. The seed-003 native form (`event_type`, fields at the
/// top level, no session) is accepted too.
pub fn decode_value(v: &Value) -> Result<Decoded> {
    let m = match v {
        Value::Object(m) => m,
        other => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "",
                format!("expected an envelope object, found {}", type_name(other)),
            ))
        }
    };
    let mut warnings = Vec::new();
    let native = !m.contains_key("type") && m.contains_key("event_type");
    let type_key = if native { "event_type" } else { "type" };
    let kind = match m.get(type_key) {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &child("", type_key),
                format!(
                    "expected the event type as a string, found {}",
                    type_name(other)
                ),
            ))
        }
        None => {
            return Err(SteplineError::at(
                ErrorCode::MissingField,
                "/type",
                "expected `type` (or seed 003's `event_type`)",
            ))
        }
    };
    let session_id = match m.get("session_id") {
        Some(Value::String(s)) => Value::from(s.as_str()),
        None | Some(Value::Null) if native => Value::Null,
        None | Some(Value::Null) => {
            return Err(SteplineError::at(
                ErrorCode::MissingField,
                "/session_id",
                "expected `session_id`",
            ))
        }
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "/session_id",
                format!(
                    "expected `session_id` as a string, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    let execution_id = match m.get("execution_id") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::String(s)) => Value::from(s.as_str()),
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "/execution_id",
                format!(
                    "expected `execution_id` as a string, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    let timestamp = match m.get("timestamp") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::String(s)) if is_rfc3339(s) => Value::from(s.as_str()),
        Some(Value::String(s)) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidTimestamp,
                "/timestamp",
                format!(
                    "expected an RFC 3339 timestamp, found {}",
                    crate::json::quote(s)
                ),
            ))
        }
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "/timestamp",
                format!(
                    "expected `timestamp` as a string, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    // Borrowed where possible: cloning the payload here and again field by
    // field in `normalise` was a fifth of a bulk ingest.
    let empty = Map::new();
    let (payload_in, payload_path): (Cow<'_, Map<String, Value>>, &str) = if native {
        let fields: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| !ENVELOPE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (Cow::Owned(fields), "")
    } else {
        match m.get("payload") {
            Some(Value::Object(p)) => (Cow::Borrowed(p), "/payload"),
            Some(Value::Array(a)) if a.is_empty() => (Cow::Borrowed(&empty), "/payload"),
            None | Some(Value::Null) => (Cow::Borrowed(&empty), "/payload"),
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    "/payload",
                    format!(
                        "expected the payload as an object, found {}",
                        type_name(other)
                    ),
                ))
            }
        }
    };
    let payload = match fields(kind) {
        Some(spec) => normalise(&payload_in, spec, payload_path, &mut warnings)?,
        None => {
            warnings.push(Warning {
                path: child("", type_key),
                code: "unknown_type",
                message: format!(
                    "unknown event type {} (kept as is)",
                    crate::json::quote(kind)
                ),
            });
            Value::Object(payload_in.into_owned())
        }
    };
    let mut out = Map::new();
    out.insert("type".into(), Value::from(kind));
    out.insert("session_id".into(), session_id);
    out.insert("execution_id".into(), execution_id);
    out.insert("timestamp".into(), timestamp);
    out.insert("payload".into(), payload);
    if !native {
        let extra: Map<String, Value> = m
            .iter()
            .filter(|(k, _)| !ENVELOPE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for k in extra.keys() {
            warnings.push(Warning {
                path: child("", k),
                code: "unknown_field",
                message: format!(
                    "unknown envelope field {} (kept in extra)",
                    crate::json::quote(k)
                ),
            });
        }
        if !extra.is_empty() {
            out.insert("extra".into(), Value::Object(extra));
        }
    }
    Ok(Decoded {
        envelope: Value::Object(out),
        warnings,
    })
}

/// A JSONL batch: every line decoded, failures collected with their line
/// number (the first 1,000 listed, all counted). A leading byte order mark is
/// not part of the first line.
pub fn decode_lines(text: &str) -> (Vec<Decoded>, crate::error::LineErrors) {
    let mut ok = Vec::new();
    let mut errors = crate::error::LineErrors::default();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match decode_text(line) {
            Ok(d) => ok.push(d),
            Err(e) => errors.push(i + 1, e),
        }
    }
    (ok, errors)
}

/// Checks a payload of a known type with the rules [`decode_value`] applies,
/// without keeping the result (the encoder's guard on what it copies). Paths
/// are relative to the payload (`/step_number`).
pub fn check_payload(kind: &str, payload: &Map<String, Value>) -> Result<()> {
    match fields(kind) {
        Some(spec) => normalise(payload, spec, "", &mut Vec::new()).map(drop),
        None => Ok(()),
    }
}

fn normalise(
    input: &Map<String, Value>,
    spec: &[Field],
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Value> {
    let mut out = Map::new();
    for f in spec {
        let found = std::iter::once(f.name)
            .chain(f.aliases.iter().copied())
            .find_map(|k| input.get(k).map(|v| (k, v)));
        match found {
            None | Some((_, Value::Null)) if f.required => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &child(path, f.name),
                    format!("expected `{}`", f.name),
                ))
            }
            None => {}
            Some((_, Value::Null)) => {
                out.insert(f.name.into(), Value::Null);
            }
            Some((key, v)) => {
                let p = child(path, key);
                match f.kind {
                    Kind::ToolCount => match v {
                        Value::Array(names) => {
                            out.insert(f.name.into(), Value::from(names.len()));
                            out.insert("available_tool_names".into(), checked(v, Kind::Any, &p)?);
                        }
                        _ => {
                            out.insert(f.name.into(), checked(v, Kind::Int, &p)?);
                        }
                    },
                    kind => {
                        out.insert(f.name.into(), checked(v, kind, &p)?);
                    }
                }
            }
        }
    }
    // The encoder's cap (`cap::fit`) marks a shortened payload of any type.
    match input.get(TRUNCATED) {
        None => {}
        Some(Value::Null) => {
            out.insert(TRUNCATED.into(), Value::Null);
        }
        Some(v) => {
            out.insert(
                TRUNCATED.into(),
                checked(v, Kind::Bool, &child(path, TRUNCATED))?,
            );
        }
    }
    let known =
        |k: &str| k == TRUNCATED || spec.iter().any(|f| f.name == k || f.aliases.contains(&k));
    let extra: Map<String, Value> = input
        .iter()
        .filter(|(k, _)| !known(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for k in extra.keys() {
        warnings.push(Warning {
            path: child(path, k),
            code: "unknown_field",
            message: format!(
                "unknown payload field {} (kept in payload.extra)",
                crate::json::quote(k)
            ),
        });
    }
    if !extra.is_empty() {
        out.insert("extra".into(), Value::Object(extra));
    }
    Ok(Value::Object(out))
}

fn checked(v: &Value, kind: Kind, path: &str) -> Result<Value> {
    let wrong = |expected: &str| {
        SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!("expected {expected}, found {}", type_name(v)),
        )
    };
    Ok(match kind {
        Kind::Str => v
            .as_str()
            .map(Value::from)
            .ok_or_else(|| wrong("a string"))?,
        Kind::Int => match v {
            Value::Number(n) => match crate::json::whole(n) {
                // Rewritten, not cloned: `-0` arrives as the float -0.0.
                Whole::Int(i) => Value::from(i),
                // Kept as it was always read: counters up to u64::MAX.
                Whole::OutOfRange if n.is_u64() => v.clone(),
                Whole::OutOfRange => return Err(out_of_range(n, path)),
                Whole::NotWhole => return Err(wrong("an integer")),
            },
            _ => return Err(wrong("an integer")),
        },
        Kind::Num if v.is_number() => v.clone(),
        Kind::Num => return Err(wrong("a number")),
        Kind::Bool if v.is_boolean() => v.clone(),
        Kind::Bool => return Err(wrong("a boolean")),
        Kind::Object if v.is_object() || matches!(v, Value::Array(a) if a.is_empty()) => v.clone(),
        Kind::Object => return Err(wrong("an object")),
        Kind::Any => v.clone(),
        Kind::ToolCount => v.clone(),
        Kind::Usage => usage(v, path)?,
        Kind::Evaluations => evaluations(v, path)?,
    })
}

/// `{input, output, cacheWrite, cacheRead, reasoning}`, from either usage form.
fn usage(v: &Value, path: &str) -> Result<Value> {
    let m = match v {
        Value::Object(m) => m,
        Value::Array(a) if a.is_empty() => return Ok(usage_value([0, 0, 0, 0, 0])),
        other => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                path,
                format!("expected usage as an object, found {}", type_name(other)),
            ))
        }
    };
    let int = |k: &str| -> Result<i64> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(0),
            Some(Value::Number(n)) => match crate::json::whole(n) {
                Whole::Int(i) => Ok(i),
                Whole::OutOfRange => Err(out_of_range(n, &child(path, k))),
                Whole::NotWhole => Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(path, k),
                    format!(
                        "expected `{k}` as an integer, found {}",
                        crate::json::number_text(n)
                    ),
                )),
            },
            Some(other) => Err(SteplineError::at(
                ErrorCode::InvalidType,
                &child(path, k),
                format!("expected `{k}` as an integer, found {}", type_name(other)),
            )),
        }
    };
    let seed_form =
        !m.contains_key("input") && (m.contains_key("prompt") || m.contains_key("completion"));
    Ok(if seed_form {
        usage_value([int("prompt")?, int("completion")?, 0, 0, 0])
    } else {
        usage_value([
            int("input")?,
            int("output")?,
            int("cacheWrite")?,
            int("cacheRead")?,
            int("reasoning")?,
        ])
    })
}

fn out_of_range(n: &serde_json::Number, path: &str) -> SteplineError {
    SteplineError::at(
        ErrorCode::OutOfRange,
        path,
        format!(
            "expected an integer from -2^63 to 2^63-1, found {}",
            crate::json::number_text(n)
        ),
    )
}

fn usage_value([input, output, cache_write, cache_read, reasoning]: [i64; 5]) -> Value {
    obj([
        ("input", Value::from(input)),
        ("output", Value::from(output)),
        ("cacheWrite", Value::from(cache_write)),
        ("cacheRead", Value::from(cache_read)),
        ("reasoning", Value::from(reasoning)),
    ])
}

fn evaluations(v: &Value, path: &str) -> Result<Value> {
    let list = v.as_array().ok_or_else(|| {
        SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!("expected evaluations as an array, found {}", type_name(v)),
        )
    })?;
    for (i, e) in list.iter().enumerate() {
        let p = index(path, i);
        let m = e.as_object().ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidType,
                &p,
                format!("expected an evaluation object, found {}", type_name(e)),
            )
        })?;
        for (k, required) in [("criterion", true), ("decision", true), ("reason", false)] {
            match m.get(k) {
                Some(Value::String(_)) => {}
                None | Some(Value::Null) if !required => {}
                None | Some(Value::Null) => {
                    return Err(SteplineError::at(
                        ErrorCode::MissingField,
                        &child(&p, k),
                        format!("expected `{k}`"),
                    ))
                }
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        &child(&p, k),
                        format!("expected `{k}` as a string, found {}", type_name(other)),
                    ))
                }
            }
        }
    }
    Ok(v.clone())
}
