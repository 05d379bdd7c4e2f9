//! Raw provider frames in a stream: with a real streaming HTTP driver,
//! instructor-php v2.7's wiretapped broadcaster sends every SSE frame's raw
//! provider JSON as an `agent.stream.chunk` between the text deltas (its
//! vectors' README, item 15). The envelope does not mark them, so the decoder
//! recognises them here, strictly: a chunk is a frame only when its whole
//! content is a JSON object with a provider's frame shape. A model that
//! streams JSON text never loses a delta: a delta that happens to be a whole
//! JSON object is text unless it has exactly that shape.

use crate::json::{Limits, Value};

/// Frames are small; anything deeper or larger is not one.
const FRAME_LIMITS: Limits = Limits {
    max_bytes: 64 * 1024,
    max_depth: 16,
};

/// The provider whose raw stream frame `content` is (`"openai"` or
/// `"anthropic"`), or `None` for text.
///
/// - OpenAI chat completions: `{id: string, object: "chat.completion.chunk",
///   choices: [...]}`.
/// - Anthropic messages: `{type: "content_block_delta", index: n, delta: {type, ...}}`,
///   `{type: "content_block_start", index: n, content_block: {...}}`,
///   `{type: "content_block_stop", index: n}`, `{type: "message_start",
///   message: {id, ...}}`, `{type: "message_delta", delta: {...}, usage: {...}}`.
pub fn provider_frame(content: &str) -> Option<&'static str> {
    // A cheap refusal first: most chunks are text. (No substring search: its
    // searcher costs the live entry a kilobyte.)
    if !(content.starts_with('{') && content.ends_with('}')) {
        return None;
    }
    let v = crate::json::parse(content, &FRAME_LIMITS).ok()?;
    let m = v.as_object()?;
    let s = |k: &str| m.get(k).and_then(Value::as_str);
    let is = |k: &str, f: fn(&Value) -> bool| m.get(k).is_some_and(f);
    if s("object") == Some("chat.completion.chunk")
        && is("id", Value::is_string)
        && is("choices", Value::is_array)
    {
        return Some("openai");
    }
    let index = is("index", Value::is_u64);
    let anthropic = match s("type")? {
        "content_block_delta" => {
            index
                && m.get("delta")
                    .and_then(|d| d.get("type"))
                    .is_some_and(Value::is_string)
        }
        "content_block_start" => index && is("content_block", Value::is_object),
        "content_block_stop" => index && m.len() == 2,
        "message_start" => m
            .get("message")
            .and_then(|x| x.get("id"))
            .is_some_and(Value::is_string),
        "message_delta" => is("delta", Value::is_object) && is("usage", Value::is_object),
        _ => false,
    };
    anthropic.then_some("anthropic")
}

#[cfg(test)]
mod tests {
    #[test]
    fn provider_frames_are_recognised_strictly() {
        use crate::envelope::frames::provider_frame;
        let frame = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}"#;
        assert_eq!(provider_frame(frame), Some("openai"));
        assert_eq!(
            provider_frame(r#"{"object":"chat.completion.chunk"}"#),
            None
        ); // no id, no choices
        assert_eq!(provider_frame("Hello"), None);
    }

    use super::provider_frame;

    #[test]
    fn json_text_that_is_not_frame_shaped_is_text() {
        for text in [
            r#"{"answer": 42}"#,
            r#"{"object":"chat.completion.chunk","choices":[]}"#,
            r#"{"id":"x","object":"chat.completion","choices":[]}"#,
            r#"{"type":"content_block_delta","text":"hi"}"#,
            r#"{"type":"message_stop"}"#,
            r#"{"id":"x","object":"chat.completion.chunk","choices":[]"#,
            "[1, 2]",
        ] {
            assert_eq!(provider_frame(text), None, "{text}");
        }
    }

    #[test]
    fn anthropic_frames_are_recognised() {
        let delta =
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#;
        assert_eq!(provider_frame(delta), Some("anthropic"));
        let start = r#"{"type":"message_start","message":{"id":"msg_1","type":"message"}}"#;
        assert_eq!(provider_frame(start), Some("anthropic"));
    }
}
