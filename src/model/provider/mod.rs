//! Provider payloads turned into [`InferenceResponse`]s (seed 004, issue 1).
//!
//! The reference's OpenAI adapter fell back to the first tool call's arguments
//! when a response had no text, so tool-call JSON became assistant "content" and
//! leaked into the conversation and the UI. stepline never does that (DESIGN.md
//! section 1, fix 5) unless `compat_tool_args_as_content` asks to reproduce it.

pub mod openai;

use crate::json::Value;

use crate::model::inference::InferenceResponse;
use crate::model::message::Message;
use crate::model::role::Role;
use crate::model::tool_call::ToolCall;

/// Options for normalising provider payloads.
#[derive(Clone, Copy, Debug, Default)]
pub struct NormalizeOptions {
    /// Reproduce the reference bug: empty content falls back to the first tool
    /// call's arguments. Off by default.
    pub compat_tool_args_as_content: bool,
}

/// A normalised response plus the assistant text message an agent should append.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalized {
    /// The response in the reference's shape.
    pub response: InferenceResponse,
    /// `Some` only when the response carries real text: not empty, and not merely
    /// a copy of a tool call's arguments.
    pub assistant_message: Option<Message>,
}

impl Normalized {
    /// The response with its assistant message, when it carries real text.
    pub fn new(response: InferenceResponse) -> Normalized {
        let assistant_message = real_text(&response.content, &response.tool_calls.0)
            .then(|| Message::new(Role::Assistant, &response.content));
        Normalized {
            response,
            assistant_message,
        }
    }
}

/// True when `content` is natural text rather than empty or a tool call's JSON arguments.
pub fn real_text(content: &str, calls: &[ToolCall]) -> bool {
    if content.trim().is_empty() {
        return false;
    }
    match crate::json::from_str(content) {
        Ok(parsed @ Value::Object(_)) => !calls.iter().any(|c| c.arguments == parsed),
        _ => true,
    }
}
