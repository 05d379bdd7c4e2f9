//! Keeping every envelope under the broadcaster's message limit (Reverb and
//! Pusher reject messages over 10 KB by default): texts are shortened at
//! character boundaries, never into invalid JSON or a broken UTF-8 sequence,
//! and the payload says so with `truncated: true`. Stream chunks are split
//! instead (see [`split_text`]).

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result, SteplineError};
use crate::snapshot::truncate::truncate;

/// Reverb's and Pusher's default limit.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 10_000;

/// Bytes of the compact JSON encoding.
pub fn encoded_len(v: &Value) -> usize {
    crate::json::to_string(v).len()
}

/// Shortens the envelope's payload until the whole envelope fits `max` bytes:
/// first every long string (halving the allowed length), then the largest
/// nested lists and objects (emptied). Marks the payload `truncated: true`.
/// Fails with `too_large` when even an empty payload does not fit.
pub fn fit(mut envelope: Value, max: usize) -> Result<Value> {
    if encoded_len(&envelope) <= max {
        return Ok(envelope);
    }
    let Some(Value::Object(payload)) = envelope.get_mut("payload") else {
        return Err(too_large(max, encoded_len(&envelope)));
    };
    payload.insert("truncated", Value::Bool(true));
    let longest = payload.values().map(longest_string).max().unwrap_or(0);
    fit_containers(envelope, max, longest)
}

/// Keeps halving string lengths, then empties the biggest containers.
fn fit_containers(mut envelope: Value, max: usize, mut limit: usize) -> Result<Value> {
    loop {
        if encoded_len(&envelope) <= max {
            return Ok(envelope);
        }
        let Some(Value::Object(payload)) = envelope.get_mut("payload") else {
            break;
        };
        if limit > 8 {
            limit /= 2;
            for v in payload.values_mut() {
                shorten_strings(v, limit);
            }
            continue;
        }
        // Strings are as short as they get: empty the largest list or object.
        let biggest = payload
            .iter()
            .filter(|(_, v)| {
                matches!(v, Value::Array(a) if !a.is_empty())
                    || matches!(v, Value::Object(o) if !o.is_empty())
            })
            .max_by_key(|(_, v)| encoded_len(v))
            .map(|(k, _)| k.clone());
        match biggest {
            Some(key) => {
                let emptied = if payload.get(&key).is_some_and(Value::is_array) {
                    Value::Array(Vec::new())
                } else {
                    Value::Object(Map::new())
                };
                payload.insert(key, emptied);
            }
            None => break,
        }
    }
    let size = encoded_len(&envelope);
    if size <= max {
        Ok(envelope)
    } else {
        Err(too_large(max, size))
    }
}

fn too_large(max: usize, size: usize) -> SteplineError {
    SteplineError::new(
        ErrorCode::TooLarge,
        None,
        format!("expected an envelope within maxMessageBytes {max}, but even with its payload shortened it takes {size} bytes"),
    )
}

fn longest_string(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(m) => m.values().map(longest_string).max().unwrap_or(0),
        _ => 0,
    }
}

fn shorten_strings(v: &mut Value, limit: usize) {
    match v {
        Value::String(s) => {
            if let Some(cut) = truncate(s, limit as i64, false) {
                *s = cut;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| shorten_strings(x, limit)),
        Value::Object(m) => m.values_mut().for_each(|x| shorten_strings(x, limit)),
        _ => {}
    }
}

/// Splits `text` into pieces whose JSON-escaped form takes at most `budget`
/// bytes each, at character boundaries (for stream chunks that must not be cut).
pub fn split_text(text: &str, budget: usize) -> Vec<&str> {
    let budget = budget.max(12);
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, ch) in text.char_indices() {
        let cost = match ch {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{08}' | '\u{0c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if used + cost > budget && i > start {
            pieces.push(&text[start..i]);
            start = i;
            used = 0;
        }
        used += cost;
    }
    if start < text.len() || pieces.is_empty() {
        pieces.push(&text[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn long_texts_are_shortened_until_the_envelope_fits() {
        let envelope = json!({"type": "agent.tool.completed", "session_id": "s", "payload": {"error": "ż".repeat(20_000), "tool_name": "t"}});
        let fitted = fit(envelope, 1_000).unwrap();
        assert!(encoded_len(&fitted) <= 1_000);
        assert_eq!(fitted["payload"]["truncated"], true);
        assert!(fitted["payload"]["error"]
            .as_str()
            .unwrap()
            .ends_with("..."));
    }

    #[test]
    fn huge_lists_are_emptied_when_shortening_strings_is_not_enough() {
        let envelope = json!({"type": "agent.tool.started", "session_id": "s", "payload": {"tool_name": "t", "args": {"ids": (0..5000).collect::<Vec<_>>()}}});
        let fitted = fit(envelope, 500).unwrap();
        assert!(encoded_len(&fitted) <= 500);
        assert_eq!(fitted["payload"]["args"], json!({}));
    }

    #[test]
    fn an_envelope_that_cannot_fit_is_an_error() {
        let envelope = json!({"type": "agent.status", "session_id": "s".repeat(2_000), "payload": {"status": "x"}});
        assert_eq!(fit(envelope, 500).unwrap_err().code, ErrorCode::TooLarge);
    }

    #[test]
    fn texts_split_at_character_boundaries_within_the_escaped_budget() {
        let text = "a\"b".repeat(10) + &"🚀".repeat(10);
        let pieces = split_text(&text, 12);
        assert_eq!(pieces.concat(), text);
        for p in &pieces {
            assert!(crate::json::to_string(p).len() <= 14, "{p:?}");
        }
    }
}
