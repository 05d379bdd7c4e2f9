//! Tool-call arguments copied into an assistant message's content (seed 004,
//! issue 1): the reference's OpenAI-compatible driver falls back to the first
//! tool call's arguments when a tool-calling response has no text, and the
//! agent appends that as the assistant message. The slim serializer removes
//! them under `redactToolArgs` and the diagnostics flag them; both ask here.

use crate::json::{Limits, Value};

/// How sure the match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leak {
    /// The content is the call's arguments: the same text after trimming, or
    /// the same JSON value.
    Exact,
    /// The content is the arguments cut by a snapshot's content limit (their
    /// beginning followed by `...`).
    Truncated,
    /// The call's arguments were redacted (`{id, name}` only), and the content
    /// is JSON object text, which an assistant's answer beside a tool call
    /// is not: the arguments cannot be compared, only recognised.
    Redacted,
}

/// The first of `calls` (the message's `_metadata.tool_calls`) whose arguments
/// `content` holds, with how sure that is. `None` for content that is not one
/// of them (natural text, empty content).
pub fn leaked_call<'a>(content: &str, calls: &'a [Value]) -> Option<(&'a Value, Leak)> {
    let content = content.trim();
    if content.is_empty() {
        return None;
    }
    let parsed = json(content);
    let mut redacted = None;
    for call in calls {
        match arguments(call) {
            Some(Value::String(a)) => {
                let a = a.trim();
                if a.is_empty() {
                    continue;
                }
                if a == content || (parsed.is_some() && parsed == json(a)) {
                    return Some((call, Leak::Exact));
                }
                if is_cut_of(content, a) {
                    return Some((call, Leak::Truncated));
                }
            }
            Some(a @ (Value::Object(_) | Value::Array(_))) => {
                if parsed.as_ref() == Some(a) {
                    return Some((call, Leak::Exact));
                }
                if is_cut_of(content, &crate::php::json_encode(a)) {
                    return Some((call, Leak::Truncated));
                }
            }
            Some(_) => {}
            None => {
                if redacted.is_none() && looks_like_arguments(content, parsed.as_ref()) {
                    redacted = Some(call);
                }
            }
        }
    }
    redacted.map(|call| (call, Leak::Redacted))
}

/// The call's arguments (`function.arguments`, or a flat `arguments`).
fn arguments(call: &Value) -> Option<&Value> {
    call.get("function")
        .and_then(|f| f.get("arguments"))
        .or_else(|| call.get("arguments"))
        .filter(|a| !a.is_null())
}

/// `content` is `args` cut short and marked with `...` (as slim truncation writes it).
fn is_cut_of(content: &str, args: &str) -> bool {
    match content.strip_suffix("...") {
        Some(body) => {
            let body = body.trim_start();
            body.starts_with(['{', '['])
                && body.len() < args.len()
                && args.as_bytes().starts_with(body.as_bytes())
        }
        None => false,
    }
}

/// A JSON object as text, whole or cut by a content limit.
fn looks_like_arguments(content: &str, parsed: Option<&Value>) -> bool {
    match parsed {
        Some(v) => v.is_object(),
        None => content.starts_with("{\"") && content.ends_with("..."),
    }
}

/// `s` as a JSON object or array, if it is one.
fn json(s: &str) -> Option<Value> {
    if !s.starts_with(['{', '[']) {
        return None;
    }
    crate::json::parse(s, &Limits::default()).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_as_content_are_an_exact_leak() {
        use crate::json;
        use crate::model::leaked_args::{leaked_call, Leak};
        let calls = json!([{"id": "call_1", "function": {"name": "search", "arguments": "{\"q\":\"paris\"}"}}]);
        let calls = calls.as_array().unwrap();
        assert_eq!(
            leaked_call(" {\"q\": \"paris\"} ", calls).map(|(_, l)| l),
            Some(Leak::Exact)
        );
        assert_eq!(leaked_call("It is sunny.", calls), None);
    }
}
