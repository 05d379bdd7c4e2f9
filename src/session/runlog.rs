//! `RunLog`: many sessions at once (parallel workers, many users), each
//! envelope routed to the session it names, with summaries computed on
//! demand and recordings saved and loaded as one JSONL file.
//!
//! Envelopes without a session id (seed 003's native form) all go to one
//! session keyed `""`.
//!
//! ```
//! use stepline::session::runlog::RunLog;
//! let mut log = RunLog::new();
//! for (s, status) in [("a", "processing"), ("b", "processing"), ("a", "completed")] {
//!     let line = format!(r#"{{"type":"agent.status","session_id":"{s}","payload":{{"status":"{status}"}}}}"#);
//!     log.ingest_text(&line).unwrap();
//! }
//! assert_eq!(log.sessions().map(|(id, _)| id).collect::<Vec<_>>(), ["a", "b"]);
//! assert_eq!(log.summary().by_status["completed"], 1);
//! let back = RunLog::load(&log.save()).unwrap();
//! assert_eq!(back.summary(), log.summary());
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::{Map, Value};

use crate::envelope::decode::{decode_owned, decode_value, Decoded, ENVELOPE_LIMITS};
use crate::error::Result;
use crate::error::SteplineError;
use crate::model::usage::Usage;
use crate::model::usage::UsageWithTotal;
use crate::session::recording::{
    at_line, expected, lines, push_line, snapshot_line, Line, FORMAT, HEADER_KEY, SNAPSHOT_KEY,
};
use crate::session::view::{add_usage, micros_as_ms, Execution, ToolStatus};
use crate::session::LineErrorList;
use crate::session::{IngestOutcome, Session};

/// Sessions keyed by session id, in first-seen order.
#[derive(Clone, Debug, Default)]
pub struct RunLog {
    sessions: Vec<(String, Session)>,
    /// Positions in `sessions` (u64: the one string-keyed map type the
    /// sessions use too).
    index: BTreeMap<String, u64>,
    /// The next arrival number: sessions log their envelopes under it, so
    /// `save` writes them in global arrival order. Redeliveries are counted
    /// by the sessions, not kept (each would cost its whole text again);
    /// `save` writes the counts in its header.
    next_seq: u64,
    /// Whole `stepline_snapshot` lines, in the order they were added.
    snapshots: Vec<Value>,
    /// The header of a loaded recording (its `created_at` and `meta` are saved again).
    header: Option<Value>,
    /// While a JSONL text is ingested or loaded, per session position, what
    /// it delivered so far: the text is one delivery (see `Session::ingest_jsonl`).
    batches: Option<Vec<crate::session::dedup::Batch>>,
}

/// What a JSONL batch did. Errors carry the 1-based line number, and their
/// path starts with `/lines/<n>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchOutcome {
    /// Envelopes that changed a session.
    pub applied: usize,
    /// Envelopes seen before (kept for `save`, changing nothing).
    pub duplicates: usize,
    /// Snapshot lines kept.
    pub snapshots: usize,
    /// The lines skipped (the first 1,000 listed, all counted).
    pub errors: crate::error::LineErrors,
}

impl BatchOutcome {
    /// The outcome as `RunLog.ingestJsonl` returns it (`errors` lists the first 1,000).
    pub fn view(&self) -> RunLogBatchResult<'_> {
        RunLogBatchResult {
            applied: self.applied,
            duplicates: self.duplicates,
            snapshots: self.snapshots,
            errors: LineErrorList(&self.errors),
            error_count: self.errors.count,
        }
    }
}

/// What `RunLog.ingestJsonl` did.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunLogBatchResult<'a> {
    /// Envelopes that changed a session.
    pub applied: usize,
    /// Envelopes seen before (kept for `save`, changing nothing).
    pub duplicates: usize,
    /// Snapshot lines kept.
    pub snapshots: usize,
    /// The first 1,000 failing lines; `errorCount` counts all of them.
    pub errors: LineErrorList<'a>,
    /// How many lines failed.
    pub error_count: u64,
}

impl RunLog {
    /// An empty log.
    pub fn new() -> RunLog {
        RunLog::default()
    }

