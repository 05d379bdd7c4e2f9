//! The payload of every known envelope type, declared once, with the wire names
//! each dialect uses: the reference v1.22 adapter, the seed-000 document, and
//! the seed-003 lifecycle events. Decoding normalises all of them to the first
//! name listed.

/// What a payload field may hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A string.
    Str,
    /// An integer.
    Int,
    /// A position counted from 0: an integer, never negative.
    Index,
    /// Any number.
    Num,
    /// A boolean.
    Bool,
    /// Token usage: `{input, output, cacheWrite, cacheRead, reasoning}` or
    /// seed 000's `{prompt, completion, total}`.
    Usage,
    /// A tool count, or seed 000's list of tool names.
    ToolCount,
    /// `[{criterion, decision, reason}]`.
    Evaluations,
    /// Any JSON object (kept as is).
    Object,
    /// Any JSON value (kept as is).
    Any,
}

/// One payload field: its normalised name, the other names it arrives under,
/// what it holds, and whether it must be present (non-null). The field's doc
/// and fixed values exist only for the generated schema (feature `schema`),
/// so they cost the wasm nothing.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The normalised name (the first spelling decoding reads).
    pub name: &'static str,
    /// Other dialects' names for the field, read when `name` is absent.
    pub aliases: &'static [&'static str],
    /// What the field may hold.
    pub kind: Kind,
    /// Must be present and non-null.
    pub required: bool,
    /// What the field says, for the JS reader (the schema's description).
    #[cfg(feature = "schema")]
    pub doc: &'static str,
    /// The only strings the field takes (empty: any of its kind).
    #[cfg(feature = "schema")]
    pub values: &'static [&'static str],
    /// Set by the decoder, never read from the wire: absent or a value, never `null`.
    #[cfg(feature = "schema")]
    pub derived: bool,
}

/// `f!(name, aliases, kind, required, doc)`, optionally `values = [...]` and
/// `derived` (see [`Field`]).
macro_rules! f {
    ($name:expr, $aliases:expr, $kind:expr, $required:expr, $doc:expr) => {
        f!($name, $aliases, $kind, $required, $doc, values = [], false)
    };
    ($name:expr, $aliases:expr, $kind:expr, $required:expr, $doc:expr, values = [$($v:expr),*], derived) => {
        f!($name, $aliases, $kind, $required, $doc, values = [$($v),*], true)
    };
    ($name:expr, $aliases:expr, $kind:expr, $required:expr, $doc:expr, values = [$($v:expr),*], $derived:expr) => {
        Field {
            name: $name,
            aliases: $aliases,
            kind: $kind,
            required: $required,
            #[cfg(feature = "schema")]
            doc: $doc,
            #[cfg(feature = "schema")]
            values: &[$($v),*],
            #[cfg(feature = "schema")]
            derived: $derived,
        }
    };
}

/// Seed-003 lifecycle identity, present on every event of that taxonomy.
const STEP_INDEX: Field = f!(
    "step_index",
    &[],
    Kind::Int,
    false,
    "Seed 003: the step's number."
);
const STEP_ID: Field = f!("step_id", &[], Kind::Str, false, "Seed 003: the step's id.");
/// v2.7 numbers a failed attempt's completion (and a continuation before
/// any step) by the steps recorded before it; the decoder moves such an
/// envelope to the step it is about and keeps the producer's number here.
const RECORDED_STEPS: Field = f!(
    "recorded_steps",
    &[],
    Kind::Int,
    false,
    "v2.7 numbers a failed attempt's completion (and a continuation before any step) by the steps recorded before it: that number, `step_number` being the step it is about."
);
/// Seed-003 event annotations (safety, citations, extras; free-form otherwise).
const ANNOTATIONS: Field = f!(
    "annotations",
    &[],
    Kind::Object,
    false,
    "Seed 003: the event's annotations (safety verdicts, citations, extras)."
);
/// The step the event is about, as the producer serialised it.
const STEP: Field = f!(
    "step",
    &[],
    Kind::Object,
    false,
    "The step as the producer serialised it."
);
/// The tool call, as seed 003 serialises it.
const TOOL_CALL: Field = f!(
    "tool_call",
    &[],
    Kind::Object,
    false,
    "Seed 003: the tool call as serialised."
);
const TOOL_NAME: Field = f!("tool_name", &["tool"], Kind::Str, false, "The tool's name.");

