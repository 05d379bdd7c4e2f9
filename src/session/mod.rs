//! Live sessions: envelopes in, one consistent view out, whatever the order
//! or repetition of delivery; then a reconciliation against the final state.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(Some("sess-1".into()));
//! let line = r#"{"type":"agent.status","session_id":"sess-1","execution_id":"e1",
//!   "timestamp":"2026-01-20T12:00:00.250Z","payload":{"status":"processing","previous_status":"idle"}}"#;
//! let first = s.ingest_text(line).unwrap();
//! let again = s.ingest_text(line).unwrap();
//! assert!(first.applied && again.duplicate);
//! assert_eq!(s.status(), Some("processing"));
//! ```

pub mod apply;
pub mod collect;
pub mod dedup;
pub mod gaps;
pub mod patch;
pub mod reconcile;
pub mod recording;
pub mod runlog;
pub mod view;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::envelope::decode::{decode_value, Decoded, Warning, ENVELOPE_LIMITS};
use crate::error::Result;
use crate::json::obj;
use crate::session::apply::{apply, step_of};
use crate::session::dedup::{Fingerprint, Fingerprinter, Seen};
use crate::session::patch::Dirty;
use crate::session::view::{add_usage, state_status, usage_value, Counts, Execution};

/// What one ingest did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IngestOutcome {
    /// The envelope changed the view.
    pub applied: bool,
    /// The same envelope had been applied before; nothing changed.
    pub duplicate: bool,
    /// Why the envelope was not merged (`foreign_session`), if it was not.
    pub rejected: Option<&'static str>,
    pub warnings: Vec<Warning>,
}

impl IngestOutcome {
    pub fn to_value(&self) -> Value {
        obj([
            ("applied", Value::from(self.applied)),
            ("duplicate", Value::from(self.duplicate)),
            ("rejected", self.rejected.map_or(Value::Null, Value::from)),
            (
                "warnings",
                Value::Array(self.warnings.iter().map(Warning::to_value).collect()),
            ),
        ])
    }
}

/// What a JSONL batch did.
#[derive(Clone, Debug, Default)]
pub struct JsonlOutcome {
    pub applied: u64,
    pub duplicates: u64,
    pub rejected: u64,
    /// The lines that could not be ingested (the first 1,000 listed, all counted).
    pub errors: crate::error::LineErrors,
}

impl JsonlOutcome {
    /// `{applied, duplicates, rejected, errors: [{line, error: {code, path,
    /// message}}], errorCount}` (`errors` lists the first 1,000).
    pub fn to_value(&self) -> Value {
        obj([
            ("applied", Value::from(self.applied)),
            ("duplicates", Value::from(self.duplicates)),
            ("rejected", Value::from(self.rejected)),
            ("errors", line_errors(&self.errors)),
            ("errorCount", Value::from(self.errors.count)),
        ])
    }
}

/// The listed failing lines as `[{line, error}]`.
pub fn line_errors(errors: &crate::error::LineErrors) -> Value {
    Value::Array(
        errors
            .listed
            .iter()
            .map(|(n, e)| line_error(*n, e))
            .collect(),
    )
}

/// `{line, error: {code, path, message}}`: a JSONL line that failed.
pub fn line_error(line: usize, e: &crate::error::SteplineError) -> Value {
    obj([
        ("line", Value::from(line)),
        (
            "error",
            obj([
                ("code", Value::from(e.code.as_str())),
                ("path", e.path.as_deref().map_or(Value::Null, Value::from)),
                ("message", Value::from(e.message.as_str())),
            ]),
        ),
    ])
}

/// One session's live view, built from its envelopes.
#[derive(Clone, Debug, Default)]
pub struct Session {
    session_id: Option<String>,
    /// Executions in order of first arrival (a new `execution_id` is a new turn).
    executions: Vec<Execution>,
    /// Every applied envelope as received, in arrival order (for recordings).
    log: Vec<String>,
    /// Fingerprints of the envelopes applied (see [`dedup`]).
    seen: Seen,
    counts: Counts,
    /// Rejected envelopes per foreign session id.
    foreign: BTreeMap<String, u64>,
    warnings: Vec<Value>,
    dirty: Dirty,
}

