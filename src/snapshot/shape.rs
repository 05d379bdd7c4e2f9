//! The slim snapshot as the writers build it (v1.22's `serialize` and v2's
//! `v2`), declared once: its JSON Schema (the package's `SlimSnapshot`, and the
//! published `snapshotSchema()`) is generated from these types, and the tests
//! check it against the validator's rules (src/snapshot/rules.rs).
//!
//! Fields that only one producer version writes are `Option`s skipped when
//! `None`; where that version writes `null`, the field is an `Option<Option<_>>`.

use crate::json::Value;
use crate::model::{FinishReason, StepType, Usage};
use crate::snapshot::validate::Issue;

/// A slim snapshot (the producer's `SlimAgentStateSerializer` output; for a
/// v2.x state, stepline's own form of it, marked `state_version: "v2"`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimSnapshot {
    /// `"v2"` for a snapshot of an instructor-php v2.x state; absent for v1.22.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::state_version"))]
    pub state_version: Option<&'static str>,
    /// The agent instance.
    pub agent_id: String,
    /// The parent agent, for sub-agents.
    pub parent_agent_id: Option<String>,
    /// The agent's status: v1.22 `in_progress`, `completed`, `failed`; v2 also
    /// `pending`, `stopped`, or `null` between executions.
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::status"))]
    pub status: Option<&'static str>,
    /// Steps taken in this execution (can exceed the steps kept).
    pub step_count: usize,
    /// Accumulated token usage.
    pub usage: Usage,
    /// Timing.
    pub execution: SlimExecution,
    /// The most recent messages.
    pub messages: Vec<SlimMessage>,
    /// Summaries of the most recent steps.
    pub steps: Vec<SlimStep>,
    /// v1.22: the last continuation decision, when traced (else `null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_continuation: Option<Option<SlimContinuation>>,
    /// v2: the winning stop signal (the last step's against the execution's),
    /// in place of v1.22's criteria trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "schemas::stop_signal_or_null")
    )]
    pub stop_signal: Option<Value>,
    /// v2: the execution's continuation, when traced (`includeContinuationTrace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<Option<SlimContinuationV2>>,
    /// Application metadata; `[]` when empty.
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::metadata"))]
    pub metadata: Value,
    /// v2: when the agent state was created.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::timestamp"))]
    pub created_at: Option<String>,
    /// v2: the context's system prompt (truncated like message content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

/// A slim snapshot's timing.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimExecution {
    /// When the session started.
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::timestamp"))]
    pub started_at: String,
    /// When the state last changed.
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::timestamp"))]
    pub updated_at: String,
    /// Execution time accumulated over all steps, surviving pause/resume
    /// (seconds). Negative only when the state says so: a stored v1.22
    /// `cumulativeExecutionSeconds` below zero, or a v2 step completed
    /// before it started (a clock that stepped back); a snapshot that holds
    /// one validates with an `out_of_range` warning.
    pub cumulative_seconds: f64,
    /// v2: the current execution's id; `null` between executions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_id: Option<Option<String>>,
    /// v2: when the execution ended; `null` while running.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "schemas::timestamp_or_null")
    )]
    pub completed_at: Option<Option<String>>,
    /// v2: executions (runs) of this agent so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub execution_count: Option<i64>,
}

/// One message of a slim snapshot.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimMessage {
    /// v2: the message's uuid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// v2: when the message was created.
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::timestamp"))]
    pub created_at: Option<String>,
    /// `system`, `developer`, `user`, `assistant`, `tool` (other strings are kept).
    pub role: String,
    /// Text (possibly truncated, ending in `...`) or content parts.
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::content"))]
    pub content: Value,
    /// v2: the tool calls an assistant message requested (`{id, name}` with `redactToolArgs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::v2_tool_calls"))]
    pub tool_calls: Option<Vec<Value>>,
    /// v2: what a tool message answers (its content dropped without tool results).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::tool_result"))]
    pub tool_result: Option<Value>,
    /// Tool calls, tool call ids, results; `[]` when empty.
    #[serde(rename = "_metadata")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::php_map")
    )]
    pub metadata: Value,
}

/// One step of a slim snapshot, summarised.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimStep {
    /// 1..N within the kept steps.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub step_number: usize,
    /// Derived step type.
    #[serde(rename = "type")]
    pub step_type: StepType,
    /// The step requested tool calls.
    pub has_tool_calls: bool,
    /// Normalised finish reason.
    pub finish_reason: FinishReason,
    /// Number of errors in the step.
    pub errors: usize,
    /// Token usage of the step.
    pub usage: SlimStepUsage,
    /// Seed 000: how long the step took, in milliseconds, from its stored start
    /// and completion (`parseAgentState`'s `durationMs`, v2's step
    /// `duration`); `null` when they are not stored or the start is after the
    /// completion. Not written under `compat` (the producer's serializer does
    /// not write it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<Option<f64>>,
    /// Requested tool calls, id and name only.
    pub tool_calls: Vec<SlimToolCall>,
    /// v2: the step's own stop signal (an after-step guard's).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "schemas::stop_signal_or_null")
    )]
    pub stop_signal: Option<Value>,
}

/// A slim step's token usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimStepUsage {
    /// All tokens of the step.
    pub total: i64,
}

/// A slim step's tool call: id and name only.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimToolCall {
    /// Tool call id.
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
}

