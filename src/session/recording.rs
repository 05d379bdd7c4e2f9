//! Recordings as files: JSONL, one JSON value per line.
//!
//! - An optional first line is a header, recognised by its `stepline_recording`
//!   key: `{"stepline_recording": 1, "session_id"?, "created_at"?, "meta"?,
//!   "text_limit"?, "text_dropped"?, "rejected_sessions"?}` (a run log adds `"kind": "runlog"` and
//!   `"sessions"?`; see [`Session::to_recording`] and `RunLog::save` for
//!   what the counts mean).
//! - A snapshot line is `{"stepline_snapshot": {...slim snapshot...},
//!   "session_id"?, "execution_id"?, "error"?}`: a turn's final state where
//!   it arrived, with the error text a slim snapshot does not keep (see
//!   [`FinalState`]).
//! - Every other non-empty line is an envelope in any dialect the decoder
//!   accepts. It is kept as given: its timestamps are never rewritten.
//!
//! Errors carry the 1-based line number in their path: `/lines/3/payload/status`.
//!
//! ```
//! use stepline::session::recording::Recording;
//! let text = concat!(
//!     r#"{"stepline_recording":1,"session_id":"s1"}"#, "\n",
//!     r#"{"type":"agent.status","session_id":"s1","payload":{"status":"processing"}}"#, "\n",
//! );
//! let rec = Recording::parse(text).unwrap();
//! assert_eq!(rec.items.len(), 1);
//! assert_eq!(rec.to_jsonl(), text);
//! ```

use crate::json::Value;
use std::borrow::Cow;

use crate::envelope::decode::{decode_owned, decode_value, Decoded, ENVELOPE_LIMITS};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, quote, type_name};
use crate::session::final_state::FinalState;
use crate::session::text::DEFAULT_TEXT_LIMIT;
use crate::session::Session;

/// The key that marks a header line, and the format version it holds.
pub const HEADER_KEY: &str = "stepline_recording";
/// The key that marks a snapshot line.
pub const SNAPSHOT_KEY: &str = "stepline_snapshot";
/// The recording format this build reads and writes.
pub const FORMAT: u64 = 1;

/// A parsed recording: the header line, if any, then the other lines in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// The `stepline_recording` line, kept whole.
    pub header: Option<Value>,
    /// Envelopes and snapshots in file order.
    pub items: Vec<Item>,
}

/// One line of a recording after the header.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// An envelope as it was recorded (not normalised).
    Envelope(Value),
    /// A final (slim) snapshot, with the session and execution it belongs to.
    Snapshot {
        /// The session the snapshot belongs to, when the line names one.
        session_id: Option<String>,
        /// The execution the snapshot belongs to, when the line names one.
        execution_id: Option<String>,
        /// The snapshot as recorded.
        snapshot: Value,
        /// The final state's error text, when the line carries one.
        error: Option<String>,
    },
}

impl Item {
    /// The line's JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Item::Envelope(v) => v.clone(),
            Item::Snapshot {
                session_id,
                execution_id,
                snapshot,
                error,
            } => FinalState {
                snapshot: snapshot.clone(),
                error: error.clone(),
            }
            .to_line(session_id.as_deref(), execution_id.as_deref()),
        }
    }
}

impl Recording {
    /// Parses JSONL text; stops at the first bad line. Blank lines are skipped.
    ///
    /// ```
    /// use stepline::session::recording::Recording;
    /// let err = Recording::parse("\n{\"type\":\"agent.status\"}").unwrap_err();
    /// assert_eq!(err.path.as_deref(), Some("/lines/2/session_id"));
    /// ```
    pub fn parse(text: &str) -> Result<Recording> {
        let mut rec = Recording::default();
        for (_, line) in lines(text, true) {
            match line? {
                Line::Header(h) => rec.header = Some(h),
                Line::Envelope { value, .. } => {
                    rec.items.extend(value.map(Item::Envelope));
                }
                #[cfg(feature = "full")]
                Line::Foreign { value, .. } => rec.items.push(Item::Envelope(value)),
                Line::Snapshot(v) => rec.items.push(snapshot_item(v)),
            }
        }
        Ok(rec)
    }

    /// The recording as JSONL: the header first, then the items in order,
    /// every line `\n`-terminated.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        if let Some(h) = &self.header {
            push_line(&mut out, h);
        }
        for item in &self.items {
            match item {
                Item::Envelope(v) => push_line(&mut out, v),
                other => push_line(&mut out, &other.to_value()),
            }
        }
        out
    }
}

