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

pub(crate) mod annotate;
pub(crate) mod apply;
pub(crate) mod attribution;
pub(crate) mod blocks;
pub mod causes;
pub(crate) mod chunk_key;
pub(crate) mod collect;
pub mod compare;
pub mod custom;
pub mod data;
pub(crate) mod dedup;
pub(crate) mod diagnose;
pub mod final_state;
pub(crate) mod gaps;
pub(crate) mod head;
pub mod kept_continuation;
pub(crate) mod kept_tool_event;
pub(crate) mod limits;
mod log;
pub(crate) mod patch;
pub mod reconcile;
pub mod recording;
pub(crate) mod records;
pub mod runlog;
pub(crate) mod segments;
pub mod stale;
pub mod stamp;
pub mod status;
pub mod step_envelopes;
pub mod streamed_replay;
pub(crate) mod text;
pub(crate) mod text_blocks;
pub(crate) mod text_pack;
pub mod timeline;
pub(crate) mod tool_index;
pub mod view;
pub mod window;

/// Foreign producers' final forms (AG-UI messages, AI SDK `UIMessage[]`,
/// laravel/ai's stored rows) read into one neutral run.
pub use crate::dialects::final_form;
pub use attribution::Attribution;
/// `reconcileMessages()`'s options and report, also at
/// [`reconcile::messages`].
pub use reconcile::messages as reconcile_messages;
pub use text::DEFAULT_TEXT_LIMIT;

use crate::session::log::Log;
use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::{Map, Value};

use crate::envelope::decode::{decode_owned, decode_value, Decoded, Warning, ENVELOPE_LIMITS};
use crate::envelope::event::to_event;
use crate::envelope::fast_line::{LineBody, TakenBody};
use crate::envelope::EventNames;
use crate::error::{ErrorCode, Result, SteplineError};
use crate::event::ToolKind;
use crate::model::state::AgentStatus;
use crate::model::usage::Usage;
use crate::model::usage::UsageWithTotal;
use crate::session::apply::{apply, step_of};
use crate::session::attribution::{instant, Pending};
use crate::session::dedup::{occurrence, turn_mark, Batch, Fingerprint, Fingerprinter, Seen};
use crate::session::gaps::LISTED;
use crate::session::head::Head;
use crate::session::patch::Dirty;
use crate::session::text::StreamText;
use crate::session::view::{add_usage, agent_status, sub_usage, Counts, Execution, Executions};

/// What one ingest did (`IngestResult` in TypeScript).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "IngestResult"))]
pub struct IngestOutcome {
    /// The envelope changed the view.
    pub applied: bool,
    /// The same envelope had been applied before; nothing changed.
    pub duplicate: bool,
    /// Why the envelope was not merged, if it was not.
    pub rejected: Option<Rejection>,
    /// What the envelope held that was kept but not understood.
    pub warnings: Vec<Warning>,
}

/// Why an envelope was not merged into a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// It belongs to another session than the one this session follows.
    ForeignSession,
}

/// Options of `new Session()`.
///
/// @example
/// ```js
/// const session = new Session({ sessionId: 'sess-1', maxTextBytes: 1024 * 1024 });
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionOptions {
    /// Without one, the first envelope's session is adopted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Bytes of UTF-8 streamed text kept per execution, and of output per
    /// tool run (default 8 MiB, 8388608). Past it the text is cut at a
    /// character boundary and the view says `text_truncated: true` with
    /// `text_dropped_bytes`; chunks past it keep no text, in the view or in
    /// `toRecording()`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_text_bytes: Option<u64>,
    /// Milliseconds of silence after which an execution that has not ended is
    /// marked `stale: true` (its status is left as broadcast). Silence is measured
    /// with envelope timestamps and the times given to `setNow()`; unset, nothing
    /// is ever stale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_after_ms: Option<u64>,
    /// Whether the session keeps every applied envelope's text (default
    /// `true`), which `toRecording()`, `timeline()`, `envelopesOf()` and
    /// `diagnose()` read. `false` keeps none of it: a page that follows a run
    /// and never exports it saves more than half of the session's memory
    /// (13 of 20 MiB after 100,000 envelopes, natively; bench/findings.md), and those
    /// four methods throw a `SteplineError` at `/options/record`. The view,
    /// redelivery and resync are the same either way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<bool>,
    /// Event type prefixes registered up front, as
    /// [`Session::register_event_prefix`] registers them (e.g.
    /// `['agent.planner.']`): events of those types are kept as the
    /// execution's `custom_events`, without an `unknown_type` warning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_prefixes: Option<Vec<String>>,
}

impl SessionOptions {
    /// Reads `{sessionId?, maxTextBytes?, staleAfterMs?, record?}` (`null`
    /// is unset); errors name the key under `path`.
    pub fn from_map(m: &Map, path: &str) -> Result<SessionOptions> {
        crate::model::read::only_keys(
            m,
            &[
                "sessionId",
                "maxTextBytes",
                "staleAfterMs",
                "record",
                "eventPrefixes",
            ],
            path,
        )?;
        let session_id = crate::model::read::opt_str(m, "sessionId", path)?.map(str::to_string);
        let max_text_bytes = match crate::model::read::opt_i64(m, "maxTextBytes", path)? {
            Some(_) => Some(text::limit_option(m, "maxTextBytes", path)? as u64),
            None => None,
        };
        let stale_after_ms =
            stale::stale_after_option(m, "staleAfterMs", path)?.map(|n| n.unsigned_abs());
        let record = crate::model::read::opt_bool(m, "record", path)?;
        let event_prefixes = match m.get("eventPrefixes") {
            None | Some(Value::Null) => None,
            Some(Value::Array(list)) => {
                let at = crate::json::child(path, "eventPrefixes");
                let mut out = Vec::with_capacity(list.len());
                for (i, v) in list.iter().enumerate() {
                    let here = crate::json::child(&at, &i.to_string());
                    let Value::String(prefix) = v else {
                        return Err(SteplineError::at(
                            ErrorCode::InvalidType,
                            &here,
                            format!(
                                "expected an event type prefix as a string, found {}",
                                crate::json::type_name(v)
                            ),
                        ));
                    };
                    custom::check_prefix(prefix, &here)?;
                    out.push(prefix.clone());
                }
                Some(out)
            }
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &crate::json::child(path, "eventPrefixes"),
                    format!(
                        "expected `eventPrefixes` as an array of strings, found {}",
                        crate::json::type_name(other)
                    ),
                ))
            }
        };
        Ok(SessionOptions {
            session_id,
            max_text_bytes,
            stale_after_ms,
            record,
            event_prefixes,
        })
    }
}

/// What a JSONL batch did.
#[derive(Clone, Debug, Default)]
pub struct JsonlOutcome {
    /// Lines applied to the view.
    pub applied: u64,
    /// Lines recognised as redeliveries.
    pub duplicates: u64,
    /// Lines refused (not JSON, invalid, or for another session).
    pub rejected: u64,
    /// The lines that could not be ingested (the first 1,000 listed, all counted).
    pub errors: crate::error::LineErrors,
    /// Warnings of the lines ingested, with their 1-based line number (the
    /// first 1,000 listed).
    pub warnings: Vec<(usize, Warning)>,
    /// How many warnings there were.
    pub warning_count: u64,
}

impl JsonlOutcome {
    /// The outcome as `ingestJsonl` returns it (the lists hold the first 1,000).
    pub fn view(&self) -> IngestBatchResult<'_> {
        IngestBatchResult {
            applied: self.applied,
            duplicates: self.duplicates,
            rejected: self.rejected,
            errors: LineErrorList(&self.errors),
            error_count: self.errors.count,
            warnings: LineWarnings(&self.warnings),
            warning_count: self.warning_count,
        }
    }
}

/// What `ingestJsonl` did; failing lines are listed with their 1-based number.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct IngestBatchResult<'a> {
    /// Envelopes that changed the view.
    pub applied: u64,
    /// Envelopes applied before, ignored.
    pub duplicates: u64,
    /// Envelopes of other sessions, not merged.
    pub rejected: u64,
    /// The first 1,000 failing lines; `errorCount` counts all of them.
    pub errors: LineErrorList<'a>,
    /// How many lines failed.
    pub error_count: u64,
    /// Warnings of the lines ingested (the first 1,000); `warningCount` counts all of them.
    pub warnings: LineWarnings<'a>,
    /// How many warnings there were.
    pub warning_count: u64,
}

/// A JSONL line that failed: its 1-based number and why.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LineError<'a> {
    /// The line's 1-based number.
    pub line: usize,
    /// Why it failed.
    pub error: ErrorInfo<'a>,
}

/// A [`SteplineError`] as data: `{code, path, message}`.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorInfo<'a> {
    /// The error's code (a `SteplineErrorCode`).
    pub code: &'static str,
    /// JSON pointer of what was wrong, when the error has one.
    pub path: Option<&'a str>,
    /// What was wrong, for a person.
    pub message: &'a str,
}

impl<'a> ErrorInfo<'a> {
    /// `e` as data.
    pub fn of(e: &'a crate::error::SteplineError) -> ErrorInfo<'a> {
        ErrorInfo {
            code: e.code.as_str(),
            path: e.path.as_deref(),
            message: &e.message,
        }
    }
}

/// The listed failing lines, written as [`LineError`]s.
#[derive(Clone, Copy, Debug)]
pub struct LineErrorList<'a>(pub &'a crate::error::LineErrors);

impl serde::Serialize for LineErrorList<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.listed.iter().map(|(line, e)| LineError {
            line: *line,
            error: ErrorInfo::of(e),
        }))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for LineErrorList<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LineErrorList".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<LineError<'static>>>::json_schema(g)
    }
}

/// A warning of a JSONL line: its 1-based number and the warning.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LineWarning<'a> {
    /// The line's 1-based number.
    pub line: usize,
    /// What the line held that was kept but not understood.
    pub warning: &'a Warning,
}

