//! The event vocabulary: what can happen in an agent run, as the session
//! applies it. Every producer's events become these (instructor-php's
//! decoded envelopes through `envelope::event`, the foreign dialects'
//! through their translators), and `session::apply` reads nothing else: a
//! rule of the view is written once, against typed fields, whichever
//! producer sent the event.
//!
//! ```
//! use stepline::event::{Body, Event, ToolEvent, ToolKind};
//! let e = Event {
//!     step: Some(2),
//!     timestamp: Some("2026-01-20T12:00:01Z".into()),
//!     annotations: Vec::new(),
//!     body: Body::Tool(Box::new(ToolEvent::new(ToolKind::Started, "search"))),
//! };
//! assert!(e.body.is_tool());
//! ```

use crate::json::Value;
use crate::model::annotations::Annotations;
use crate::model::usage::Usage;

/// One event of a run, with what every kind may carry.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The step the event names itself (`step_index`, else `step_number`);
    /// `None` leaves it to the session (the latest step, or, for a tool
    /// event, its timestamp).
    pub step: Option<i64>,
    /// When the producer sent it (RFC 3339 text, as received).
    pub timestamp: Option<String>,
    /// Seed-003 annotations it carries, merged into its step in this order.
    pub annotations: Vec<Annotations>,
    /// What happened.
    pub body: Body,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// The run's status changed (`agent.status`).
    Status(Status),
    /// A step (or, with `llm`, its model call) started.
    StepStarted(StepStarted),
    /// A step (or, with `llm`, only its model call) completed.
    StepCompleted(Box<StepCompleted>),
    /// A step failed; with `run`, the run failed with it.
    StepFailed(Box<StepFailed>),
    /// The run completed.
    RunCompleted {
        /// The run's answer, as the producer sent it.
        final_answer: Option<String>,
        /// Why it ended (`final_response`, a stop reason).
        reason: Option<String>,
    },
    /// The run was interrupted.
    RunInterrupted {
        /// Why it was interrupted.
        reason: Option<String>,
    },
    /// A step's continuation decision: `should_continue`, `stop_reason`,
    /// `resolved_by` and `evaluations` as sent (an object of those four).
    Continuation(Value),
    /// A tool call's start, end, approval or output.
    Tool(Box<ToolEvent>),
    /// A chunk of the run's streamed text.
    StreamChunk(Chunk),
    /// Text appended to the step's answer.
    TextDelta(String),
    /// Text appended to the step's reasoning.
    ReasoningDelta(String),
    /// A named value of the run set or patched.
    Data(Data),
    /// An event the view has no rule for (it still widens the run's time
    /// span and brings its annotations).
    Other,
}

impl Body {
    /// Whether it is a tool event (placed by its step number, else its
    /// timestamp, else arrival).
    pub fn is_tool(&self) -> bool {
        matches!(self, Body::Tool(_))
    }
}

/// `agent.status`: the new status and what the producer said with it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// The new status (`processing`, `completed`, ...).
    pub status: Option<String>,
    /// The status it left, when the producer names it.
    pub previous: Option<String>,
    /// The run's error text, when it failed.
    pub error_message: Option<String>,
    /// The last response text the producer reports with the status.
    pub last_response: Option<String>,
    /// How many steps the run has made.
    pub step_count: Option<i64>,
}

/// A step's or its model call's start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepStarted {
    /// The producer's id of the step.
    pub step_id: Option<String>,
    /// How many messages the step's request holds.
    pub message_count: Option<i64>,
    /// How many tools the step could call.
    pub available_tools: Option<i64>,
}

/// Token usage as reported, with the producer's own total where it differs
/// from the sum of the fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportedUsage {
    /// The token counts.
    pub usage: Usage,
    /// The producer's own total, where it is not the sum of `usage`.
    pub reported_total: Option<i64>,
}

/// A seed-003 `step` object (`{step_id, timestamp, llm_response: {text,
/// usage, finish_reason, tool_calls}}`): fills what the event left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepObject {
    /// `step_id`.
    pub step_id: Option<String>,
    /// `timestamp`.
    pub timestamp: Option<String>,
    /// `llm_response.finish_reason`.
    pub finish_reason: Option<String>,
    /// `llm_response.usage`.
    pub usage: Option<ReportedUsage>,
    /// Whether `llm_response.tool_calls` was a non-empty list.
    pub has_tool_calls: Option<bool>,
    /// `llm_response.text`.
    pub text: Option<String>,
}