impl Session {
    /// The session as a recording: a header with the session id, then every
    /// applied envelope in arrival order as it was received (any dialect,
    /// timestamps as sent), so replaying it rebuilds the same view.
    /// Redeliveries and other sessions' envelopes are not part of a session;
    /// a `RunLog` counts redeliveries too.
    ///
    /// Streamed text the session's text limit dropped is not in it either
    /// (it is gone): the header then says `"text_limit"` (when not the
    /// default) and, per execution that lost text, `"text_dropped":
    /// [{"execution": <position>, "bytes": <n>, "first_at", "last_at"}]`,
    /// the bytes of chunks and deltas dropped whole, which a replay adds
    /// back to its counts (and the execution's time span, which their
    /// timestamps may have widened). A
    /// replay shows the same text, flags and counts; the chunk that
    /// crosses the limit is kept whole, so the replay cuts it the same way.
    /// The envelopes rejected as another session's are not in it, but their
    /// counts are: `"rejected_sessions": {"<session id>": <n>}`, which a
    /// replay restores (`rejected_sessions` and `counts.rejected`).
    ///
    /// ```
    /// use stepline::session::Session;
    /// let mut s = Session::new(Some("s1".into()));
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s1","payload":{"status":"processing"}}"#).unwrap();
    /// let (back, snapshots) = Session::from_recording(&s.to_recording()).unwrap();
    /// assert_eq!(back.view(), s.view());
    /// assert!(snapshots.is_empty());
    /// ```
    pub fn to_recording(&self) -> String {
        let mut header = crate::json::Map::new();
        header.insert(HEADER_KEY, Value::from(FORMAT));
        if let Some(id) = self.session_id() {
            header.insert("session_id", Value::from(id));
        }
        if self.text_limit() != DEFAULT_TEXT_LIMIT {
            header.insert("text_limit", Value::from(self.text_limit()));
        }
        if let Some(dropped) = self.text_dropped() {
            header.insert("text_dropped", dropped);
        }
        if !self.foreign.is_empty() {
            let rejected: crate::json::Map = self
                .foreign
                .iter()
                .map(|(id, n)| (crate::json::Name::from(id.clone()), Value::from(*n)))
                .collect();
            header.insert("rejected_sessions", Value::Object(rejected));
        }
        let mut out = String::new();
        push_line(&mut out, &Value::Object(header));
        for line in self.recording_lines() {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// Replays a recording into a new session: the header's session id, or
    /// else the first envelope's. Returns the recorded snapshots alongside
    /// (the `stepline_snapshot` objects, in file order), ready for `reconcile`.
    /// Envelopes of another session are rejected as in any ingest.
    pub fn from_recording(text: &str) -> Result<(Session, Vec<Value>)> {
        let mut session = Session::new(None);
        let mut snapshots = Vec::new();
        let mut dropped = None;
        let mut rejected = None;
        // One delivery: identical lines are occurrences, not redeliveries.
        let mut batch = crate::session::dedup::Batch::default();
        for (n, line) in lines(text, false) {
            match line? {
                Line::Header(h) => {
                    let id = h.get("session_id").and_then(Value::as_str);
                    let limit = text_limit(&h).map_err(|e| at_line(n, e))?;
                    session = Session::with_text_limit(id.map(str::to_string), limit);
                    dropped = h.get("text_dropped").cloned().map(|d| (n, d));
                    rejected = h.get("rejected_sessions").cloned().map(|r| (n, r));
                }
                Line::Envelope { text, decoded, .. } => {
                    // Logged as read, so the replayed session records the
                    // same lines again (not their normalised form).
                    session.ingest_in(decoded, Some(text), Some(&mut batch));
                }
                #[cfg(feature = "full")]
                Line::Foreign {
                    text,
                    value,
                    dialect,
                } => {
                    session
                        .ingest_foreign(dialect, value, text.to_string(), Some(&mut batch))
                        .map_err(|e| at_line(n, e))?;
                }
                Line::Snapshot(v) => {
                    // Kept where it stands, so the session's own recording
                    // writes it back there.
                    let line = v.as_object().map(FinalState::of_line);
                    let Some(state) = line.transpose().map_err(|e| at_line(n, e))? else {
                        continue;
                    };
                    snapshots.push(state.snapshot.clone());
                    let execution_id = v
                        .get("execution_id")
                        .and_then(Value::as_str)
                        .map(String::from);
                    session.keep_final_state(state, execution_id);
                }
            }
        }
        session.settle();
        if let Some((n, d)) = dropped {
            session
                .restore_text_dropped(&d, "/text_dropped")
                .map_err(|e| at_line(n, e))?;
        }
        if let Some((n, r)) = rejected {
            session
                .restore_rejected(&r, "/rejected_sessions")
                .map_err(|e| at_line(n, e))?;
        }
        Ok((session, snapshots))
    }

    /// `[{"execution", "bytes"}]` for the executions whose text lost whole
    /// chunks or deltas to the limit, if any did.
    pub(crate) fn text_dropped(&self) -> Option<Value> {
        let list: Vec<Value> = self
            .executions()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.stream.dropped_whole() > 0)
            .map(|(i, e)| {
                // The dropped envelopes' timestamps count in the span too.
                crate::json::obj([
                    ("execution", Value::from(i)),
                    ("bytes", Value::from(e.stream.dropped_whole())),
                    ("first_at", crate::session::view::opt_str(&e.first_at)),
                    ("last_at", crate::session::view::opt_str(&e.last_at)),
                ])
            })
            .collect();
        (!list.is_empty()).then_some(Value::Array(list))
    }

    /// Adds a recording's `rejected_sessions` counts (at `path`): the
    /// envelopes of other sessions the recorded session refused.
    pub(crate) fn restore_rejected(&mut self, counts: &Value, path: &str) -> Result<()> {
        let Some(m) = counts.as_object() else {
            return Err(expected(path, "an object", counts));
        };
        for (id, n) in m {
            let n = n
                .as_u64()
                .ok_or_else(|| expected(&child(path, id), "a non-negative integer", n))?;
            let slot = self.foreign.entry(id.to_string()).or_insert(0);
            *slot = slot.saturating_add(n);
            self.counts.rejected = self.counts.rejected.saturating_add(n);
        }
        self.dirty.header = true;
        Ok(())
    }

    /// Adds a recording's `text_dropped` counts (at `path`) to the replayed
    /// executions.
    pub(crate) fn restore_text_dropped(&mut self, list: &Value, path: &str) -> Result<()> {
        let Some(items) = list.as_array() else {
            return Err(expected(path, "an array", list));
        };
        for (i, item) in items.iter().enumerate() {
            let at = index(path, i);
            let field = |k: &str| {
                let v = item.get(k).unwrap_or(&Value::Null);
                v.as_u64()
                    .ok_or_else(|| expected(&child(&at, k), "a non-negative integer", v))
            };
            let (pos, bytes) = (field("execution")?, field("bytes")?);
            let count = self.executions.len();
            let exec = usize::try_from(pos)
                .ok()
                .and_then(|p| self.executions.get_mut(p))
                .ok_or_else(|| {
                    SteplineError::at(
                        ErrorCode::InvalidValue,
                        &child(&at, "execution"),
                        format!("expected one of the {count} replayed executions, found {pos}"),
                    )
                })?;
            exec.stream.add_dropped(bytes);
            let ts = |k: &str| match item.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(v) => Err(expected(&child(&at, k), "a timestamp string", v)),
            };
            let (first, last) = (ts("first_at")?, ts("last_at")?);
            if let Some(f) = first.filter(|f| exec.first_at.as_ref().is_none_or(|e| f < e)) {
                exec.first_at = Some(f);
            }
            if let Some(l) = last.filter(|l| exec.last_at.as_ref().is_none_or(|e| l > e)) {
                exec.last_at = Some(l);
            }
        }
        Ok(())
    }
}