/// The listed warnings of a batch, written as [`LineWarning`]s.
#[derive(Clone, Copy, Debug)]
pub struct LineWarnings<'a>(pub &'a [(usize, Warning)]);

impl serde::Serialize for LineWarnings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(line, warning)| LineWarning {
            line: *line,
            warning,
        }))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for LineWarnings<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LineWarnings".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<LineWarning<'static>>>::json_schema(g)
    }
}

/// One session's live view, built from its envelopes.
///
/// Memory follows what the view shows, not how long the stream runs:
/// redeliveries and other sessions' envelopes are counted, not kept; each
/// execution keeps at most `text_limit` bytes of streamed text (and each
/// tool run as much output), counting what it drops; warnings are listed
/// up to 1,000 and counted. What grows per envelope is its fingerprint's
/// 8-byte key (in the redelivery set, or, for a chunk that arrived in
/// order, in the stream text beside the chunk) and the log line of each
/// envelope that still shows.
#[derive(Clone, Debug)]
pub struct Session {
    session_id: Option<String>,
    /// The id the session was created with (`session_id` may adopt the
    /// first envelope's later): a replay of its log starts from this one.
    given_id: Option<String>,
    /// Event type prefixes the application registered (seed 003).
    event_prefixes: Vec<String>,
    /// Executions in order of first arrival (a new `execution_id` is a new turn).
    executions: Vec<Execution>,
    /// The latest execution per id, and the latest without one: finding
    /// the turn by a scan cost the square of the number of turns.
    /// Positions as u64, the value type of `foreign`: one map type fewer
    /// in the wasm (each is kilobytes).
    by_id: BTreeMap<String, u64>,
    no_id: Option<usize>,
    /// The same for each foreign dialect's runs (a run without an id under
    /// `""`): runs of different producers never share an execution.
    by_producer: Vec<(&'static str, BTreeMap<String, u64>)>,
    /// The producer and position of the turn the last envelope went to, as
    /// those maps give it: the next envelope of the same run is found there
    /// without a search of the ids (a foreign replay's every event searched
    /// its producer's runs). Kept true by setting it wherever the maps change.
    route_hint: Option<(Option<&'static str>, usize)>,
    /// Per execution position, whether an earlier turn had its execution id
    /// (such turns keep which contents they applied, see [`dedup_key`]).
    reused: Vec<bool>,
    /// Executions whose text is stale (see [`text`]) until `settle`.
    stale: Vec<usize>,
    /// Bytes of streamed text kept per execution.
    text_limit: usize,
    /// The applied envelopes as received, by arrival number (for
    /// recordings); stream text the limit dropped leaves it.
    log: Log,
    /// The next arrival number (a `RunLog` numbers across its sessions).
    next_seq: u64,
    /// The last delivery number given to a batch (see `Log`), and the
    /// delivery of the envelope being ingested (0: on its own).
    deliveries: u32,
    delivery: u32,
    /// Fingerprints of the envelopes applied (see [`dedup`]).
    seen: Seen,
    counts: Counts,
    /// Usage summed over the executions, kept up to date per envelope.
    usage_total: Usage,
    /// Rejected envelopes per foreign session id.
    foreign: BTreeMap<String, u64>,
    /// The first 1,000 warnings, and how many there were.
    warnings: Vec<SessionWarning>,
    warning_count: u64,
    dirty: Dirty,
    /// What the executions' producer totals add to `usage_total`'s sum.
    usage_total_extra: i64,
    /// The silence limit and clock that mark executions stale.
    staleness: stale::Staleness,
    /// How far each foreign dialect's stream has been translated.
    pub(crate) dialects: crate::dialects::Translators,
    /// Off while the envelopes translated from one foreign event apply:
    /// the log keeps that event as received instead.
    logging: bool,
    /// Whether applied envelopes are kept in `log` (`SessionOptions::record`).
    recording: bool,
    /// The envelope last applied was text past the limit, dropped whole.
    text_dropped_whole: bool,
    /// The foreign dialect of the envelope being ingested (`None`:
    /// instructor-php's): executions are found per producer.
    producer: Option<&'static str>,
    /// The final states given to `ingest_final_state` (or read from a
    /// recording), each where it arrived: a recording writes them back there.
    final_states: Vec<final_state::Kept>,
    /// While the envelopes of one event of a dialect whose events carry ids
    /// apply: the contents applied for it so far. Its translator told a
    /// redelivered event by its id, so content an earlier event applied is
    /// a new occurrence; only a repeat within the event is a duplicate.
    identified_event: Option<Vec<Fingerprint>>,
    /// A replay of another session's log (the timeline's cursor,
    /// `envelopesOf`'s `before`): every line it is given was applied by that
    /// session, so one its own judgement takes for a redelivery is a further
    /// occurrence. The judgement can differ where the session's batch had
    /// seen a line it did not log (a redelivery within the batch), which the
    /// replay never sees.
    pub(crate) replaying_log: bool,
    /// In a replay of the log: the step the session placed the next line
    /// by arrival, when it did ([`Log::iter_replay`](log::Log)).
    pub(crate) replay_arrival: Option<i64>,
    /// The step the line being ingested was placed by arrival in its batch
    /// (a tool event without a step number), noted beside it in the log.
    line_arrival: Option<i64>,
    /// Whether lines in the producer's layout are read without the
    /// envelope's tree: stream chunks straight into the typed chunk
    /// (src/envelope/fast_chunk.rs), the other known types' headers from
    /// the bytes (src/envelope/fast_line.rs); off only in tests comparing
    /// the two ways.
    fast_chunks: bool,
}

impl Default for Session {
    fn default() -> Self {
        Session::with_text_limit(None, DEFAULT_TEXT_LIMIT)
    }
}

impl Session {
    /// A session with `options` (see [`SessionOptions`]).
    pub fn with_options(options: &SessionOptions) -> Session {
        let limit = options.max_text_bytes.map_or(DEFAULT_TEXT_LIMIT, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        });
        let mut s = Session::with_text_limit(options.session_id.clone(), limit);
        s.set_stale_after(
            options
                .stale_after_ms
                .map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
        );
        s.recording = options.record.unwrap_or(true);
        // `from_map` checked them; a prefix built in Rust is checked here.
        for prefix in options.event_prefixes.iter().flatten() {
            if custom::check_prefix(prefix, "/options/eventPrefixes").is_ok()
                && !s.event_prefixes.contains(prefix)
            {
                s.event_prefixes.push(prefix.clone());
            }
        }
        s
    }

    /// Registers an event type prefix of the producer's own (seed 003: new
    /// sub-flows such as a planner get a new prefix, `agent.planner.*`, and
    /// the event set stays closed otherwise —
    /// docs/seeds/003-agent-response-structure.md §与现有模型的衔接). Events
    /// whose type starts with it are accepted without an `unknown_type`
    /// warning and kept, in the execution's `custom_events`. Events already
    /// read stay as they were. The prefix starts with `agent.`, ends with `.`
    /// and covers no type stepline knows; anything else is an `invalid_value`
    /// error at `/prefix`.
    ///
    /// ```
    /// use stepline::session::Session;
    /// let mut s = Session::new(None);
    /// s.register_event_prefix("agent.planner.").unwrap();
    /// s.ingest_text(r#"{"type":"agent.planner.plan","session_id":"s","execution_id":"e","payload":{"steps":["a","b"]}}"#).unwrap();
    /// let v = s.view();
    /// assert_eq!(v["warning_count"], 0);
    /// assert_eq!(v["executions"][0]["custom_events"][0]["type"], "agent.planner.plan");
    /// assert!(s.register_event_prefix("agent.tool.").is_err());
    /// ```
    pub fn register_event_prefix(&mut self, prefix: &str) -> Result<()> {
        custom::check_prefix(prefix, "/prefix")?;
        if !self.event_prefixes.iter().any(|p| p == prefix) {
            self.event_prefixes.push(prefix.to_string());
        }
        Ok(())
    }

    /// The registered event type prefixes, in registration order.
    pub fn event_prefixes(&self) -> &[String] {
        &self.event_prefixes
    }

    /// A session for `session_id`; with `None` the first envelope's session is adopted.
    pub fn new(session_id: Option<String>) -> Session {
        Session::with_text_limit(session_id, DEFAULT_TEXT_LIMIT)
    }

    /// A session that keeps at most `limit` bytes of streamed text per
    /// execution (and of output per tool run); [`new`](Session::new) keeps
    /// [`DEFAULT_TEXT_LIMIT`] (8 MiB).
    ///
    /// ```
    /// use stepline::session::Session;
    /// let mut s = Session::with_text_limit(None, 4);
    /// s.ingest_text(r#"{"type":"agent.stream.chunk","session_id":"s","payload":{"content":"héllo","chunk_index":0}}"#).unwrap();
    /// let e = &s.view()["executions"][0];
    /// assert_eq!((e["text"].as_str(), e["text_truncated"].as_bool()), (Some("hél"), Some(true)));
    /// assert_eq!(e["text_dropped_bytes"], 2);
    /// ```
    pub fn with_text_limit(session_id: Option<String>, limit: usize) -> Session {
        Session {
            given_id: session_id.clone(),
            session_id,
            executions: Vec::new(),
            by_id: BTreeMap::new(),
            by_producer: Vec::new(),
            route_hint: None,
            no_id: None,
            reused: Vec::new(),
            stale: Vec::new(),
            text_limit: limit,
            log: Log::default(),
            next_seq: 0,
            deliveries: 0,
            delivery: 0,
            seen: Seen::default(),
            counts: Counts::default(),
            usage_total: Usage::default(),
            foreign: BTreeMap::new(),
            warnings: Vec::new(),
            warning_count: 0,
            dirty: Dirty::default(),
            usage_total_extra: 0,
            staleness: stale::Staleness::default(),
            dialects: crate::dialects::Translators::default(),
            logging: true,
            recording: true,
            text_dropped_whole: false,
            producer: None,
            final_states: Vec::new(),
            event_prefixes: Vec::new(),
            identified_event: None,
            replaying_log: false,
            replay_arrival: None,
            line_arrival: None,
            fast_chunks: true,
        }
    }

    /// Turns the stream chunk and line readers off (`false`) or on, for
    /// tests that compare what they give with the generic decoding of the
    /// same lines.
    ///
    /// ```
    /// let mut s = stepline::session::Session::new(None);
    /// s.set_fast_chunks(false);
    /// ```
    #[doc(hidden)]
    pub fn set_fast_chunks(&mut self, on: bool) {
        self.fast_chunks = on;
    }

    /// This session, reading the events of `dialects` (the built-in ones and
    /// any a caller added, see [`crate::dialects::Dialects::with`]) instead of
    /// the built-in ones alone. Events it has already read stay as they were
    /// translated.
    #[cfg(feature = "full")]
    pub fn with_dialects(mut self, dialects: crate::dialects::Dialects) -> Session {
        self.dialects = crate::dialects::Translators::new(dialects);
        self
    }

    /// Bytes of streamed text kept per execution.
    pub fn text_limit(&self) -> usize {
        self.text_limit
    }

    /// The session id: the one given, or the first envelope's.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The id the session was created with: `None` when it adopted the
    /// first envelope's (what a replay of its log starts from).
    pub(crate) fn given_id(&self) -> Option<&str> {
        self.given_id.as_deref()
    }

    /// The executions (user turns) in the order they opened.
    pub fn executions(&self) -> &[Execution] {
        &self.executions
    }

    /// What ingest did so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Envelopes rejected per foreign session id.
    pub fn foreign(&self) -> &BTreeMap<String, u64> {
        &self.foreign
    }

    /// Whether the session keeps the applied envelopes' text
    /// ([`SessionOptions::record`]).
    pub fn records(&self) -> bool {
        self.recording
    }

    /// `Ok` when the session keeps the applied envelopes' text; else the
    /// typed error `what` (a method that reads it) throws.
    pub fn require_recording(&self, what: &str) -> Result<()> {
        if self.recording {
            return Ok(());
        }
        Err(crate::error::SteplineError::at(
            crate::error::ErrorCode::InvalidValue,
            "/options/record",
            format!("{what} reads the applied envelopes, which a session created with {{ record: false }} does not keep"),
        ))
    }

    /// Every applied envelope as received (compact JSON text, one line
    /// each), in arrival order, but for those whose streamed text the
    /// limit dropped (none when the session does not record).
    pub fn log(&self) -> impl Iterator<Item = String> + '_ {
        self.log.iter().map(|(_, l)| l)
    }

