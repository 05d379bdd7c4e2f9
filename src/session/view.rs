//! The live view of one session: what the streamed envelopes say so far.
//! Plain data; `apply.rs` changes it. What JS sees is declared once, by the
//! borrowed view structs here (`ToolRunView`, `StepShape`, `ExecutionView`),
//! which `patch.rs` and the shape schemas use alike.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::Value;

use crate::envelope::dialect::WireDialect;
use crate::model::annotations::Annotations;
use crate::model::state::AgentStatus;
use crate::model::step_type::StepType;
use crate::model::usage::{Usage, UsageWithTotal};
use crate::session::attribution::{Attribution, ToolPlacement};
use crate::session::gaps::Gaps;
use crate::session::kept_continuation::KeptContinuation;
use crate::session::stamp::Stamp;
use crate::session::status::{StatusDetail, StatusTimes};
use crate::session::text::StreamText;

/// Where a tool run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Started; no completion or failure yet.
    Running,
    /// Completed successfully.
    Succeeded,
    /// Completed with an error, or failed.
    Failed,
}

impl ToolStatus {
    /// The view's value: `running`, `succeeded` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Running => "running",
            ToolStatus::Succeeded => "succeeded",
            ToolStatus::Failed => "failed",
        }
    }
}

/// Where a tool call's approval by a person stands (laravel/ai, AG-UI and
/// AI SDK approval requests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    /// Asked for; no answer yet: the run waits.
    Requested,
    /// Approved: the tool may run.
    Approved,
    /// Denied: the tool does not run.
    Denied,
}

impl Approval {
    /// The wire word: `requested`, `approved` or `denied`.
    pub fn parse(word: &str) -> Option<Approval> {
        Some(match word {
            "requested" => Approval::Requested,
            "approved" => Approval::Approved,
            "denied" => Approval::Denied,
            _ => return None,
        })
    }
}

/// One tool call within a step, assembled from its started/completed pair
/// (either may arrive first, or not at all).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolRun {
    /// The tool's name.
    pub name: String,
    /// The tool call's id, when the producer sent one.
    pub call_id: Option<String>,
    /// The (truncated) arguments (when the producer sends them).
    pub args: Option<Value>,
    /// The start's envelope timestamp.
    pub started_at: Option<Stamp>,
    /// The completion's envelope timestamp.
    pub completed_at: Option<Stamp>,
    /// `None` until a completion (or failure) arrives.
    pub success: Option<bool>,
    /// The duration the producer reported, as sent.
    pub duration_ms: Option<Value>,
    /// Whether its start arrived.
    pub seen_started: bool,
    /// Whether its completion (or failure) arrived.
    pub seen_completed: bool,
    /// How the run was placed in its step (see [`crate::session::Attribution`]).
    pub attribution: Attribution,
    /// Its completion was byte-identical to an earlier completion of the
    /// same tool in the step, so it was told apart by count, not identity
    /// (see [`ToolRunView::matched_by_count`]).
    pub matched_by_count: bool,
    /// What most calls leave empty, boxed: 88 of the 200 bytes (wasm32) a
    /// run held inline (bench/findings.md).
    /// Read with [`ToolRun::more`], set with [`ToolRun::more_mut`].
    pub more: More,
}

/// A run's [`ToolRunMore`] when one was set: equal to none when it holds
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct More(Option<Box<ToolRunMore>>);

impl More {
    fn get(&self) -> &ToolRunMore {
        self.0.as_deref().unwrap_or(&NO_MORE)
    }
}

impl PartialEq for More {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// The parts of a [`ToolRun`] most calls leave empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolRunMore {
    /// The one-line summary of the arguments (when the producer summarises them).
    pub args_summary: Option<String>,
    /// The failure's message.
    pub error: Option<String>,
    /// The producer's one-line summary of the result.
    pub result_summary: Option<String>,
    /// The result as a foreign producer sent it (laravel/ai, AG-UI, AI SDK).
    pub result: Option<Value>,
    /// Where a person's approval of the call stands, when one was asked for.
    pub approval: Option<Approval>,
    /// Seed-003 `agent.tool.output` deltas, in arrival order, up to the
    /// session's text limit (the completion's output when none streamed).
    pub output: String,
    /// The seed-003 completion's `tool_result.output`: what the tool
    /// returned, which deltas streamed before it do not replace.
    pub final_output: Option<String>,
    /// Output bytes past the text limit, dropped.
    pub output_dropped_bytes: u64,
}

/// An empty [`ToolRunMore`], what a run without one reads as.
static NO_MORE: ToolRunMore = ToolRunMore {
    args_summary: None,
    error: None,
    result_summary: None,
    result: None,
    approval: None,
    output: String::new(),
    final_output: None,
    output_dropped_bytes: 0,
};

impl ToolRun {
    /// Where the run stands, from its completion.
    pub fn status(&self) -> ToolStatus {
        match self.success {
            None => ToolStatus::Running,
            Some(true) => ToolStatus::Succeeded,
            Some(false) => ToolStatus::Failed,
        }
    }

    /// The parts most calls leave empty (all empty when none was set).
    pub fn more(&self) -> &ToolRunMore {
        self.more.get()
    }

    /// The parts most calls leave empty, to set one.
    pub fn more_mut(&mut self) -> &mut ToolRunMore {
        self.more.0.get_or_insert_with(Box::default)
    }

