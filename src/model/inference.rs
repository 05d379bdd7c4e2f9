//! The model's answer for one step (the reference's `InferenceResponse`).

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result};
use crate::json::{child, type_name};
use crate::model::finish_reason::FinishReason;
use crate::model::ids::new_id;
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::tool_call::ToolCalls;
use crate::model::usage::Usage;
use crate::php;

/// The HTTP response an inference came from (the reference's `HttpResponse`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseData {
    /// The HTTP status (`statusCode`).
    pub status_code: i64,
    /// The raw response body.
    pub body: String,
    /// The response headers, as stored.
    pub headers: Value,
    /// Whether the response was streamed (`isStreamed`).
    pub is_streamed: bool,
}

impl ResponseData {
    /// No response: status 0, empty body and headers.
    pub fn empty() -> ResponseData {
        ResponseData {
            status_code: 0,
            body: String::new(),
            headers: Value::Array(Vec::new()),
            is_streamed: false,
        }
    }

    /// All four keys are required: the reference fails with a TypeError when any
    /// is missing (vectors: "inferenceResponse without responseData").
    fn from_value(v: &Value, path: &str) -> Result<ResponseData> {
        let m = read::object(v, path, "responseData")?;
        let require = |k: &str| -> Result<&Value> {
            m.get(k).filter(|v| !v.is_null()).ok_or_else(|| {
                read::invalid(
                    ErrorCode::MissingField,
                    &child(path, k),
                    format!("expected `{k}` in the HTTP response data"),
                )
            })
        };
        let status = require("statusCode")?;
        let body = require("body")?;
        let headers = require("headers")?;
        let is_streamed = require("isStreamed")?;
        let body = match body {
            Value::String(s) => s.clone(),
            other => {
                return Err(read::invalid(
                    ErrorCode::InvalidType,
                    &child(path, "body"),
                    format!("expected `body` to be a string, found {}", type_name(other)),
                ))
            }
        };
        Ok(ResponseData {
            status_code: php::int_cast(status),
            body,
            headers: headers.clone(),
            is_streamed: !php::is_falsy(is_streamed),
        })
    }

    fn to_value(&self) -> Value {
        crate::json::obj([
            ("statusCode", Value::from(self.status_code)),
            ("body", Value::from(self.body.clone())),
            ("headers", self.headers.clone()),
            ("isStreamed", Value::from(self.is_streamed)),
        ])
    }
}

/// One inference response: text, tool calls, finish reason and usage.
#[derive(Clone, Debug, PartialEq)]
pub struct InferenceResponse {
    /// The response text.
    pub content: String,
    /// The provider's finish reason exactly as stored (normalise with [`Self::finish_reason`]).
    pub finish_reason_raw: String,
    /// The tool calls the model made (`toolCalls`).
    pub tool_calls: ToolCalls,
    /// The model's reasoning text (`reasoningContent`).
    pub reasoning_content: String,
    /// The inference's token usage.
    pub usage: Usage,
    /// The HTTP response it came from (`responseData`).
    pub response_data: ResponseData,
    /// Whether it is a partial (streamed, unfinished) response (`isPartial`).
    pub is_partial: bool,
    /// The response's id.
    pub id: String,
    /// When it was created (`createdAt`).
    pub created_at: Timestamp,
    /// When it last changed (`updatedAt`).
    pub updated_at: Timestamp,
}

impl InferenceResponse {
    /// The empty response the reference creates for a step stored without one.
    pub fn empty(now: &Timestamp) -> InferenceResponse {
        InferenceResponse {
            content: String::new(),
            finish_reason_raw: String::new(),
            tool_calls: ToolCalls::default(),
            reasoning_content: String::new(),
            usage: Usage::default(),
            response_data: ResponseData::empty(),
            is_partial: false,
            id: new_id(),
            created_at: *now,
            updated_at: *now,
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<InferenceResponse> {
        let m = read::object(v, path, "inferenceResponse")?;
        let response_data = match php::get(m, "responseData") {
            Some(rd) => ResponseData::from_value(rd, &child(path, "responseData"))?,
            None => {
                return Err(read::invalid(
                    ErrorCode::MissingField,
                    &child(path, "responseData"),
                    "expected `responseData` ({statusCode, body, headers, isStreamed}); the reference cannot read an inference response without it",
                ))
            }
        };
        Ok(InferenceResponse {
            content: read::opt_scalar_string(m, "content", path)?.unwrap_or_default(),
            finish_reason_raw: read::opt_scalar_string(m, "finishReason", path)?
                .unwrap_or_default(),
            tool_calls: match php::get(m, "toolCalls") {
                Some(tc) => ToolCalls::from_value(tc, &child(path, "toolCalls"))?,
                None => ToolCalls::default(),
            },
            reasoning_content: read::opt_scalar_string(m, "reasoningContent", path)?
                .unwrap_or_default(),
            usage: match php::get(m, "usage") {
                Some(u) => Usage::from_value(u, &child(path, "usage"))?,
                None => Usage::default(),
            },
            response_data,
            is_partial: read::bool_or(m, "isPartial", false),
            id: read::opt_scalar_string(m, "id", path)?.unwrap_or_else(new_id),
            created_at: time::read_or_now(m.get("createdAt"), now, &child(path, "createdAt"))?,
            updated_at: time::read_or_now(m.get("updatedAt"), now, &child(path, "updatedAt"))?,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("content", Value::from(self.content.clone()));
        m.insert("finishReason", Value::from(self.finish_reason_raw.clone()));
        m.insert("toolCalls", self.tool_calls.to_value());
        m.insert(
            "reasoningContent",
            Value::from(self.reasoning_content.clone()),
        );
        m.insert("usage", self.usage.to_value());
        m.insert("responseData", self.response_data.to_value());
        m.insert("isPartial", Value::from(self.is_partial));
        m.insert("id", Value::from(self.id.clone()));
        m.insert("createdAt", Value::from(format_atom(&self.created_at)));
        m.insert("updatedAt", Value::from(format_atom(&self.updated_at)));
        Value::Object(m)
    }

    /// The normalised finish reason (`fromText` of the stored string).
    pub fn finish_reason(&self) -> FinishReason {
        FinishReason::from_text(&self.finish_reason_raw)
    }

    /// Whether the model called tools.
    pub fn has_tool_calls(&self) -> bool {
        !self.tool_calls.is_empty()
    }
}