    /// [`log`](Session::log) with the delivery each line came in: 0 for an
    /// envelope delivered on its own (`ingest_text`, `ingest_value`), else a
    /// number the lines of one delivery share (one `ingest_jsonl` text, a
    /// recording) and the lines of the deliveries next to it do not. A
    /// replay that delivers the lines the same way (one batch per number,
    /// the others one by one) judges redeliveries as the session did.
    ///
    /// ```
    /// use stepline::session::Session;
    /// let step = |kind: &str| format!(r#"{{"type":"agent.step.{kind}","session_id":"s","execution_id":"e","payload":{{"step_number":1}}}}"#);
    /// let mut s = Session::new(None);
    /// s.ingest_text(r#"{"type":"agent.status","session_id":"s","execution_id":"e","payload":{"status":"processing"}}"#).unwrap();
    /// s.ingest_jsonl(&format!("{}\n{}", step("started"), step("completed")));
    /// let deliveries: Vec<u32> = s.log_delivered().map(|(d, _)| d).collect();
    /// assert_eq!(deliveries[0], 0);
    /// assert!(deliveries[1] > 0 && deliveries[1] == deliveries[2]);
    /// ```
    pub fn log_delivered(&self) -> impl Iterator<Item = (u32, String)> + '_ {
        self.log.iter_delivered().map(|(_, d, l)| (d, l))
    }

    /// [`log_delivered`](Session::log_delivered) with the step each tool
    /// event without a step number was placed by in its batch: what a
    /// replay needs to apply every line as the session did.
    pub(crate) fn log_replay(&self) -> impl Iterator<Item = (u32, Option<i64>, String)> + '_ {
        self.log.iter_replay()
    }

    /// The log with arrival numbers (a `RunLog` merges its sessions' by them).
    pub(crate) fn log_entries(&self) -> impl Iterator<Item = (u64, String)> + '_ {
        self.log.iter()
    }

    /// Brings every execution's text up to date: once for any number of
    /// chunks that arrived out of order. Every `ingest_*` method but
    /// [`ingest_text_deferred`](Session::ingest_text_deferred) does this
    /// before it returns.
    pub fn settle(&mut self) {
        for pos in std::mem::take(&mut self.stale) {
            if let Some(e) = self.executions.get_mut(pos) {
                e.settle();
            }
        }
    }

    /// The broadcast status of the latest execution.
    pub fn status(&self) -> Option<&str> {
        self.executions.last().and_then(Execution::status)
    }

    /// Ingests JSON text holding one envelope.
    pub fn ingest_text(&mut self, text: &str) -> Result<IngestOutcome> {
        let out = self.ingest_text_deferred(text);
        self.settle();
        out
    }

    /// [`ingest_text`](Session::ingest_text) without [`settle`](Session::settle):
    /// for a caller that ingests many envelopes before it reads the view,
    /// so chunks arriving in reverse order rebuild the text once, not once
    /// each. `view()`, `reconcile()` and `collect()` read the text up to
    /// date regardless; `take_patch()` and the `text` field need `settle()`.
    pub fn ingest_text_deferred(&mut self, text: &str) -> Result<IngestOutcome> {
        self.ingest_text_in(text, None)
    }

    /// Ingests an event as a broadcast client hands it over, by its event
    /// name and its JSON text: `None` when the name carries no agent event
    /// under `names` (Pusher's own events, the app's other events), and then
    /// nothing is read; otherwise as
    /// [`ingest_text_deferred`](Session::ingest_text_deferred). Text that is
    /// not JSON under a name that is not the transport's is no agent event.
    pub fn ingest_event_deferred(
        &mut self,
        names: &EventNames,
        name: &str,
        text: &str,
    ) -> Option<Result<IngestOutcome>> {
        if !names.carries_envelope(name) {
            let data = crate::json::parse_text(text, &ENVELOPE_LIMITS).ok()?.value;
            if !crate::dialects::carries_event(names, name, &data) {
                return None;
            }
        }
        Some(self.ingest_text_deferred(text))
    }

    /// Ingests one envelope's text, as one of `batch` when given.
    fn ingest_text_in(&mut self, text: &str, batch: Option<&mut Batch>) -> Result<IngestOutcome> {
        // Most lines of a long run: read without a value tree, the decoder
        // or the fingerprint's walk (bench/findings.md, "Issue 27: stream
        // chunks read straight into the typed event"). A line the reader
        // declines is decoded as any other.
        if self.fast_chunks {
            if let Some(c) = crate::envelope::fast_chunk::read(text) {
                let raw = self.recording.then_some(Cow::Borrowed(text));
                return Ok(self.ingest_parts(Incoming::Chunk(c), raw, batch));
            }
            // The other lines of a known type: the header read from the
            // bytes, the payload decoded alone (bench/findings.md, "Issue
            // 27: the other instructor-php lines read without a tree").
            if let Some(l) = crate::envelope::fast_line::read(text) {
                let raw = self.recording.then_some(Cow::Borrowed(text));
                return Ok(self.ingest_parts(Incoming::Line(l), raw, batch));
            }
        }
        // A foreign text delta a running translator reads from its bytes
        // (bench/findings.md, "Issue 27: foreign text deltas read from their
        // lines"); anything else is parsed.
        #[cfg(feature = "full")]
        if self.fast_chunks {
            let session = self.session_id.as_deref();
            if let Some((dialect, t)) = self.dialects.translate_line(text, session) {
                let own = (!t.duplicate).then_some(text);
                return self.apply_translated(dialect, t, own, batch);
            }
        }
        let parsed = crate::json::parse_text(text, &ENVELOPE_LIMITS)?;
        // Kept as one JSONL line: the text itself unless it spans lines (JSON
        // text can break lines only in whitespace, which the parser reports).
        // A session that keeps no log keeps no line.
        let line = if !self.recording {
            Cow::Borrowed("")
        } else if parsed.line_breaks {
            Cow::Owned(crate::json::to_string(&parsed.value))
        } else {
            Cow::Borrowed(text.trim())
        };
        if let Some(dialect) = self.dialects.claim(&parsed.value) {
            return self.ingest_foreign(dialect, parsed.value, line.into_owned(), batch);
        }
        let d = decode_owned(parsed.value)?;
        Ok(self.ingest_in(d, self.recording.then_some(line), batch))
    }

    /// Ingests one event of a foreign dialect (laravel/ai, AG-UI, AI SDK):
    /// translated into normalised envelopes, which apply as any others. The
    /// log keeps the event as received (`line`), so a recording replays
    /// through the same translation.
    pub(crate) fn ingest_foreign(
        &mut self,
        dialect: &'static dyn crate::dialects::Dialect,
        event: Value,
        line: String,
        batch: Option<&mut Batch>,
    ) -> Result<IngestOutcome> {
        let mut t = self
            .dialects
            .translate(dialect, event, line, self.session_id.as_deref())?;
        let own = t.line.take();
        self.apply_translated(dialect, t, own.as_deref(), batch)
    }

    /// Applies what one foreign event of `dialect` was translated into;
    /// `own_line` is the event's line as received (`None`: a redelivery, or
    /// no JSON object), which the log keeps.
    fn apply_translated(
        &mut self,
        dialect: &'static dyn crate::dialects::Dialect,
        mut t: crate::dialects::Translated,
        own_line: Option<&str>,
        mut batch: Option<&mut Batch>,
    ) -> Result<IngestOutcome> {
        let mut patches = std::mem::take(&mut t.patches).into_iter().peekable();
        let session_id = t.session_id.take();
        let convert = |(i, env): (usize, crate::dialects::Emitted)| -> Result<Applying> {
            let env = match env {
                crate::dialects::Emitted::Envelope(env) => env,
                #[cfg(feature = "full")]
                crate::dialects::Emitted::Delta(d) => return Ok(Applying::Delta(d)),
                #[cfg(not(feature = "full"))]
                crate::dialects::Emitted::Delta(d) => {
                    d.envelope(session_id.as_deref().unwrap_or_default())
                }
            };
            translated(dialect, Value::Object(env)).map(|mut d| {
                d.dialect = crate::envelope::dialect::WireDialect::Foreign(dialect.name());
                // Added after decoding: no envelope on the wire carries it.
                if let Some((_, patch)) = patches.next_if(|(j, _)| *j == i) {
                    if let Some(Value::Object(p)) = d.envelope.get_mut("payload") {
                        p.insert(crate::envelope::event::DATA_PATCH, patch);
                    }
                }
                Applying::Decoded(d)
            })
        };
        let emitted = t.envelopes.len();
        let mut envelopes = std::mem::take(&mut t.envelopes);
        let mut converted = envelopes.drain(..).enumerate().map(convert);
        // Envelopes the decoder may refuse are all decoded before any
        // applies; a dialect that writes the normalised form has none to
        // refuse (`translated`), and its envelopes are taken as they come:
        // no list is made of one delta.
        let decoded = match dialect.emits_normalised() {
            true => None,
            false => Some(converted.by_ref().collect::<Result<Vec<_>>>()?),
        };
        for (w, kind) in t.warnings.iter().zip(&t.warning_types) {
            if self.warnings.len() < LISTED {
                self.warnings.push(SessionWarning {
                    warning: w.clone(),
                    kind: kind.clone(),
                    timestamp: None,
                });
            }
            self.warning_count += 1;
            self.dirty.header = true;
        }
        let mut out = IngestOutcome {
            warnings: t.warnings,
            ..IngestOutcome::default()
        };
        if t.duplicate {
            return Ok(self.duplicate(out));
        }
        // Held events released as new were counted as duplicates on arrival.
        self.counts.duplicates = self.counts.duplicates.saturating_sub(t.released);
        let received = t.held_lines.len() as u64 + u64::from(own_line.is_some());
        let mut last_line = None;
        let held = t.held_lines.iter().map(String::as_str);
        for line in held.chain(own_line) {
            let seq = self.next_seq;
            self.next_seq += 1;
            last_line = Some(seq);
            if self.recording {
                let delivery = batch
                    .as_deref_mut()
                    .map_or(0, |b| b.delivery(&mut self.deliveries));
                self.log.push(seq, line, delivery);
            }
        }
        // Accepted even when it changes nothing yet (an AG-UI tool call's
        // arguments wait for its end).
        out.applied = true;
        self.logging = false;
        let mut all_dropped = emitted > 0;
        let applied_before = self.counts.applied;
        // An envelope the translation repeats (AI SDK's tool-input-error and
        // tool-output-error both fail the call) is a redelivery inside the
        // event, not a duplicate event: the event counts once, as applied.
        let duplicates_before = self.counts.duplicates;
        if dialect.events_carry_ids() {
            self.identified_event = Some(Vec::new());
        }
        for d in decoded.into_iter().flatten().map(Ok).chain(converted) {
            self.text_dropped_whole = false;
            let o = match d? {
                Applying::Decoded(d) => self.ingest_in(d, None, batch.as_deref_mut()),
                #[cfg(feature = "full")]
                Applying::Delta(delta) => {
                    let sid = session_id.as_deref();
                    #[cfg(debug_assertions)]
                    check_delta(dialect, &delta, sid, self.session_id.as_deref());
                    let d = Incoming::Delta(delta, sid, dialect.name());
                    self.ingest_parts(d, None, batch.as_deref_mut())
                }
            };
            all_dropped &= self.text_dropped_whole;
            out.rejected = out.rejected.or(o.rejected);
            out.warnings.extend(o.warnings);
        }
        self.logging = true;
        self.identified_event = None;
        // The list is kept for the next event's translation (one a line).
        self.dialects.take_back(envelopes);
        // Counted per event received (and held event released), as
        // `ingest_jsonl` counts lines, not per envelope it became: the two
        // paths counted 60 and 79 for the same AG-UI lines.
        self.counts.applied = applied_before.saturating_add(received);
        self.counts.duplicates = duplicates_before;
        // An event whose every envelope was text past the limit leaves the
        // log, as such an envelope of instructor-php's does (200,000
        // laravel/ai deltas past the limit kept their 200 bytes each). Only
        // where events carry ids: a whole-run redelivery of the others is
        // known by the run's events in order (src/dialects/mod.rs), which a
        // recording must then hold in full.
        if let (true, true, Some(seq)) = (all_dropped, dialect.events_carry_ids(), last_line) {
            self.log.remove(seq);
        }
        Ok(out)
    }

    /// Ingests a JSONL batch (one envelope per line, blank lines skipped),
    /// or a JSON array of envelopes (when its first non-blank character is
    /// `[`; each element then counts as a line, numbered by its position);
    /// lines that fail are collected with their 1-based number, the rest
    /// still ingested. The batch is one delivery: the second of two
    /// identical lines in it is a second occurrence, not a redelivery (see
    /// `dedup_key`), so merging a recording of the run into a session that
    /// holds part of it adds exactly what the session lacked.
    pub fn ingest_jsonl(&mut self, text: &str) -> JsonlOutcome {
        let mut out = JsonlOutcome::default();
        let mut batch = Batch::default();
        // A byte order mark is not part of the first line (as in recordings).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (number, record) in records::records(text) {
            let line = match record {
                Ok(line) => line,
                Err(e) => {
                    out.errors.push(number, e);
                    continue;
                }
            };
            match self.ingest_text_in(line, Some(&mut batch)) {
                Ok(o) => {
                    out.applied += u64::from(o.applied);
                    out.duplicates += u64::from(o.duplicate);
                    out.rejected += u64::from(o.rejected.is_some());
                    out.warning_count += o.warnings.len() as u64;
                    let room = LISTED.saturating_sub(out.warnings.len());
                    out.warnings
                        .extend(o.warnings.into_iter().take(room).map(|w| (number, w)));
                }
                Err(e) => out.errors.push(number, e),
            }
        }
        self.settle();
        out
    }

    /// Ingests one envelope value (any dialect).
    pub fn ingest_value(&mut self, v: &Value) -> Result<IngestOutcome> {
        let line = || match self.recording {
            true => crate::json::to_string(v),
            false => String::new(),
        };
        if let Some(dialect) = self.dialects.claim(v) {
            let out = self.ingest_foreign(dialect, v.clone(), line(), None);
            self.settle();
            return out;
        }
        let d = decode_value(v)?;
        let raw = self.recording.then(line);
        let out = self.ingest_with(d, raw);
        self.settle();
        Ok(out)
    }

    /// Ingests an already decoded envelope (the log, and so a recording,
    /// then holds its normalised form).
    pub fn ingest_decoded(&mut self, d: Decoded) -> IngestOutcome {
        let out = self.ingest_with(d, None);
        self.settle();
        out
    }

    /// `raw` is the envelope as received, kept for recordings so they replay
    /// through the decoder exactly as the live stream did.
    fn ingest_with(&mut self, d: Decoded, raw: Option<String>) -> IngestOutcome {
        self.ingest_in(d, raw.map(Cow::Owned), None)
    }

    /// [`ingest_with`](Session::ingest_with) as one envelope of `batch`
    /// (`None`: delivered on its own, as a live stream delivers).
    #[inline]
    pub(crate) fn ingest_in(
        &mut self,
        d: Decoded,
        raw: Option<Cow<'_, str>>,
        batch: Option<&mut Batch>,
    ) -> IngestOutcome {
        self.ingest_parts(Incoming::Decoded(d), raw, batch)
    }

    /// [`ingest_in`](Session::ingest_in) of a decoded envelope or of a
    /// stream chunk read straight from its line: from the header on, both
    /// take the same way.
    fn ingest_parts(
        &mut self,
        d: Incoming<'_>,
        raw: Option<Cow<'_, str>>,
        mut batch: Option<&mut Batch>,
    ) -> IngestOutcome {
        self.line_arrival = None;
        let (parts, warnings, dialect) = match d {
            Incoming::Decoded(Decoded {
                envelope: Value::Object(env),
                warnings,
                dialect,
            }) => (Parts::Envelope(env), warnings, dialect),
            Incoming::Decoded(d) => {
                return IngestOutcome {
                    warnings: d.warnings,
                    ..IngestOutcome::default()
                }
            }
            // The decoder's dialect of such a chunk (src/envelope/dialect.rs).
            Incoming::Chunk(c) => (
                Parts::Chunk(c),
                Vec::new(),
                crate::envelope::dialect::WireDialect::Instructor,
            ),
            Incoming::Line(mut l) => {
                let warnings = std::mem::take(&mut l.warnings);
                let dialect = l.dialect;
                (Parts::Line(l), warnings, dialect)
            }
            #[cfg(feature = "full")]
            Incoming::Delta(d, session_id, name) => (
                Parts::Delta(d, session_id),
                Vec::new(),
                crate::envelope::dialect::WireDialect::Foreign(name),
            ),
        };
        let mut out = IngestOutcome {
            warnings,
            ..IngestOutcome::default()
        };
        self.producer = match dialect {
            crate::envelope::dialect::WireDialect::Foreign(name) => Some(name),
            _ => None,
        };
        // Read once: the routing, the redelivery key and the batch's
        // bookkeeping below all ask (a lookup of each per question was a
        // fiftieth of a bulk replay, bench/findings.md).
        let h = match &parts {
            Parts::Chunk(c) => Head::chunk(c.session_id, c.execution_id, c.timestamp, c.index),
            Parts::Line(l) => match &l.body {
                LineBody::Payload(payload) => {
                    Head::line(l.kind, payload, l.session_id, l.execution_id, l.timestamp)
                }
                #[cfg(feature = "full")]
                LineBody::Event(e) => Head::typed(l, e),
            },
            Parts::Envelope(env) => Head::read(env),
            #[cfg(feature = "full")]
            Parts::Delta(d, session_id) => Head::delta(*session_id, d),
        };
        match (&self.session_id, h.session_id) {
            (Some(mine), Some(theirs)) if mine != theirs => {
                self.counts.rejected += 1;
                *self.foreign.entry(theirs.to_string()).or_insert(0) += 1;
                self.dirty.header = true;
                out.rejected = Some(Rejection::ForeignSession);
                return out;
            }
            (None, Some(theirs)) => self.session_id = Some(theirs.to_string()),
            _ => {}
        }
        // Where it would go, without making a turn yet: a redelivered
        // restart must not open one.
        let route = self.route(&h);
        // A chunk's own index, where the stream text may hold its key.
        let index = h.chunk_index;
        // A chunk past the text limit's cut keeps no fingerprint: whether
        // its index arrived before says whether it is a redelivery.
        let past_cut = route.and_then(|pos| {
            let exec = self.executions.get(pos)?;
            index.and_then(|i| exec.stream.past_cut(i))
        });
        // A translated `agent.data` is never a redelivery to the session:
        // its dialect told those apart already, and an equal value (or
        // patch: two equal appends to a state) may rightly come again. Nor
        // is any envelope of a dialect whose events carry no ids: it tells
        // redeliveries apart itself (whole runs, src/dialects/mod.rs), and
        // equal envelopes without ids or timestamps (a run started again
        // after its end numbers its steps from 1 again) are new; taken for
        // redeliveries line by line but not in a batch, the recording
        // replayed to another view (tests/dialect_redelivery.rs).
        let translated_data = match dialect {
            crate::envelope::dialect::WireDialect::Foreign(name) => {
                h.kind == "agent.data"
                    || self
                        .dialects
                        .dialects()
                        .named(name)
                        .is_some_and(|d| !d.events_carry_ids())
            }
            _ => false,
        };
        let content = match past_cut {
            Some(false) => None,
            _ if translated_data => None,
            _ => match &parts {
                Parts::Chunk(c) => Some(c.fingerprint),
                Parts::Line(l) => (!keyless(l.kind)).then_some(l.fingerprint),
                Parts::Envelope(env) => dedup_key(env, h.kind),
                // A delta is keyless (`dedup_key`).
                #[cfg(feature = "full")]
                Parts::Delta(..) => None,
            },
        };
        if let Some(b) = batch.as_deref_mut() {
            b.observe(&h, content);
        }
        self.delivery = batch
            .as_deref_mut()
            .map_or(0, |b| b.delivery(&mut self.deliveries));
        let content = match past_cut {
            Some(true) => return self.duplicate(out),
            _ => content,
        };
        let mut fingerprint = None;
        let mut repeated = false;
        let held = route.zip(index);
        // The first occurrence of a chunk with an index: its key goes into
        // the set after `applied`, and only if its text does not keep it.
        let mut deferred = false;
        if let Some(f) = content {
            // An event its dialect identified as new (laravel/ai's `id`):
            // live and in a batch alike (a replayed recording is a batch,
            // and must apply what the live session applied).
            let identified = match self.identified_event.as_mut() {
                Some(applied) if applied.contains(&f) => return self.duplicate(out),
                Some(applied) => {
                    applied.push(f);
                    true
                }
                None => false,
            };
            let k = match batch.as_deref_mut() {
                _ if identified => match self.was_seen(f, held) {
                    true => self.occurrences(f) + 1,
                    false => 1,
                },
                Some(b) => {
                    let k = b.occurrence(f, &h);
                    // A turn this batch opened is being delivered: content an
                    // earlier turn of the id applied is this turn's own.
                    let own_turn = !h.stepless_tool
                        && b.is_opened(&h)
                        && route.is_some_and(|p| {
                            self.reused.get(p) == Some(&true)
                                && !self.seen.contains(turn_mark(f, p))
                        });
                    if own_turn && self.was_seen(occurrence(f, k), held) {
                        self.occurrences(f) + 1
                    } else {
                        k
                    }
                }
                None if !self.was_seen(f, held) => 1,
                None if self.repeat_is_new(&h, route, f) => self.occurrences(f) + 1,
                None if self.replaying_log => self.occurrences(f) + 1,
                None => return self.duplicate(out),
            };
            let mut k = k;
            let mut key = occurrence(f, k);
            let defer = index.is_some() && k == 1;
            let new = match defer {
                true => !self.was_seen(key, held),
                false => !self.held_by_text(key, held) && self.seen.insert(key),
            };
            deferred = defer && new;
            if !new {
                if !self.replaying_log {
                    return self.duplicate(out);
                }
                k = self.occurrences(f) + 1;
                key = occurrence(f, k);
                self.seen.insert(key);
            }
            repeated = k > 1;
            fingerprint = Some(key);
        }
        let pos = match route {
            Some(pos) => pos,
            None => {
                if let Some(b) = batch.as_deref_mut() {
                    b.opened(&h);
                }
                self.new_execution(&h)
            }
        };
        self.route_hint = Some((self.producer, pos));
        let tool = h.tool;
        if let (Some(f), true) = (content, self.reused.get(pos) == Some(&true)) {
            if !tool {
                self.seen.insert(turn_mark(f, pos));
            }
        }
        if let Some(exec) = self.executions.get_mut(pos) {
            exec.dialect = exec.dialect.most_specific(dialect);
            if tool {
                let recorded = self.replay_arrival.filter(|_| self.replaying_log);
                let arrival = batch
                    .as_deref()
                    .filter(|_| h.stepless_tool)
                    .and_then(|b| recorded.or_else(|| b.arrival(&h)));
                self.line_arrival = arrival;
                exec.tool_placement.pending = Pending {
                    arrival,
                    content,
                    repeated,
                };
            }
        }
        self.text_dropped_whole = false;
        // A chunk whose key the stream text can make from its parts keeps
        // none there (src/session/chunk_key.rs): its content's first
        // occurrence, in the producer's layout.
        let vouched = match (&parts, fingerprint) {
            (_, Some(key)) if Some(key) != content || index.is_none() => None,
            (Parts::Chunk(c), Some(_)) if !c.is_complete => {
                crate::session::chunk_key::written_instant(c.timestamp, h.at())
            }
            (Parts::Envelope(env), Some(_)) if h.kind == "agent.stream.chunk" => {
                crate::session::chunk_key::canonical(env, h.at())
            }
            _ => None,
        };
        if let (Some(at), Some(sid), Some(eid), Some(exec)) = (
            vouched,
            h.session_id,
            h.execution_id,
            self.executions.get_mut(pos),
        ) {
            exec.stream.vouch(sid, eid, at);
        }
        let out = self.applied(out, parts, raw, pos, fingerprint);
        if let Some(exec) = self.executions.get_mut(pos) {
            exec.stream.clear_vouch();
        }
        // A chunk's first occurrence whose key its stream text now holds at
        // its own index: the text keeps it (it had to, to give it back when
        // the chunk is dropped), so the set does not keep it twice. Nearly
        // every envelope of a long run is such a chunk (bench/findings.md,
        // issue 27's third pass). `was_seen` asks the text; the turn's keys
        // go into the set when a later turn takes its place
        // (`new_execution`). A chunk the limit dropped at once leaves no key,
        // as its text leaves none.
        if let (true, Some(key), Some(i)) = (deferred, fingerprint, index) {
            let key = crate::session::dedup::seen_key(key);
            let held = self
                .executions
                .get(pos)
                .is_some_and(|e| e.stream.holds(i, key, &e.text));
            if !held && !self.text_dropped_whole {
                self.seen.insert_key(key);
            }
        }
        out
    }

    /// Whether the stream text of the turn a chunk routes to holds `fp`'s
    /// key at the chunk's index (`chunk`: that turn's position and the index).
    fn held_by_text(&self, fp: Fingerprint, chunk: Option<(usize, i64)>) -> bool {
        chunk.is_some_and(|(pos, i)| {
            let key = crate::session::dedup::seen_key(fp);
            self.executions
                .get(pos)
                .is_some_and(|e| e.stream.holds(i, key, &e.text))
        })
    }

    /// Whether `fp` was applied: in the set, or (for a chunk's first
    /// occurrence) held by the stream text of the turn the chunk routes to,
    /// at its index (`chunk`: that turn's position and the index).
    fn was_seen(&self, fp: Fingerprint, chunk: Option<(usize, i64)>) -> bool {
        self.seen.contains(fp) || self.held_by_text(fp, chunk)
    }

    /// How many occurrences of content `f` were applied.
    fn occurrences(&self, f: Fingerprint) -> u32 {
        let mut k = 1;
        while self.seen.contains(occurrence(f, k + 1)) {
            k += 1;
        }
        k
    }

    /// Whether an envelope delivered on its own whose content was applied
    /// before is a new occurrence (identical events exist under a frozen
    /// clock: the same tool call in consecutive steps, the same status in
    /// consecutive turns) rather than a redelivery. Only where timestamps
    /// cannot tell them apart:
    /// - a tool completion without a step number: while the step it joins
    ///   has a call of that tool open and fewer such completions than starts
    ///   of that tool (identical completions of calls without ids);
    /// - a tool event without a step number: when timestamps tie between
    ///   steps and the step it would join by arrival has no event of that
    ///   content yet and may still hold the call (see
    ///   [`ToolPlacement::repeat_is_new`](attribution::ToolPlacement::repeat_is_new));
    /// - any other envelope: in a turn that reuses an earlier turn's
    ///   execution id, has not applied this content, has not ended, and
    ///   whose span holds the timestamp (never a status that would open a
    ///   turn: a third turn identical to the second under a frozen clock
    ///   opens only when delivered in a batch).
    fn repeat_is_new(&self, h: &Head<'_>, route: Option<usize>, f: Fingerprint) -> bool {
        let at = h.at();
        // A repeated restart (it would open a turn) is taken as a redelivery.
        let Some((pos, exec)) = route.and_then(|pos| Some((pos, self.executions.get(pos)?))) else {
            return false;
        };
        if h.stepless_tool {
            let kind = h.kind;
            let arrival = step_of(exec, None);
            let name = h.tool_name();
            return exec.tool_placement.repeat_is_new(
                &exec.steps,
                at,
                arrival,
                f,
                ToolKind::of_type(kind),
                name,
            );
        }
        if self.reused.get(pos) != Some(&true) || self.seen.contains(turn_mark(f, pos)) {
            return false;
        }
        let open = exec.status().is_none_or(|s| !view::TERMINAL.contains(&s));
        let first = exec.first_at.as_deref().and_then(instant);
        let last = exec.last_at.as_deref().and_then(instant);
        let within = matches!((first, at, last), (Some(f), Some(a), Some(l)) if f <= a && a <= l);
        open && within
    }

    fn duplicate(&mut self, mut out: IngestOutcome) -> IngestOutcome {
        self.counts.duplicates += 1;
        self.dirty.header = true;
        out.duplicate = true;
        out
    }

    fn applied(
        &mut self,
        mut out: IngestOutcome,
        mut parts: Parts<'_>,
        raw: Option<Cow<'_, str>>,
        pos: usize,
        fingerprint: Option<Fingerprint>,
    ) -> IngestOutcome {
        // The log line first: `apply` moves what the view keeps out of the
        // payload. Written only when the log keeps it.
        let keeps_line = self.logging && self.recording;
        let line = match (raw, &parts) {
            (Some(raw), _) => raw,
            (None, Parts::Chunk(c)) if keeps_line => Cow::Owned(c.line.to_string()),
            (None, Parts::Line(l)) if keeps_line => Cow::Owned(l.line.to_string()),
            (None, Parts::Envelope(env)) if keeps_line => Cow::Owned(crate::json::to_string(env)),
            // Not kept: the log is off, or the envelope was translated
            // (its event's line is kept, by `apply_translated`).
            (None, _) => Cow::Borrowed(""),
        };
        let (kind, ts, body) = match &mut parts {
            Parts::Envelope(env) => {
                let payload = match env.get_mut("payload") {
                    Some(Value::Object(p)) => std::mem::take(p),
                    _ => Map::new(),
                };
                let kind = env.get("type").and_then(Value::as_str).unwrap_or_default();
                let ts = env.get("timestamp").and_then(Value::as_str);
                (kind, ts, Content::Payload(payload))
            }
            Parts::Chunk(c) => (
                crate::envelope::fast_chunk::KIND,
                Some(c.timestamp),
                Content::Chunk(c.take_chunk()),
            ),
            Parts::Line(l) => (
                l.kind,
                Some(l.timestamp),
                match l.take_body() {
                    TakenBody::Payload(payload) => Content::Payload(payload),
                    #[cfg(feature = "full")]
                    TakenBody::Event(e) => Content::Event(e),
                },
            ),
            #[cfg(feature = "full")]
            Parts::Delta(d, _) => {
                let text = std::mem::take(&mut d.text);
                let event = delta_event(d.reasoning, d.step, text);
                (d.kind(), d.timestamp.as_deref(), Content::Delta(event))
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        let Some(exec) = self.executions.get_mut(pos) else {
            // `pos` was routed to, or just opened.
            return out;
        };
        let usage_before = exec.usage();
        let extra_before = exec.usage_total_extra;
        let registered = self
            .event_prefixes
            .iter()
            .any(|p| kind.starts_with(p.as_str()));
        // A chunk, or a step event read from its line, is never of a
        // registered prefix: `custom::check_prefix` refuses a prefix that
        // covers a known type.
        let touched = match body {
            Content::Payload(payload) if registered => {
                // Kept as it came: the decoder knows no fields of it.
                out.warnings.retain(|w| w.code != "unknown_type");
                exec.custom_events
                    .add(custom::CustomEvent::new(kind, ts, payload));
                apply::Touched::Header
            }
            body => {
                let key = fingerprint.map(crate::session::dedup::seen_key);
                let event = match body {
                    Content::Payload(payload) => to_event(kind, None, payload),
                    Content::Chunk(chunk) => crate::envelope::fast_chunk::event(chunk),
                    #[cfg(feature = "full")]
                    Content::Event(e) => *e.event,
                    #[cfg(feature = "full")]
                    Content::Delta(e) => e,
                };
                apply(exec, event, ts, (seq, key))
            }
        };
        // Tool runs that a step's new start or completion moved between steps.
        for n in exec.tool_placement.take_moved() {
            self.dirty.touch(pos, apply::Touched::Step(n));
        }
        self.usage_total = add_usage(&sub_usage(&self.usage_total, &usage_before), &exec.usage());
        self.usage_total_extra = self
            .usage_total_extra
            .saturating_add(exec.usage_total_extra.saturating_sub(extra_before));
        if exec.stream.is_stale() && !self.stale.contains(&pos) {
            self.stale.push(pos);
        }
        // Text the limit dropped takes its envelopes out of the log (and
        // their fingerprints: a redelivery is then known by its index).
        let mut logged = true;
        for (n, fp) in exec.stream.take_evicted() {
            if n == seq {
                logged = false;
                self.text_dropped_whole = true;
            } else {
                self.log.remove(n);
            }
            if let Some(key) = fp {
                self.seen.remove(key);
            }
        }
        self.dirty.touch(pos, touched);
        out.warnings.extend(exec.limits.take());
        for w in &out.warnings {
            if self.warnings.len() < LISTED {
                // Named by the envelope it came from: its path alone is
                // relative to an envelope the view does not otherwise name.
                self.warnings.push(SessionWarning {
                    warning: w.clone(),
                    kind: kind.to_string(),
                    timestamp: ts.map(str::to_string),
                });
            }
            self.warning_count += 1;
        }
        self.stale_after_apply(pos, ts);
        self.counts.applied += 1;
        out.applied = true;
        if logged && keeps_line {
            self.log.push(seq, &line, self.delivery);
            if let Some(step) = self.line_arrival {
                self.log.push_arrival(seq, step);
            }
        }
        out
    }

    /// The execution (turn) an envelope belongs to. A new `execution_id` is a
    /// new turn; so is `processing` after a terminal status under the same id,
    /// because the reference adapter keeps one execution id for every turn
    /// it broadcasts.
    fn route(&self, h: &Head<'_>) -> Option<usize> {
        let (kind, payload) = (h.kind, h.payload);
        let i = self.latest(h.execution_id)?;
        let exec = self.executions.get(i)?;
        // A broadcaster reset between turns (v2.7's `reset()`) starts the
        // next turn from `idle`: a restart once the turn already started so.
        let restarts = kind == "agent.status"
            && payload.get("status").and_then(Value::as_str) == Some("processing")
            && payload
                .get("previous_status")
                .and_then(Value::as_str)
                .is_some_and(|p| {
                    view::TERMINAL.contains(&p)
                        || (p == "idle"
                            && exec.statuses.iter().any(|(to, from)| {
                                to == "processing" && from.as_deref() == Some("idle")
                            }))
                });
        let ended = exec.status().is_some_and(|s| view::TERMINAL.contains(&s));
        (!(restarts && ended)).then_some(i)
    }

    /// The latest turn with the envelope's execution id (or without one),
    /// of the envelope's producer: runs of different producers never share
    /// an execution, whatever ids they chose (an AG-UI run and an AI SDK
    /// message both named `run-0001` were merged into one).
    fn latest(&self, id: Option<&str>) -> Option<usize> {
        if let Some((producer, pos)) = self.route_hint {
            let hit = producer == self.producer
                && self.executions.get(pos).is_some_and(|e| match producer {
                    None => e.id.as_deref() == id,
                    // A run without an id is the producer's run under `""`.
                    Some(_) => e.id.as_deref().unwrap_or_default() == id.unwrap_or_default(),
                });
            if hit {
                return Some(pos);
            }
        }
        match (self.producer, id) {
            (None, Some(id)) => self.by_id.get(id).map(|&i| i as usize),
            (None, None) => self.no_id,
            (Some(p), id) => self
                .by_producer
                .iter()
                .find(|(name, _)| *name == p)
                .and_then(|(_, ids)| ids.get(id.unwrap_or_default()))
                .map(|&i| i as usize),
        }
    }

    /// Opens the turn an envelope starts (see [`route`](Session::route)).
    fn new_execution(&mut self, h: &Head<'_>) -> usize {
        let id = h.execution_id;
        let previous = self.latest(id);
        let reused = previous.is_some();
        // The turn this one replaces as the latest of its id is no longer
        // where its chunks route: the set takes the keys its text held.
        if let Some(e) = previous.and_then(|p| self.executions.get(p)) {
            for key in e.stream.keys(&e.text) {
                self.seen.insert_key(key);
            }
        }
        self.reused.push(reused);
        let pos = self.executions.len();
        self.executions.push(Execution {
            id: id.map(str::to_string),
            stream: StreamText::with_limit(self.text_limit),
            ..Execution::default()
        });
        match (self.producer, id) {
            (None, Some(id)) => {
                self.by_id.insert(id.to_string(), pos as u64);
            }
            (None, None) => self.no_id = Some(pos),
            (Some(p), id) => {
                let ids = match self.by_producer.iter().position(|(name, _)| *name == p) {
                    Some(i) => self.by_producer.get_mut(i),
                    None => {
                        self.by_producer.push((p, BTreeMap::new()));
                        self.by_producer.last_mut()
                    }
                };
                if let Some((_, ids)) = ids {
                    ids.insert(id.unwrap_or_default().to_string(), pos as u64);
                }
            }
        }
        self.route_hint = Some((self.producer, pos));
        self.dirty.execution_added(pos);
        pos
    }

    /// The session's token total: the sum of the fields, corrected by the
    /// steps' own totals where the producer sent them.
    pub fn usage_total_value(&self) -> i64 {
        self.usage_total
            .total()
            .saturating_add(self.usage_total_extra)
    }

    /// Top-level fields of the view (no warnings, no executions).
    pub fn header(&self) -> SessionHeader<'_> {
        let status = self.status();
        SessionHeader {
            session_id: self.session_id.as_deref(),
            status,
            state_status: status.and_then(agent_status),
            usage: UsageWithTotal::new(&self.usage_total, self.usage_total_value()),
            counts: self.counts,
            rejected_sessions: &self.foreign,
            warning_count: self.warning_count,
        }
    }

    /// The warnings listed so far (the first 1,000).
    pub fn warnings(&self) -> &[SessionWarning] {
        &self.warnings
    }

    /// The whole view as the JS side shows it (`getSnapshot()`).
    pub fn shape(&self) -> SessionView<'_> {
        SessionView {
            header: self.header(),
            warnings: &self.warnings,
            executions: Executions(&self.executions),
        }
    }

    /// The whole view as one value (for Rust callers and tests).
    pub fn view(&self) -> Value {
        crate::json::to_value_of(&self.shape())
    }
}