    /// The run as the view shows it.
    pub fn view(&self) -> ToolRunView<'_> {
        let more = self.more();
        ToolRunView {
            name: &self.name,
            call_id: self.call_id.as_deref(),
            status: self.status(),
            args_summary: more.args_summary.as_deref(),
            args: self.args.as_ref(),
            started_at: self.started_at.as_ref(),
            completed_at: self.completed_at.as_ref(),
            error: more.error.as_deref(),
            duration_ms: self.duration_ms.as_ref(),
            result_summary: more.result_summary.as_deref(),
            result: more.result.as_ref(),
            approval: more.approval,
            output: &more.output,
            output_dropped_bytes: more.output_dropped_bytes,
            seen: Seen {
                started: self.seen_started,
                completed: self.seen_completed,
            },
            attribution: self.attribution,
            matched_by_count: self.matched_by_count,
        }
    }
}

/// One tool call of a step, assembled from its events in any order.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolRunView<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The producer's id of the call, when it sent one.
    pub call_id: Option<&'a str>,
    /// Where the run stands.
    pub status: ToolStatus,
    /// The producer's short text of the arguments.
    pub args_summary: Option<&'a str>,
    /// The arguments as sent (`null` when none were).
    #[cfg_attr(feature = "schema", schemars(schema_with = "any_schema"))]
    pub args: Option<&'a Value>,
    /// When the tool started (the producer's timestamp).
    pub started_at: Option<&'a Stamp>,
    /// When the tool completed or failed.
    pub completed_at: Option<&'a Stamp>,
    /// Why the tool failed.
    pub error: Option<&'a str>,
    /// The producer's duration in milliseconds.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub duration_ms: Option<&'a Value>,
    /// The producer's short text of the result.
    pub result_summary: Option<&'a str>,
    /// The result as the producer sent it (laravel/ai, AG-UI, AI SDK, and
    /// a seed-003 completion's `tool_result.output`; `null` otherwise).
    #[cfg_attr(feature = "schema", schemars(schema_with = "any_schema"))]
    pub result: Option<&'a Value>,
    /// Where a person's approval of the call stands (`null`: none was asked for).
    /// `requested` is a run waiting on a person, not a lost event.
    pub approval: Option<Approval>,
    /// The streamed output (seed 003), at most the session's `maxTextBytes`.
    pub output: &'a str,
    /// Output bytes past the session's `maxTextBytes`, dropped (0 when none).
    pub output_dropped_bytes: u64,
    /// Which halves arrived; a missing one is a lost event or still to come.
    pub seen: Seen,
    /// How the run was placed in its step: `"step_number"` (its events carried
    /// it), `"timestamp"` (inside the step's started..completed interval), or
    /// `"arrival"` (timestamps could not decide, e.g. a frozen clock, or its
    /// step has not arrived yet: the step last started when it arrived).
    pub attribution: Attribution,
    /// `true` when this run's completion was byte-identical to an earlier
    /// completion of the same tool in the step: calls without ids (v2.7
    /// sends `tool_call_id: null`) finishing in the same millisecond with
    /// the same outcome. stepline then decides by count, not identity: a
    /// repeat is this call's completion while the step has a call of that
    /// tool still open (more starts than completions), and a redelivery
    /// otherwise. Which of the identical completions belongs to which call
    /// is the order they came in. Absent when `false`.
    ///
    /// @example
    /// ```js
    /// const flagged = view.executions[0].steps.flatMap(s => s.tools).filter(t => t.matched_by_count);
    /// ```
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "schema", schemars(default))]
    pub matched_by_count: bool,
}

/// Which halves of a started/completed pair of events arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Seen {
    /// The `started` event arrived.
    pub started: bool,
    /// The `completed` event arrived.
    pub completed: bool,
}

/// An execution's steps by number, each in its own box: a tree node holds
/// eleven entries and a tree filled in order keeps about six in each, so
/// steps held in place left room for nearly as many again unused (0.2 MiB
/// at 500 steps natively: bench/findings.md, issue 27's sixth pass).
///
/// ```
/// use stepline::session::view::{StepMap, StepView};
/// let mut steps = StepMap::new();
/// steps.insert(1, Box::new(StepView::new(1)));
/// assert_eq!(steps[&1].number, 1);
/// ```
pub type StepMap = BTreeMap<i64, Box<StepView>>;

