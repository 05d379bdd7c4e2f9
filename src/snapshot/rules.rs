//! The slim snapshot's shape, declared once: [`crate::snapshot::validate`]
//! checks untrusted snapshots against it and [`crate::snapshot::schema`] turns
//! it into the published JSON Schema, so the two cannot drift apart.

/// What a value may be.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    String,
    Boolean,
    Integer {
        min: i64,
    },
    /// A token count: an integer, normally zero or more. The reference keeps
    /// the negative counts it reads (state-model vector "AgentState roundtrip
    /// usage with string and float numbers"), so a snapshot of a real state
    /// may hold them: valid, with an `out_of_range` warning.
    Tokens,
    /// Accumulated seconds (`cumulative_seconds`): a number, normally zero
    /// or more. v1.22 stores it as it stands and v2's is the sum of its
    /// steps' `completedAt` less `startedAt`, so a stored negative one or
    /// a clock that stepped back makes it negative: valid, with an
    /// `out_of_range` warning, as the state holds it.
    Duration,
    Number {
        min: f64,
    },
    /// One of the listed strings.
    Enum(&'static [&'static str]),
    /// An RFC 3339 date-time (what `DATE_ATOM` writes).
    Timestamp,
    /// Any map; PHP writes an empty one as `[]`.
    Map,
    /// Any PHP array: a map, or a list of any length. For a field the
    /// producer reads as any array and writes back as it read it (v2's
    /// `StopSignal::fromArray`/`toArray` keep a stored list `context`).
    PhpArray,
    /// A string, or a list of content-part objects.
    Content,
    Object(&'static [Field]),
    Array(&'static Kind),
}

/// One property of an object.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub nullable: bool,
    /// Read only by the schema generator (feature `schema`).
    #[cfg_attr(not(feature = "schema"), allow(dead_code))]
    pub description: &'static str,
}

const fn field(
    name: &'static str,
    kind: Kind,
    required: bool,
    nullable: bool,
    description: &'static str,
) -> Field {
    Field {
        name,
        kind,
        required,
        nullable,
        description,
    }
}

/// Every status a snapshot may carry: v1.22's three plus v2's `pending` and
/// `stopped`. A v1.22 snapshot (no `state_version`) may only carry
/// [`V1_STATUSES`], and never null (checked in `validate`, and by the schema's
/// `if`/`then`); a v2 one carries null between executions.
pub const STATUSES: &[&str] = &["in_progress", "completed", "failed", "pending", "stopped"];
/// The statuses of a v1.22 state.
pub const V1_STATUSES: &[&str] = &["in_progress", "completed", "failed"];
/// `state_version` values: absent is v1.22.
pub const STATE_VERSIONS: &[&str] = &["v2"];
/// v2's ten stop reasons.
pub const STOP_REASONS: &[&str] = &crate::model::continuation::v2::signal::StopReason::NAMES;
pub const STEP_TYPES: &[&str] = &["tool_execution", "final_response", "error"];
pub const FINISH_REASONS: &[&str] = &[
    "stop",
    "length",
    "tool_calls",
    "content_filter",
    "error",
    "other",
];

const COUNT: Kind = Kind::Integer { min: 0 };
const TOKENS: Kind = Kind::Tokens;

pub const USAGE: &[Field] = &[
    field("input", TOKENS, false, false, "Input (prompt) tokens."),
    field(
        "output",
        TOKENS,
        false,
        false,
        "Output tokens, reasoning excluded.",
    ),
    field(
        "cacheWrite",
        TOKENS,
        false,
        false,
        "Tokens written to the provider cache.",
    ),
    field(
        "cacheRead",
        TOKENS,
        false,
        false,
        "Tokens read from the provider cache.",
    ),
    field("reasoning", TOKENS, false, false, "Reasoning tokens."),
    field(
        "prompt",
        TOKENS,
        false,
        false,
        "Seed-000 form: prompt tokens.",
    ),
    field(
        "completion",
        TOKENS,
        false,
        false,
        "Seed-000 form: completion tokens.",
    ),
    field("total", TOKENS, false, false, "Seed-000 form: all tokens."),
];