/// A step's or its model call's completion.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepCompleted {
    /// Only the model call completed (`agent.llm.completed`): the step
    /// itself is not marked completed.
    pub llm: bool,
    /// A failed attempt's steps were recorded with it (`recorded_steps`).
    pub attempt_failed: bool,
    /// The producer's id of the step.
    pub step_id: Option<String>,
    /// Whether the step's response asked for tool calls.
    pub has_tool_calls: Option<bool>,
    /// How many errors the step had.
    pub errors: Option<i64>,
    /// Why the model stopped (`stop`, `tool_calls`, ...).
    pub finish_reason: Option<String>,
    /// The step's token usage.
    pub usage: Option<ReportedUsage>,
    /// Milliseconds, as sent (int or float).
    pub duration_ms: Option<Value>,
    /// Seed 000's summary of the step's decision (an object).
    pub continuation: Option<Value>,
    /// A seed-003 step object sent with it.
    pub step_object: Option<StepObject>,
}

/// A step's failure, or the run's (`run`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepFailed {
    /// The run failed (`agent.run.failed`), not only the step.
    pub run: bool,
    /// The error text.
    pub error: Option<String>,
    /// Why the run ended (read for a run's failure only).
    pub reason: Option<String>,
    /// A seed-003 step object sent with it.
    pub step_object: Option<StepObject>,
}

/// Which half of a tool call an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// The call started (its arguments known).
    Started,
    /// The call returned.
    Completed,
    /// The call failed.
    Failed,
    /// The call's approval was asked for or answered.
    Approval,
    /// The tool streamed output.
    Output,
}

impl ToolKind {
    /// The kind of an instructor-php `agent.tool.*` envelope type; any other
    /// of that family (`agent.tool.output` and types stepline does not
    /// know) is output.
    pub fn of_type(kind: &str) -> ToolKind {
        match kind {
            "agent.tool.started" => ToolKind::Started,
            "agent.tool.completed" => ToolKind::Completed,
            "agent.tool.failed" => ToolKind::Failed,
            "agent.tool.approval" => ToolKind::Approval,
            _ => ToolKind::Output,
        }
    }

    /// Whether it ends the call (completed or failed).
    pub fn ends(self) -> bool {
        matches!(self, ToolKind::Completed | ToolKind::Failed)
    }
}

/// A tool call's event. Names and ids come from the event's own fields,
/// else from its `tool_call` object; a result from its `tool_result`
/// object where the event leaves them out.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolEvent {
    /// Which half of the call it is.
    pub kind: ToolKind,
    /// The tool's name (empty when only the call is named: an approval).
    pub name: String,
    /// The call's id, when the producer gives one.
    pub call_id: Option<String>,
    /// The producer's summary of the arguments.
    pub args_summary: Option<String>,
    /// The arguments (non-null).
    pub args: Option<Value>,
    /// Whether the call succeeded, as sent.
    pub success: Option<bool>,
    /// The call's error text.
    pub error: Option<String>,
    /// Milliseconds, as sent.
    pub duration_ms: Option<Value>,
    /// The producer's summary of the result.
    pub result_summary: Option<String>,
    /// The result (non-null).
    pub result: Option<Value>,
    /// `tool_result.latency_ms` (else `duration_ms`), a number.
    pub result_duration_ms: Option<Value>,
    /// `tool_result.call.id`.
    pub result_call_id: Option<String>,
    /// `tool_result.output`: what the tool returned (seed 003).
    pub output: Option<String>,
    /// `approved`, `rejected` or `pending`, as sent.
    pub approval: Option<String>,
    /// Output text streamed by the tool.
    pub text_delta: Option<String>,
}

impl ToolEvent {
    /// An event of `kind` for tool `name`, nothing else known.
    pub fn new(kind: ToolKind, name: &str) -> ToolEvent {
        ToolEvent {
            kind,
            name: name.to_string(),
            call_id: None,
            args_summary: None,
            args: None,
            success: None,
            error: None,
            duration_ms: None,
            result_summary: None,
            result: None,
            result_duration_ms: None,
            result_call_id: None,
            output: None,
            approval: None,
            text_delta: None,
        }
    }
}

/// A chunk of streamed text at its index (`None`: after the last one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chunk {
    /// Its place in the stream.
    pub index: Option<i64>,
    /// Its text.
    pub content: String,
    /// A raw provider frame: counted at its index, no text.
    pub provider_frame: bool,
    /// The stream said it is complete.
    pub is_complete: bool,
}

/// A named value of the run.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// The latest value under `name`.
    Put {
        /// The value's name.
        name: String,
        /// The value.
        value: Value,
    },
    /// A JSON Patch to the value under `name` (AG-UI's state deltas).
    Patch {
        /// The value's name.
        name: String,
        /// The RFC 6902 operations.
        patch: Value,
    },
}