/// The header's `text_limit`, else the default.
fn text_limit(h: &Value) -> Result<usize> {
    match h.get("text_limit") {
        None => Ok(DEFAULT_TEXT_LIMIT),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| expected("/text_limit", "a non-negative integer", v)),
    }
}

/// `expected <what>, found <type>` at `path`.
pub(crate) fn expected(path: &str, what: &str, found: &Value) -> SteplineError {
    let code = if found.is_number() {
        ErrorCode::InvalidValue
    } else {
        ErrorCode::InvalidType
    };
    SteplineError::at(
        code,
        path,
        format!("expected {what}, found {}", describe(found)),
    )
}

fn describe(v: &Value) -> String {
    if v.is_number() {
        v.to_string()
    } else {
        type_name(v).to_string()
    }
}

/// One classified, checked line.
pub(crate) enum Line<'a> {
    Header(Value),
    /// The line's text (trimmed), its value as read (when asked for: see
    /// [`lines`]) and the value decoded.
    Envelope {
        text: Cow<'a, str>,
        value: Option<Value>,
        decoded: Decoded,
    },
    /// The whole snapshot line.
    Snapshot(Value),
    /// A foreign dialect's event (laravel/ai, AG-UI, AI SDK), as read
    /// (none in the live entry, which reads instructor-php envelopes only).
    #[cfg(feature = "full")]
    Foreign {
        text: Cow<'a, str>,
        value: Value,
        dialect: &'static dyn crate::dialects::Dialect,
    },
}