/// One agent step as streamed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepView {
    /// The step number (from 1).
    pub number: i64,
    /// The producer's step id, when sent.
    pub step_id: Option<String>,
    /// The producer's own time of the step: seed 003's `AgentStep.timestamp`
    /// in a `step` object (docs/seeds/003-agent-response-structure.md).
    pub timestamp: Option<String>,
    /// The start's envelope timestamp.
    pub started_at: Option<String>,
    /// The completion's envelope timestamp.
    pub completed_at: Option<String>,
    /// The duration the producer reported, as sent.
    pub duration_ms: Option<Value>,
    /// Messages in the context when the step started.
    pub message_count: Option<i64>,
    /// Tools the model could call in this step.
    pub tools_available: Option<i64>,
    /// Whether the model called tools in this step.
    pub has_tool_calls: Option<bool>,
    /// The model's finish reason.
    pub finish_reason: Option<String>,
    /// The step's token usage.
    pub usage: Option<Usage>,
    /// How many errors the step had.
    pub errors: Option<i64>,
    /// `agent.step.failed` / `agent.run.failed` error text.
    pub error: Option<String>,
    /// `{should_continue, stop_reason, resolved_by, evaluations}` (read
    /// with [`KeptContinuation::value`]).
    pub continuation: Option<KeptContinuation>,
    /// When the kept continuation was sent (epoch ms), so a redelivered or
    /// resynced earlier one never replaces a later one.
    pub continuation_at: Option<i64>,
    /// The tool runs, in the order they were placed.
    pub tools: Vec<ToolRun>,
    /// The runs by call id (src/session/tool_index.rs; opaque, kept by
    /// the session: public so a step can be built with `..StepView::new(n)`).
    pub tool_index: crate::session::tool_index::ToolIndex,
    /// Seed-003 `agent.llm.output_text.delta` text of this step.
    pub text: String,
    /// The model's streamed reasoning in this step (`agent.llm.reasoning.delta`),
    /// at most the session's text limit.
    pub reasoning: String,
    /// Whether its start arrived.
    pub seen_started: bool,
    /// Whether its completion arrived.
    pub seen_completed: bool,
    /// Seed-003 safety notes, citations and extras, from the step objects
    /// and the `annotations` of its live events (merged, each note once).
    pub annotations: Annotations,
    /// Where each citation is in `annotations` (src/session/annotate.rs;
    /// kept by the session, public for the same reason as `tool_index`).
    pub citation_index: crate::session::annotate::CitationIndex,
    /// The producer's own usage `total`, when it sent one that differs
    /// from the sum of the fields (the producer's count is kept).
    pub usage_reported_total: Option<i64>,
    /// The step's inference failed and the producer recorded no step for it
    /// (the decoder's `recorded_steps`: v2.7's completion of a failed attempt).
    pub attempt_failed: bool,
}

impl StepView {
    /// An empty step numbered `number`.
    pub fn new(number: i64) -> StepView {
        StepView {
            number,
            ..StepView::default()
        }
    }

    /// The reference's step type, once the completion says enough:
    /// errors win, then tool calls, else a final response.
    pub fn step_type(&self) -> Option<&'static str> {
        self.kind().map(StepType::as_str)
    }

    /// [`step_type`](StepView::step_type) as the enum.
    pub fn kind(&self) -> Option<StepType> {
        if self.errors.unwrap_or(0) > 0 || self.error.is_some() || self.attempt_failed {
            return Some(StepType::Error);
        }
        match self.has_tool_calls {
            Some(true) => Some(StepType::ToolExecution),
            Some(false) => Some(StepType::FinalResponse),
            None if !self.tools.is_empty() => Some(StepType::ToolExecution),
            None => None,
        }
    }

    /// The step's token total: the producer's when it sent its own.
    pub fn usage_total(&self) -> Option<i64> {
        self.usage
            .map(|u| self.usage_reported_total.unwrap_or(u.total()))
    }

    /// What the producer's total adds to the sum of the fields (0 when it
    /// sent none).
    pub fn usage_total_extra(&self) -> i64 {
        match (self.usage, self.usage_reported_total) {
            (Some(u), Some(t)) => t.saturating_sub(u.total()),
            _ => 0,
        }
    }

    /// The step's id: the producer's (seed 003's `step_id`), else one
    /// generated from its execution and number, so the same run gives the
    /// same ids whatever the order, repetition or resync of its events; the
    /// flag says which.
    ///
    /// ```
    /// use stepline::session::view::StepView;
    /// let step = StepView::new(2);
    /// assert_eq!(step.id_in(Some("exec-1")), ("exec-1/step-2".into(), true));
    /// assert_eq!(step.id_in(None), ("step-2".into(), true));
    /// ```
    pub fn id_in(&self, execution: Option<&str>) -> (Cow<'_, str>, bool) {
        let id = match (&self.step_id, execution) {
            (Some(id), _) => return (Cow::Borrowed(id.as_str()), false),
            (None, Some(e)) => {
                let mut id = String::with_capacity(e.len() + 12);
                id.push_str(e);
                id.push('/');
                id
            }
            (None, None) => String::with_capacity(12),
        };
        (Cow::Owned(numbered(id, self.number)), true)
    }

    /// The step as the view shows it, in the execution `execution` (whose
    /// id its generated `step_id` carries).
    pub fn view<'a>(&'a self, execution: Option<&str>) -> StepShape<'a> {
        let (step_id, step_id_generated) = self.id_in(execution);
        StepShape {
            number: self.number,
            step_index: self.number,
            step_id,
            step_id_generated,
            kind: self.kind(),
            started_at: self.started_at.as_deref(),
            completed_at: self.completed_at.as_deref(),
            duration_ms: self.duration_ms.as_ref(),
            message_count: self.message_count,
            tools_available: self.tools_available,
            has_tool_calls: self.has_tool_calls,
            finish_reason: self.finish_reason.as_deref(),
            usage: self
                .usage
                .zip(self.usage_total())
                .map(|(u, total)| UsageWithTotal::new(&u, total)),
            errors: self.errors,
            error: self.error.as_deref(),
            continuation: self.continuation.as_ref(),
            explanation: self
                .continuation
                .as_ref()
                .and_then(KeptContinuation::explanation),
            tools: ToolRuns(&self.tools),
            text: &self.text,
            reasoning: &self.reasoning,
            seen: Seen {
                started: self.seen_started,
                completed: self.seen_completed,
            },
            annotations: (!self.annotations.is_empty()).then_some(&self.annotations),
            attempt_failed: self.attempt_failed,
        }
    }
}