    /// Routes one envelope (any dialect) to its session, creating the
    /// session on first sight.
    pub fn ingest_value(&mut self, v: &Value) -> Result<IngestOutcome> {
        let line = crate::json::to_string(v);
        #[cfg(feature = "full")]
        if let Some(dialect) = crate::dialects::foreign_dialect(v) {
            let out = self.route_foreign(dialect, v.clone(), line);
            self.settle();
            return out;
        }
        let decoded = decode_value(v)?;
        Ok(self.route_settled(decoded, line))
    }

    /// Routes one envelope given as JSON text; the text is what `save` writes.
    pub fn ingest_text(&mut self, text: &str) -> Result<IngestOutcome> {
        let parsed = crate::json::parse_text(text, &ENVELOPE_LIMITS)?;
        let v = parsed.value;
        let line = if parsed.line_breaks {
            crate::json::to_string(&v)
        } else {
            text.trim().to_string()
        };
        #[cfg(feature = "full")]
        if let Some(dialect) = crate::dialects::foreign_dialect(&v) {
            let out = self.route_foreign(dialect, v, line);
            self.settle();
            return out;
        }
        let decoded = decode_owned(v)?;
        Ok(self.route_settled(decoded, line))
    }

    /// Ingests JSONL in the recording format (envelopes, snapshot lines, an
    /// optional header first); bad lines are collected and skipped.
    ///
    /// ```
    /// use stepline::session::runlog::RunLog;
    /// let mut log = RunLog::new();
    /// let out = log.ingest_jsonl("{\"type\":\"agent.status\",\"session_id\":\"a\",\"payload\":{\"status\":\"processing\"}}\nnot json\n");
    /// assert_eq!(out.applied, 1);
    /// assert_eq!(out.errors[0].0, 2);
    /// assert_eq!(out.errors[0].1.path.as_deref(), Some("/lines/2"));
    /// ```
    pub fn ingest_jsonl(&mut self, text: &str) -> BatchOutcome {
        let mut out = BatchOutcome::default();
        let mut notes = None;
        self.batches = Some(Vec::new());
        for (n, line) in lines(text, false) {
            match line {
                Ok(line) => match self.take(line, &mut out) {
                    Ok(Some(h)) => notes = Some((n, h)),
                    Ok(None) => {}
                    Err(e) => out.errors.push(n, at_line(n, e)),
                },
                Err(e) => out.errors.push(n, e),
            }
        }
        self.batches = None;
        self.settle();
        if let Some((n, h)) = notes {
            if let Err(e) = self.restore_notes(&h) {
                out.errors.push(n, at_line(n, e));
            }
        }
        out
    }

    /// A run log from a recording (`save`'s output, or any recording);
    /// stops at the first bad line.
    pub fn load(text: &str) -> Result<RunLog> {
        let mut log = RunLog::new();
        let mut out = BatchOutcome::default();
        let mut notes = None;
        log.batches = Some(Vec::new());
        for (n, line) in lines(text, false) {
            if let Some(h) = log.take(line?, &mut out).map_err(|e| at_line(n, e))? {
                notes = Some((n, h));
            }
        }
        log.batches = None;
        log.settle();
        if let Some((n, h)) = notes {
            log.restore_notes(&h).map_err(|e| at_line(n, e))?;
        }
        Ok(log)
    }

    /// Keeps a final snapshot of `session_id` for `save`.
    pub fn add_snapshot(&mut self, session_id: &str, snapshot: Value) {
        self.snapshots
            .push(snapshot_line(Some(session_id), None, snapshot));
    }

    /// The kept snapshots as `(session_id, snapshot)`, in the order added.
    pub fn snapshots(&self) -> impl Iterator<Item = (Option<&str>, &Value)> {
        self.snapshots.iter().filter_map(|line| {
            let session = line.get("session_id").and_then(Value::as_str);
            line.get(SNAPSHOT_KEY).map(|s| (session, s))
        })
    }

    /// Sessions as `(session_id, session)` in first-seen order.
    pub fn sessions(&self) -> impl Iterator<Item = (&str, &Session)> {
        self.sessions.iter().map(|(id, s)| (id.as_str(), s))
    }

    /// One session by id (`""` for envelopes that carry none).
    pub fn session(&self, id: &str) -> Option<&Session> {
        let i = *self.index.get(id)? as usize;
        self.sessions.get(i).map(|(_, s)| s)
    }

