//! A run's final state in any form a caller holds, read into what
//! `reconcile` compares the stream with: a slim snapshot, and the error text
//! a slim snapshot does not keep.
//!
//! - A slim snapshot (v1.22's, or v2's `state_version: "v2"`) is taken as is.
//! - A stored agent state (`AgentState->toArray()`, either version: it has
//!   `agentId`) is slimmed with every step and message kept, so the whole
//!   run is compared, and the error text of its last step is kept: a run
//!   whose driver threw broadcasts no error (v1.22 quirk 7), and its slim
//!   snapshot only counts the errors.
//! - A recording's snapshot line, `{"stepline_snapshot": {...}, "error"?}`,
//!   gives both back (its `stepline_snapshot` may be a stored state too).

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{type_name, Map, Value};
use crate::model::Timestamp;
use crate::session::reconcile::Report;
use crate::session::recording::SNAPSHOT_KEY;
use crate::session::Session;
#[cfg(feature = "full")]
use crate::snapshot::SlimConfig;

/// A final state as `reconcile` reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalState {
    /// The slim snapshot the stream is compared with.
    pub snapshot: Value,
    /// Why the run failed, in the producer's words, when the state says
    /// (a stored state's last step errors; a snapshot line's `error`).
    pub error: Option<String>,
}

impl FinalState {
    /// A slim snapshot as it is, with no error text.
    pub fn of_snapshot(snapshot: Value) -> FinalState {
        FinalState {
            snapshot,
            error: None,
        }
    }

    /// Reads a slim snapshot, a stored agent state or a recording's snapshot
    /// line (see the module). `now` stands in for a stored state's missing
    /// times, as in `slimSnapshot`.
    ///
    /// ```
    /// use stepline::session::final_state::FinalState;
    /// let state = stepline::json::from_str(r#"{"agentId":"a","status":"failed","steps":[
    ///   {"errors":[{"message":"Connection refused","class":"AgentException"}]}]}"#).unwrap();
    /// let read = FinalState::read(&state, &Default::default()).unwrap();
    /// assert_eq!(read.error.as_deref(), Some("Connection refused"));
    /// assert_eq!(read.snapshot["status"], "failed");
    /// ```
    pub fn read(value: &Value, now: &Timestamp) -> Result<FinalState> {
        let Some(m) = value.as_object() else {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "",
                format!(
                    "expected a final state (a slim snapshot, a stored agent state or a snapshot line) as an object, found {}",
                    type_name(value)
                ),
            ));
        };
        if m.contains_key(SNAPSHOT_KEY) {
            let line = FinalState::of_line(m)?;
            if line.snapshot.get("agentId").is_none() {
                return Ok(line);
            }
            // A stored state pasted into a line: read as one, its errors under the line's key.
            let mut state = FinalState::read(&line.snapshot, now).map_err(|e| {
                let path = format!("/{SNAPSHOT_KEY}{}", e.path.as_deref().unwrap_or(""));
                SteplineError::new(e.code, Some(path), e.message)
            })?;
            if line.error.is_some() {
                state.error = line.error;
            }
            return Ok(state);
        }
        if !m.contains_key("agentId") {
            snapshot_status(value, "")?;
            return Ok(FinalState::of_snapshot(value.clone()));
        }
        // Read whole with the reader `parseAgentState` uses (the selective
        // reader `slimSnapshot` uses is generic over its input: a second copy).
        let snapshot = slim_whole(value, now)?;
        Ok(FinalState {
            snapshot,
            error: last_step_errors(m),
        })
    }

    /// The final state as a recording line: `{"stepline_snapshot", "session_id"?, "execution_id"?, "error"?}`.
    pub fn to_line(&self, session_id: Option<&str>, execution_id: Option<&str>) -> Value {
        let mut line = crate::session::recording::snapshot_line(
            session_id,
            execution_id,
            self.snapshot.clone(),
        );
        if let (Some(error), Value::Object(m)) = (&self.error, &mut line) {
            m.insert("error", Value::from(error.as_str()));
        }
        line
    }

    /// A recording's snapshot line as written: its `stepline_snapshot`
    /// (not read further: a replay keeps what the file holds) and `error`.
    pub(crate) fn of_line(line: &Map) -> Result<FinalState> {
        let error = line_error(line)?.map(str::to_string);
        let snapshot = line.get(SNAPSHOT_KEY).cloned().unwrap_or(Value::Null);
        Ok(FinalState { snapshot, error })
    }
}

/// A stored state, read by its format's reader, as a slim snapshot of its
/// whole last run.
#[cfg(feature = "full")]
fn slim_whole(value: &Value, now: &Timestamp) -> Result<Value> {
    Ok(crate::state_formats::read(value, now, true)?.slim(&whole_run()))
}

/// The live entry (`stepline/live`) takes no final state (`ingestFinalState`
/// and `reconcile` are the full package's), so it links no state reader.
#[cfg(not(feature = "full"))]
fn slim_whole(_value: &Value, _now: &Timestamp) -> Result<Value> {
    Err(SteplineError::at(
        ErrorCode::InvalidValue,
        "",
        "expected a slim snapshot: this build (without the `full` feature) reads no stored agent state",
    ))
}

