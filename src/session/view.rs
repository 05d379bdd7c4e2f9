//! The live view of one session: what the streamed envelopes say so far.
//! Plain data; `apply.rs` changes it, `to_value` shows it to JS.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::{Map, Value};

use crate::json::obj;
use crate::model::annotations::Annotations;
use crate::model::usage::Usage;
use crate::session::attribution::{Attribution, ToolPlacement};
use crate::session::gaps::Gaps;
use crate::session::status::{StatusDetail, StatusTimes};
use crate::session::text::StreamText;

/// Where a tool run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStatus {
    /// Started, not completed yet.
    Running,
    /// Completed successfully.
    Succeeded,
    /// Failed (`agent.tool.failed`, or a completion with `success: false`).
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

/// One tool call within a step, assembled from its started/completed pair
/// (either may arrive first, or not at all).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolRun {
    /// The tool's name.
    pub name: String,
    /// The tool call's id, when the producer sent one.
    pub call_id: Option<String>,
    /// The one-line summary of the arguments (when the producer summarises them).
    pub args_summary: Option<String>,
    /// The (truncated) arguments (when the producer sends them).
    pub args: Option<Value>,
    /// The start's envelope timestamp.
    pub started_at: Option<String>,
    /// The completion's envelope timestamp.
    pub completed_at: Option<String>,
    /// `None` until a completion (or failure) arrives.
    pub success: Option<bool>,
    /// The failure's message.
    pub error: Option<String>,
    /// The duration the producer reported, as sent.
    pub duration_ms: Option<Value>,
    /// The producer's one-line summary of the result.
    pub result_summary: Option<String>,
    /// Seed-003 `agent.tool.output` deltas, in arrival order, up to the
    /// session's text limit.
    pub output: String,
    /// Output bytes past the text limit, dropped.
    pub output_dropped_bytes: u64,
    /// Whether its start arrived.
    pub seen_started: bool,
    /// Whether its completion (or failure) arrived.
    pub seen_completed: bool,
    /// How the run was placed in its step (see [`crate::session::Attribution`]).
    pub attribution: Attribution,
}

impl ToolRun {
    /// Where the run stands, from its completion.
    pub fn status(&self) -> ToolStatus {
        match self.success {
            None => ToolStatus::Running,
            Some(true) => ToolStatus::Succeeded,
            Some(false) => ToolStatus::Failed,
        }
    }

    /// The JSON form in the view (`{name, call_id, status, ...}`).
    pub fn to_value(&self) -> Value {
        obj([
            ("name", Value::from(self.name.as_str())),
            ("call_id", opt_str(&self.call_id)),
            ("status", Value::from(self.status().as_str())),
            ("args_summary", opt_str(&self.args_summary)),
            ("args", self.args.clone().unwrap_or(Value::Null)),
            ("started_at", opt_str(&self.started_at)),
            ("completed_at", opt_str(&self.completed_at)),
            ("error", opt_str(&self.error)),
            (
                "duration_ms",
                self.duration_ms.clone().unwrap_or(Value::Null),
            ),
            ("result_summary", opt_str(&self.result_summary)),
            ("output", Value::from(self.output.as_str())),
            (
                "output_dropped_bytes",
                Value::from(self.output_dropped_bytes),
            ),
            (
                "seen",
                obj([
                    ("started", Value::from(self.seen_started)),
                    ("completed", Value::from(self.seen_completed)),
                ]),
            ),
            ("attribution", Value::from(self.attribution.as_str())),
        ])
    }
}