/// v1.22's last continuation decision.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimContinuation {
    /// Whether the loop went on.
    pub should_continue: bool,
    /// `completed`, `steps_limit`, `token_limit`, `time_limit`, `retry_limit`,
    /// `error`, `finish_reason`, `guard`, `user_requested`.
    pub stop_reason: String,
    /// The deciding criterion's class, or `aggregate`.
    pub resolved_by: String,
}

/// A v2 execution's continuation, with its explanation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlimContinuationV2 {
    /// `ExecutionState::shouldStop()`.
    pub should_stop: bool,
    /// A hook asked to go on regardless of signals.
    pub is_continuation_requested: bool,
    /// Every signal raised, in order.
    #[cfg_attr(feature = "schema", schemars(schema_with = "schemas::stop_signals"))]
    pub stop_signals: Value,
    /// `ExecutionContinuation::explain()`.
    pub explain: String,
}

/// The verdict on an untrusted snapshot.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SnapshotValidation<'a> {
    /// No errors (warnings allowed).
    pub valid: bool,
    /// What makes the snapshot invalid.
    pub errors: &'a [Issue],
    /// What is kept but not checked, or allowed but suspicious.
    pub warnings: &'a [Issue],
}

/// Schemas of the fields whose Rust type is looser than their wire form.
#[cfg(feature = "schema")]
pub(crate) mod schemas {
    use crate::snapshot::rules::{STATE_VERSIONS, STATUSES, STOP_REASONS};
    use crate::snapshot::schema::DATE_TIME_PATTERN;
    use schemars::{json_schema, Schema, SchemaGenerator};

    /// `state_version`: `"v2"` only.
    pub fn state_version(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "enum": STATE_VERSIONS })
    }

    /// `status`: every status either version writes, or `null`.
    pub fn status(_: &mut SchemaGenerator) -> Schema {
        let mut values: Vec<serde_json::Value> = STATUSES.iter().map(|s| (*s).into()).collect();
        values.push(serde_json::Value::Null);
        json_schema!({ "enum": values })
    }

    /// An ATOM timestamp, checked by pattern (no format plugin needed).
    pub fn timestamp(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": "date-time", "pattern": DATE_TIME_PATTERN })
    }

    /// [`timestamp`] or `null`.
    pub fn timestamp_or_null(g: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [timestamp(g), { "type": "null" }] })
    }

    /// Application metadata: an object, or a PHP list (`[]` when empty).
    pub fn metadata(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [
            { "type": "object", "additionalProperties": true },
            { "type": "array", "items": true }
        ] })
    }

    /// Message content: text, or content-part objects.
    pub fn content(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [
            { "type": "string" },
            { "type": "array", "items": { "type": "object", "additionalProperties": true } }
        ] })
    }

    /// A v2 stop signal, as `StopSignal::toArray` writes it.
    fn stop_signal() -> Schema {
        json_schema!({
            "type": "object",
            "description": "A v2 stop signal.",
            "properties": {
                "reason": { "enum": STOP_REASONS, "description": "One of v2's ten stop reasons." },
                "message": { "type": "string", "description": "What stopped the run." },
                "context": {
                    "description": "The signal's data (a map, `[]` when empty, or a list).",
                    "anyOf": [
                        { "type": "object", "additionalProperties": true },
                        { "type": "array" }
                    ]
                },
                "source": { "type": ["string", "null"], "description": "The class or name that raised it." }
            },
            "required": ["reason", "message", "context", "source"]
        })
    }

    /// [`stop_signal`] or `null`.
    pub fn stop_signal_or_null(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [stop_signal(), { "type": "null" }] })
    }

    /// A list of [`stop_signal`]s.
    pub fn stop_signals(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "array", "items": stop_signal() })
    }

    /// A v2 message's tool calls (`{id, name}` when redacted).
    pub fn v2_tool_calls(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": { "type": ["string", "null"], "description": "Tool call id." },
                    "name": { "type": "string", "description": "Tool name." },
                    "arguments": {
                        "description": "Arguments; absent with `redactToolArgs`.",
                        "anyOf": [
                            { "type": "object", "additionalProperties": true },
                            { "type": "array", "maxItems": 0 }
                        ]
                    }
                },
                "required": ["id", "name"],
                "additionalProperties": true
            }
        })
    }

    /// A v2 tool message's `tool_result`.
    pub fn tool_result(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "properties": {
                "content": { "description": "The result (absent without tool results)." },
                "call_id": { "type": ["string", "null"], "description": "The answered call." },
                "tool_name": { "type": "string", "description": "The tool." },
                "is_error": { "type": "boolean", "description": "The tool failed." }
            },
            "additionalProperties": true
        })
    }

    /// A finding's code: the validator's vocabulary, or a `SteplineErrorCode`
    /// when the input could not be read at all.
    pub fn issue_code(_: &mut SchemaGenerator) -> Schema {
        let mut codes: Vec<&str> = vec![
            "missing_field",
            "wrong_type",
            "invalid_enum",
            "invalid_timestamp",
            "out_of_range",
            "inconsistent",
            "unknown_field",
            "secret_in_state",
        ];
        for code in crate::error::ErrorCode::ALL {
            if !codes.contains(&code.as_str()) {
                codes.push(code.as_str());
            }
        }
        json_schema!({ "enum": codes })
    }
}

/// [`crate::snapshot::budget::Fitted::snapshot`]'s schema: a [`SlimSnapshot`].
#[cfg(feature = "schema")]
pub fn slim_snapshot(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    g.subschema_for::<SlimSnapshot>()
}

#[cfg(feature = "schema")]
pub use schemas::issue_code;