/// `prefix` + `step-<number>`, without `format!` (a replay's first read
/// makes one id per step, and the formatting machinery showed in its
/// profile: bench/findings.md).
fn numbered(mut prefix: String, number: i64) -> String {
    prefix.push_str("step-");
    if number < 0 {
        prefix.push('-');
    }
    crate::json::write_u64(&mut prefix, number.unsigned_abs());
    prefix
}

/// One step as streamed (`StepView` in TypeScript; the Rust name
/// [`StepView`] is the step's state). Fields stay `null` until an event
/// says them.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "StepView"))]
pub struct StepShape<'a> {
    /// The step's number in its execution (1-based on the wire).
    pub number: i64,
    /// Seed 003's `step_index`: the step's number in its execution.
    pub step_index: i64,
    /// The producer's id of the step (seed 003's `step_id`), else one made
    /// from the execution id and the step number (`"exec-1/step-2"`, or
    /// `"step-2"` without an execution id): the same for the same run in any
    /// arrival order.
    pub step_id: Cow<'a, str>,
    /// `step_id` was generated by stepline, not sent by the producer.
    pub step_id_generated: bool,
    /// The reference's step type, once the completion says enough.
    #[serde(rename = "type")]
    pub kind: Option<StepType>,
    /// When the step started.
    pub started_at: Option<&'a str>,
    /// When the step completed.
    pub completed_at: Option<&'a str>,
    /// The producer's duration in milliseconds.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub duration_ms: Option<&'a Value>,
    /// Messages the step's inference read.
    pub message_count: Option<i64>,
    /// Tools the step's inference could call.
    pub tools_available: Option<i64>,
    /// The inference asked for tool calls.
    pub has_tool_calls: Option<bool>,
    /// The inference's finish reason.
    pub finish_reason: Option<&'a str>,
    /// The step's tokens (`total` is the producer's own when it sent one).
    pub usage: Option<UsageWithTotal>,
    /// How many errors the step recorded.
    pub errors: Option<i64>,
    /// `agent.step.failed` / `agent.run.failed` error text.
    pub error: Option<&'a str>,
    /// The continuation decision after the step.
    #[cfg_attr(feature = "schema", schemars(schema_with = "continuation_schema"))]
    pub continuation: Option<&'a KeptContinuation>,
    /// Why the loop went on or stopped after this step, in one sentence
    /// (`null` until a continuation arrives).
    pub explanation: Option<String>,
    /// The step's tool runs, in the order they were placed.
    pub tools: ToolRuns<'a>,
    /// Seed-003 streamed text of this step.
    pub text: &'a str,
    /// The model's streamed reasoning in this step (`""` when none).
    pub reasoning: &'a str,
    /// Which halves arrived; a missing one is a lost event or still to come.
    pub seen: Seen,
    /// Seed-003 annotations of the step and its events (`null` when none).
    pub annotations: Option<&'a Annotations>,
    /// The step's inference failed and the producer recorded no step for it (v2.7).
    pub attempt_failed: bool,
}

/// A step's tool runs, written as their [`ToolRunView`]s without
/// collecting them first.
#[derive(Clone, Copy, Debug)]
pub struct ToolRuns<'a>(pub &'a [ToolRun]);

impl serde::Serialize for ToolRuns<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(ToolRun::view))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ToolRuns<'_> {
    fn schema_name() -> Cow<'static, str> {
        "ToolRuns".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<ToolRunView<'static>>>::json_schema(g)
    }
}

/// Any JSON value (`unknown`).
#[cfg(feature = "schema")]
fn any_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::from(true)
}

/// `{[name]: any}`.
#[cfg(feature = "schema")]
fn data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object", "additionalProperties": true })
}

/// A producer's duration in milliseconds, or `null`.
#[cfg(feature = "schema")]
fn duration_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["number", "null"] })
}

/// The continuation object as the producer sent it: `agent.continuation`'s
/// four fields, or a step completion's own `continuation`.
#[cfg(feature = "schema")]
fn continuation_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "should_continue": { "type": ["boolean", "null"] },
                    "stop_reason": { "type": ["string", "null"] },
                    "resolved_by": { "type": ["string", "null"] },
                    "evaluations": true
                },
                "additionalProperties": true
            },
            { "type": "null" }
        ]
    })
}

