//! Reading an AG-UI event's fields: every failure is a typed error with a
//! JSON pointer into the event.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Map, Value};

/// The second the last event's `timestamp` fell in, and that second
/// written (`2026-01-20T12:00:00`): a stream's events arrive milliseconds
/// apart, so most share it and only their milliseconds are written anew.
#[derive(Debug, Default, Clone)]
pub(super) struct LastSecond(Option<(i64, String)>);

/// `timestamp` (milliseconds since the epoch, as every AG-UI SDK writes it)
/// as RFC 3339 (as `crate::model::time::format_utc_millis` writes it).
pub(super) fn timestamp(event: &Map, last: &mut LastSecond) -> Result<Option<String>> {
    let ms = match event.get("timestamp") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(wrong(
                "timestamp",
                "a number (milliseconds since 1970)",
                other,
            ))
        }
    };
    millis(ms, last)
}

/// [`timestamp`] of the number `ms` an event's `timestamp` holds (one
/// copy for both callers: wasm size).
#[inline(never)]
pub(super) fn millis(ms: Option<f64>, last: &mut LastSecond) -> Result<Option<String>> {
    // The second and the nanoseconds as `from_epoch_millis` splits them.
    if let Some(ms) = ms.filter(|ms| ms.is_finite()) {
        let secs = (ms / 1000.0).floor();
        if let Some((second, written)) = &last.0 {
            if *second == secs as i64 {
                let nanos = ((ms - secs * 1000.0) * 1_000_000.0)
                    .round()
                    .clamp(0.0, 999_999_999.0) as u32;
                let millis = nanos / 1_000_000;
                let digit = |v: u32| char::from(b'0' + (v % 10) as u8);
                let mut out = String::with_capacity(written.len() + 5);
                out.push_str(written);
                out.push('.');
                out.push(digit(millis / 100));
                out.push(digit(millis / 10));
                out.push(digit(millis));
                out.push('Z');
                return Ok(Some(out));
            }
        }
    }
    let t = ms
        .and_then(crate::model::time::from_epoch_millis)
        .filter(crate::model::time::in_atom_range)
        .ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidTimestamp,
                "/timestamp",
                "expected milliseconds since 1970 within years 0 to 9999",
            )
        })?;
    let written = crate::model::time::format_utc_millis(&t);
    if let Some(ms) = ms {
        // Without its `.mmmZ`.
        let second = written.get(..written.len().saturating_sub(5));
        last.0 = second.map(|s| ((ms / 1000.0).floor() as i64, s.to_string()));
    }
    Ok(Some(written))
}

/// Token usage of `RUN_FINISHED` / `RUN_ERROR`: the entries summed into the
/// view's usage, and the entries as sent.
pub(super) fn usage(event: &Map) -> Result<Option<(Map, Value)>> {
    let entries = match event.get("usage") {
        None | Some(Value::Null) => return Ok(None),
        Some(v @ Value::Array(_)) => v,
        Some(other) => return Err(wrong("usage", "an array", other)),
    };
    let keys = [
        ("inputTokens", "input"),
        ("outputTokens", "output"),
        ("cachedInputTokens", "cacheRead"),
        ("cacheWriteInputTokens", "cacheWrite"),
        ("reasoningTokens", "reasoning"),
    ];
    let mut sums = [0i64; 5];
    for (i, entry) in entries.as_array().into_iter().flatten().enumerate() {
        let at = format!("/usage/{i}");
        let Some(m) = entry.as_object() else {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &at,
                format!("expected a token usage object, found {}", type_name(entry)),
            ));
        };
        for ((key, _), sum) in keys.iter().zip(sums.iter_mut()) {
            let n = match m.get(key) {
                None | Some(Value::Null) => 0,
                Some(Value::Number(n)) => match crate::json::whole(n) {
                    crate::json::Whole::Int(n) if n >= 0 => n,
                    _ => {
                        return Err(SteplineError::at(
                            ErrorCode::OutOfRange,
                            &child(&at, key),
                            format!("expected `{key}` to be a whole number of tokens, 0 or more"),
                        ))
                    }
                },
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        &child(&at, key),
                        format!(
                            "expected `{key}` to be a number, found {}",
                            type_name(other)
                        ),
                    ))
                }
            };
            *sum = sum.saturating_add(n);
        }
    }
    let mut total = Map::with_capacity(5);
    for ((_, name), sum) in keys.iter().zip(sums) {
        total.insert(*name, Value::from(sum));
    }
    Ok(Some((total, entries.clone())))
}

pub(super) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    crate::json::obj(pairs)
}

pub(super) fn missing(key: &str) -> SteplineError {
    SteplineError::at(
        ErrorCode::MissingField,
        &child("", key),
        format!("expected the event to have `{key}`"),
    )
}

pub(super) fn wrong(key: &str, expected: &str, found: &Value) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidType,
        &child("", key),
        format!(
            "expected `{key}` to be {expected}, found {}",
            type_name(found)
        ),
    )
}

/// [`req_str`], the string taken out of the event (an empty one left):
/// the envelope it goes to owns it without a copy.
pub(super) fn take_str(m: &mut Map, key: &str) -> Result<String> {
    req_str(m, key)?;
    Ok(match m.get_mut(key) {
        Some(Value::String(s)) => std::mem::take(s),
        _ => String::new(),
    })
}

pub(super) fn req_str<'a>(m: &'a Map, key: &str) -> Result<&'a str> {
    req_str_at(m, key, "")
}

pub(super) fn req_str_at<'a>(m: &'a Map, key: &str, at: &str) -> Result<&'a str> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s),
        None => Err(SteplineError::at(
            ErrorCode::MissingField,
            &child(at, key),
            format!("expected `{key}`"),
        )),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidType,
            &child(at, key),
            format!(
                "expected `{key}` to be a string, found {}",
                type_name(other)
            ),
        )),
    }
}

/// An optional string; `null` reads as absent (producers that serialise
/// optional fields as `null`, which @ag-ui/core tolerates).
pub(super) fn opt_str<'a>(m: &'a Map, key: &str) -> Result<Option<&'a str>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong(key, "a string", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::{timestamp, LastSecond};
    use crate::json::{Map, Value};

    #[test]
    fn a_timestamp_in_the_second_before_it_is_written_as_one_read_alone() {
        let stamps = [
            1_795_168_800_000.0,
            1_795_168_800_010.0,
            1_795_168_800_999.0,
            1_795_168_800_999.7,
            1_795_168_800_999.999_9,
            1_795_168_801_000.0,
            1_795_168_801_000.4,
            1_795_168_801_000.5,
            1_795_168_800_500.0,
            -1.0,
            -999.0,
            -1000.0,
            -0.4,
            0.0,
            253_402_300_799_999.0,
            253_402_300_799_999.5,
            253_402_300_800_000.0,
            253_402_300_799_000.0,
        ];
        let mut last = LastSecond::default();
        for ms in stamps {
            let mut event = Map::new();
            event.insert("timestamp", Value::from(ms));
            let alone = timestamp(&event, &mut LastSecond::default());
            let after = timestamp(&event, &mut last);
            match (alone, after) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{ms}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{ms}"),
                (a, b) => panic!("{ms}: {a:?} alone, {b:?} after the one before"),
            }
        }
    }
}
