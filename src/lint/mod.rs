//! Diagnostics: detectors for the producer bugs that the seeds and the vectors'
//! READMEs describe (the codes below cite them). Each finding names its code, a
//! severity, the JSON pointer of the evidence in the input, a message and the
//! evidence itself.
//!
//! The input is what a debugging engineer has at hand: the envelopes of a run
//! (already decoded, see [`crate::envelope::decode::decode_value`]), the slim
//! snapshot stored at its end and, when available, the full reference state.
//! Detectors never fail: data they cannot read is skipped, so a diagnosis of
//! partial or odd input is still a diagnosis.

mod executions;
mod frames;
mod input;
mod messages;
mod payload;
mod secrets;
mod timing;

pub(crate) use input::diagnose_sized;
pub use input::{diagnose_decoded, diagnose_value, DiagnoseOptions, DiagnoseRequest};

use crate::json::Value;

use crate::model::time::{self, Timestamp};
use crate::snapshot::SlimConfig;

/// An assistant message whose content is one of its own tool calls' arguments
/// (seed 004, issue 1: the OpenAI-compatible driver falls back to the arguments).
pub const TOOL_ARGS_IN_CONTENT: &str = "tool_args_in_content";
/// A step that completed before it started (state step timing or envelope timestamps).
pub const STEP_TIMING_INVERTED: &str = "step_timing_inverted";
/// A step whose recorded start is after one of its own tools started: the start
/// was taken from the step object's creation time (seed 001).
pub const STEP_TIMING_FROM_CREATION: &str = "step_timing_from_creation";
/// A step or tool duration that disagrees with the timestamps (v1.22 quirk 4).
pub const DURATION_INCONSISTENT: &str = "duration_inconsistent";
/// An execution time limit measured from the session's start (seed 004, v1.22 quirk 3).
pub const TIME_LIMIT_FROM_SESSION_START: &str = "time_limit_from_session_start";
/// An execution that did work but never broadcast a final status (v1.22 quirk 7).
pub const FINAL_STATUS_MISSING: &str = "final_status_missing";
/// A snapshot taken with `includeToolResults: false` that still holds tool
/// results (v1.22 quirk 1, which the serializer fixes unless `compat`).
pub const TOOL_RESULTS_NOT_EXCLUDED: &str = "tool_results_not_excluded";
/// A snapshot or state that carries an API key or another credential (a v2
/// state's `llmConfig.apiKey`); the value is never shown.
pub use crate::secrets::SECRET_IN_STATE;

/// Stream chunks that are a provider's raw stream frames, not text
/// (instructor-php v2.7 with a real streaming HTTP driver, its README item 15).
pub const RAW_PROVIDER_FRAMES_IN_STREAM: &str = "raw_provider_frames_in_stream";

pub use payload::{
    ENVELOPE_NEAR_SIZE_LIMIT, ENVELOPE_OVER_SIZE_LIMIT, SECRET_IN_PAYLOAD, TEXT_TRUNCATED,
};

/// Every diagnostic code, in the order the detectors run.
pub const CODES: [&str; 13] = [
    TOOL_ARGS_IN_CONTENT,
    STEP_TIMING_INVERTED,
    STEP_TIMING_FROM_CREATION,
    DURATION_INCONSISTENT,
    TIME_LIMIT_FROM_SESSION_START,
    FINAL_STATUS_MISSING,
    TOOL_RESULTS_NOT_EXCLUDED,
    SECRET_IN_STATE,
    RAW_PROVIDER_FRAMES_IN_STREAM,
    ENVELOPE_NEAR_SIZE_LIMIT,
    ENVELOPE_OVER_SIZE_LIMIT,
    TEXT_TRUNCATED,
    SECRET_IN_PAYLOAD,
];