/// The live view (immutable; unchanged parts are shared between snapshots).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionView<'a> {
    /// The session's own fields.
    #[serde(flatten)]
    pub header: SessionHeader<'a>,
    /// The first 1,000 warnings, each with the type and timestamp of the
    /// envelope it came from; `warning_count` counts all.
    #[cfg_attr(feature = "schema", schemars(extend("readOnly" = true)))]
    pub warnings: &'a [SessionWarning],
    /// The executions in order of first arrival.
    #[cfg_attr(feature = "schema", schemars(extend("readOnly" = true)))]
    pub executions: Executions<'a>,
}

/// The session's own fields: the [`SessionView`] without its warnings and
/// executions (what a live patch diffs field by field).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionHeader<'a> {
    /// The session followed (`null` until an envelope names one).
    pub session_id: Option<&'a str>,
    /// The latest execution's broadcast status.
    pub status: Option<&'a str>,
    /// The state's own status for `status`.
    pub state_status: Option<AgentStatus>,
    /// Tokens summed over the executions.
    pub usage: UsageWithTotal,
    /// What ingest did so far.
    pub counts: Counts,
    /// Rejected envelopes per foreign session id.
    pub rejected_sessions: &'a BTreeMap<String, u64>,
    /// How many warnings there were.
    pub warning_count: u64,
}

