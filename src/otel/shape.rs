//! The OTLP/HTTP JSON shapes the export writes (opentelemetry-proto's
//! `ExportTraceServiceRequest` in the proto3 JSON mapping, camelCase, with
//! OTLP's hex `traceId` / `spanId`), declared once: the package's TypeScript
//! types and schema are generated from them.

use serde::Serialize;

/// An OTLP/HTTP JSON `ExportTraceServiceRequest`: POST it to a collector's
/// `/v1/traces` with `Content-Type: application/json`.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OtlpTraceRequest {
    /// One entry: stepline's resource.
    pub resource_spans: Vec<ResourceSpans>,
}

/// The spans of one resource (the service that ran the agent).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpResourceSpans"))]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpans {
    /// The resource: `service.name`.
    pub resource: Resource,
    /// One entry: the spans stepline made.
    pub scope_spans: Vec<ScopeSpans>,
    /// The semantic-conventions schema the attributes follow.
    pub schema_url: &'static str,
}

/// An OTLP resource.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpResource"))]
pub struct Resource {
    /// Its attributes.
    pub attributes: Vec<KeyValue>,
}

/// The spans of one instrumentation scope.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpScopeSpans"))]
#[serde(rename_all = "camelCase")]
pub struct ScopeSpans {
    /// stepline and its version.
    pub scope: Scope,
    /// The spans, each run's before its steps', each step's before its tools'.
    pub spans: Vec<Span>,
    /// The semantic-conventions schema the attributes follow.
    pub schema_url: &'static str,
}

/// An instrumentation scope.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpScope"))]
pub struct Scope {
    /// `stepline`.
    pub name: &'static str,
    /// stepline's version.
    pub version: &'static str,
}

/// One span.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpSpan"))]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// 32 lowercase hex characters; one trace per execution.
    pub trace_id: String,
    /// 16 lowercase hex characters.
    pub span_id: String,
    /// The parent's span id; absent on a run's span.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_span_id: Option<String>,
    /// `invoke_agent`, `chat` or `execute_tool {tool}`.
    pub name: String,
    /// `1` internal (run, tool), `3` client (inference).
    pub kind: i64,
    /// Nanoseconds since the Unix epoch as a decimal string; `"0"` unknown.
    pub start_time_unix_nano: String,
    /// Nanoseconds since the Unix epoch as a decimal string; `"0"` unknown.
    pub end_time_unix_nano: String,
    /// The `gen_ai.*` (and `stepline.*`) attributes.
    pub attributes: Vec<KeyValue>,
    /// Empty (unset) or `{code: 2, message}` on failure.
    pub status: Status,
}

/// A span's status.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpStatus"))]
pub struct Status {
    /// `2` (`STATUS_CODE_ERROR`) on failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// What failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// An attribute.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpKeyValue"))]
pub struct KeyValue {
    /// The attribute's name.
    pub key: &'static str,
    /// Its value.
    pub value: AnyValue,
}

/// An attribute value: exactly one member is present.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpAnyValue"))]
#[serde(rename_all = "camelCase")]
pub struct AnyValue {
    /// A string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string_value: Option<String>,
    /// A 64-bit integer as a decimal string (proto3 JSON's int64).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int_value: Option<String>,
    /// An array of values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array_value: Option<ArrayValue>,
}

/// An array attribute value.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "OtlpArrayValue"))]
pub struct ArrayValue {
    /// Its elements.
    pub values: Vec<AnyValue>,
}