/// How sure a finding is to be a producer bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The data contradicts itself: a producer bug.
    Error,
    /// Suspicious, but normal for some producers (e.g. the reference's exception path).
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`, as JavaScript sees it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A producer bug found by `diagnose`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Diagnostic {
    /// Stable code, one of [`CODES`].
    #[cfg_attr(feature = "schema", schemars(schema_with = "code_schema"))]
    pub code: &'static str,
    /// How sure the finding is to be a producer bug.
    pub severity: Severity,
    /// JSON pointer into the diagnosed input, e.g. `/envelopes/5/payload/duration_ms`
    /// or `/snapshot/messages/1/content`.
    pub path: String,
    /// What is wrong, for a human.
    pub message: String,
    /// The values the finding rests on (an object; keys depend on the code).
    #[cfg_attr(feature = "schema", schemars(schema_with = "evidence_schema"))]
    pub evidence: Value,
}

/// One of [`CODES`].
#[cfg(feature = "schema")]
fn code_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "enum": CODES })
}

/// Any JSON value (`unknown`): its keys depend on the code.
#[cfg(feature = "schema")]
fn evidence_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::from(true)
}

/// What to diagnose. Every part is optional; detectors that need a missing part
/// stay silent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiagnoseInput {
    /// Envelopes in arrival order, in the normalised form `decode_value` returns.
    pub envelopes: Vec<Value>,
    /// A slim snapshot (the `src/snapshot` format).
    pub snapshot: Option<Value>,
    /// A full reference state (`AgentState::toArray()` form).
    pub state: Option<Value>,
    /// The config the snapshot was taken with, when known.
    pub snapshot_options: Option<SlimConfig>,
}

/// Runs every detector over `input`. Findings come detector by detector in
/// [`CODES`] order (except that a state step result's two timing checks are
/// reported together), each detector's in input order.
pub fn diagnose(input: &DiagnoseInput) -> Vec<Diagnostic> {
    run(
        &input.envelopes,
        &[],
        input.snapshot.as_ref(),
        input.state.as_ref(),
        input.snapshot_options.as_ref(),
    )
}

fn run(
    raw: &[Value],
    sizes: &[usize],
    snapshot: Option<&Value>,
    state: Option<&Value>,
    snapshot_options: Option<&SlimConfig>,
) -> Vec<Diagnostic> {
    let envelopes = read_envelopes(raw);
    let mut out = Vec::new();
    messages::tool_args_in_content(snapshot, state, &mut out);
    timing::check(&envelopes, state, &mut out);
    executions::check(&envelopes, snapshot, state, &mut out);
    if let Some(config) = snapshot_options {
        messages::tool_results_not_excluded(snapshot, config, &mut out);
    }
    secrets::check(snapshot, state, &mut out);
    frames::check(&envelopes, &mut out);
    payload::check(&envelopes, raw, sizes, &mut out);
    out
}

/// The parts of a decoded envelope the detectors read.
struct Envelope<'a> {
    index: usize,
    kind: &'a str,
    /// The run a turn belongs to is the pair (session, execution): an execution
    /// id alone could repeat across the sessions one call is given.
    session: Option<&'a str>,
    execution: Option<&'a str>,
    /// The timestamp as written, and as an instant when it reads as one.
    stamp: Option<&'a str>,
    at: Option<Timestamp>,
    payload: &'a Value,
}

impl Envelope<'_> {
    fn path(&self, tail: &str) -> String {
        let mut p = crate::json::index("/envelopes", self.index);
        p.push_str(tail);
        p
    }

    /// The key of the run this envelope belongs to (see [`Envelope::session`]),
    /// and of one of its steps.
    fn run_key(&self, step: Option<i64>) -> String {
        slot_key(self.session, self.execution, step)
    }

    fn step_number(&self) -> Option<i64> {
        self.payload.get("step_number").and_then(Value::as_i64)
    }
}

fn read_envelopes(list: &[Value]) -> Vec<Envelope<'_>> {
    static NULL: Value = Value::Null;
    list.iter()
        .enumerate()
        .filter_map(|(index, e)| {
            Some(Envelope {
                index,
                kind: e.get("type")?.as_str()?,
                session: e.get("session_id").and_then(Value::as_str),
                execution: e.get("execution_id").and_then(Value::as_str),
                stamp: e.get("timestamp").and_then(Value::as_str),
                at: instant(e.get("timestamp")),
                payload: e.get("payload").unwrap_or(&NULL),
            })
        })
        .collect()
}

/// Items found by a key made of a run's ids (and a step number). Kept in a
/// vector behind the one string-keyed map type the sessions use too: each
/// map type is kilobytes of wasm.
struct Slots<T> {
    index: std::collections::BTreeMap<String, u64>,
    items: Vec<T>,
}

impl<T> Slots<T> {
    fn new() -> Self {
        Slots {
            index: std::collections::BTreeMap::new(),
            items: Vec::new(),
        }
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        let &i = self.index.get(key)?;
        self.items.get_mut(i as usize)
    }

    #[expect(
        clippy::indexing_slicing,
        reason = "the index holds positions of items, which are never removed"
    )]
    fn get_or_insert_with(&mut self, key: String, new: impl FnOnce() -> T) -> &mut T {
        let i = match self.index.get(&key) {
            Some(&i) => i as usize,
            None => {
                self.items.push(new());
                self.index.insert(key, (self.items.len() - 1) as u64);
                self.items.len() - 1
            }
        };
        &mut self.items[i]
    }

    /// In the order they were first seen.
    fn values(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }
}

/// The key of a run (session and execution ids, either missing) and
/// optionally a step: each part length-prefixed, so no two differ only in
/// where one id ends.
fn slot_key(session: Option<&str>, execution: Option<&str>, step: Option<i64>) -> String {
    let mut key = String::new();
    for part in [session, execution] {
        match part {
            None => key.push('-'),
            Some(s) => {
                key.push_str(&s.len().to_string());
                key.push(':');
                key.push_str(s);
            }
        }
    }
    if let Some(n) = step {
        key.push('#');
        key.push_str(&n.to_string());
    }
    key
}

/// An absolute date/time (ISO 8601 / RFC 3339 / PHP `DATE_ATOM`). Relative words
/// such as `now` are not evidence of anything here, so they read as unknown.
fn instant(v: Option<&Value>) -> Option<Timestamp> {
    let s = v?.as_str()?.trim();
    if !s.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    time::parse(s, &Timestamp::default())
}

/// Milliseconds from `a` to `b`.
fn millis(a: &Timestamp, b: &Timestamp) -> f64 {
    crate::model::tool_execution::millis_between(a, b)
}

/// Whole milliseconds as text, for messages (no float formatting in the wasm).
fn ms_text(ms: f64) -> String {
    (ms.round() as i64).to_string()
}

/// The items of a JSON array (anything else has none).
fn items(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn text(v: Option<&Value>) -> Value {
    v.filter(|v| v.is_string()).cloned().unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::slot_key;

    #[test]
    fn slot_keys_tell_every_run_and_step_apart() {
        let keys = [
            slot_key(None, None, None),
            slot_key(Some(""), None, None),
            slot_key(None, Some(""), None),
            slot_key(Some("a"), Some("b"), None),
            slot_key(Some("a1:b"), None, None),
            slot_key(Some("a"), Some("b"), Some(1)),
            slot_key(Some("a"), Some("b#1"), None),
            slot_key(Some("a"), Some("b"), Some(-1)),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
