//! The model's answer for one step (the reference's `InferenceResponse`).

use crate::json::Value;

use crate::error::{ErrorCode, Result};
use crate::json::{child, type_name};
use crate::model::finish_reason::FinishReason;
use crate::model::ids::new_id;
use crate::model::read;
use crate::model::time::{self, Timestamp};
use crate::model::tool_call::ToolCalls;
use crate::model::usage::Usage;
use crate::php;

/// The HTTP response an inference came from (the producer's `HttpResponse`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResponseData {
    /// The HTTP status (0 when there was no HTTP response).
    pub status_code: i64,
    /// The response body as stored.
    pub body: String,
    /// The headers as stored (any JSON).
    pub headers: Value,
    /// The response was streamed.
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
}

/// The producer's `InferenceResponse`: the model's text, tool calls, finish
/// reason (the provider's raw string) and usage.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "InferenceResponseData"))]
#[serde(rename_all = "camelCase")]
pub struct InferenceResponse {
    /// The model's text.
    pub content: String,
    /// The provider's finish reason exactly as stored (normalise with [`Self::finish_reason`]).
    #[serde(rename = "finishReason")]
    pub finish_reason_raw: String,
    /// The tool calls the model asked for.
    pub tool_calls: ToolCalls,
    /// The model's reasoning text, when the provider returns it.
    pub reasoning_content: String,
    /// Token usage of this inference.
    pub usage: Usage,
    /// The HTTP response it came from.
    pub response_data: ResponseData,
    /// A partial (streamed, unfinished) response.
    pub is_partial: bool,
    /// The response's id.
    pub id: String,
    /// When the response was created (ATOM).
    #[serde(serialize_with = "crate::model::shape::atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
    pub created_at: Timestamp,
    /// When the response was last updated (ATOM).
    #[serde(serialize_with = "crate::model::shape::atom")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::timestamp")
    )]
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

    /// The wire form as a JSON value.
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
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