    /// One JSONL recording: the header `{"stepline_recording":1,"kind":"runlog"}`
    /// (plus a loaded recording's `created_at` and `meta`), every applied
    /// envelope of every session in global arrival order as received, then
    /// the snapshot lines.
    ///
    /// Redeliveries are not written but counted: the header's `"sessions":
    /// {"<id>": {"duplicates"?: n, "text_dropped"?: [...]}}` lists, per
    /// session, its redeliveries and the text its limit dropped (see
    /// `Session::to_recording`), and `load` adds them back, so a loaded log
    /// has the same summary and views.
    pub fn save(&self) -> String {
        let mut header = Map::new();
        header.insert(HEADER_KEY, Value::from(FORMAT));
        header.insert("kind", Value::from("runlog"));
        for key in ["created_at", "meta"] {
            if let Some(v) = self.header.as_ref().and_then(|h| h.get(key)) {
                header.insert(key, v.clone());
            }
        }
        let notes: Map = self
            .sessions
            .iter()
            .filter_map(|(id, s)| {
                let mut m = Map::new();
                if s.counts().duplicates > 0 {
                    m.insert("duplicates", Value::from(s.counts().duplicates));
                }
                if let Some(d) = s.text_dropped() {
                    m.insert("text_dropped", d);
                }
                (!m.is_empty()).then(|| (id.clone(), Value::Object(m)))
            })
            .collect();
        if !notes.is_empty() {
            header.insert("sessions", Value::Object(notes));
        }
        let mut out = String::new();
        push_line(&mut out, &Value::Object(header));
        let mut all: Vec<(u64, String)> = self
            .sessions
            .iter()
            .flat_map(|(_, s)| s.log_entries())
            .collect();
        crate::sort::sort_by_key(&mut all, |&(n, _)| n);
        for (_, line) in all {
            out.push_str(&line);
            out.push('\n');
        }
        for line in &self.snapshots {
            push_line(&mut out, line);
        }
        out
    }

    /// Figures over every session, computed on each call:
    /// `{sessions, by_status, by_stop_reason, executions, steps, tool_calls:
    /// {name: {count, failed}}, tokens, durations: {total_ms, execution_ms,
    /// step_ms, tool_ms}, errors:
    /// {steps_with_errors, failed_tools, run_errors}, duplicates, rejected}`.
    ///
    /// - `by_status` counts sessions by their latest broadcast status
    ///   (`unknown` before any); `by_stop_reason` counts executions (turns) by
    ///   the `stop_reason` of their last step's streamed continuation, else by
    ///   the broadcast status (completed→`completed`, failed→`error`,
    ///   cancelled→`user_requested`, stopped→`stopped`), else `unknown`.
    /// - `total_ms` is the run's span, earliest envelope timestamp to latest
    ///   (seed 002's total duration, `null` when none); `execution_ms` the
    ///   turns' `duration_ms` (first to last timestamp of each).
    /// - Durations are the turns', steps' and tools' numeric `duration_ms`, each as
    ///   `{p50, p95, max, count}`; percentiles are nearest-rank (the value at
    ///   1-based rank ⌈p·n/100⌉ of the sorted list, so always a value that
    ///   occurred), `null` when there is none.
    /// - `run_errors` counts executions that failed (status `failed`, or a
    ///   seed-003 `agent.run.failed`).
    pub fn summary(&self) -> RunLogSummary {
        let mut t = Tally::default();
        for (_, s) in &self.sessions {
            bump(&mut t.by_status, s.status().unwrap_or("unknown"), 1);
            t.duplicates += s.counts().duplicates;
            t.rejected += s.counts().rejected;
            for e in s.executions() {
                t.execution(e);
            }
        }
        t.into_summary(self.sessions.len())
    }

