//! OpenAI chat completions: whole responses and streamed chunks.

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result};
use crate::json::{child, index, type_name};
use crate::model::ids::new_id;
use crate::model::inference::{InferenceResponse, ResponseData};
use crate::model::provider::{NormalizeOptions, Normalized};
use crate::model::read;
use crate::model::time::Timestamp;
use crate::model::tool_call::{decode_arguments, ToolCall, ToolCalls};
use crate::model::usage::Usage;
use crate::php;

/// Normalises a `chat.completion` object.
///
/// Content is `choices[0].message.content` (text parts joined when it is a list);
/// it never falls back to tool-call arguments unless
/// [`NormalizeOptions::compat_tool_args_as_content`] is set.
pub fn normalize_response(
    payload: &Value,
    options: &NormalizeOptions,
    now: &Timestamp,
) -> Result<Normalized> {
    let root = read::object(payload, "", "an OpenAI chat completion")?;
    let choices = match root.get("choices") {
        Some(Value::Array(c)) => c,
        Some(other) => {
            return Err(read::invalid(
                ErrorCode::InvalidType,
                "/choices",
                format!(
                    "expected `choices` to be an array, found {}",
                    type_name(other)
                ),
            ))
        }
        None => {
            return Err(read::invalid(
                ErrorCode::MissingField,
                "/choices",
                "expected a `choices` array",
            ))
        }
    };
    let empty = Map::new();
    let choice = match choices.first() {
        Some(c) => read::object(c, "/choices/0", "a choice")?,
        None => &empty,
    };
    let message = match choice.get("message") {
        Some(m @ Value::Object(_)) => read::object(m, "/choices/0/message", "a message")?,
        _ => &empty,
    };
    let tool_calls = read_tool_calls(message.get("tool_calls"), "/choices/0/message/tool_calls")?;
    let mut content = message_text(message.get("content"), "/choices/0/message/content")?;
    if options.compat_tool_args_as_content && content.is_empty() {
        // Reference quirk (seed 004 issue 1): the first call's raw arguments become content.
        if let Some(args) = first_raw_arguments(message.get("tool_calls")) {
            content = args;
        }
    }
    let response = InferenceResponse {
        content,
        finish_reason_raw: read::opt_scalar_string(choice, "finish_reason", "/choices/0")?
            .unwrap_or_default(),
        tool_calls,
        reasoning_content: reasoning(message),
        usage: usage(root.get("usage")),
        response_data: ResponseData::empty(),
        is_partial: false,
        id: read::opt_scalar_string(root, "id", "")?.unwrap_or_else(new_id),
        created_at: *now,
        updated_at: *now,
    };
    Ok(Normalized::new(response))
}

/// The reference's `OpenAIUsageFormat`: cached prompt tokens count as cache reads.
fn usage(v: Option<&Value>) -> Usage {
    let Some(Value::Object(u)) = v else {
        return Usage::default();
    };
    let nested = |outer: &str, inner: &str| {
        u.get(outer)
            .and_then(|d| d.get(inner))
            .filter(|v| !v.is_null())
    };
    Usage {
        input: u.get("prompt_tokens").map_or(0, php::int_cast),
        output: u.get("completion_tokens").map_or(0, php::int_cast),
        cache_write: 0,
        cache_read: nested("prompt_tokens_details", "cached_tokens").map_or(0, php::int_cast),
        reasoning: nested("completion_tokens_details", "reasoning_tokens")
            .or_else(|| nested("prompt_tokens_details", "reasoning_tokens"))
            .map_or(0, php::int_cast),
    }
}

fn reasoning(message: &Map) -> String {
    ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message.get(k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_string()
}

/// Message content: a string, null, or a list of `{type: "text", text}` parts.
fn message_text(v: Option<&Value>, path: &str) -> Result<String> {
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("")),
        Some(other) => Err(read::invalid(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected message content as a string, a list of parts or null, found {}",
                type_name(other)
            ),
        )),
    }
}

