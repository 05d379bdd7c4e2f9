//! Provider payloads turned into [`InferenceResponse`]s (seed 004, issue 1).
//!
//! The reference's OpenAI adapter fell back to the first tool call's arguments
//! when a response had no text, so tool-call JSON became assistant "content" and
//! leaked into the conversation and the UI. stepline never does that unless
//! `compat_tool_args_as_content` asks to reproduce it.

pub mod openai;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{Map, Value};
use crate::model::read;
use crate::model::shape::now_of;
use crate::model::time::NowSpec;

use crate::model::finish_reason::FinishReason;
use crate::model::inference::InferenceResponse;
use crate::model::message::{Message, MessageView};
use crate::model::role::Role;
use crate::model::tool_call::ToolCall;

/// Options for normalising provider payloads.
#[derive(Clone, Copy, Debug, Default)]
pub struct NormalizeOptions {
    /// Reproduce the reference bug: empty content falls back to the first tool
    /// call's arguments. Off by default.
    pub compat_tool_args_as_content: bool,
}

/// The provider of a payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    /// OpenAI chat completions (the only one for now).
    #[default]
    Openai,
}

/// Options of `normalizeInferenceResponse` and `InferenceStreamAccumulator`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NormalizeInferenceOptions {
    /// Only `"openai"` (chat completions) for now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The time stamped on the response: an ISO string or epoch milliseconds. Default: now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<NowSpec>,
    /// Reproduce the producer's bugs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compat: Option<InferenceCompat>,
}

/// The producer's bugs `normalizeInferenceResponse` can reproduce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct InferenceCompat {
    /// Reproduce the reference bug: empty content falls back to the first tool call's arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_args_as_content: Option<bool>,
}

impl NormalizeInferenceOptions {
    /// Reads the options object (path `/options`).
    pub fn read(opts: &Map) -> Result<NormalizeInferenceOptions> {
        read::only_keys(opts, &["provider", "now", "compat"], "/options")?;
        let provider = match read::opt_str(opts, "provider", "/options")? {
            None => None,
            Some("openai") => Some(Provider::Openai),
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    "/options/provider",
                    format!(
                        "expected provider \"openai\", found {}",
                        crate::json::quote(other)
                    ),
                ))
            }
        };
        let compat = match opts.get("compat").filter(|v| !v.is_null()) {
            None => None,
            Some(compat) => {
                let compat = read::object(compat, "/options/compat", "compat options")?;
                read::only_keys(compat, &["toolArgsAsContent"], "/options/compat")?;
                Some(InferenceCompat {
                    tool_args_as_content: Some(read::bool_or(compat, "toolArgsAsContent", false)),
                })
            }
        };
        Ok(NormalizeInferenceOptions {
            provider,
            compat,
            now: now_of(opts)?,
        })
    }

    /// What the normaliser itself is told.
    pub fn core(&self) -> NormalizeOptions {
        NormalizeOptions {
            compat_tool_args_as_content: self
                .compat
                .and_then(|c| c.tool_args_as_content)
                .unwrap_or(false),
        }
    }
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

impl Normalized {
    /// What `normalizeInferenceResponse` returns.
    pub fn view(&self) -> NormalizedInference<'_> {
        NormalizedInference {
            response: &self.response,
            finish_reason: self.response.finish_reason(),
            assistant_message: self.assistant_message.as_ref().map(Message::view),
        }
    }
}

/// A normalised provider response.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NormalizedInference<'a> {
    /// The response in the producer's `InferenceResponse` form.
    pub response: &'a InferenceResponse,
    /// The normalised finish reason.
    pub finish_reason: FinishReason,
    /// The assistant message to append, or `null` when there is no real text.
    /// (A [`Message`] written by `toArray`: its `content` is left out when it
    /// is `"0"`, which PHP counts as empty.)
    #[cfg_attr(feature = "schema", schemars(schema_with = "assistant_message"))]
    pub assistant_message: Option<MessageView<'a>>,
}

/// What [`NormalizedInference::assistant_message`] can hold: a text message
/// from the assistant, never a name or metadata.
#[cfg(feature = "schema")]
fn assistant_message(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "role": { "const": "assistant" },
                    "content": { "type": "string", "description": "The model's text." }
                },
                "required": ["role"]
            },
            { "type": "null" }
        ]
    })
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