/// The non-blank lines of `text` with their 1-based numbers, each checked
/// (or, when `text` is a JSON array of events, its elements by position).
/// A header is recognised on the first non-blank line only. Envelope lines
/// keep their value as read only with `keep_values` (else it moves into the
/// decoded form, uncopied: replaying needs only the text and the decoded form).
pub(crate) fn lines(
    text: &str,
    keep_values: bool,
) -> impl Iterator<Item = (usize, Result<Line<'_>>)> + '_ {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // JSONL lines, or the elements of a JSON array of events (numbered by position).
    crate::session::records::records(text)
        .enumerate()
        .map(move |(k, (n, record))| {
            let read = record.and_then(|l| line(l.trim(), k == 0, keep_values));
            (n, read.map_err(|e| at_line(n, e)))
        })
}

/// Rebases an error found inside line `n` onto `/lines/<n>`.
pub(crate) fn at_line(n: usize, e: SteplineError) -> SteplineError {
    let path = format!("/lines/{n}{}", e.path.as_deref().unwrap_or(""));
    SteplineError::new(e.code, Some(path), e.message)
}

fn line(text: &str, first: bool, keep_value: bool) -> Result<Line<'_>> {
    let value = crate::json::parse(text, &ENVELOPE_LIMITS)?;
    // A line with an event type is an envelope, whatever unknown fields it
    // carries (an envelope's own `stepline_snapshot` key stays in `extra`).
    let typed = value.get("type").is_some() || value.get("event_type").is_some();
    if let Some(version) = value.get(HEADER_KEY).filter(|_| !typed) {
        if !first {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                "/stepline_recording",
                "expected the recording header on the first line only",
            ));
        }
        if version.as_u64() != Some(FORMAT) {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                "/stepline_recording",
                format!(
                    "expected recording format 1, found {}",
                    crate::json::to_string(version)
                ),
            ));
        }
        optional_str(&value, "session_id")?;
        return Ok(Line::Header(value));
    }
    if let Some(line) = value
        .as_object()
        .filter(|m| m.contains_key(SNAPSHOT_KEY) && !typed)
    {
        crate::session::final_state::line_error(line)?;
        optional_str(&value, "session_id")?;
        optional_str(&value, "execution_id")?;
        return Ok(Line::Snapshot(value));
    }
    // One line of the log each: an element of a pretty-printed JSON array
    // spans lines, and is logged in its compact form instead.
    let text = if text.contains('\n') {
        Cow::Owned(crate::json::to_string(&value))
    } else {
        Cow::Borrowed(text)
    };
    #[cfg(feature = "full")]
    if let Some(dialect) = crate::dialects::foreign_dialect(&value) {
        return Ok(Line::Foreign {
            text,
            value,
            dialect,
        });
    }
    let (value, decoded) = if keep_value {
        let decoded = decode_value(&value)?;
        (Some(value), decoded)
    } else {
        (None, decode_owned(value)?)
    };
    Ok(Line::Envelope {
        text,
        value,
        decoded,
    })
}

fn optional_str(v: &Value, key: &str) -> Result<()> {
    match v.get(key) {
        None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidType,
            &crate::json::child("", key),
            format!(
                "expected {} as a string, found {}",
                quote(key),
                type_name(other)
            ),
        )),
    }
}

/// `{"stepline_snapshot": snapshot, "session_id"?, "execution_id"?}`.
pub(crate) fn snapshot_line(
    session_id: Option<&str>,
    execution_id: Option<&str>,
    snapshot: Value,
) -> Value {
    let mut m = crate::json::Map::new();
    m.insert(SNAPSHOT_KEY, snapshot);
    if let Some(s) = session_id {
        m.insert("session_id", Value::from(s));
    }
    if let Some(e) = execution_id {
        m.insert("execution_id", Value::from(e));
    }
    Value::Object(m)
}

fn snapshot_item(mut line: Value) -> Item {
    let text = |k: &str| line.get(k).and_then(Value::as_str).map(str::to_string);
    let session_id = text("session_id");
    let execution_id = text("execution_id");
    let error = text("error");
    let snapshot = line
        .get_mut(SNAPSHOT_KEY)
        .map(Value::take)
        .unwrap_or(Value::Null);
    Item::Snapshot {
        session_id,
        execution_id,
        snapshot,
        error,
    }
}

/// Appends `v` as one JSON line.
pub(crate) fn push_line(out: &mut String, v: &Value) {
    out.push_str(&crate::json::to_string(v));
    out.push('\n');
}
