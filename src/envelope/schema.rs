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
/// what it holds, and whether it must be present (non-null).
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The normalised name.
    pub name: &'static str,
    /// Other names it arrives under (seed 000's and seed 003's).
    pub aliases: &'static [&'static str],
    /// What it holds.
    pub kind: Kind,
    /// Whether it must be present and non-null.
    pub required: bool,
}

const fn f(
    name: &'static str,
    aliases: &'static [&'static str],
    kind: Kind,
    required: bool,
) -> Field {
    Field {
        name,
        aliases,
        kind,
        required,
    }
}

/// Seed-003 lifecycle identity, present on every event of that taxonomy.
const STEP_INDEX: Field = f("step_index", &[], Kind::Int, false);
const STEP_ID: Field = f("step_id", &[], Kind::Str, false);
/// v2.7 numbers a failed attempt's completion (and a continuation before
/// any step) by the steps recorded before it; the decoder moves such an
/// envelope to the step it is about and keeps the producer's number here.
const RECORDED_STEPS: Field = f("recorded_steps", &[], Kind::Int, false);
/// Seed-003 event annotations (safety, citations, extras; free-form otherwise).
const ANNOTATIONS: Field = f("annotations", &[], Kind::Object, false);

const AGENT_STATUS: &[Field] = &[
    f("status", &[], Kind::Str, true),
    f("previous_status", &[], Kind::Str, false),
    f("step_count", &[], Kind::Int, false),
    f("error_message", &[], Kind::Str, false),
    f("last_response", &[], Kind::Str, false),
];

const AGENT_STEP_STARTED: &[Field] = &[
    f("step_number", &["step_index"], Kind::Int, true),
    f("message_count", &[], Kind::Int, false),
    f("available_tools", &[], Kind::ToolCount, false),
    STEP_ID,
];

const AGENT_STEP_COMPLETED: &[Field] = &[
    f("step_number", &["step_index"], Kind::Int, true),
    f("has_tool_calls", &[], Kind::Bool, false),
    f("errors", &[], Kind::Int, false),
    f("finish_reason", &[], Kind::Str, false),
    f("usage", &[], Kind::Usage, false),
    f("duration_ms", &[], Kind::Num, false),
    f("continuation", &[], Kind::Object, false),
    f("step", &[], Kind::Object, false),
    STEP_ID,
    ANNOTATIONS,
    RECORDED_STEPS,
];

const AGENT_TOOL_STARTED: &[Field] = &[
    f("tool_name", &["tool"], Kind::Str, true),
    f("tool_call_id", &[], Kind::Str, false),
    f("args_summary", &[], Kind::Str, false),
    f("args", &[], Kind::Any, false),
    f("tool_call", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_TOOL_COMPLETED: &[Field] = &[
    f("tool_name", &["tool"], Kind::Str, true),
    f("tool_call_id", &[], Kind::Str, false),
    f("success", &[], Kind::Bool, false),
    f("error", &[], Kind::Str, false),
    f("duration_ms", &[], Kind::Num, false),
    f("result_summary", &[], Kind::Str, false),
    f("tool_result", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_STREAM_CHUNK: &[Field] = &[
    f("content", &["chunk"], Kind::Str, true),
    f("is_complete", &[], Kind::Bool, false),
    f("chunk_index", &[], Kind::Int, false),
    f("tokens_delta", &[], Kind::Int, false),
    // Set by the decoder (see `frames`), never taken from the wire.
    f("provider_frame", &[], Kind::Str, false),
];

/// v1.22 sends `should_continue`, v2 `should_stop` (one of them is required;
/// see `decode`); v2's `stop_reason` is null when no signal stopped the run.
const AGENT_CONTINUATION: &[Field] = &[
    f("step_number", &["step_index"], Kind::Int, true),
    f("should_continue", &[], Kind::Bool, false),
    f("should_stop", &[], Kind::Bool, false),
    f("stop_reason", &[], Kind::Str, false),
    f("resolved_by", &[], Kind::Str, false),
    f("evaluations", &[], Kind::Evaluations, false),
    RECORDED_STEPS,
];

const AGENT_LLM_STARTED: &[Field] = &[STEP_INDEX, STEP_ID, ANNOTATIONS];

const AGENT_LLM_OUTPUT_TEXT_DELTA: &[Field] = &[
    f("text_delta", &["llm_delta"], Kind::Str, true),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_LLM_COMPLETED: &[Field] = &[
    f("step", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_TOOL_OUTPUT: &[Field] = &[
    f("tool_name", &["tool"], Kind::Str, false),
    f("text_delta", &[], Kind::Str, true),
    f("tool_call", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_TOOL_FAILED: &[Field] = &[
    f("tool_name", &["tool"], Kind::Str, false),
    f("error", &[], Kind::Str, true),
    f("tool_call", &[], Kind::Object, false),
    f("tool_result", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_STEP_FAILED: &[Field] = &[
    f("error", &[], Kind::Str, true),
    f("step", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_RUN_COMPLETED: &[Field] = &[
    f("final_answer", &[], Kind::Str, false),
    f("step", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
];

const AGENT_RUN_FAILED: &[Field] = &[
    f("error", &[], Kind::Str, true),
    f("step", &[], Kind::Object, false),
    STEP_INDEX,
    STEP_ID,
    ANNOTATIONS,
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
        _ => return None,
    })
}

/// Every known type, in DESIGN.md order.
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
];