/// One user turn: everything streamed under one `execution_id`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Execution {
    /// The execution id (`None` for envelopes without one).
    pub id: Option<String>,
    /// Events of the prefixes the application registered (seed 003).
    pub custom_events: crate::session::custom::CustomEvents,
    /// The earliest envelope timestamp seen.
    pub first_at: Option<String>,
    /// The latest envelope timestamp seen.
    pub last_at: Option<String>,
    /// The user's message that started the turn, where the final state
    /// (`reconcile()`'s view) or the stream (AG-UI's `RUN_STARTED` input)
    /// carries it; instructor-php's envelopes carry only a message count.
    pub user_message: Option<String>,
    /// Status transitions as received: `(status, previous_status)`.
    /// Status transitions `(to, from)`, each distinct pair once, in the
    /// order first seen. Changed only through [`Execution::push_status`].
    pub statuses: Vec<(String, Option<String>)>,
    /// The end of the chain, recomputed when a transition is added (reading
    /// it on every ingest used to cost the square of the transitions).
    pub(crate) status_end: Option<String>,
    /// The steps by number.
    pub steps: StepMap,
    /// The stream chunks that can still show, gap detection, and what the
    /// session's text limit dropped.
    pub(crate) stream: StreamText,
    /// The chunks' text in index order (or the seed-003 deltas' in arrival
    /// order), at most the text limit, in blocks (src/session/text_blocks.rs).
    /// Out of date while `stream.is_stale()`, until [`Execution::settle`];
    /// read it through [`Execution::text`].
    pub(crate) text: crate::session::text_blocks::TextBlocks,
    /// Whether a chunk marked the stream complete (`is_complete`).
    pub stream_complete: bool,
    /// Seed-003 `agent.run.completed` answer.
    pub final_answer: Option<String>,
    /// Why the run failed (`error` in the view): seed-003
    /// `agent.run.failed`'s error or a foreign producer's run error.
    pub run_error: Option<String>,
    /// The producer's own word for why the run ended (`reason` of
    /// `agent.run.completed` / `failed` / `interrupted`).
    pub end_reason: Option<String>,
    /// `agent.data`: the latest value under each name, in first-seen order.
    pub data: crate::json::Map,
    /// Where each name is in `data` (src/session/data.rs).
    pub(crate) data_index: crate::session::data::DataIndex,
    /// The caps this execution reached (src/session/limits.rs).
    pub(crate) limits: crate::session::limits::Limits,
    /// Usage summed over the steps, kept up to date by `apply` so reading
    /// the view does not walk every step.
    pub usage_total: Usage,
    /// Steps missing between the ones that arrived.
    pub(crate) step_gaps: Gaps,
    /// `error_message`, `last_response` and `step_count` of its `agent.status` envelopes.
    pub status_detail: StatusDetail,
    /// When seed-000 statuses (no `previous_status`) were broadcast, to see a resume.
    pub(crate) status_times: StatusTimes,
    /// The status a resume under the same execution id leads to (see
    /// [`crate::session::status`]), over the chain's terminal end.
    pub(crate) resumed_to: Option<String>,
    /// What the steps' producer totals add to `usage_total`'s sum.
    pub usage_total_extra: i64,
    /// Silent past the session's `staleAfterMs` without having ended (see
    /// [`crate::session::stale`]).
    pub stale: bool,
    /// `last_at` in epoch ms, read only while a silence limit is set.
    pub(crate) last_ms: Option<i64>,
    /// The tool events and step intervals that place tool runs in steps.
    pub(crate) tool_placement: ToolPlacement,
    /// The most telling dialect of its envelopes.
    pub dialect: WireDialect,
    /// Stream chunks that were raw provider frames (kept out of the text).
    pub provider_frames: u64,
    /// Where chunk indexes restart (see `session/segments.rs`).
    pub(crate) chunk_segments: crate::session::segments::ChunkSegments,
    /// The status the chain ends in after a closing word was set aside
    /// (see [`closing_status`](Execution::closing_status)).
    pub(crate) closed: Option<(String, String)>,
}

/// `(ended, closing word)`: a closing word after these says nothing new
/// about how the run ended.
const CLOSED_BY: &[(&str, &str)] = &[("completed", "stopped"), ("failed", "stopped")];

/// Statuses after which nothing more happens in an execution (`interrupted`:
/// paused for a person; a resumed run arrives as a new one).
pub const TERMINAL: &[&str] = &["completed", "failed", "cancelled", "stopped", "interrupted"];

impl Execution {
    /// The broadcast status the transitions end in. Arrival order does not
    /// matter: the end of the chain is a status no other transition leaves
    /// from; a terminal one is preferred when the chain has gaps.
    pub fn status(&self) -> Option<&str> {
        self.resumed_to.as_deref().or_else(|| {
            self.closed
                .as_ref()
                .map(|(ended, _)| ended.as_str())
                .or(self.status_end.as_deref())
        })
    }

    /// The word a producer closed an already ended run with, when it sent
    /// one: `stopped` after `completed` or `failed` (instructor-php v2.7
    /// ends every execution so, README item 6). How the run ended is the
    /// status before it, which [`status`](Execution::status) reports.
    pub fn closing_status(&self) -> Option<&str> {
        self.closed.as_ref().map(|(_, word)| word.as_str())
    }

    /// The last step, when it started but never ran: nothing of it but its
    /// start arrived and the run then stopped or was cancelled (a v2.7
    /// guard or cancel stops before the step runs, after its start was
    /// broadcast, README item 10). Not a lost event. The limit: a stopped
    /// run's last step whose every other event was lost looks the same.
    pub fn never_ran_step(&self) -> Option<i64> {
        let s = self.steps.values().next_back()?;
        let stopped = matches!(self.status(), Some("stopped" | "cancelled"));
        (stopped
            && s.seen_started
            && !s.seen_completed
            && s.tools.is_empty()
            && s.text.is_empty()
            && s.continuation.as_ref().is_none_or(|c| {
                c.value().get("should_continue").and_then(Value::as_bool) == Some(false)
            }))
        .then_some(s.number)
    }