    /// Takes one line; a header's per-session notes are returned, to be
    /// restored once the sessions they name exist.
    fn take(&mut self, line: Line<'_>, out: &mut BatchOutcome) -> Result<Option<Value>> {
        match line {
            Line::Header(h) => {
                let notes = h.get("sessions").cloned();
                self.header = Some(h);
                return Ok(notes);
            }
            Line::Envelope { text, decoded, .. } => {
                let (r, _) = self.route(decoded, text.to_string());
                out.applied += usize::from(r.applied);
                out.duplicates += usize::from(r.duplicate);
            }
            #[cfg(feature = "full")]
            Line::Foreign {
                text,
                value,
                dialect,
            } => {
                // A foreign event names no session: the run log's
                // session without an id takes it.
                let r = self.route_foreign(dialect, value, text.to_string())?;
                out.applied += usize::from(r.applied);
                out.duplicates += usize::from(r.duplicate);
            }
            Line::Snapshot(v) => {
                self.snapshots.push(v);
                out.snapshots += 1;
            }
        }
        Ok(None)
    }

    /// Adds a saved header's `sessions` counts to the loaded sessions.
    fn restore_notes(&mut self, notes: &Value) -> Result<()> {
        let Some(notes) = notes.as_object() else {
            return Err(expected("/sessions", "an object", notes));
        };
        for (id, note) in notes {
            let path = crate::json::child("/sessions", id);
            let Some((_, s)) = self
                .index
                .get(&**id)
                .and_then(|&i| self.sessions.get_mut(i as usize))
            else {
                return Err(SteplineError::at(
                    crate::error::ErrorCode::InvalidValue,
                    &path,
                    "expected a session of the recording, found an id none of its envelopes has",
                ));
            };
            if let Some(v) = note.get("duplicates") {
                let n = v.as_u64().ok_or_else(|| {
                    expected(
                        &crate::json::child(&path, "duplicates"),
                        "a non-negative integer",
                        v,
                    )
                })?;
                s.counts.duplicates = s.counts.duplicates.saturating_add(n);
            }
            if let Some(d) = note.get("text_dropped") {
                s.restore_text_dropped(d, &crate::json::child(&path, "text_dropped"))?;
            }
        }
        Ok(())
    }

    /// Brings every session's text up to date (see `Session::settle`).
    fn settle(&mut self) {
        for (_, s) in &mut self.sessions {
            s.settle();
        }
    }

    fn route_settled(&mut self, decoded: Decoded, line: String) -> IngestOutcome {
        let (out, i) = self.route(decoded, line);
        if let Some((_, s)) = self.sessions.get_mut(i) {
            s.settle();
        }
        out
    }

    /// Translates a foreign event in the session without an id (left
    /// unsettled). A bad event is an error of its line.
    #[cfg(feature = "full")]
    fn route_foreign(
        &mut self,
        dialect: &'static dyn crate::dialects::Dialect,
        value: Value,
        line: String,
    ) -> Result<IngestOutcome> {
        let i = match self.index.get("") {
            Some(&i) => i as usize,
            None => {
                let i = self.sessions.len();
                self.sessions.push((String::new(), Session::new(None)));
                self.index.insert(String::new(), i as u64);
                i
            }
        };
        let batch = self.batches.as_mut().and_then(|b| {
            if b.len() <= i {
                b.resize_with(i + 1, Default::default);
            }
            b.get_mut(i)
        });
        let Some((_, s)) = self.sessions.get_mut(i) else {
            return Ok(IngestOutcome::default());
        };
        s.next_seq = s.next_seq.max(self.next_seq);
        let out = s.ingest_foreign(dialect, value, line, batch);
        // Its envelopes took arrival numbers of their own.
        self.next_seq = self.next_seq.max(s.next_seq);
        out
    }