impl Session {
    /// A session for `session_id`; with `None` the first envelope's session is adopted.
    pub fn new(session_id: Option<String>) -> Session {
        Session {
            session_id,
            ..Session::default()
        }
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    pub fn executions(&self) -> &[Execution] {
        &self.executions
    }

    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Envelopes rejected per foreign session id.
    pub fn foreign(&self) -> &BTreeMap<String, u64> {
        &self.foreign
    }

    /// Every applied envelope as received (compact JSON text, one line
    /// each), in arrival order.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// The broadcast status of the latest execution.
    pub fn status(&self) -> Option<&str> {
        self.executions.last().and_then(Execution::status)
    }

    /// Ingests JSON text holding one envelope.
    pub fn ingest_text(&mut self, text: &str) -> Result<IngestOutcome> {
        let raw = crate::json::parse(text, &ENVELOPE_LIMITS)?;
        let d = decode_value(&raw)?;
        // Kept as one JSONL line: the text itself unless it spans lines.
        // A byte scan: `contains` with a char pattern decodes every character.
        let line = if text.bytes().any(|b| b == b'\n' || b == b'\r') {
            serde_json::to_string(&raw).unwrap_or_default()
        } else {
            text.trim().to_string()
        };
        Ok(self.ingest_with(d, Some(line)))
    }

    /// Ingests a JSONL batch (one envelope per line, blank lines skipped);
    /// lines that fail are collected with their 1-based number, the rest
    /// still ingested.
    pub fn ingest_jsonl(&mut self, text: &str) -> JsonlOutcome {
        let mut out = JsonlOutcome::default();
        // A byte order mark is not part of the first line (as in recordings).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match self.ingest_text(line) {
                Ok(o) => {
                    out.applied += u64::from(o.applied);
                    out.duplicates += u64::from(o.duplicate);
                    out.rejected += u64::from(o.rejected.is_some());
                }
                Err(e) => out.errors.push(i + 1, e),
            }
        }
        out
    }

    /// Ingests one envelope value (any dialect).
    pub fn ingest_value(&mut self, v: &Value) -> Result<IngestOutcome> {
        let d = decode_value(v)?;
        Ok(self.ingest_with(d, serde_json::to_string(v).ok()))
    }

    /// Ingests an already decoded envelope (the log, and so a recording,
    /// then holds its normalised form).
    pub fn ingest_decoded(&mut self, d: Decoded) -> IngestOutcome {
        self.ingest_with(d, None)
    }

    /// `raw` is the envelope as received, kept for recordings so they replay
    /// through the decoder exactly as the live stream did.
    fn ingest_with(&mut self, d: Decoded, raw: Option<String>) -> IngestOutcome {
        let Decoded { envelope, warnings } = d;
        let mut out = IngestOutcome {
            warnings,
            ..IngestOutcome::default()
        };
        let Value::Object(env) = envelope else {
            return out;
        };
        let session = env.get("session_id").and_then(Value::as_str);
        match (&self.session_id, session) {
            (Some(mine), Some(theirs)) if mine != theirs => {
                self.counts.rejected += 1;
                *self.foreign.entry(theirs.to_string()).or_insert(0) += 1;
                self.dirty.header = true;
                out.rejected = Some("foreign_session");
                return out;
            }
            (None, Some(theirs)) => self.session_id = Some(theirs.to_string()),
            _ => {}
        }
        let pos = self.execution_pos(&env);
        let Some(fingerprint) = dedup_key(&env, &self.executions[pos], pos) else {
            return self.applied(out, env, raw, pos);
        };
        if !self.seen.insert(fingerprint) {
            self.counts.duplicates += 1;
            self.dirty.header = true;
            out.duplicate = true;
            return out;
        }
        self.applied(out, env, raw, pos)
    }

    fn applied(
        &mut self,
        mut out: IngestOutcome,
        env: Map<String, Value>,
        raw: Option<String>,
        pos: usize,
    ) -> IngestOutcome {
        let (kind, payload) = parts(&env);
        let ts = env.get("timestamp").and_then(Value::as_str);
        let touched = apply(&mut self.executions[pos], kind, ts, payload);
        self.dirty.touch(pos, touched);
        for w in &out.warnings {
            self.warnings.push(w.to_value());
        }
        self.counts.applied += 1;
        out.applied = true;
        let line = raw.unwrap_or_else(|| serde_json::to_string(&env).unwrap_or_default());
        self.log.push(line);
        out
    }

    /// The execution (turn) an envelope belongs to. A new `execution_id` is a
    /// new turn; so is `processing` after a terminal status under the same id,
    /// because the reference adapter keeps one execution id for every turn
    /// it broadcasts.
    fn execution_pos(&mut self, env: &Map<String, Value>) -> usize {
        let id = env.get("execution_id").and_then(Value::as_str);
        let (kind, payload) = parts(env);
        let restarts = kind == "agent.status"
            && payload.get("status").and_then(Value::as_str) == Some("processing")
            && payload
                .get("previous_status")
                .and_then(Value::as_str)
                .is_some_and(|p| view::TERMINAL.contains(&p));
        if let Some(i) = self.executions.iter().rposition(|e| e.id.as_deref() == id) {
            let ended = self.executions[i]
                .status()
                .is_some_and(|s| view::TERMINAL.contains(&s));
            if !(restarts && ended) {
                return i;
            }
        }
        self.executions.push(Execution {
            id: id.map(str::to_string),
            ..Execution::default()
        });
        self.dirty.execution_added(self.executions.len() - 1);
        self.executions.len() - 1
    }

    /// Top-level fields of the view (no executions).
    pub fn header_value(&self) -> Value {
        let status = self.status();
        let usage = self
            .executions
            .iter()
            .fold(Default::default(), |a, e| add_usage(&a, &e.usage()));
        let foreign: Map<String, Value> = self
            .foreign
            .iter()
            .map(|(k, n)| (k.clone(), Value::from(*n)))
            .collect();
        obj([
            (
                "session_id",
                self.session_id.as_deref().map_or(Value::Null, Value::from),
            ),
            ("status", status.map_or(Value::Null, Value::from)),
            (
                "state_status",
                status
                    .and_then(state_status)
                    .map_or(Value::Null, Value::from),
            ),
            ("usage", usage_value(&usage)),
            ("counts", self.counts.to_value()),
            ("rejected_sessions", Value::Object(foreign)),
        ])
    }

    /// The whole view as one value (what `getSnapshot()` shows in JS).
    pub fn view(&self) -> Value {
        let mut v = self.header_value();
        if let Value::Object(m) = &mut v {
            m.insert("warnings".into(), Value::Array(self.warnings.clone()));
            m.insert(
                "executions".into(),
                Value::Array(self.executions.iter().map(Execution::to_value).collect()),
            );
        }
        v
    }
}