/// A warning in a session's view: `path` is inside the envelope named by
/// `type` and `timestamp` (the view does not otherwise name it).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionWarning {
    /// What was not understood.
    #[serde(flatten)]
    pub warning: Warning,
    /// The envelope's type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The envelope's timestamp.
    pub timestamp: Option<String>,
}

/// An envelope as the session takes it: decoded into its normalised map, or
/// a stream chunk read straight from its line (src/envelope/fast_chunk.rs).
enum Incoming<'t> {
    Decoded(Decoded),
    Chunk(crate::envelope::fast_chunk::FastChunk<'t>),
    /// An envelope of another known type read from its line, its payload
    /// decoded or its event read (src/envelope/fast_line.rs).
    Line(crate::envelope::fast_line::FastLine<'t>),
    /// A text or reasoning delta a translator emitted typed, under the
    /// session id given (`None`: the session's own), from the dialect named
    /// (not in the live entry's build, which has no translators).
    #[cfg(feature = "full")]
    Delta(crate::dialects::Delta, Option<&'t str>, &'static str),
}

/// A translated envelope, decoded, or a delta the translator emitted typed.
enum Applying {
    Decoded(Decoded),
    #[cfg(feature = "full")]
    Delta(crate::dialects::Delta),
}

/// Debug builds: a typed delta's header and event are what the envelope it
/// stands for gives, decoded and read as any other (`session_id` the
/// delta's, `own` the session's).
#[cfg(all(debug_assertions, feature = "full"))]
fn check_delta(
    dialect: &dyn crate::dialects::Dialect,
    d: &crate::dialects::Delta,
    session_id: Option<&str>,
    own: Option<&str>,
) {
    let env = d.envelope(session_id.or(own).unwrap_or_default());
    let decoded = translated(dialect, Value::Object(env)).expect("a delta's envelope decodes");
    let Value::Object(env) = decoded.envelope else {
        unreachable!("an envelope is an object");
    };
    let (h, typed) = (Head::read(&env), Head::delta(session_id, d));
    let header = |h: &Head<'_>, sid: Option<&str>| {
        let fields = (h.kind, h.execution_id, h.has_execution_id, h.timestamp);
        format!("{:?}", (fields, sid, h.tool, h.step()))
    };
    assert_eq!(
        header(&h, h.session_id),
        header(&typed, typed.session_id.or(own)),
        "a typed delta's header"
    );
    assert!(keyless(h.kind) && dedup_key(&env, h.kind).is_none());
    let payload = env
        .get("payload")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let typed = delta_event(d.reasoning, d.step, d.text.clone());
    assert_eq!(
        to_event(h.kind, None, payload),
        typed,
        "a typed delta's event"
    );
}