    /// Notes a seed-000 status (no `previous_status`) broadcast at `at`
    /// (epoch ms): a non-terminal one after the last terminal one resumes
    /// the execution.
    pub fn note_status_time(&mut self, status: &str, at: i64) {
        self.status_times.note(status, at);
        self.resumed_to = self.status_times.resumed().map(str::to_string);
    }

    /// The execution's token total: the sum of the fields, corrected by the
    /// steps' own totals where the producer sent them.
    pub fn usage_total_value(&self) -> i64 {
        self.usage_total
            .total()
            .saturating_add(self.usage_total_extra)
    }

    /// Adds a transition (a repeated one changes nothing) and finds the end
    /// of the chain again in one pass.
    pub fn push_status(&mut self, to: String, from: Option<String>) {
        if self.statuses.iter().any(|(t, f)| *t == to && *f == from) {
            return;
        }
        // A new transition decides again (a resume is found again after it).
        self.resumed_to = None;
        self.statuses.push((to, from));
        // Sorted for binary search (a set type would be kilobytes of wasm).
        let mut left: Vec<&str> = self
            .statuses
            .iter()
            .filter_map(|(to, from)| from.as_deref().filter(|f| f != to))
            .collect();
        crate::sort::sort(&mut left);
        let ends: Vec<&str> = self
            .statuses
            .iter()
            .map(|(s, _)| s.as_str())
            .filter(|s| left.binary_search(s).is_err())
            .collect();
        self.status_end = ends
            .iter()
            .rev()
            .find(|s| TERMINAL.contains(s))
            .or(ends.last())
            .copied()
            .or_else(|| self.statuses.last().map(|(s, _)| s.as_str()))
            .map(str::to_string);
        self.closed = self.status_end.as_deref().and_then(|end| {
            let before = self.statuses.iter().find_map(|(to, from)| {
                from.as_deref()
                    .filter(|f| to == end && CLOSED_BY.contains(&(*f, end)))
            })?;
            Some((before.to_string(), end.to_string()))
        });
    }

    /// Step numbers below the highest one seen that never appeared at all
    /// (the first 1,000).
    pub fn missing_steps(&self) -> Vec<i64> {
        self.step_gaps.list()
    }

    /// Chunk indexes below the highest one seen that never arrived (indexes
    /// start at 0; the first 1,000).
    /// Once the text limit dropped chunks, only those below the highest
    /// chunk kept.
    pub fn missing_chunks(&self) -> Vec<i64> {
        self.stream.missing().0
    }

    /// The streamed text, brought up to date if chunks arrived out of order
    /// since the last [`Execution::settle`].
    pub fn text(&self) -> Cow<'_, str> {
        if self.stream.is_stale() {
            Cow::Owned(self.stream.rebuilt(&self.text))
        } else {
            self.text.as_str()
        }
    }

    /// The length of [`Execution::text`], without joining its blocks.
    pub(crate) fn text_len(&self) -> usize {
        if self.stream.is_stale() {
            self.stream.rebuilt(&self.text).len()
        } else {
            self.text.len()
        }
    }

    /// Brings `text` up to date (once for any number of chunks that arrived
    /// out of order).
    pub fn settle(&mut self) {
        self.stream.settle(&mut self.text);
    }

    /// Bytes of streamed text the limit dropped.
    pub fn text_dropped_bytes(&self) -> u64 {
        self.stream.dropped_bytes(self.text_len())
    }

    /// Usage summed over the execution's completed steps.
    pub fn usage(&self) -> Usage {
        self.usage_total
    }

    /// Everything but the steps and the text (sent separately so unchanged
    /// steps are not copied).
    pub fn header(&self) -> ExecutionHeader<'_> {
        let status = self.status();
        let dropped = self.text_dropped_bytes();
        ExecutionHeader {
            execution_id: self.id.as_deref(),
            status,
            ended: status.is_some_and(|s| TERMINAL.contains(&s)),
            state_status: status.and_then(agent_status),
            first_at: self.first_at.as_deref(),
            last_at: self.last_at.as_deref(),
            duration_ms: self.duration_ms(),
            user_message: self
                .user_message
                .as_deref()
                .or_else(|| streamed_user_message(&self.data)),
            usage: UsageWithTotal::new(&self.usage(), self.usage_total_value()),
            stream_complete: self.stream_complete,
            final_answer: self.final_answer.as_deref(),
            error: self.run_error.as_deref(),
            missing_steps: self.missing_steps(),
            missing_step_count: self.step_gaps.count(),
            missing_chunks: self.missing_chunks(),
            missing_chunk_count: self.stream.missing().1,
            text_truncated: dropped > 0,
            text_dropped_bytes: dropped,
            error_message: self.status_detail.error_message(),
            last_response: self.status_detail.last_response(),
            step_count: self.status_detail.step_count(),
            resumed: self.status_times.ever_resumed(),
            stale: self.is_stale(),
            closing_status: self.closing_status(),
            never_ran_step: self.never_ran_step(),
            end_reason: self.end_reason.as_deref(),
            data: &self.data,
            dialect: self.dialect,
            custom_events: self.custom_events.as_slice(),
            provider_frames: self.provider_frames,
        }
    }

    /// How long the turn ran: from its earliest to its latest envelope
    /// timestamp, in milliseconds (seed 002's per-example `duration_ms`,
    /// docs/seeds/002-event-serialization-system-design.md §4.1); `None`
    /// when either is missing or unreadable.
    pub fn duration_ms(&self) -> Option<Value> {
        let at = |t: &Option<String>| t.as_deref().and_then(crate::session::attribution::instant);
        Some(micros_as_ms(at(&self.last_at)? - at(&self.first_at)?))
    }

    /// Silent past the session's limit and not ended (a status the
    /// snapshot or a late envelope made terminal clears it).
    pub fn is_stale(&self) -> bool {
        self.stale && !self.status().is_some_and(|s| TERMINAL.contains(&s))
    }

    /// The whole execution as the view shows it.
    pub fn view(&self) -> ExecutionView<'_> {
        ExecutionView {
            header: self.header(),
            steps: Steps(&self.steps, self.id.as_deref()),
            text: self.text(),
        }
    }
}