/// The identity of an envelope for redelivery checks, or `None` when the
/// wire gives it none (stream chunks or deltas without an index: two equal
/// ones are two pieces of text). Tool events without a call id or step
/// number are keyed with the step they are attributed to, since the
/// reference sends byte-identical tool events in consecutive steps.
fn dedup_key(env: &Map<String, Value>, exec: &Execution, turn: usize) -> Option<Fingerprint> {
    let (kind, payload) = parts(env);
    let unindexed = match kind {
        "agent.stream.chunk" => !payload.contains_key("chunk_index"),
        "agent.llm.output_text.delta" | "agent.tool.output" => true,
        _ => false,
    };
    if unindexed {
        return None;
    }
    let mut f = Fingerprinter::new();
    for (k, v) in env {
        f.str(k);
        f.value(v);
    }
    // Turns that reuse an execution id repeat byte-identical envelopes
    // (the reference adapter keeps its id across turns).
    f.int(turn as i64);
    let anonymous_tool = kind.starts_with("agent.tool.")
        && payload.get("tool_call_id").is_none_or(Value::is_null)
        && !payload.contains_key("step_index");
    if anonymous_tool {
        f.int(step_of(exec, payload));
    }
    Some(f.finish())
}

/// The type and payload of a normalised envelope.
fn parts(env: &Map<String, Value>) -> (&str, &Map<String, Value>) {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let kind = env.get("type").and_then(Value::as_str).unwrap_or_default();
    let payload = env
        .get("payload")
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new));
    (kind, payload)
}