    /// Routes an envelope to its session (left unsettled); returns what it
    /// did and the session's position.
    fn route(&mut self, decoded: Decoded, line: String) -> (IngestOutcome, usize) {
        let id = decoded.envelope.get("session_id").and_then(Value::as_str);
        let id = id.unwrap_or_default();
        let i = match self.index.get(id) {
            Some(&i) => i as usize,
            None => {
                let i = self.sessions.len();
                // `""` adopts nothing: its envelopes carry no session id.
                let own = (!id.is_empty()).then(|| id.to_string());
                self.sessions.push((id.to_string(), Session::new(own)));
                self.index.insert(id.to_string(), i as u64);
                i
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        let out = match self.sessions.get_mut(i) {
            // The session logs the line as received, under the global number.
            Some((_, s)) => {
                s.next_seq = seq;
                let batch = self.batches.as_mut().and_then(|b| {
                    if b.len() <= i {
                        b.resize_with(i + 1, Default::default);
                    }
                    b.get_mut(i)
                });
                s.ingest_in(decoded, Some(line.into()), batch)
            }
            None => IngestOutcome::default(),
        };
        (out, i)
    }
}

/// Counts by name.
type Counts = BTreeMap<String, u64>;

/// Adds `by` to `key`'s count (allocating the key only when it is new).
fn bump(m: &mut Counts, key: &str, by: u64) {
    match m.get_mut(key) {
        Some(n) => *n += by,
        None => {
            m.insert(key.to_string(), by);
        }
    }
}

/// The running figures behind `summary`.
#[derive(Default)]
struct Tally<'a> {
    // The one string-keyed map type the sessions use: each map type is
    // kilobytes of wasm.
    by_status: Counts,
    by_stop_reason: Counts,
    executions: u64,
    steps: u64,
    /// Tool calls by tool name, and of those the failed ones.
    tools: Counts,
    tools_failed: Counts,
    usage: Usage,
    step_ms: Vec<&'a Value>,
    tool_ms: Vec<&'a Value>,
    /// Each execution's `duration_ms`.
    execution_ms: Vec<Value>,
    /// The earliest and latest envelope timestamps of every execution (µs).
    first_us: Option<i64>,
    last_us: Option<i64>,
    steps_with_errors: u64,
    failed_tools: u64,
    run_errors: u64,
    duplicates: u64,
    rejected: u64,
    /// What the producers' own usage totals add to the sum of the fields.
    usage_total_extra: i64,
}

impl<'a> Tally<'a> {
    fn execution(&mut self, e: &'a Execution) {
        self.executions += 1;
        bump(&mut self.by_stop_reason, &stop_reason(e), 1);
        if e.run_error.is_some() || e.status() == Some("failed") {
            self.run_errors += 1;
        }
        self.usage = add_usage(&self.usage, &e.usage());
        self.usage_total_extra = self.usage_total_extra.saturating_add(e.usage_total_extra);
        self.execution_ms.extend(e.duration_ms());
        let at = |t: &Option<String>| t.as_deref().and_then(crate::session::attribution::instant);
        if let Some(f) = at(&e.first_at) {
            self.first_us = Some(self.first_us.map_or(f, |m| m.min(f)));
        }
        if let Some(l) = at(&e.last_at) {
            self.last_us = Some(self.last_us.map_or(l, |m| m.max(l)));
        }
        for step in e.steps.values() {
            self.steps += 1;
            if step.step_type() == Some("error") {
                self.steps_with_errors += 1;
            }
            self.step_ms
                .extend(step.duration_ms.as_ref().filter(|v| v.is_number()));
            for tool in &step.tools {
                let failed = u64::from(tool.status() == ToolStatus::Failed);
                bump(&mut self.tools, &tool.name, 1);
                bump(&mut self.tools_failed, &tool.name, failed);
                self.failed_tools += failed;
                self.tool_ms
                    .extend(tool.duration_ms.as_ref().filter(|v| v.is_number()));
            }
        }
    }

    fn into_summary(self, sessions: usize) -> RunLogSummary {
        let failed = self.tools_failed;
        let tool_calls = self
            .tools
            .into_iter()
            .map(|(name, count)| {
                let failed = failed.get(&name).copied().unwrap_or(0);
                (name, ToolCallCounts { count, failed })
            })
            .collect();
        RunLogSummary {
            sessions,
            by_status: self.by_status,
            by_stop_reason: self.by_stop_reason,
            executions: self.executions,
            steps: self.steps,
            tool_calls,
            tokens: UsageWithTotal::new(
                &self.usage,
                self.usage.total().saturating_add(self.usage_total_extra),
            ),
            durations: RunLogDurations {
                total_ms: match (self.first_us, self.last_us) {
                    (Some(f), Some(l)) if l >= f => Some(micros_as_ms(l - f)),
                    _ => None,
                },
                execution_ms: percentiles(self.execution_ms.iter().collect()),
                step_ms: percentiles(self.step_ms),
                tool_ms: percentiles(self.tool_ms),
            },
            errors: RunLogErrors {
                steps_with_errors: self.steps_with_errors,
                failed_tools: self.failed_tools,
                run_errors: self.run_errors,
            },
            duplicates: self.duplicates,
            rejected: self.rejected,
        }
    }
}

/// `RunLog.summary()`, computed on each call.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunLogSummary {
    /// How many sessions the log holds.
    pub sessions: usize,
    /// Sessions by their latest broadcast status (`unknown` before any).
    pub by_status: BTreeMap<String, u64>,
    /// Executions by the `stop_reason` of their last step's streamed
    /// continuation, else by their broadcast status, else `unknown`.
    pub by_stop_reason: BTreeMap<String, u64>,
    /// How many executions (turns) the sessions hold.
    pub executions: u64,
    /// How many steps the executions hold.
    pub steps: u64,
    /// Tool calls by tool name.
    pub tool_calls: BTreeMap<String, ToolCallCounts>,
    /// Tokens over every session.
    pub tokens: UsageWithTotal,
    /// The steps' and tools' numeric `duration_ms`.
    pub durations: RunLogDurations,
    /// Steps with errors, failed tools and failed executions.
    pub errors: RunLogErrors,
    /// Redeliveries, over every session.
    pub duplicates: u64,
    /// Envelopes a session rejected (another session's).
    pub rejected: u64,
}