/// The event of a typed delta (`reasoning`: a reasoning delta): `to_event`
/// of the envelope it stands for.
#[cfg(feature = "full")]
fn delta_event(reasoning: bool, step: i64, text: String) -> crate::event::Event {
    crate::event::Event {
        step: Some(step),
        timestamp: None,
        annotations: Vec::new(),
        body: match reasoning {
            true => crate::event::Body::ReasoningDelta(text),
            false => crate::event::Body::TextDelta(text),
        },
    }
}

/// What [`Session::applied`] turns into the event: the normalised envelope
/// (its header read), or the chunk read from its line.
enum Parts<'t> {
    Envelope(Map),
    Chunk(crate::envelope::fast_chunk::FastChunk<'t>),
    Line(crate::envelope::fast_line::FastLine<'t>),
    /// A typed delta (its text taken when applied), its session id.
    #[cfg(feature = "full")]
    Delta(crate::dialects::Delta, Option<&'t str>),
}

/// What [`Session::applied`] makes the event of: a decoded envelope's
/// payload, or the typed chunk read from its line.
enum Content {
    Payload(Map),
    Chunk(crate::envelope::fast_chunk::TakenChunk),
    /// A step or tool event read straight into its event (not in the live
    /// entry's build).
    #[cfg(feature = "full")]
    Event(crate::envelope::fast_line::TypedEvent),
    /// A translated delta's event (not boxed: most of a foreign stream).
    #[cfg(feature = "full")]
    Delta(crate::event::Event),
}

/// A translated envelope as the decoder would give it: decoded again
/// unless its dialect writes the normalised form itself (see
/// [`Dialect::emits_normalised`](crate::dialects::Dialect::emits_normalised)),
/// which debug builds check.
fn translated(dialect: &dyn crate::dialects::Dialect, env: Value) -> Result<Decoded> {
    if !dialect.emits_normalised() {
        return decode_owned(env);
    }
    // Such envelopes are applied as they come, without a first pass that
    // decodes them all (`apply_translated`): one the decoder refuses is the
    // dialect's bug, which debug builds stop at.
    #[cfg(debug_assertions)]
    {
        let again = decode_owned(env.clone());
        debug_assert!(
            again
                .as_ref()
                .is_ok_and(|a| a.envelope == env && a.warnings.is_empty()),
            "{} wrote an envelope the decoder refuses or changes ({:?}): {}",
            dialect.name(),
            again.err(),
            crate::json::to_string(&env)
        );
    }
    Ok(Decoded {
        envelope: env,
        warnings: Vec::new(),
        dialect: crate::envelope::dialect::WireDialect::default(),
    })
}

/// The content of an envelope for redelivery checks, or `None` when the
/// wire gives it none (seed-003 deltas carry no index and, natively, no
/// timestamp: two equal ones are two pieces of text; so do translated
/// reasoning deltas, whose dialect already knows a redelivery by its id). A seed-000 stream
/// chunk without `chunk_index` is known by its whole envelope, timestamp
/// included: redelivered byte for byte it is a duplicate, while two chunks
/// of equal text sent at different milliseconds both count. Limit: two
/// equal chunks sent within one millisecond (or under a frozen clock) are
/// taken for one.
///
/// Identity is content plus occurrence. The content is the whole
/// normalised envelope (type, ids, timestamp, payload), nothing the session
/// derived (neither the turn nor the step it was placed in, which change as
/// more arrives: keying by them made a replayed run look new). Producers
/// send no event ids, and v1.22 tool events neither a call id nor a step
/// number, but their timestamps have millisecond precision, so with a real
/// clock equal content means a redelivery. Under a frozen clock (or two
/// identical events in one millisecond) the same content genuinely occurs
/// more than once, so an envelope's identity is `(content, k)`, the k-th
/// occurrence of that content:
/// - in a batch (`ingest_jsonl`, a recording), k counts the content's
///   occurrences within the batch: replaying any part of a run, in any
///   order, finds every `(content, k)` applied already, and a batch that
///   holds more occurrences than the session adds just those;
/// - delivered on its own, an envelope whose content was applied is a
///   redelivery unless [`Session::repeat_is_new`] finds it a new occurrence
///   (only where timestamps tie, or for a tool completion below).
///
/// Identical completions are two events while the run can absorb them: calls
/// of one tool without ids (v2.7 sends `tool_call_id: null`) that finish in
/// the same millisecond with the same outcome send byte-identical
/// `agent.tool.completed` envelopes, so a repeated completion is a new
/// occurrence while its step has a call of that tool open and holds fewer
/// completions of that content than starts of that tool (in a batch: the
/// batch's own starts and completions in that step). Counted, not known:
/// the run it completes says so (`matched_by_count`). A whole run delivered
/// again finds every call completed, so it still changes nothing.
///
/// The limit: delivered one at a time under a frozen clock, a redelivered
/// tool event that arrives while a later step that made tool calls is the
/// latest, and has no identical event yet, is taken as that step's own call
/// (and a redelivered status as a later open turn's); deliver replays as a
/// batch to avoid it.
fn dedup_key(env: &Map, kind: &str) -> Option<Fingerprint> {
    if keyless(kind) {
        return None;
    }
    let mut f = Fingerprinter::new();
    for (k, v) in env {
        f.str(k);
        f.member(v);
    }
    Some(f.finish())
}

/// The types [`dedup_key`] gives no content (deltas, a tool's output).
fn keyless(kind: &str) -> bool {
    matches!(
        kind,
        "agent.llm.output_text.delta" | "agent.llm.reasoning.delta" | "agent.tool.output"
    )
}

#[cfg(test)]
mod tests {
    use super::Session;

    /// The stream chunk reader's fingerprint, header and chunk are what
    /// `dedup_key`, `Head::read` and `to_event` give the decoded envelope,
    /// over every line of tests/fixtures/fast-chunk/chunks.jsonl it reads
    /// and generated ones (escapes, raw UTF-8, both `is_complete`, indexes
    /// up to 15 digits).
    #[test]
    fn the_chunk_readers_fingerprint_header_and_chunk_are_the_decoded_envelopes() {
        use crate::envelope::fast_chunk;
        let fixture = include_str!("../../tests/fixtures/fast-chunk/chunks.jsonl");
        let mut lines: Vec<String> = fixture.lines().map(str::to_string).collect();
        for (i, content) in ["", "a", "abcdefgh", "é\\n\\\"x", "\\ud83c\\udf24 天气"]
            .iter()
            .enumerate()
        {
            for (complete, index) in [("false", 0u64), ("true", 999_999_999_999_999)] {
                lines.push(format!(
                    r#"{{"type":"agent.stream.chunk","session_id":"s{i}","execution_id":"","timestamp":"2026-01-20T12:00:00.{i:03}+02:00","payload":{{"content":"{content}","is_complete":{complete},"chunk_index":{index}}}}}"#
                ));
            }
        }
        let mut read = 0;
        for line in &lines {
            let Some(mut c) = fast_chunk::read(line) else {
                continue;
            };
            read += 1;
            let d = crate::envelope::decode::decode_text(line).expect(line);
            assert!(d.warnings.is_empty(), "{line}");
            let env = d.envelope.as_object().expect(line);
            let h = super::Head::read(env);
            assert_eq!(super::dedup_key(env, h.kind), Some(c.fingerprint), "{line}");
            assert_eq!(
                (h.kind, h.session_id, h.execution_id, h.has_execution_id),
                (
                    fast_chunk::KIND,
                    Some(c.session_id),
                    Some(c.execution_id),
                    true
                ),
                "{line}"
            );
            assert_eq!(
                (h.timestamp, h.chunk_index),
                (Some(c.timestamp), Some(c.index))
            );
            assert!(!h.tool && !h.stepless_tool);
            let event = crate::envelope::event::to_event(h.kind, None, h.payload.clone());
            assert_eq!(fast_chunk::event(c.take_chunk()), event, "{line}");
        }
        // The fixture's 27 lines in the producer's layout (escapes it reads,
        // a redelivery, a 15-digit index, another session's, an index
        // reused, empty ids, timestamps with an offset, in lower case,
        // without a fraction or with nine digits of it, U+FFFD escaped and
        // raw, content that only ends in a brace, the last), and the 10
        // generated ones.
        assert_eq!(read, 27 + 10, "lines the reader took");
    }

    /// The line reader's header, fingerprint, payload, warnings, dialect
    /// and event are what `Head::read`, `dedup_key`, the decoder and
    /// `to_event` give the decoded envelope, over every line of
    /// tests/fixtures/fast-line/lines.jsonl it reads and the first lines of
    /// both chunk fixtures' runs.
    #[test]
    fn the_line_readers_header_fingerprint_and_event_are_the_decoded_envelopes() {
        use crate::envelope::fast_line;
        let fixture = include_str!("../../tests/fixtures/fast-line/lines.jsonl");
        let chunks = include_str!("../../tests/fixtures/fast-chunk/chunks.jsonl");
        let mut read = 0;
        let mut typed = 0;
        for line in fixture.lines().chain(chunks.lines()) {
            let Some(mut l) = fast_line::read(line) else {
                continue;
            };
            read += 1;
            let d = crate::envelope::decode::decode_text(line).expect(line);
            assert_eq!((&l.warnings, l.dialect), (&d.warnings, d.dialect), "{line}");
            let env = d.envelope.as_object().expect(line);
            let h = super::Head::read(env);
            let key = super::dedup_key(env, h.kind);
            assert_eq!(
                (!super::keyless(l.kind)).then_some(l.fingerprint),
                key,
                "{line}"
            );
            if super::keyless(l.kind) {
                // The walk `dedup_key` would take, had the type a key.
                let mut f = super::Fingerprinter::new();
                for (k, v) in env {
                    f.str(k);
                    f.member(v);
                }
                assert_eq!(l.fingerprint, f.finish(), "{line}");
            }
            let lh = match &l.body {
                fast_line::LineBody::Payload(payload) => {
                    assert_eq!(payload, h.payload, "{line}");
                    super::Head::line(l.kind, payload, l.session_id, l.execution_id, l.timestamp)
                }
                fast_line::LineBody::Event(e) => {
                    typed += 1;
                    super::Head::typed(&l, e)
                }
            };
            assert_eq!(
                (lh.kind, lh.session_id, lh.execution_id, lh.has_execution_id),
                (h.kind, h.session_id, h.execution_id, h.has_execution_id),
                "{line}"
            );
            assert_eq!(
                (lh.timestamp, lh.tool, lh.stepless_tool, lh.chunk_index),
                (h.timestamp, h.tool, h.stepless_tool, h.chunk_index),
                "{line}"
            );
            assert_eq!(lh.step(), h.step(), "{line}");
            assert_eq!(lh.tool_name(), h.tool_name(), "{line}");
            assert_eq!(env.len(), 5, "{line}");
            let event = crate::envelope::event::to_event(h.kind, None, h.payload.clone());
            let kind = l.kind;
            let read_event = match l.take_body() {
                fast_line::TakenBody::Payload(p) => crate::envelope::event::to_event(kind, None, p),
                fast_line::TakenBody::Event(e) => *e.event,
            };
            assert_eq!(read_event, event, "{line}");
        }
        assert_eq!(
            (read, typed),
            (READ, TYPED),
            "lines the reader took, and read typed"
        );
    }

    /// How many lines of the two fixtures the line reader takes, and how
    /// many of them it reads straight into a step event.
    const READ: usize = 120;
    const TYPED: usize = 34;

    fn env(kind: &str, ms: u32, payload: &str) -> String {
        format!(
            r#"{{"type":"{kind}","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:{:02}.{:03}Z","payload":{payload}}}"#,
            ms / 1000 % 60,
            ms % 1000
        )
    }

    fn chunk(i: u32) -> String {
        env(
            "agent.stream.chunk",
            1000 + i,
            &format!(r#"{{"content":"w{i} ","is_complete":false,"chunk_index":{i}}}"#),
        )
    }

    #[test]
    fn chunks_in_order_keep_their_redelivery_keys_in_the_text_not_the_set() {
        let mut s = Session::new(None);
        let status = |from: &str, to: &str, ms| {
            env(
                "agent.status",
                ms,
                &format!(r#"{{"status":"{to}","previous_status":"{from}"}}"#),
            )
        };
        s.ingest_text(&status("idle", "processing", 0)).unwrap();
        for i in 0..1000 {
            assert!(s.ingest_text(&chunk(i)).unwrap().applied);
        }
        // Memory (bench/findings.md, issue 27's third pass): the status is
        // in the set, the chunks' keys only in the stream text.
        assert_eq!(s.seen.len(), 1);
        for i in [0, 500, 999] {
            assert!(s.ingest_text(&chunk(i)).unwrap().duplicate);
        }
        // Out of order (the run moves into the tree): still known.
        assert!(s.ingest_text(&chunk(1001)).unwrap().applied);
        assert!(s.ingest_text(&chunk(1000)).unwrap().applied);
        for i in [3, 1000, 1001] {
            assert!(s.ingest_text(&chunk(i)).unwrap().duplicate);
        }
        assert_eq!(s.seen.len(), 1);
        // A second turn under the same id: the first turn's chunks route
        // there no more, so the set takes their keys, and a redelivery of
        // one is still a redelivery.
        s.ingest_text(&status("processing", "completed", 5000))
            .unwrap();
        s.ingest_text(&status("completed", "processing", 6000))
            .unwrap();
        assert_eq!(s.executions().len(), 2);
        assert!(s.seen.len() >= 1002);
        assert!(s.ingest_text(&chunk(7)).unwrap().duplicate);
        assert_eq!(s.executions()[1].text(), "");
        let text: String = (0..1002).map(|i| format!("w{i} ")).collect();
        assert_eq!(s.executions()[0].text(), text);
    }
}