/// One user turn: an `execution_id`, or a new turn under the same id.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExecutionView<'a> {
    /// Everything but the steps and the text.
    #[serde(flatten)]
    pub header: ExecutionHeader<'a>,
    /// The steps in step order.
    #[cfg_attr(feature = "schema", schemars(extend("readOnly" = true)))]
    pub steps: Steps<'a>,
    /// Streamed text in chunk-index order, at most `maxTextBytes` of it.
    pub text: Cow<'a, str>,
}

/// An execution's own fields: the [`ExecutionView`] without its steps and
/// text (what a live patch diffs field by field).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExecutionHeader<'a> {
    /// The producer's execution id (`null` for envelopes without one).
    pub execution_id: Option<&'a str>,
    /// The broadcast status the transitions end in.
    pub status: Option<&'a str>,
    /// `status` is one a run ends with (completed, failed, cancelled, stopped,
    /// interrupted): nothing more is expected unless the run is resumed.
    pub ended: bool,
    /// The state's own status for `status` (every stop but an error leaves it `completed`).
    pub state_status: Option<AgentStatus>,
    /// The earliest envelope timestamp.
    pub first_at: Option<&'a str>,
    /// The latest envelope timestamp.
    pub last_at: Option<&'a str>,
    /// How long the turn ran, in milliseconds: from `first_at` to `last_at`
    /// (`null` when either is missing). `{"first_at": "…T12:00:00.250Z",
    /// "last_at": "…T12:00:01.500Z"}` gives `1250`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub duration_ms: Option<Value>,
    /// The user's message that started the turn, where the final state
    /// (`reconcile()`'s view: its last user message) or the stream (AG-UI's
    /// `RUN_STARTED` input) carries it; `null` when unknown (instructor-php's
    /// envelopes carry only `message_count`). E.g. `"What is the weather in Paris?"`.
    pub user_message: Option<&'a str>,
    /// Tokens summed over the steps.
    pub usage: UsageWithTotal,
    /// The stream's last chunk arrived.
    pub stream_complete: bool,
    /// Seed-003 `agent.run.completed` answer.
    pub final_answer: Option<&'a str>,
    /// Why the run failed: seed-003 `agent.run.failed`'s error, a foreign
    /// producer's run error, or, in `reconcile()`'s view, the final state's
    /// (a stored state's last step error, or which step a slim snapshot
    /// counted errors in) when the stream sent none.
    pub error: Option<&'a str>,
    /// Step numbers below the highest seen that never arrived (the first 1,000).
    pub missing_steps: Vec<i64>,
    /// How many step numbers never arrived.
    pub missing_step_count: u64,
    /// Chunk indexes below the highest seen that never arrived (the first 1,000). Once
    /// `maxTextBytes` dropped text, only those below the highest chunk kept.
    pub missing_chunks: Vec<i64>,
    /// How many chunk indexes never arrived.
    pub missing_chunk_count: u64,
    /// The streamed text reached `maxTextBytes`: `text` is its start.
    pub text_truncated: bool,
    /// Bytes of streamed text dropped past `maxTextBytes` (0 when none).
    pub text_dropped_bytes: u64,
    /// Why the run ended, as `agent.status` said it (the latest non-null one).
    pub error_message: Option<&'a str>,
    /// `agent.status` `last_response` (the latest non-null one).
    pub last_response: Option<&'a str>,
    /// The producer's own step count from `agent.status` (seed 000).
    pub step_count: Option<i64>,
    /// A status (seed 000's `in_progress`) followed a terminal one under this execution id.
    pub resumed: bool,
    /// Silent for `staleAfterMs` without a final status; `status` is left as broadcast.
    pub stale: bool,
    /// The word the producer closed an ended run with (v2.7's `stopped` after
    /// `completed`/`failed`); `status` says how it ended.
    pub closing_status: Option<&'a str>,
    /// The last step, started but never run (a v2.7 guard or cancel stopped the
    /// run first); not a lost event.
    pub never_ran_step: Option<i64>,
    /// The producer's own word for why the run ended: laravel/ai `stream_end`'s
    /// `reason`, the AI SDK's `finishReason`, AG-UI's outcome (`null` when the
    /// producer said none).
    pub end_reason: Option<&'a str>,
    /// Producer data the view has no field of its own for, the latest value
    /// under each name: AG-UI `state`, `messages`, `activity:<id>`,
    /// `custom:<name>`, `raw`; AI SDK `data-<type>`, `file:<n>`, `metadata`;
    /// laravel/ai provider tool events (`{}` when none).
    #[cfg_attr(feature = "schema", schemars(schema_with = "data_schema"))]
    pub data: &'a crate::json::Map,
    /// The most telling dialect of the execution's envelopes.
    pub dialect: WireDialect,
    /// Events of the type prefixes registered with `registerEventPrefix()`
    /// (seed 003's `agent.planner.*`), as they came, ordered by timestamp,
    /// step, type and content (`[]` when none).
    pub custom_events: &'a [crate::session::custom::CustomEvent],
    /// Stream chunks that were raw provider frames (kept out of `text`; see
    /// `raw_provider_frames_in_stream`).
    pub provider_frames: u64,
}