const AGENT_STATUS: &[Field] = &[
    f!(
        "status",
        &[],
        Kind::Str,
        true,
        "The new broadcast status (`processing`, `completed`, `failed`, …)."
    ),
    f!(
        "previous_status",
        &[],
        Kind::Str,
        false,
        "The status before."
    ),
    f!("step_count", &[], Kind::Int, false, "Steps so far."),
    f!(
        "error_message",
        &[],
        Kind::Str,
        false,
        "v2: why the run failed."
    ),
    f!(
        "last_response",
        &[],
        Kind::Str,
        false,
        "v2: the last response text."
    ),
];

const AGENT_STEP_STARTED: &[Field] = &[
    f!(
        "step_number",
        &["step_index"],
        Kind::Int,
        true,
        "The step's 1-based number."
    ),
    f!(
        "message_count",
        &[],
        Kind::Int,
        false,
        "Messages sent to the model."
    ),
    f!(
        "available_tools",
        &[],
        Kind::ToolCount,
        false,
        "How many tools the model may call (seed 000's list of names is counted)."
    ),
    STEP_ID,
];

const AGENT_STEP_COMPLETED: &[Field] = &[
    f!(
        "step_number",
        &["step_index"],
        Kind::Int,
        true,
        "The step's 1-based number."
    ),
    f!(
        "has_tool_calls",
        &[],
        Kind::Bool,
        false,
        "The model asked for tool calls."
    ),
    f!(
        "errors",
        &[],
        Kind::Int,
        false,
        "How many errors the step recorded."
    ),
    f!(
        "finish_reason",
        &[],
        Kind::Str,
        false,
        "The provider's finish reason."
    ),
    f!("usage", &[], Kind::Usage, false, "The step's token usage."),
    f!(
        "duration_ms",
        &[],
        Kind::Num,
        false,
        "How long the step took, in milliseconds."
    ),
    f!(
        "continuation",
        &[],
        Kind::Object,
        false,
        "The continuation outcome (with `includeContinuationTrace`)."
    ),
    STEP,
    STEP_ID,
    ANNOTATIONS,
    RECORDED_STEPS,
];