pub const EXECUTION: &[Field] = &[
    field(
        "started_at",
        Kind::Timestamp,
        true,
        false,
        "When the session started.",
    ),
    field(
        "updated_at",
        Kind::Timestamp,
        true,
        false,
        "When the state last changed.",
    ),
    field(
        "cumulative_seconds",
        Kind::Duration,
        true,
        false,
        "Execution time accumulated over all steps, surviving pause/resume.",
    ),
    field(
        "execution_id",
        Kind::String,
        false,
        true,
        "v2: the current execution's id; null between executions.",
    ),
    field(
        "completed_at",
        Kind::Timestamp,
        false,
        true,
        "v2: when the execution ended; null while running.",
    ),
    field(
        "execution_count",
        COUNT,
        false,
        false,
        "v2: executions (runs) of this agent so far.",
    ),
];

pub const MESSAGE: &[Field] = &[
    field(
        "role",
        Kind::String,
        true,
        false,
        "system, developer, user, assistant, tool (other strings are kept).",
    ),
    field(
        "content",
        Kind::Content,
        true,
        false,
        "Text (possibly truncated, ending in \"...\") or content parts.",
    ),
    field(
        "_metadata",
        Kind::Map,
        false,
        false,
        "Tool calls, tool call ids, results; [] when empty.",
    ),
    field(
        "metadata",
        Kind::Map,
        false,
        false,
        "Seed-000 alias of _metadata.",
    ),
    field("id", Kind::String, false, false, "v2: the message's uuid."),
    field(
        "createdAt",
        Kind::Timestamp,
        false,
        false,
        "v2: when the message was created.",
    ),
    field(
        "tool_calls",
        Kind::Array(&V2_TOOL_CALL_KIND),
        false,
        false,
        "v2: the tool calls an assistant message requested ({id, name} with redactToolArgs).",
    ),
    field(
        "tool_result",
        Kind::Object(TOOL_RESULT),
        false,
        false,
        "v2: what a tool message answers (its content dropped without tool results).",
    ),
];
const MESSAGE_KIND: Kind = Kind::Object(MESSAGE);

pub const TOOL_CALL: &[Field] = &[
    field("id", Kind::String, true, true, "Tool call id."),
    field("name", Kind::String, true, false, "Tool name."),
];
const TOOL_CALL_KIND: Kind = Kind::Object(TOOL_CALL);

/// A v2 message's tool call.
pub const V2_TOOL_CALL: &[Field] = &[
    field("id", Kind::String, true, true, "Tool call id."),
    field("name", Kind::String, true, false, "Tool name."),
    field(
        "arguments",
        Kind::Map,
        false,
        false,
        "Arguments; absent with redactToolArgs.",
    ),
];
const V2_TOOL_CALL_KIND: Kind = Kind::Object(V2_TOOL_CALL);

/// A v2 tool message's `tool_result`.
pub const TOOL_RESULT: &[Field] = &[
    field(
        "content",
        Kind::Content,
        false,
        false,
        "The result (absent without tool results).",
    ),
    field("call_id", Kind::String, false, true, "The answered call."),
    field("tool_name", Kind::String, false, false, "The tool."),
    field("is_error", Kind::Boolean, false, false, "The tool failed."),
];

/// A v2 stop signal.
pub const STOP_SIGNAL: &[Field] = &[
    field(
        "reason",
        Kind::Enum(STOP_REASONS),
        true,
        false,
        "One of v2's ten stop reasons.",
    ),
    field(
        "message",
        Kind::String,
        true,
        false,
        "What stopped the run.",
    ),
    field(
        "context",
        Kind::PhpArray,
        false,
        false,
        "The signal's data (a map, [] when empty, or a list).",
    ),
    field(
        "source",
        Kind::String,
        false,
        true,
        "The class or name that raised it.",
    ),
];
const STOP_SIGNAL_KIND: Kind = Kind::Object(STOP_SIGNAL);

/// A v2 execution's continuation, with its explanation (`includeContinuationTrace`).
pub const CONTINUATION_V2: &[Field] = &[
    field(
        "should_stop",
        Kind::Boolean,
        true,
        false,
        "ExecutionState::shouldStop().",
    ),
    field(
        "is_continuation_requested",
        Kind::Boolean,
        true,
        false,
        "A hook asked to go on regardless of signals.",
    ),
    field(
        "stop_signals",
        Kind::Array(&STOP_SIGNAL_KIND),
        true,
        false,
        "Every signal raised, in order.",
    ),
    field(
        "explain",
        Kind::String,
        true,
        false,
        "ExecutionContinuation::explain().",
    ),
];