/// An execution's steps (and its id), written as their [`StepShape`]s in
/// step order without collecting them first.
#[derive(Clone, Copy, Debug)]
pub struct Steps<'a>(pub &'a StepMap, pub Option<&'a str>);

impl serde::Serialize for Steps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.values().map(|step| step.view(self.1)))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Steps<'_> {
    fn schema_name() -> Cow<'static, str> {
        "Steps".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<StepShape<'static>>>::json_schema(g)
    }
}

/// [`state_status`] as the enum.
pub fn agent_status(broadcast: &str) -> Option<AgentStatus> {
    Some(match broadcast {
        // Seed 000 broadcasts the state's own words.
        "processing" | "in_progress" => AgentStatus::InProgress,
        "failed" => AgentStatus::Failed,
        "completed" | "stopped" | "cancelled" => AgentStatus::Completed,
        _ => return None,
    })
}

/// The state's own status for a broadcast status (v1.22 quirk 8): every stop but
/// an error leaves the state `completed`.
pub fn state_status(broadcast: &str) -> Option<&'static str> {
    agent_status(broadcast).map(AgentStatus::as_str)
}

pub(crate) fn add_usage(a: &Usage, b: &Usage) -> Usage {
    a.saturating_add(b)
}

pub(crate) fn sub_usage(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input: a.input.saturating_sub(b.input),
        output: a.output.saturating_sub(b.output),
        cache_write: a.cache_write.saturating_sub(b.cache_write),
        cache_read: a.cache_read.saturating_sub(b.cache_read),
        reasoning: a.reasoning.saturating_sub(b.reasoning),
    }
}

pub(crate) fn opt_str(s: &Option<String>) -> Value {
    s.as_deref().map_or(Value::Null, Value::from)
}

/// Counters of what ingest did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "IngestCounts"))]
pub struct Counts {
    /// Envelopes that changed the view (a foreign dialect's event counts
    /// once, whatever number of envelopes it became).
    pub applied: u64,
    /// Envelopes applied before, ignored.
    pub duplicates: u64,
    /// Envelopes of other sessions, not merged.
    pub rejected: u64,
}

/// A session's executions, written as their [`ExecutionView`]s without
/// collecting them first.
#[derive(Clone, Copy, Debug)]
pub struct Executions<'a>(pub &'a [Execution]);

impl serde::Serialize for Executions<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Execution::view))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Executions<'_> {
    fn schema_name() -> Cow<'static, str> {
        "Executions".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<ExecutionView<'static>>>::json_schema(g)
    }
}

/// Microseconds as milliseconds in JSON: whole ones as an integer.
pub(crate) fn micros_as_ms(us: i64) -> Value {
    if us % 1000 == 0 {
        Value::from(us / 1000)
    } else {
        Value::from(us as f64 / 1000.0)
    }
}

/// The last user message of a streamed run input (AG-UI's `RUN_STARTED`
/// `input.messages`, kept under `data.input`), when its content is text.
fn streamed_user_message(data: &crate::json::Map) -> Option<&str> {
    last_user_content(data.get("input")?.get("messages")?.as_array()?)
}

/// The content of the last `role: user` message that has text content.
pub(crate) fn last_user_content(messages: &[Value]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(|m| m.get("content").and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::StepView;

    #[test]
    fn generated_step_ids_read_as_the_formatted_execution_and_number() {
        for n in [0, 1, 9, 10, 12_345, -1, -10, i64::MAX, i64::MIN] {
            let step = StepView::new(n);
            assert_eq!(step.id_in(Some("exec-1")).0, format!("exec-1/step-{n}"));
            assert_eq!(step.id_in(Some("")).0, format!("/step-{n}"));
            assert_eq!(step.id_in(None).0, format!("step-{n}"));
        }
    }

    #[test]
    fn the_step_tree_holds_each_step_by_a_pointer_not_in_place() {
        // A tree filled in step order keeps about six of a node's eleven
        // places used, so steps held in place left nearly as much room
        // again unused (bench/findings.md, issue 27's sixth pass).
        use crate::session::view::{Execution, StepView};
        fn held<V>(_: &std::collections::BTreeMap<i64, V>) -> usize {
            std::mem::size_of::<V>()
        }
        let e = Execution::default();
        assert_eq!(held(&e.steps), std::mem::size_of::<usize>());
        assert!(std::mem::size_of::<StepView>() > 8 * std::mem::size_of::<usize>());
    }
}