/// Calls of one tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolCallCounts {
    /// How many runs of the tool.
    pub count: u64,
    /// How many of them failed.
    pub failed: u64,
}

/// The durations of [`RunLogSummary`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunLogDurations {
    /// The whole run's: from the earliest envelope timestamp of any
    /// execution to the latest, in milliseconds (seed 002's total
    /// duration); `null` when no execution has both. E.g. `1250`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub total_ms: Option<Value>,
    /// Of the executions (turns): each one's `duration_ms`, from its first
    /// envelope timestamp to its last.
    pub execution_ms: DurationStats,
    /// Of the steps.
    pub step_ms: DurationStats,
    /// Of the tool runs.
    pub tool_ms: DurationStats,
}

/// The errors of [`RunLogSummary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunLogErrors {
    /// Steps whose type is `error`.
    pub steps_with_errors: u64,
    /// Tool runs that failed.
    pub failed_tools: u64,
    /// Executions that failed (status `failed`, or a seed-003 `agent.run.failed`).
    pub run_errors: u64,
}

/// Percentiles by nearest rank over the values seen (`null` when none):
/// the value at 1-based rank ⌈p·n/100⌉ of the sorted list, so always a
/// value that occurred, in its JSON form.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DurationStats {
    /// The median.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub p50: Option<Value>,
    /// The 95th percentile.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub p95: Option<Value>,
    /// The largest.
    #[cfg_attr(feature = "schema", schemars(schema_with = "duration_schema"))]
    pub max: Option<Value>,
    /// How many values there were.
    pub count: usize,
}

/// A duration in milliseconds, or `null`.
#[cfg(feature = "schema")]
fn duration_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["number", "null"] })
}

/// Why an execution stopped: its last step's streamed continuation, else
/// its broadcast status, else `unknown`.
fn stop_reason(e: &Execution) -> Cow<'static, str> {
    let c = e
        .steps
        .values()
        .next_back()
        .and_then(|s| s.continuation.as_ref())
        .map(crate::session::kept_continuation::KeptContinuation::value);
    if let Some(r) = c
        .as_deref()
        .and_then(|c| c.get("stop_reason"))
        .and_then(Value::as_str)
    {
        return Cow::Owned(r.to_owned());
    }
    Cow::Borrowed(match e.status() {
        Some("completed") => "completed",
        Some("failed") => "error",
        Some("cancelled") => "user_requested",
        Some("stopped") => "stopped",
        _ => "unknown",
    })
}

/// [`DurationStats`] by nearest rank; the values keep their JSON form.
fn percentiles(mut list: Vec<&Value>) -> DurationStats {
    let num = |v: &Value| v.as_f64().unwrap_or(0.0);
    crate::sort::stable_sort_by_key(&mut list, |v| crate::sort::total_order_key(num(v)));
    let rank = |p: usize| {
        let r = (p * list.len()).div_ceil(100).max(1);
        list.get(r - 1).map(|v| (*v).clone())
    };
    DurationStats {
        p50: rank(50),
        p95: rank(95),
        max: rank(100),
        count: list.len(),
    }
}