/// A slim snapshot's status must be one its producer can restore: the
/// producer's `deserialize` hands it to `AgentStatus::from` (v1.22, which
/// throws `ValueError` on `"idle"` and any other name it does not have, and
/// `TypeError` on a number), v2's to `ExecutionStatus::from`. Absent or null
/// reads as the default. A snapshot takes its state format's names
/// (`StateFormat::snapshot_statuses`); one whose `state_version` no format
/// carries, any status a snapshot may carry.
fn snapshot_status(snapshot: &Value, base: &str) -> Result<()> {
    let names = crate::state_formats::StateFormats::built_in()
        .snapshot_format(snapshot.get("state_version"))
        .map_or(crate::snapshot::rules::STATUSES, |f| f.snapshot_statuses());
    let path = format!("{base}/status");
    match snapshot.get("status") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(s)) if names.contains(&s.as_str()) => Ok(()),
        Some(Value::String(s)) => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            &path,
            format!(
                "expected a status ({}), found {}",
                names.join(", "),
                crate::json::quote(s)
            ),
        )),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidType,
            &path,
            format!(
                "expected the status as a string, found {}",
                type_name(other)
            ),
        )),
    }
}

/// Checks a snapshot line's `stepline_snapshot` (an object with a status
/// its producer can restore) and `error` (a string, if any), and returns
/// the error text.
pub(crate) fn line_error(line: &Map) -> Result<Option<&str>> {
    let snapshot = line.get(SNAPSHOT_KEY).unwrap_or(&Value::Null);
    if !snapshot.is_object() {
        return Err(SteplineError::at(
            ErrorCode::InvalidType,
            "/stepline_snapshot",
            format!(
                "expected the snapshot as an object, found {}",
                type_name(snapshot)
            ),
        ));
    }
    snapshot_status(snapshot, "/stepline_snapshot")?;
    match line.get("error") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidType,
            "/error",
            format!("expected \"error\" as a string, found {}", type_name(other)),
        )),
    }
}

/// The slim config that keeps the whole run: every step and message, uncut.
#[cfg(feature = "full")]
fn whole_run() -> SlimConfig {
    SlimConfig {
        max_messages: i64::MAX,
        max_steps: i64::MAX,
        max_content_length: i64::MAX,
        ..SlimConfig::standard()
    }
}

/// The messages of the errors on a stored state's last step, `; `-joined:
/// v1.22's `currentStep`, else its last `steps` entry; v2's
/// `execution.currentStep`, else its last `stepExecutions[].step`.
fn last_step_errors(state: &Map) -> Option<String> {
    fn last(list: Option<&Value>) -> Option<&Value> {
        list.and_then(Value::as_array).and_then(|l| l.last())
    }
    let execution = state.get("execution");
    let step = state
        .get("currentStep")
        .filter(|s| s.is_object())
        .or_else(|| last(state.get("steps")))
        .or_else(|| execution?.get("currentStep").filter(|s| s.is_object()))
        .or_else(|| last(execution?.get("stepExecutions"))?.get("step"))?;
    let messages: Vec<&str> = step
        .get("errors")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|e| e.get("message").and_then(Value::as_str))
        .filter(|m| !m.is_empty())
        .collect();
    (!messages.is_empty()).then(|| messages.join("; "))
}

/// A final state a session holds: the execution it settled and where in
/// the stream it arrived (before the envelope numbered `before_seq`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Kept {
    before_seq: u64,
    execution: usize,
    execution_id: Option<String>,
    state: FinalState,
}

impl Session {
    /// Reconciles the latest execution with its final state, in any form
    /// [`FinalState::read`] reads, and keeps that state: the session's
    /// recording writes it where it arrived, so a replayed recording is
    /// reconciled the same way. A later final state of the same execution
    /// replaces it.
    ///
    /// ```
    /// use stepline::session::Session;
    /// let mut s = Session::new(None);
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"processing"}}"#).unwrap();
    /// let state = stepline::json::from_str(r#"{"stepline_snapshot":{"status":"failed"},"error":"Connection refused"}"#).unwrap();
    /// let report = s.ingest_final_state(&state, &Default::default()).unwrap();
    /// assert_eq!(report.won.unwrap().run_error.as_deref(), Some("Connection refused"));
    /// assert!(s.to_recording().contains(r#""error":"Connection refused""#));
    /// ```
    pub fn ingest_final_state(&mut self, value: &Value, now: &Timestamp) -> Result<Report> {
        let state = FinalState::read(value, now)?;
        let report = self.reconcile_final(&state);
        let execution_id = value
            .get("execution_id")
            .and_then(Value::as_str)
            .map(String::from);
        self.keep_final_state(state, execution_id);
        Ok(report)
    }

    /// Keeps `state` for the latest execution, where the stream stands now.
    pub(crate) fn keep_final_state(&mut self, state: FinalState, execution_id: Option<String>) {
        let execution = self.executions.len().saturating_sub(1);
        let execution_id =
            execution_id.or_else(|| self.executions.last().and_then(|e| e.id.clone()));
        self.final_states.retain(|k| k.execution != execution);
        self.final_states.push(Kept {
            before_seq: self.next_seq,
            execution,
            execution_id,
            state,
        });
    }

    /// The final states the session holds, in the order they arrived.
    pub fn final_states(&self) -> impl Iterator<Item = &FinalState> + '_ {
        self.final_states.iter().map(|k| &k.state)
    }

    /// The recording's lines: each kept final state as a snapshot line
    /// before the first envelope that arrived after it.
    pub(crate) fn recording_lines(&self) -> impl Iterator<Item = String> + '_ {
        let mut kept = self.final_states.iter().peekable();
        let mut entries = self.log_entries().peekable();
        std::iter::from_fn(move || {
            let next_seq = entries.peek().map(|(seq, _)| *seq);
            if let Some(k) = kept.next_if(|k| next_seq.is_none_or(|seq| k.before_seq <= seq)) {
                let line = k
                    .state
                    .to_line(self.session_id.as_deref(), k.execution_id.as_deref());
                return Some(crate::json::to_string(&line));
            }
            entries.next().map(|(_, line)| line)
        })
    }
}