const AGENT_TOOL_STARTED: &[Field] = &[
    f!("tool_name", &["tool"], Kind::Str, true, "The tool's name."),
    f!("tool_call_id", &[], Kind::Str, false, "The tool call's id."),
    f!(
        "args_summary",
        &[],
        Kind::Str,
        false,
        "A one-line summary of the arguments."
    ),
    f!(
        "args",
        &[],
        Kind::Any,
        false,
        "The (truncated) arguments (with `includeToolArgs`)."
    ),
    TOOL_CALL,
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_TOOL_COMPLETED: &[Field] = &[
    f!("tool_name", &["tool"], Kind::Str, true, "The tool's name."),
    f!("tool_call_id", &[], Kind::Str, false, "The tool call's id."),
    f!("success", &[], Kind::Bool, false, "The tool succeeded."),
    f!("error", &[], Kind::Str, false, "Why the tool failed."),
    RESULT,
    f!(
        "duration_ms",
        &[],
        Kind::Num,
        false,
        "How long the tool ran, in milliseconds."
    ),
    f!(
        "result_summary",
        &[],
        Kind::Str,
        false,
        "A one-line summary of the result."
    ),
    f!(
        "tool_result",
        &[],
        Kind::Object,
        false,
        "Seed 003: the tool result as serialised."
    ),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_STREAM_CHUNK: &[Field] = &[
    f!("content", &["chunk"], Kind::Str, true, "The streamed text."),
    f!("is_complete", &[], Kind::Bool, false, "The last chunk of the stream."),
    f!("chunk_index", &[], Kind::Index, false, "The chunk's 0-based position in the execution."),
    f!("tokens_delta", &[], Kind::Int, false, "Tokens the chunk adds."),
    // Set by the decoder (see `frames`), never taken from the wire.
    f!(
        "provider_frame",
        &[],
        Kind::Str,
        false,
        "Set by the decoder: `content` is a raw provider stream frame, not text (v2.7 with a real streaming driver).",
        values = ["openai", "anthropic"],
        derived
    ),
];

/// v1.22 sends `should_continue`, v2 `should_stop` (one of them is required;
/// see `decode`); v2's `stop_reason` is null when no signal stopped the run.
const AGENT_CONTINUATION: &[Field] = &[
    f!(
        "step_number",
        &["step_index"],
        Kind::Int,
        true,
        "The step the decision follows."
    ),
    f!(
        "should_continue",
        &[],
        Kind::Bool,
        false,
        "The run goes on (v1.22's flag; read from v2's `should_stop` when only that is sent)."
    ),
    f!("should_stop", &[], Kind::Bool, false, "v2: the run stops."),
    f!(
        "stop_reason",
        &[],
        Kind::Str,
        false,
        "Why the run stops (v2: `null` when no signal stopped it)."
    ),
    f!(
        "resolved_by",
        &[],
        Kind::Str,
        false,
        "The criterion that decided."
    ),
    f!(
        "evaluations",
        &[],
        Kind::Evaluations,
        false,
        "v1.22: each criterion's vote."
    ),
    RECORDED_STEPS,
];

const AGENT_LLM_STARTED: &[Field] = &[STEP_INDEX, STEP_ID, ANNOTATIONS];

const AGENT_LLM_OUTPUT_TEXT_DELTA: &[Field] = &[
    f!(
        "text_delta",
        &["llm_delta"],
        Kind::Str,
        true,
        "The text the model added."
    ),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_LLM_COMPLETED: &[Field] = &[STEP, STEP_INDEX, STEP_ID, ANNOTATIONS];

const AGENT_TOOL_OUTPUT: &[Field] = &[
    TOOL_NAME,
    f!("tool_call_id", &[], Kind::Str, false, "The tool call's id."),
    f!(
        "text_delta",
        &[],
        Kind::Str,
        true,
        "The output the tool added."
    ),
    TOOL_CALL,
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_TOOL_FAILED: &[Field] = &[
    TOOL_NAME,
    f!("error", &[], Kind::Str, true, "Why the tool failed."),
    TOOL_CALL,
    f!(
        "tool_result",
        &[],
        Kind::Object,
        false,
        "Seed 003: the tool result as serialised."
    ),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_STEP_FAILED: &[Field] = &[
    f!("error", &[], Kind::Str, true, "Why the step failed."),
    STEP,
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_RUN_COMPLETED: &[Field] = &[
    f!("final_answer", &[], Kind::Str, false, "The run's answer."),
    END_REASON,
    STEP,
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_RUN_FAILED: &[Field] = &[
    f!("error", &[], Kind::Str, true, "Why the run failed."),
    END_REASON,
    STEP,
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

/// A tool's result as a foreign producer sent it (laravel/ai `result`, AG-UI
/// `content`, the AI SDK's `output`).
const RESULT: Field = f!(
    "result",
    &[],
    Kind::Any,
    false,
    "The tool's result as the producer sent it (laravel/ai, AG-UI, AI SDK)."
);
/// The producer's own word for why the run ended (laravel/ai `stream_end`'s
/// `reason`, the AI SDK's `finishReason`, AG-UI's outcome).
const END_REASON: Field = f!(
    "reason",
    &[],
    Kind::Str,
    false,
    "The producer's own word for why the run ended (laravel/ai `reason`, AI SDK `finishReason`, AG-UI outcome)."
);

/// The model's reasoning, streamed (laravel/ai `reasoning_delta`, AG-UI
/// `REASONING_MESSAGE_CONTENT`, the AI SDK's `reasoning-delta`).
const AGENT_LLM_REASONING_DELTA: &[Field] = &[
    f!(
        "text_delta",
        &[],
        Kind::Str,
        true,
        "The reasoning text the model added."
    ),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

/// A tool call waiting for a person's approval, or the answer.
const AGENT_TOOL_APPROVAL: &[Field] = &[
    f!("tool_name", &["tool"], Kind::Str, false, "The tool's name."),
    f!("tool_call_id", &[], Kind::Str, true, "The tool call's id."),
    f!(
        "approval",
        &[],
        Kind::Str,
        true,
        "Where the approval stands.",
        values = ["requested", "approved", "denied"],
        false
    ),
    f!(
        "approval_id",
        &[],
        Kind::Str,
        false,
        "The producer's id of the request."
    ),
    f!(
        "reason",
        &[],
        Kind::Str,
        false,
        "Why it was denied, when said."
    ),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

/// The run paused for input from outside (AG-UI interrupts, an AI SDK abort).
const AGENT_RUN_INTERRUPTED: &[Field] = &[
    f!("reason", &[], Kind::Str, true, "Why the run paused."),
    f!(
        "data",
        &[],
        Kind::Any,
        false,
        "What the producer sent with it."
    ),
    STEP_INDEX,
];

/// Producer data the view has no field of its own for (AG-UI state,
/// activity, custom and raw events; AI SDK data parts, files, metadata;
/// laravel/ai provider tool events): the latest value under each name.
const AGENT_DATA: &[Field] = &[
    f!(
        "name",
        &[],
        Kind::Str,
        true,
        "What the data is (`state`, `custom:<name>`, `data-<type>` …)."
    ),
    f!("data", &[], Kind::Any, false, "The value."),
    STEP_INDEX,
];

/// The payload fields of a known type, or `None` for an unknown type.
pub fn fields(kind: &str) -> Option<&'static [Field]> {
    Some(match kind {
        "agent.status" => AGENT_STATUS,
        "agent.step.started" => AGENT_STEP_STARTED,
        "agent.step.completed" => AGENT_STEP_COMPLETED,
        "agent.tool.started" => AGENT_TOOL_STARTED,
        "agent.tool.completed" => AGENT_TOOL_COMPLETED,
        "agent.stream.chunk" => AGENT_STREAM_CHUNK,
        "agent.continuation" => AGENT_CONTINUATION,
        "agent.llm.started" => AGENT_LLM_STARTED,
        "agent.llm.output_text.delta" => AGENT_LLM_OUTPUT_TEXT_DELTA,
        "agent.llm.completed" => AGENT_LLM_COMPLETED,
        "agent.tool.output" => AGENT_TOOL_OUTPUT,
        "agent.tool.failed" => AGENT_TOOL_FAILED,
        "agent.step.failed" => AGENT_STEP_FAILED,
        "agent.run.completed" => AGENT_RUN_COMPLETED,
        "agent.run.failed" => AGENT_RUN_FAILED,
        "agent.llm.reasoning.delta" => AGENT_LLM_REASONING_DELTA,
        "agent.tool.approval" => AGENT_TOOL_APPROVAL,
        "agent.run.interrupted" => AGENT_RUN_INTERRUPTED,
        "agent.data" => AGENT_DATA,
        _ => return None,
    })
}

/// Every known type: seed 000's seven in that seed's order, then those seed
/// 003's event table adds, in its order, then the later ones.
pub const KNOWN_TYPES: &[&str] = &[
    "agent.status",
    "agent.step.started",
    "agent.step.completed",
    "agent.tool.started",
    "agent.tool.completed",
    "agent.stream.chunk",
    "agent.continuation",
    "agent.llm.started",
    "agent.llm.output_text.delta",
    "agent.llm.completed",
    "agent.tool.output",
    "agent.tool.failed",
    "agent.step.failed",
    "agent.run.completed",
    "agent.run.failed",
    "agent.llm.reasoning.delta",
    "agent.tool.approval",
    "agent.run.interrupted",
    "agent.data",
];

/// Token usage as a decoded envelope carries it: `usage` of
/// `agent.step.completed`, from either usage form on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnvelopeUsage {
    /// Input (prompt) tokens.
    pub input: i64,
    /// Output (completion) tokens.
    pub output: i64,
    /// Tokens written to the provider's cache.
    pub cache_write: i64,
    /// Tokens read from the provider's cache.
    pub cache_read: i64,
    /// Reasoning tokens.
    pub reasoning: i64,
    /// The producer's own total, kept only when it differs from the sum of the fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<i64>,
}

/// The TypeScript names of each known type's payload and envelope, and what
/// the type says, for the generated schemas (in [`KNOWN_TYPES`] order).
#[cfg(feature = "schema")]
pub const SHAPES: &[(&str, &str, &str, &str)] = &[
    (
        "agent.status",
        "StatusPayload",
        "StatusEnvelope",
        "The broadcast status changed.",
    ),
    (
        "agent.step.started",
        "StepStartedPayload",
        "StepStartedEnvelope",
        "A step started.",
    ),
    (
        "agent.step.completed",
        "StepCompletedPayload",
        "StepCompletedEnvelope",
        "A step completed.",
    ),
    (
        "agent.tool.started",
        "ToolStartedPayload",
        "ToolStartedEnvelope",
        "A tool call started.",
    ),
    (
        "agent.tool.completed",
        "ToolCompletedPayload",
        "ToolCompletedEnvelope",
        "A tool call completed.",
    ),
    (
        "agent.stream.chunk",
        "StreamChunkPayload",
        "StreamChunkEnvelope",
        "Text the model streamed.",
    ),
    (
        "agent.continuation",
        "ContinuationPayload",
        "ContinuationEnvelope",
        "Whether the run goes on after a step.",
    ),
    (
        "agent.llm.started",
        "LlmStartedPayload",
        "LlmStartedEnvelope",
        "Seed 003: a model call started.",
    ),
    (
        "agent.llm.output_text.delta",
        "LlmDeltaPayload",
        "LlmDeltaEnvelope",
        "Seed 003: text the model added.",
    ),
    (
        "agent.llm.completed",
        "LlmCompletedPayload",
        "LlmCompletedEnvelope",
        "Seed 003: a model call completed.",
    ),
    (
        "agent.tool.output",
        "ToolOutputPayload",
        "ToolOutputEnvelope",
        "Seed 003: output a tool streamed.",
    ),
    (
        "agent.tool.failed",
        "ToolFailedPayload",
        "ToolFailedEnvelope",
        "Seed 003: a tool call failed.",
    ),
    (
        "agent.step.failed",
        "StepFailedPayload",
        "StepFailedEnvelope",
        "Seed 003: a step failed.",
    ),
    (
        "agent.run.completed",
        "RunCompletedPayload",
        "RunCompletedEnvelope",
        "Seed 003: the run completed.",
    ),
    (
        "agent.run.failed",
        "RunFailedPayload",
        "RunFailedEnvelope",
        "Seed 003: the run failed.",
    ),
    (
        "agent.llm.reasoning.delta",
        "ReasoningDeltaPayload",
        "ReasoningDeltaEnvelope",
        "Reasoning the model streamed (translated from laravel/ai, AG-UI or the AI SDK).",
    ),
    (
        "agent.tool.approval",
        "ToolApprovalPayload",
        "ToolApprovalEnvelope",
        "A tool call's approval was asked for, given or denied.",
    ),
    (
        "agent.run.interrupted",
        "RunInterruptedPayload",
        "RunInterruptedEnvelope",
        "The run paused for input from outside.",
    ),
    (
        "agent.data",
        "DataPayload",
        "DataEnvelope",
        "Producer data under a name (state, custom events, data parts).",
    ),
];

#[cfg(feature = "schema")]
pub mod json_schema {
    //! The JSON Schemas of the payloads and envelopes, derived from the field
    //! table above, so what the decoder accepts and what is declared are one
    //! list.

    use schemars::SchemaGenerator;
    use serde_json::{json, Map as JsonMap, Value as JsonValue};

    use super::{fields, EnvelopeUsage, Field, Kind, KNOWN_TYPES, SHAPES};

    /// The schema of a field holding a decoded envelope (a `Value` in Rust).
    pub fn envelope_ref(_: &mut SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "$ref": "#/$defs/Envelope" })
    }

    /// The schema of the encoder's envelope (a `Value` in Rust).
    pub fn broadcast_envelope_ref(_: &mut SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "$ref": "#/$defs/BroadcastEnvelope" })
    }

    /// Adds `Envelope`, every envelope type's `…Envelope` and `…Payload`,
    /// and `EnvelopeUsage` to the generator's definitions.
    pub fn register(g: &mut SchemaGenerator) {
        let usage = g.subschema_for::<EnvelopeUsage>();
        let usage = usage.to_value();
        let mut variants = Vec::new();
        for &(kind, payload, envelope, doc) in SHAPES {
            let spec = fields(kind).unwrap_or(&[]);
            let defs = g.definitions_mut();
            defs.insert(payload.into(), payload_schema(kind, spec, &usage));
            defs.insert(envelope.into(), envelope_schema(kind, payload, doc));
            variants.push(json!({ "$ref": format!("#/$defs/{envelope}") }));
        }
        debug_assert_eq!(SHAPES.len(), KNOWN_TYPES.len());
        g.definitions_mut().insert(
            "BroadcastEnvelope".into(),
            json!({
                "description": "An envelope as the encoder sends it: the payload is the producer's, as the reference adapter writes it (e.g. `usage` as the event gave it); `decodeEnvelope` reads it into an `Envelope`.",
                "type": "object",
                "properties": {
                    "type": { "enum": KNOWN_TYPES, "description": "The envelope type." },
                    "session_id": { "type": "string", "description": "The encoder's session." },
                    "execution_id": { "type": "string", "description": "The encoder's execution (`\"\"` when it has none)." },
                    "timestamp": { "type": "string", "description": "When it was broadcast." },
                    "payload": { "$ref": "#/$defs/PayloadObject" },
                },
                "required": ["type", "session_id", "execution_id", "timestamp", "payload"],
            }),
        );
        // PHP writes an empty map as `[]`; the decoder keeps it as sent.
        g.definitions_mut().insert(
            "PayloadObject".into(),
            json!({
                "description": "A JSON object as the producer sent it (PHP writes an empty one as `[]`).",
                "anyOf": [
                    { "type": "object", "additionalProperties": true },
                    { "type": "array", "maxItems": 0 },
                ],
            }),
        );
        g.definitions_mut().insert(
            "Envelope".into(),
            json!({
                "description": "A decoded envelope: `switch (e.type)` narrows `e.payload`.",
                "oneOf": variants,
            }),
        );
    }

    fn envelope_schema(kind: &str, payload: &str, doc: &str) -> JsonValue {
        let text_or_null = |d: &str| json!({ "type": ["string", "null"], "description": d });
        json!({
            "description": format!("`{kind}`: {doc}"),
            "type": "object",
            "properties": {
                "type": { "const": kind },
                "session_id": text_or_null("The session; `null` only for seed-003 native events, which carry none."),
                "execution_id": text_or_null("The execution, when the producer names one."),
                "timestamp": text_or_null("When it was broadcast (RFC 3339)."),
                "payload": { "$ref": format!("#/$defs/{payload}") },
                "extra": { "type": "object", "additionalProperties": true, "description": "Unknown top-level fields, kept." },
            },
            "required": ["type", "session_id", "execution_id", "timestamp", "payload"],
        })
    }

    fn payload_schema(kind: &str, spec: &[Field], usage: &JsonValue) -> JsonValue {
        let mut properties = JsonMap::new();
        let mut required = Vec::new();
        for f in spec {
            let mut s = value_schema(f, usage);
            if f.required {
                required.push(f.name);
            } else if !f.derived {
                s = json!({ "anyOf": [s, { "type": "null" }] });
            }
            if let JsonValue::Object(m) = &mut s {
                m.insert("description".into(), f.doc.into());
            }
            properties.insert(f.name.into(), s);
            if f.kind == Kind::ToolCount {
                properties.insert(
                    "available_tool_names".into(),
                    json!({ "type": "array", "description": "Seed 000: the tools' names (`available_tools` counts them)." }),
                );
            }
        }
        properties.insert(
            "truncated".into(),
            json!({ "type": ["boolean", "null"], "description": "The payload was shortened to fit the broadcaster's limit." }),
        );
        properties.insert(
            "extra".into(),
            json!({ "type": "object", "additionalProperties": true, "description": "Unknown payload fields, kept (each reported as a warning)." }),
        );
        json!({
            "description": format!("The payload of `{kind}`."),
            "type": "object",
            "properties": properties,
            "required": required,
        })
    }

    /// What a field's kind admits when present and non-null.
    fn value_schema(f: &Field, usage: &JsonValue) -> JsonValue {
        match f.kind {
            Kind::Str if !f.values.is_empty() => json!({ "enum": f.values }),
            Kind::Str => json!({ "type": "string" }),
            Kind::Int | Kind::ToolCount => json!({ "type": "integer" }),
            Kind::Index => json!({ "type": "integer", "minimum": 0 }),
            Kind::Num => json!({ "type": "number" }),
            Kind::Bool => json!({ "type": "boolean" }),
            Kind::Usage => usage.clone(),
            Kind::Object => json!({ "$ref": "#/$defs/PayloadObject" }),
            Kind::Any => json!({}),
            Kind::Evaluations => json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "criterion": { "type": "string", "description": "The criterion's class name." },
                        "decision": { "type": "string", "description": "Its vote." },
                        "reason": { "type": ["string", "null"], "description": "Why." },
                    },
                    "required": ["criterion", "decision"],
                    // The producer's other evaluation fields are kept as sent.
                    "additionalProperties": true,
                },
            }),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn every_known_type_has_a_payload_and_an_envelope_schema() {
            let mut g = schemars::generate::SchemaSettings::draft2020_12()
                .for_serialize()
                .into_generator();
            register(&mut g);
            let defs = g.take_definitions(true);
            assert_eq!(
                SHAPES.iter().map(|s| s.0).collect::<Vec<_>>(),
                KNOWN_TYPES.to_vec()
            );
            for &(kind, payload, envelope, _) in SHAPES {
                let props = &defs[payload]["properties"];
                for f in fields(kind).unwrap_or(&[]) {
                    assert!(props[f.name].is_object(), "{payload}.{}", f.name);
                }
                assert_eq!(defs[envelope]["properties"]["type"]["const"], kind);
            }
            assert_eq!(defs["StatusPayload"]["required"], json!(["status"]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fields, KNOWN_TYPES};

    /// The parser shares one copy of each known name (src/json/names.rs):
    /// every payload field and alias of the vocabulary must be one of them.
    #[test]
    fn every_payload_field_of_the_envelope_schema_is_an_interned_name() {
        for kind in KNOWN_TYPES {
            for f in fields(kind).unwrap_or_default() {
                for name in std::iter::once(f.name).chain(f.aliases.iter().copied()) {
                    assert_eq!(
                        crate::json::names::known(name),
                        Some(name),
                        "{kind}: {name}"
                    );
                }
            }
        }
    }
}