pub const STEP_USAGE: &[Field] = &[field(
    "total",
    TOKENS,
    true,
    false,
    "All tokens of the step.",
)];

pub const STEP: &[Field] = &[
    field(
        "step_number",
        Kind::Integer { min: 1 },
        true,
        false,
        "1..N within the kept steps.",
    ),
    field(
        "type",
        Kind::Enum(STEP_TYPES),
        true,
        false,
        "Derived step type.",
    ),
    field(
        "has_tool_calls",
        Kind::Boolean,
        true,
        false,
        "The step requested tool calls.",
    ),
    field(
        "finish_reason",
        Kind::Enum(FINISH_REASONS),
        true,
        true,
        "Normalised finish reason.",
    ),
    field(
        "errors",
        COUNT,
        true,
        false,
        "Number of errors in the step.",
    ),
    field(
        "usage",
        Kind::Object(STEP_USAGE),
        true,
        false,
        "Token usage of the step.",
    ),
    field(
        "duration_ms",
        Kind::Number { min: 0.0 },
        false,
        true,
        "Seed 000: how long the step took, in milliseconds (null when its start and completion are not stored).",
    ),
    field(
        "tool_calls",
        Kind::Array(&TOOL_CALL_KIND),
        true,
        false,
        "Requested tool calls, id and name only.",
    ),
    field(
        "stop_signal",
        STOP_SIGNAL_KIND,
        false,
        true,
        "v2: the step's own stop signal (an after-step guard's).",
    ),
];
const STEP_KIND: Kind = Kind::Object(STEP);

pub const CONTINUATION: &[Field] = &[
    field("should_continue", Kind::Boolean, true, false, "Whether the loop went on."),
    field("stop_reason", Kind::String, true, false, "completed, steps_limit, token_limit, time_limit, retry_limit, error, finish_reason, guard, user_requested."),
    field("resolved_by", Kind::String, true, false, "The deciding criterion's class, or aggregate."),
];

/// The snapshot itself.
pub const SNAPSHOT: &[Field] = &[
    field(
        "state_version",
        Kind::Enum(STATE_VERSIONS),
        false,
        false,
        "\"v2\" for a snapshot of an instructor-php v2.x state; absent for v1.22.",
    ),
    field("agent_id", Kind::String, true, false, "The agent instance."),
    field(
        "parent_agent_id",
        Kind::String,
        false,
        true,
        "The parent agent, for sub-agents.",
    ),
    field(
        "status",
        Kind::Enum(STATUSES),
        true,
        true,
        "The agent's status: v1.22 in_progress, completed, failed; v2 also pending, stopped, or null between executions.",
    ),
    field(
        "step_count",
        COUNT,
        true,
        false,
        "Steps taken in this execution (can exceed the steps kept).",
    ),
    field(
        "usage",
        Kind::Object(USAGE),
        true,
        false,
        "Accumulated token usage.",
    ),
    field("execution", Kind::Object(EXECUTION), true, false, "Timing."),
    field(
        "messages",
        Kind::Array(&MESSAGE_KIND),
        true,
        false,
        "The most recent messages.",
    ),
    field(
        "steps",
        Kind::Array(&STEP_KIND),
        false,
        false,
        "Summaries of the most recent steps.",
    ),
    field(
        "last_continuation",
        Kind::Object(CONTINUATION),
        false,
        true,
        "The last continuation decision, when traced.",
    ),
    field(
        "metadata",
        Kind::Map,
        false,
        false,
        "Application metadata; [] when empty.",
    ),
    field(
        "created_at",
        Kind::Timestamp,
        false,
        false,
        "v2: when the agent state was created.",
    ),
    field(
        "system_prompt",
        Kind::String,
        false,
        false,
        "v2: the context's system prompt (truncated like message content).",
    ),
    field(
        "stop_signal",
        STOP_SIGNAL_KIND,
        false,
        true,
        "v2: the winning stop signal (the last step's against the execution's), in place of v1.22's criteria trace.",
    ),
    field(
        "continuation",
        Kind::Object(CONTINUATION_V2),
        false,
        true,
        "v2: the execution's continuation, when traced (includeContinuationTrace).",
    ),
];