/// One agent step as streamed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepView {
    /// The step number (from 1).
    pub number: i64,
    /// The producer's step id, when sent.
    pub step_id: Option<String>,
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
    /// `{should_continue, stop_reason, resolved_by, evaluations}`.
    pub continuation: Option<Value>,
    /// The tool runs, in the order they were placed.
    pub tools: Vec<ToolRun>,
    /// Seed-003 `agent.llm.output_text.delta` text of this step.
    pub text: String,
    /// Whether its start arrived.
    pub seen_started: bool,
    /// Whether its completion arrived.
    pub seen_completed: bool,
    /// Seed-003 safety notes, citations and extras, from the step objects
    /// and the `annotations` of its live events (merged, each note once).
    pub annotations: Annotations,
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
        if self.errors.unwrap_or(0) > 0 || self.error.is_some() || self.attempt_failed {
            return Some("error");
        }
        match self.has_tool_calls {
            Some(true) => Some("tool_execution"),
            Some(false) => Some("final_response"),
            None if !self.tools.is_empty() => Some("tool_execution"),
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

    /// The annotations as the view shows them (`null` when there are none).
    pub fn annotations_value(&self) -> Value {
        if self.annotations.is_empty() {
            Value::Null
        } else {
            self.annotations.to_value()
        }
    }

    /// The JSON form in the view (`{number, step_id, ..., tools}`).
    pub fn to_value(&self) -> Value {
        let mut v = self.to_value_base();
        if let Value::Object(m) = &mut v {
            if let (Some(u), Some(t)) = (self.usage, self.usage_reported_total) {
                m.insert("usage", usage_value_total(&u, t));
            }
            m.insert("annotations", self.annotations_value());
            m.insert("attempt_failed", Value::from(self.attempt_failed));
        }
        v
    }

    fn to_value_base(&self) -> Value {
        obj([
            ("number", Value::from(self.number)),
            ("step_id", opt_str(&self.step_id)),
            ("type", self.step_type().map_or(Value::Null, Value::from)),
            ("started_at", opt_str(&self.started_at)),
            ("completed_at", opt_str(&self.completed_at)),
            (
                "duration_ms",
                self.duration_ms.clone().unwrap_or(Value::Null),
            ),
            ("message_count", opt_int(self.message_count)),
            ("tools_available", opt_int(self.tools_available)),
            (
                "has_tool_calls",
                self.has_tool_calls.map_or(Value::Null, Value::from),
            ),
            ("finish_reason", opt_str(&self.finish_reason)),
            ("usage", self.usage.map_or(Value::Null, |u| usage_value(&u))),
            ("errors", opt_int(self.errors)),
            ("error", opt_str(&self.error)),
            (
                "continuation",
                self.continuation.clone().unwrap_or(Value::Null),
            ),
            (
                "tools",
                Value::Array(self.tools.iter().map(ToolRun::to_value).collect()),
            ),
            ("text", Value::from(self.text.as_str())),
            (
                "seen",
                obj([
                    ("started", Value::from(self.seen_started)),
                    ("completed", Value::from(self.seen_completed)),
                ]),
            ),
        ])
    }
}

/// One user turn: everything streamed under one `execution_id`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Execution {
    /// The execution id (`None` for envelopes without one).
    pub id: Option<String>,
    /// The earliest envelope timestamp seen.
    pub first_at: Option<String>,
    /// The latest envelope timestamp seen.
    pub last_at: Option<String>,
    /// Status transitions as received: `(status, previous_status)`.
    /// Status transitions `(to, from)`, each distinct pair once, in the
    /// order first seen. Changed only through [`Execution::push_status`].
    pub statuses: Vec<(String, Option<String>)>,
    /// The end of the chain, recomputed when a transition is added (reading
    /// it on every ingest used to cost the square of the transitions).
    pub(crate) status_end: Option<String>,
    /// The steps by number.
    pub steps: BTreeMap<i64, StepView>,
    /// The stream chunks that can still show, gap detection, and what the
    /// session's text limit dropped.
    pub(crate) stream: StreamText,
    /// The chunks' text in index order (or the seed-003 deltas' in arrival
    /// order), at most the text limit. Out of date while
    /// `stream.is_stale()`, until [`Execution::settle`]; read it through
    /// [`Execution::text`].
    pub text: String,
    /// Whether a chunk marked the stream complete (`is_complete`).
    pub stream_complete: bool,
    /// Seed-003 `agent.run.completed` answer.
    pub final_answer: Option<String>,
    /// Seed-003 `agent.run.failed` error.
    pub run_error: Option<String>,
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
    pub dialect: crate::envelope::dialect::WireDialect,
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