fn first_raw_arguments(v: Option<&Value>) -> Option<String> {
    let args = v?.get(0)?.get("function")?.get("arguments")?;
    match args {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// Tool calls with an `id` and a `function`; others are skipped as the reference does.
fn read_tool_calls(v: Option<&Value>, path: &str) -> Result<ToolCalls> {
    let list = match v {
        None | Some(Value::Null) => return Ok(ToolCalls::default()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(read::invalid(
                ErrorCode::InvalidType,
                path,
                format!(
                    "expected `tool_calls` to be an array, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    let mut calls = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let p = index(path, i);
        let m = read::object(item, &p, "a tool call")?;
        let (Some(id), Some(Value::Object(function))) = (php::get(m, "id"), m.get("function"))
        else {
            continue;
        };
        let fp = child(&p, "function");
        let Some(name) = read::opt_scalar_string(function, "name", &fp)?.filter(|n| !n.is_empty())
        else {
            continue;
        };
        let arguments = decode_arguments(function.get("arguments"), &child(&fp, "arguments"))?;
        let id = id
            .as_str()
            .map(String::from)
            .unwrap_or_else(|| id.to_string());
        calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    Ok(ToolCalls(calls))
}

/// What one streamed chunk added.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamDelta {
    /// New assistant text only: tool-call argument fragments never appear here.
    pub content: String,
    /// New reasoning text.
    pub reasoning: String,
    /// Fragments of tool calls, by index.
    pub tool_calls: Vec<ToolCallDelta>,
    /// The provider's finish reason, set by the chunk that finished the choice.
    pub finish_reason: Option<String>,
    /// True for the `[DONE]` sentinel.
    pub done: bool,
}

/// A fragment of one streamed tool call, addressed by its `index`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolCallDelta {
    /// Which tool call of the response this fragment belongs to.
    pub index: usize,
    /// The call's id, in the fragment that carries it.
    pub id: Option<String>,
    /// The tool's name, in the fragment that carries it.
    pub name: Option<String>,
    /// A piece of the JSON-encoded arguments.
    pub arguments: String,
}

#[derive(Clone, Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Accumulates `chat.completion.chunk`s into one response.
///
/// Unlike the reference (which reads only `tool_calls[0]` of each delta), calls
/// are tracked by their `index`, so parallel tool calls streamed together stay apart.
#[derive(Clone, Debug, Default)]
pub struct StreamAccumulator {
    options: NormalizeOptions,
    id: Option<String>,
    content: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    finish_reason: String,
    usage: Usage,
    chunks: usize,
    done: bool,
}

/// Most tool calls one response may stream (bounds memory on hostile input).
const MAX_STREAMED_TOOL_CALLS: usize = 1024;

impl StreamAccumulator {
    /// An accumulator before its first chunk.
    pub fn new(options: NormalizeOptions) -> StreamAccumulator {
        StreamAccumulator {
            options,
            ..StreamAccumulator::default()
        }
    }

    /// Number of chunks accepted so far.
    pub fn chunk_count(&self) -> usize {
        self.chunks
    }

    /// Accepts one SSE line (`data: {...}`, `data: [DONE]`, blank or comment lines).
    pub fn push_sse_line(&mut self, line: &str) -> Result<StreamDelta> {
        let line = line.trim();
        let Some(data) = line.strip_prefix("data:") else {
            return Ok(StreamDelta::default());
        };
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(StreamDelta {
                done: true,
                ..StreamDelta::default()
            });
        }
        let chunk = crate::json::parse(data, &crate::json::Limits::default())?;
        self.push(&chunk)
    }

    /// Accepts one parsed chunk.
    pub fn push(&mut self, chunk: &Value) -> Result<StreamDelta> {
        let path = format!("/chunks/{}", self.chunks);
        let root = read::object(chunk, &path, "an OpenAI stream chunk")?;
        self.chunks += 1;
        if self.id.is_none() {
            self.id = read::opt_scalar_string(root, "id", &path)?;
        }
        if let Some(u @ Value::Object(_)) = root.get("usage") {
            // Usage in OpenAI streams is cumulative: the latest report wins.
            self.usage = usage(Some(u));
        }
        let mut delta = StreamDelta::default();
        let Some(Value::Array(choices)) = root.get("choices") else {
            return Ok(delta);
        };
        let Some(choice) = choices.first() else {
            return Ok(delta);
        };
        let cp = format!("{path}/choices/0");
        let choice = read::object(choice, &cp, "a choice")?;
        if let Some(d @ Value::Object(_)) = choice.get("delta") {
            let dp = child(&cp, "delta");
            let d = read::object(d, &dp, "a delta")?;
            delta.content = message_text(d.get("content"), &child(&dp, "content"))?;
            delta.reasoning = reasoning(d);
            if let Some(list) = d.get("tool_calls").filter(|v| !v.is_null()) {
                delta.tool_calls = self.read_call_deltas(list, &child(&dp, "tool_calls"))?;
            }
        }
        if let Some(reason) = read::opt_scalar_string(choice, "finish_reason", &cp)? {
            self.finish_reason = reason.clone();
            delta.finish_reason = Some(reason);
        }
        self.content.push_str(&delta.content);
        self.reasoning.push_str(&delta.reasoning);
        Ok(delta)
    }

    fn read_call_deltas(&mut self, list: &Value, path: &str) -> Result<Vec<ToolCallDelta>> {
        let Value::Array(items) = list else {
            return Err(read::invalid(
                ErrorCode::InvalidType,
                path,
                format!(
                    "expected `tool_calls` to be an array, found {}",
                    type_name(list)
                ),
            ));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let p = index(path, i);
            let m = read::object(item, &p, "a tool call delta")?;
            let idx = match m.get("index") {
                Some(Value::Number(n)) => n.as_u64().map(|n| n as usize),
                None => Some(i),
                _ => None,
            }
            .filter(|n| *n < MAX_STREAMED_TOOL_CALLS)
            .ok_or_else(|| {
                read::invalid(
                    ErrorCode::InvalidValue,
                    &child(&p, "index"),
                    format!("expected a tool call index below {MAX_STREAMED_TOOL_CALLS}"),
                )
            })?;
            if self.calls.len() <= idx {
                self.calls.resize_with(idx + 1, PartialCall::default);
            }
            let function = match m.get("function") {
                Some(f @ Value::Object(_)) => {
                    Some(read::object(f, &child(&p, "function"), "a function delta")?)
                }
                _ => None,
            };
            let fp = child(&p, "function");
            let delta = ToolCallDelta {
                index: idx,
                id: read::opt_scalar_string(m, "id", &p)?,
                name: match function {
                    Some(f) => read::opt_scalar_string(f, "name", &fp)?,
                    None => None,
                },
                arguments: match function {
                    Some(f) => read::opt_scalar_string(f, "arguments", &fp)?.unwrap_or_default(),
                    None => String::new(),
                },
            };
            // The list was extended above to hold `idx`.
            if let Some(call) = self.calls.get_mut(idx) {
                if let Some(id) = &delta.id {
                    call.id = id.clone();
                }
                if let Some(name) = &delta.name {
                    call.name.push_str(name);
                }
                call.arguments.push_str(&delta.arguments);
            }
            out.push(delta);
        }
        Ok(out)
    }

    /// Text streamed so far.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The complete response. Tool-call arguments are decoded here, once whole;
    /// arguments that are not valid JSON are an error at `/toolCalls/<i>/arguments`.
    pub fn finish(&self, now: &Timestamp) -> Result<Normalized> {
        let mut calls = Vec::new();
        for (i, c) in self.calls.iter().enumerate() {
            if c.name.is_empty() {
                continue;
            }
            let arguments = decode_arguments(
                Some(&Value::String(c.arguments.clone())),
                &format!("/toolCalls/{i}/arguments"),
            )?;
            calls.push(ToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments,
            });
        }
        let mut content = self.content.clone();
        if self.options.compat_tool_args_as_content && content.is_empty() {
            if let Some(first) = self
                .calls
                .iter()
                .find(|c| !c.name.is_empty() && !c.arguments.is_empty())
            {
                content = first.arguments.clone();
            }
        }
        let mut response_data = ResponseData::empty();
        response_data.is_streamed = true;
        Ok(Normalized::new(InferenceResponse {
            content,
            finish_reason_raw: self.finish_reason.clone(),
            tool_calls: ToolCalls(calls),
            reasoning_content: self.reasoning.clone(),
            usage: self.usage,
            response_data,
            is_partial: !self.done && self.finish_reason.is_empty(),
            id: self.id.clone().unwrap_or_else(new_id),
            created_at: *now,
            updated_at: *now,
        }))
    }
}
