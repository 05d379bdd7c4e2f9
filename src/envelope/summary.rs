//! Tool-argument summaries and truncation, as the reference adapter writes them.

use crate::json::{Map, Value};

use crate::php;
use crate::snapshot::truncate::truncate;

/// The first three arguments as `key: value`: strings single-quoted without
/// escaping, anything else JSON-encoded with PHP's defaults (`\u00f3`, `\/`);
/// a value over 30 bytes is cut to 27 bytes plus `...` (at a character boundary
/// unless `compat`). Arguments that are not an array summarise to `""`.
pub fn summarize_args(args: &Value, compat: bool) -> String {
    let parts: Vec<String> = entries(args)
        .into_iter()
        .take(3)
        .map(|(key, value)| {
            let text = match value {
                Value::String(s) => format!("'{s}'"),
                other => php::json_encode(other),
            };
            let text = if text.len() > 30 {
                truncate_to(&text, 27, compat)
            } else {
                text
            };
            format!("{key}: {text}")
        })
        .collect();
    parts.join(", ")
}

/// Every argument, with top-level strings longer than `max` bytes cut to `max`
/// bytes plus `...` (at a character boundary unless `compat`). Not an array → `[]`.
/// As the reference's `truncateArgs` (`strlen($v) > $max`, then `substr($v,
/// 0, $max) . '...'`): 0 cuts every non-empty string to `...`, and a negative
/// `max` is PHP's negative length, cutting every string (even an empty one)
/// to all but its last `-max` bytes.
pub fn truncate_args(args: &Value, max: i64, compat: bool) -> Value {
    let cut = |v: &Value| match v {
        Value::String(s) if max < 0 => {
            let keep = i64::try_from(s.len())
                .unwrap_or(i64::MAX)
                .saturating_add(max)
                .max(0);
            // `truncate` leaves only an empty string uncut; PHP still appends `...`.
            Value::String(truncate(s, keep, compat).unwrap_or_else(|| "...".into()))
        }
        Value::String(s) => truncate(s, max, compat).map_or_else(|| v.clone(), Value::String),
        other => other.clone(),
    };
    match args {
        Value::Array(list) => Value::Array(list.iter().map(cut).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), cut(v))).collect::<Map>())
        }
        _ => Value::Array(Vec::new()),
    }
}

fn truncate_to(text: &str, max: i64, compat: bool) -> String {
    truncate(text, max, compat).unwrap_or_else(|| text.to_string())
}

/// `(key, value)` of a PHP array: list indexes or object keys, in order.
fn entries(args: &Value) -> Vec<(String, &Value)> {
    match args {
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        Value::Object(m) => m.iter().map(|(k, v)| (k.to_string(), v)).collect(),
        _ => Vec::new(),
    }
}