/// Statuses after which nothing more happens in an execution.
pub const TERMINAL: &[&str] = &["completed", "failed", "cancelled", "stopped"];

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
            && s.continuation
                .as_ref()
                .is_none_or(|c| c["should_continue"] == false))
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
            Cow::Borrowed(&self.text)
        }
    }

    /// Brings `text` up to date (once for any number of chunks that arrived
    /// out of order).
    pub fn settle(&mut self) {
        self.stream.settle(&mut self.text);
    }

    /// Bytes of streamed text the limit dropped.
    pub fn text_dropped_bytes(&self) -> u64 {
        self.stream.dropped_bytes(&self.text())
    }

    /// Usage summed over the execution's completed steps.
    pub fn usage(&self) -> Usage {
        self.usage_total
    }

    /// Everything but the steps and the text (sent separately so unchanged
    /// steps are not copied).
    pub fn header_value(&self) -> Value {
        let status = self.status();
        let dropped = self.text_dropped_bytes();
        obj([
            ("execution_id", opt_str(&self.id)),
            ("status", status.map_or(Value::Null, Value::from)),
            (
                "state_status",
                status
                    .and_then(state_status)
                    .map_or(Value::Null, Value::from),
            ),
            ("first_at", opt_str(&self.first_at)),
            ("last_at", opt_str(&self.last_at)),
            (
                "usage",
                usage_value_total(&self.usage(), self.usage_total_value()),
            ),
            ("stream_complete", Value::from(self.stream_complete)),
            ("final_answer", opt_str(&self.final_answer)),
            ("error", opt_str(&self.run_error)),
            ("missing_steps", ints(&self.missing_steps())),
            ("missing_step_count", Value::from(self.step_gaps.count())),
            ("missing_chunks", ints(&self.missing_chunks())),
            ("missing_chunk_count", Value::from(self.stream.missing().1)),
            ("text_truncated", Value::from(dropped > 0)),
            ("text_dropped_bytes", Value::from(dropped)),
            (
                "error_message",
                self.status_detail
                    .error_message()
                    .map_or(Value::Null, Value::from),
            ),
            (
                "last_response",
                self.status_detail
                    .last_response()
                    .map_or(Value::Null, Value::from),
            ),
            ("step_count", opt_int(self.status_detail.step_count())),
            ("resumed", Value::from(self.status_times.ever_resumed())),
            ("stale", Value::from(self.is_stale())),
            (
                "closing_status",
                self.closing_status().map_or(Value::Null, Value::from),
            ),
            ("never_ran_step", opt_int(self.never_ran_step())),
            ("dialect", Value::from(self.dialect.as_str())),
            ("provider_frames", Value::from(self.provider_frames)),
        ])
    }

    /// Silent past the session's limit and not ended (a status the
    /// snapshot or a late envelope made terminal clears it).
    pub fn is_stale(&self) -> bool {
        self.stale && !self.status().is_some_and(|s| TERMINAL.contains(&s))
    }

    /// The whole execution as one value.
    pub fn to_value(&self) -> Value {
        let mut v = self.header_value();
        if let Value::Object(m) = &mut v {
            m.insert(
                "steps",
                Value::Array(self.steps.values().map(StepView::to_value).collect()),
            );
            m.insert("text", Value::from(self.text().as_ref()));
        }
        v
    }
}

/// The state's own status for a broadcast status (quirk 8): every stop but
/// an error leaves the state `completed`.
pub fn state_status(broadcast: &str) -> Option<&'static str> {
    Some(match broadcast {
        // Seed 000 broadcasts the state's own words.
        "processing" | "in_progress" => "in_progress",
        "failed" => "failed",
        "completed" | "stopped" | "cancelled" => "completed",
        _ => return None,
    })
}

pub(crate) fn usage_value(u: &Usage) -> Value {
    let mut v = u.to_value();
    if let Value::Object(m) = &mut v {
        m.insert("total", Value::from(u.total()));
    }
    v
}

/// [`usage_value`] with the given `total` (a producer's own count).
pub(crate) fn usage_value_total(u: &Usage, total: i64) -> Value {
    let mut v = u.to_value();
    if let Value::Object(m) = &mut v {
        m.insert("total", Value::from(total));
    }
    v
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

fn opt_int(n: Option<i64>) -> Value {
    n.map_or(Value::Null, Value::from)
}

fn ints(list: &[i64]) -> Value {
    Value::Array(list.iter().map(|n| Value::from(*n)).collect())
}

/// Counters of what ingest did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Envelopes applied to the view.
    pub applied: u64,
    /// Redeliveries recognised and dropped.
    pub duplicates: u64,
    /// Envelopes refused (invalid, or for another session).
    pub rejected: u64,
}

impl Counts {
    /// The `{applied, duplicates, rejected}` object.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("applied", Value::from(self.applied));
        m.insert("duplicates", Value::from(self.duplicates));
        m.insert("rejected", Value::from(self.rejected));
        Value::Object(m)
    }
}
