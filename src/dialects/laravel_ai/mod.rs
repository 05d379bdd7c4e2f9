//! laravel/ai's broadcast stream events, translated into the normalised
//! envelopes.
//!
//! laravel/ai (`Laravel\Ai\Streaming\Events\*`) broadcasts every stream event
//! with the event name equal to its `type` and the payload its `toArray()`:
//! `stream_start`, `text_start`/`text_delta`/`text_end`,
//! `reasoning_start`/`reasoning_delta`/`reasoning_end`, `tool_call`,
//! `tool_result` (newer releases: `preliminary` progress and `denied`),
//! `tool_approval_request`, `citation`, `stream_end` with `Usage::toArray()`,
//! an `Error` whose `type` is the error's own type (`stream_failed` when the
//! broadcasting job fails), and provider tool events whose `type` is the
//! provider tool's (`web_search_call`, …) with `item_id`, `status`, `data`.
//! Every event carries a unique `id` and a `timestamp` in Unix seconds (PHP's
//! `time()`); all but the provider tool events carry the `invocation_id`
//! (the execution).
//!
//! The stream has no step events, so steps are found from what arrives: a step
//! opens at the first text, reasoning or tool call after a `stream_start` or
//! after tool results, and a `stream_end` closes the open step with its
//! reason and usage. Newer laravel/ai sends one `stream_start` … `stream_end`
//! per provider step (its own AG-UI and Vercel protocols open a step at every
//! repeated `stream_start` and sum the `stream_end` usages), so each
//! `stream_end` is a step's own usage; Prism's loop (laravel/ai 516f289) sends
//! one `stream_end` at the end with the whole run's usage, which then sits on
//! the last step — in both cases the run's total is what laravel/ai's
//! `StreamEnd::combineUsage` reports. A `stream_end` whose reason is
//! `tool_calls` (`tool-calls` in Prism) closes its step only: the run goes on;
//! any other reason ends the run with that reason.
//!
//! What each event becomes:
//! - `stream_start`: the run is processing (again, if it had ended); its
//!   provider and model go to `data["laravel-ai.model"]`;
//! - `text_*`, `reasoning_*`: the step's text and reasoning (a delta or end
//!   whose start was not seen is a `gap` warning);
//! - `tool_call`: a tool run with its arguments (PHP's `[]` reads as `{}`);
//! - `tool_result`: the tool's result, failed with its `error` when not
//!   `successful`, failed as denied when `denied`; a `preliminary` one is
//!   appended to the tool's output, a line per snapshot;
//! - `tool_approval_request`: each call's approval is `requested`, the run
//!   `interrupted` with the reason `tool_approval`; the decision arrives in
//!   the resumed call's `tool_result` (`approved` or `denied`);
//! - `citation`: the step's annotations (`label` is the title, else the URL);
//! - `Error`: a recoverable one is its step's error, another fails the run
//!   (its type is the end reason); `stream_failed` fails the latest run once;
//! - provider tool events: `data["<type>:<item_id>"]`;
//! - an event of laravel/ai's base fields with another type: an
//!   `unknown_type` warning; a key no class writes: `unknown_field`;
//! - an event whose `id` was seen: a duplicate, nothing changes.
//!
//! A sub-agent's events (newer releases add `parent_invocation_id` and the
//! tool call ids above it) carry their own `invocation_id`: another execution.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(Some("chat".into()));
//! for e in [
//!     r#"{"id":"evt_1","invocation_id":"inv-1","type":"stream_start","provider":"openai","model":"gpt-5","timestamp":1795168800,"metadata":null}"#,
//!     r#"{"id":"evt_2","invocation_id":"inv-1","type":"text_delta","message_id":"msg_1","delta":"Grüezi","timestamp":1795168800}"#,
//!     r#"{"id":"evt_3","invocation_id":"inv-1","type":"stream_end","reason":"stop","usage":{"prompt_tokens":12,"completion_tokens":3,"cache_write_input_tokens":0,"cache_read_input_tokens":0,"reasoning_tokens":0},"timestamp":1795168801}"#,
//! ] {
//!     s.ingest_text(e).unwrap();
//! }
//! let run = &s.view()["executions"][0];
//! assert_eq!(run["steps"][0]["text"], "Grüezi");
//! assert_eq!(run["final_answer"], "Grüezi");
//! ```

mod final_form;

use std::collections::BTreeMap;

use crate::dialects::line::Line;
use crate::dialects::{LineRead, Out};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::fingerprint::{Fingerprint, Fingerprinter};
use crate::json::seen::Seen;
use crate::json::{child, quote, type_name, Map, Value};

/// Ids to a number. Every id set here is this one map type, the one the
/// session already keeps (`by_id`), so the translator adds no B-tree code
/// (nor hasher tables) to the wasm.
type Ids = BTreeMap<String, u64>;

/// An event id's fingerprint, what [`State::seen`] keeps.
fn id_key(id: &str) -> Fingerprint {
    let mut f = Fingerprinter::new();
    f.str(id);
    f.finish()
}

/// The fixed-type events and the keys their `toArray()` writes (besides
/// `id`, `invocation_id`, `type`, `timestamp` and the nested sub-agent keys).
const KNOWN: &[(&str, &[&str])] = &[
    ("stream_start", &["provider", "model", "metadata"]),
    ("text_start", &["message_id"]),
    ("text_delta", &["message_id", "delta"]),
    ("text_end", &["message_id"]),
    ("reasoning_start", &["reasoning_id"]),
    ("reasoning_delta", &["reasoning_id", "delta", "summary"]),
    ("reasoning_end", &["reasoning_id", "summary"]),
    (
        "tool_call",
        &["tool_id", "tool_name", "arguments", "reasoning_id"],
    ),
    (
        "tool_result",
        &[
            "tool_id",
            "tool_name",
            "result",
            "successful",
            "error",
            "preliminary",
            "denied",
        ],
    ),
    ("tool_approval_request", &["approvals"]),
    ("citation", &["message_id", "citation"]),
    ("stream_end", &["reason", "usage"]),
];

/// Keys every event may carry: the base fields and what newer releases add to
/// an event of a nested tool or sub-agent stream (`StreamEvent::nestedPayload`).
const COMMON: &[&str] = &[
    "id",
    "invocation_id",
    "type",
    "timestamp",
    "parent_invocation_id",
    "parent_tool_call_id",
    "ancestor_tool_call_ids",
    "depth",
];

/// The keys of an `Error` event besides the common ones.
const ERROR_KEYS: &[&str] = &["message", "recoverable", "metadata"];

/// The keys of a provider tool event besides the common ones (`provider` is
/// newer).
const PROVIDER_TOOL_KEYS: &[&str] = &["item_id", "status", "data", "provider"];

/// How an event's shape reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// One of [`KNOWN`].
    Known(&'static str),
    /// An `Error` (its `type` is the error's type).
    Error,
    /// A provider tool event (its `type` is the provider tool's).
    ProviderTool,
    /// laravel/ai's base fields with a type this reader does not know.
    Unknown,
}

fn shape(event: &Map) -> Option<Shape> {
    let kind = event.get("type")?.as_str()?;
    if let Some((k, _)) = KNOWN.iter().find(|(k, _)| *k == kind) {
        return Some(Shape::Known(k));
    }
    if event.get("id").is_none_or(|v| !v.is_string())
        || event.get("timestamp").is_none_or(|v| !v.is_number())
    {
        return None;
    }
    let has = |k: &str| event.contains_key(k);
    if event.get("message").is_some_and(Value::is_string)
        && event.get("recoverable").is_some_and(Value::is_boolean)
    {
        return Some(Shape::Error);
    }
    if has("item_id") && has("status") && has("data") {
        return Some(Shape::ProviderTool);
    }
    // Only laravel/ai writes `invocation_id` next to `id` and a numeric
    // `timestamp`; a new event type of a newer release reads as a warning.
    has("invocation_id").then_some(Shape::Unknown)
}

/// Whether this event object is laravel/ai's: a `type` of one of its fixed
/// events, or its base fields (`id`, numeric `timestamp`) with an `Error`'s
/// `message` and `recoverable`, a provider tool event's `item_id`, `status`
/// and `data`, or an `invocation_id`.
pub(crate) fn claims(event: &Map) -> bool {
    match shape(event) {
        // A fixed type alone is not enough for names as common as
        // `citation` or `text_delta` (Prism's own events use them too):
        // laravel/ai's carry the `invocation_id` key, null or not.
        Some(Shape::Known(_)) => event.contains_key("invocation_id"),
        Some(_) => true,
        None => false,
    }
}

/// The step's text kept to name the run's final answer is cut at this many
/// bytes, the session's default text limit (src/session/text.rs): the
/// session keeps the text itself, within its limit, and 200,000 deltas kept
/// whole here held 40 MB past it.
const ANSWER_MAX: usize = 8 << 20;

/// Appends as much of `delta` as fits in [`ANSWER_MAX`], cut at a
/// character boundary.
fn push_answer(text: &mut String, delta: &str) {
    let mut end = ANSWER_MAX.saturating_sub(text.len()).min(delta.len());
    while !delta.is_char_boundary(end) {
        end -= 1;
    }
    text.push_str(delta.get(..end).unwrap_or_default());
}

/// One invocation's translation state.
#[derive(Debug, Default, Clone)]
struct Run {
    /// `agent.status` processing was sent.
    started: bool,
    /// The run ended (completed, failed or interrupted).
    ended: bool,
    /// The run failed.
    failed: bool,
    /// The number of the latest step opened (0: none yet).
    step: i64,
    /// A step is open.
    open: bool,
    /// The next output opens a new step (after `stream_start` or tool results).
    fresh: bool,
    /// The open step called tools.
    step_tools: bool,
    /// The open step's text.
    text: String,
    /// Tool call id → the step it was called in.
    tools: Ids,
    /// Message and reasoning ids whose start was seen (a delta of another is a gap).
    parts: Ids,
    /// The provider and model last announced.
    model: Option<(String, String)>,
}

/// The laravel/ai translation state of one session.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    /// The fingerprint of every event `id` seen: a second delivery is a
    /// duplicate. Not an `Ids` map: its B-tree compared each new id with
    /// about a dozen earlier ones, which share their first dozen characters
    /// (bench/findings.md).
    seen: Seen,
    /// Per invocation id, in order of arrival (a session holds few).
    runs: Vec<(String, Run)>,
    /// The invocation of the latest event that named one (provider tool
    /// events and a job's `stream_failed` name none).
    current: Option<String>,
    /// Tool calls whose approval was requested and not yet decided (the
    /// decision arrives in the resumed invocation's `tool_result`).
    approvals: Ids,
    /// The last event's timestamp, written.
    last_timestamp: LastTimestamp,
}

impl State {
    /// Translates one event (already parsed; paths are JSON pointers into it).
    pub(crate) fn translate(&mut self, event: Map, out: &mut Out) -> Result<()> {
        let Some(shape) = shape(&event) else {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                "/type",
                "expected a laravel/ai stream event",
            ));
        };
        let id = id_key(req_str(&event, "id")?);
        let timestamp = req_timestamp(&event, &mut self.last_timestamp)?;
        let invocation = match event.get("invocation_id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => return Err(wrong("/invocation_id", "a string or null", other)),
        };
        if self.seen.contains(id) {
            out.duplicate();
            return Ok(());
        }
        let known_keys: &[&str] = match shape {
            Shape::Known(kind) => KNOWN
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or(&[], |(_, keys)| keys),
            Shape::Error => ERROR_KEYS,
            Shape::ProviderTool => PROVIDER_TOOL_KEYS,
            Shape::Unknown => &[],
        };
        let exec = invocation.or(self.current.as_deref());
        let mut t = Translation {
            event: &event,
            out,
            exec,
            ts: timestamp,
        };
        if shape == Shape::Unknown {
            let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
            t.out.warn(
                "/type",
                "unknown_type",
                format!("laravel/ai event type {} is not known", quote(kind)),
            );
        } else {
            for key in event.keys() {
                if !COMMON.contains(&key.as_ref()) && !known_keys.contains(&key.as_ref()) {
                    t.out.warn(
                        &child("", key),
                        "unknown_field",
                        format!("laravel/ai does not write {} on this event", quote(key)),
                    );
                }
            }
        }
        // An event naming no invocation when none was seen before (a job's
        // `stream_failed` before the stream began) goes to the run of no id.
        let key = exec.unwrap_or_default();
        // Consecutive events are mostly of one run: look at the latest first.
        let i = match self.runs.iter().rposition(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.runs.push((key.to_string(), Run::default()));
                self.runs.len() - 1
            }
        };
        let Some((_, run)) = self.runs.get_mut(i) else {
            return Ok(());
        };
        match shape {
            Shape::Known(kind) => t.known(kind, run, &mut self.approvals)?,
            Shape::Error => t.error(run)?,
            Shape::ProviderTool => t.provider_tool(run)?,
            Shape::Unknown => {}
        }
        // Copied only when the run changes, not for every event of it.
        if let Some(invocation) = invocation {
            if self.current.as_deref() != Some(invocation) {
                self.current = Some(invocation.to_string());
            }
        }
        self.seen.insert(id);
        Ok(())
    }
}

impl State {
    /// A `text_delta` or `reasoning_delta` read from its line in the layout
    /// laravel/ai's `toArray()` writes (`{"id":…,"invocation_id":…,"type":…,
    /// "message_id"|"reasoning_id":…,"delta":…,"timestamp":N[,"summary":null]}`),
    /// as [`translate`](State::translate) reads the parsed event.
    fn translate_line(&mut self, line: &str, out: &mut Out) -> Option<LineRead> {
        if !line.starts_with("{\"id\":\"") {
            return None;
        }
        let mut l = Line::new(line, false)?;
        l.key(true, "id")?;
        let id = l.text()?;
        l.key(false, "invocation_id")?;
        let invocation = l.text()?;
        l.key(false, "type")?;
        let kind = match l.word()? {
            "text_delta" => "text_delta",
            "reasoning_delta" => "reasoning_delta",
            _ => return None,
        };
        l.key(false, part_key(kind))?;
        let part = l.text()?;
        l.key(false, "delta")?;
        let delta = l.text()?;
        l.key(false, "timestamp")?;
        let seconds = l.count()?;
        if kind == "reasoning_delta" && !l.closes() {
            l.key(false, "summary")?;
            l.null()?;
        }
        let fingerprint = l.end()?;
        let ts = timestamp_of(seconds as f64, &mut self.last_timestamp).ok()?;
        let read = LineRead { kind, fingerprint };
        let id = id_key(&id);
        if self.seen.contains(id) {
            out.duplicate();
            return Some(read);
        }
        let i = match self.runs.iter().rposition(|(k, _)| *k == invocation) {
            Some(i) => i,
            None => {
                self.runs.push((invocation.to_string(), Run::default()));
                self.runs.len() - 1
            }
        };
        let (_, run) = self.runs.get_mut(i)?;
        let event = Map::new();
        let mut t = Translation {
            event: &event,
            out,
            exec: Some(&invocation),
            ts,
        };
        t.delta(kind, run, &part, &delta);
        if self.current.as_deref() != Some(&*invocation) {
            self.current = Some(invocation.into_owned());
        }
        self.seen.insert(id);
        Some(read)
    }
}

/// One event being translated.
struct Translation<'a, 'o> {
    event: &'a Map,
    out: &'o mut Out,
    exec: Option<&'a str>,
    ts: Option<String>,
}

impl Translation<'_, '_> {
    fn emit(&mut self, kind: &str, payload: Map) {
        self.out.emit(kind, self.exec, self.ts.clone(), payload);
    }

    fn known(&mut self, kind: &str, run: &mut Run, approvals: &mut Ids) -> Result<()> {
        match kind {
            "stream_start" => {
                let provider = req_str(self.event, "provider")?;
                let model = req_str(self.event, "model")?;
                self.start(run, true);
                run.fresh = true;
                let announced = (provider.to_string(), model.to_string());
                if run.model.as_ref() != Some(&announced) {
                    let mut data = Map::new();
                    data.insert("provider", Value::from(provider));
                    data.insert("model", Value::from(model));
                    if let Some(m) = self.event.get("metadata").filter(|v| !v.is_null()) {
                        data.insert("metadata", m.clone());
                    }
                    let mut p = Map::new();
                    p.insert("name", Value::from("laravel-ai.model"));
                    p.insert("data", Value::Object(data));
                    self.emit("agent.data", p);
                    run.model = Some(announced);
                }
            }
            "text_start" | "reasoning_start" => {
                let part = req_str(self.event, part_key(kind))?;
                self.start(run, false);
                self.step(run);
                run.parts.insert(part.to_string(), 0);
            }
            "text_delta" | "reasoning_delta" => {
                let part = req_str(self.event, part_key(kind))?;
                let delta = req_str(self.event, "delta")?;
                self.delta(kind, run, part, delta);
            }
            "text_end" | "reasoning_end" => {
                let part = req_str(self.event, part_key(kind))?.to_string();
                self.start(run, false);
                self.part_seen(run, &part, part_key(kind));
            }
            "tool_call" => self.tool_call(run)?,
            "tool_result" => self.tool_result(run, approvals)?,
            "tool_approval_request" => self.approval_request(run, approvals)?,
            "citation" => self.citation(run)?,
            "stream_end" => self.stream_end(run)?,
            _ => {}
        }
        Ok(())
    }

    /// A `text_delta` or `reasoning_delta` (`kind`) of the part `part`.
    fn delta(&mut self, kind: &str, run: &mut Run, part: &str, delta: &str) {
        self.start(run, false);
        self.part_seen(run, part, part_key(kind));
        let n = self.step(run);
        let text = kind == "text_delta";
        if text {
            push_answer(&mut run.text, delta);
        }
        let ts = self.ts.clone();
        self.out
            .emit_delta(!text, self.exec, ts, n, delta.to_string());
    }

    /// Sends `agent.status` processing before the run's first envelope, and
    /// again when output arrives after the run ended (it resumed). `first`:
    /// the event may open a run (a `stream_start`, or the decision on a tool
    /// a person approved, which a resumed invocation reports first); any
    /// other first event means the stream's beginning was missed.
    fn start(&mut self, run: &mut Run, first: bool) {
        if run.started && !run.ended {
            return;
        }
        if !run.started && !first {
            self.out.warn(
                "/type",
                "gap",
                "the run's stream_start was not seen: its earlier events are missing",
            );
        }
        let previous = match (run.started, run.failed) {
            (false, _) => "idle",
            (true, true) => "failed",
            (true, false) => "completed",
        };
        let mut p = Map::new();
        p.insert("status", Value::from("processing"));
        p.insert("previous_status", Value::from(previous));
        self.emit("agent.status", p);
        run.started = true;
        run.ended = false;
        run.failed = false;
    }

    /// The step output goes to: the open one, or a new one after a
    /// `stream_start` or tool results (closing the open one first).
    fn step(&mut self, run: &mut Run) -> i64 {
        if run.open && !run.fresh {
            return run.step;
        }
        if run.open {
            self.close(run, None, None);
        }
        run.step += 1;
        run.open = true;
        run.fresh = false;
        run.step_tools = false;
        run.text.clear();
        let mut p = Map::new();
        p.insert("step_number", Value::from(run.step));
        self.emit("agent.step.started", p);
        run.step
    }

    /// The step an event of no output belongs to: the latest, or a first one.
    fn latest_step(&mut self, run: &mut Run) -> i64 {
        if run.step == 0 {
            self.step(run)
        } else {
            run.step
        }
    }

    /// Closes the open step (with the `stream_end`'s reason and usage, when one closes it).
    fn close(&mut self, run: &mut Run, reason: Option<&str>, usage: Option<Map>) {
        let mut p = Map::new();
        p.insert("step_number", Value::from(run.step));
        if let Some(reason) = reason {
            p.insert("finish_reason", Value::from(reason));
        }
        p.insert("has_tool_calls", Value::Bool(run.step_tools));
        if let Some(usage) = usage {
            p.insert("usage", Value::Object(usage));
        }
        self.emit("agent.step.completed", p);
        run.open = false;
    }

    /// A delta or end of a part whose start was not seen is a gap in the stream.
    fn part_seen(&mut self, run: &mut Run, part: &str, key: &str) {
        // Looked up before inserting: every delta of a part is checked, and
        // only its first needs the id copied.
        if !run.parts.contains_key(part) {
            run.parts.insert(part.to_string(), 0);
            self.out.warn(
                &child("", key),
                "gap",
                format!("the start of {} was not seen", quote(part)),
            );
        }
    }

    fn tool_call(&mut self, run: &mut Run) -> Result<()> {
        let call = req_str(self.event, "tool_id")?.to_string();
        let name = req_str(self.event, "tool_name")?.to_string();
        let args = arguments(self.event.get("arguments"), "/arguments")?;
        opt_str(self.event, "reasoning_id")?;
        self.start(run, false);
        let n = self.step(run);
        run.step_tools = true;
        run.tools.insert(call.clone(), n.unsigned_abs());
        let mut p = Map::new();
        p.insert("tool_name", Value::from(name));
        p.insert("tool_call_id", Value::from(call));
        p.insert("args", args);
        p.insert("step_number", Value::from(n));
        self.emit("agent.tool.started", p);
        Ok(())
    }

    fn tool_result(&mut self, run: &mut Run, approvals: &mut Ids) -> Result<()> {
        let call = req_str(self.event, "tool_id")?.to_string();
        let name = req_str(self.event, "tool_name")?.to_string();
        let successful = req_bool(self.event, "successful")?;
        let error = opt_str(self.event, "error")?.map(str::to_string);
        let preliminary = opt_bool(self.event, "preliminary")?.unwrap_or(false);
        let denied = opt_bool(self.event, "denied")?.unwrap_or(false);
        let result = self.event.get("result").cloned().unwrap_or(Value::Null);
        let decided = approvals.remove(&call).is_some();
        self.start(run, decided);
        let n = match run.tools.get(&call) {
            Some(n) => i64::try_from(*n).unwrap_or(i64::MAX),
            None => {
                if !decided {
                    self.out.warn(
                        "/tool_id",
                        "gap",
                        format!("the tool_call of {} was not seen", quote(&call)),
                    );
                }
                self.latest_step(run)
            }
        };
        if decided {
            let mut p = Map::new();
            p.insert("tool_name", Value::from(name.as_str()));
            p.insert("tool_call_id", Value::from(call.as_str()));
            p.insert(
                "approval",
                Value::from(if denied { "denied" } else { "approved" }),
            );
            p.insert("step_number", Value::from(n));
            self.emit("agent.tool.approval", p);
        }
        let mut p = Map::new();
        if preliminary {
            // `agent.tool.output` names its call as seed 003 does.
            let mut tool_call = Map::new();
            tool_call.insert("id", Value::from(call));
            tool_call.insert("name", Value::from(name.as_str()));
            p.insert("tool_name", Value::from(name));
            p.insert("tool_call", Value::Object(tool_call));
            // A preliminary result is a snapshot of the tool's progress: each
            // one is kept, a line each, as the tool's streamed output.
            let mut text = match &result {
                Value::String(s) => s.clone(),
                other => crate::json::to_string(other),
            };
            text.push('\n');
            p.insert("text_delta", Value::from(text));
            p.insert("step_number", Value::from(n));
            self.emit("agent.tool.output", p);
            return Ok(());
        }
        p.insert("tool_name", Value::from(name));
        p.insert("tool_call_id", Value::from(call));
        let success = successful && !denied;
        p.insert("success", Value::Bool(success));
        if !success {
            let why = error.unwrap_or_else(|| {
                if denied {
                    "The tool call was denied.".to_string()
                } else {
                    "The tool call failed.".to_string()
                }
            });
            p.insert("error", Value::from(why));
        }
        p.insert("result", result);
        p.insert("step_number", Value::from(n));
        self.emit("agent.tool.completed", p);
        // The model's next output is a new step.
        run.fresh = true;
        Ok(())
    }

    fn approval_request(&mut self, run: &mut Run, approvals: &mut Ids) -> Result<()> {
        let list = match self.event.get("approvals") {
            Some(Value::Array(a)) => a,
            None | Some(Value::Null) => return Err(missing("/approvals", "the pending approvals")),
            Some(other) => return Err(wrong("/approvals", "an array", other)),
        };
        let mut requested = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let at = format!("/approvals/{i}");
            let Value::Object(a) = item else {
                return Err(wrong(&at, "an object", item));
            };
            let approval_id = field_str(a, "id", &at)?.to_string();
            let tool = field_str(a, "tool", &at)?.to_string();
            arguments(a.get("arguments"), &child(&at, "arguments"))?;
            let reason = field_opt_str(a, "reason", &at)?.map(str::to_string);
            let call = field_opt_str(a, "tool_call_id", &at)?
                .map_or_else(|| approval_id.clone(), str::to_string);
            requested.push((approval_id, tool, call, reason));
        }
        self.start(run, false);
        let n = self.latest_step(run);
        for (approval_id, tool, call, reason) in requested {
            approvals.insert(call.clone(), 0);
            let mut p = Map::new();
            p.insert("tool_name", Value::from(tool));
            p.insert("tool_call_id", Value::from(call));
            p.insert("approval", Value::from("requested"));
            p.insert("approval_id", Value::from(approval_id));
            if let Some(reason) = reason {
                p.insert("reason", Value::from(reason));
            }
            p.insert("step_number", Value::from(n));
            self.emit("agent.tool.approval", p);
        }
        // The run pauses until a person decides; laravel/ai's own AG-UI
        // protocol ends the run here with an interrupt outcome.
        if run.open {
            self.close(run, None, None);
        }
        let mut p = Map::new();
        p.insert("reason", Value::from("tool_approval"));
        p.insert("data", Value::Array(list.clone()));
        self.emit("agent.run.interrupted", p);
        run.ended = true;
        Ok(())
    }

    fn citation(&mut self, run: &mut Run) -> Result<()> {
        req_str(self.event, "message_id")?;
        let c = match self.event.get("citation") {
            Some(Value::Object(c)) => c,
            None | Some(Value::Null) => return Err(missing("/citation", "the citation")),
            Some(other) => return Err(wrong("/citation", "an object", other)),
        };
        let url = field_str(c, "url", "/citation")?;
        let title = field_opt_str(c, "title", "/citation")?;
        self.start(run, false);
        let n = self.step(run);
        let mut cite = Map::new();
        cite.insert("label", Value::from(title.unwrap_or(url)));
        cite.insert("url", Value::from(url));
        let mut annotations = Map::new();
        annotations.insert("citations", Value::Array(vec![Value::Object(cite)]));
        let mut p = Map::new();
        p.insert("step_number", Value::from(n));
        p.insert("annotations", Value::Object(annotations));
        // `agent.llm.started` carries annotations and changes nothing else
        // of a step already started.
        self.emit("agent.llm.started", p);
        Ok(())
    }

    fn stream_end(&mut self, run: &mut Run) -> Result<()> {
        let reason = req_str(self.event, "reason")?.to_string();
        let usage = match self.event.get("usage") {
            None | Some(Value::Null) => None,
            Some(Value::Object(u)) => Some(usage(u)?),
            Some(other) => return Err(wrong("/usage", "an object or null", other)),
        };
        self.start(run, false);
        if !run.open {
            // A provider step that streamed nothing still is a step.
            run.fresh = true;
            self.step(run);
        }
        let text = std::mem::take(&mut run.text);
        self.close(run, Some(&reason), usage);
        run.fresh = true;
        match reason.as_str() {
            // Prism writes `tool-calls`, laravel/ai's own gateway `tool_calls`.
            "tool_calls" | "tool-calls" => {}
            "error" => {
                let mut p = Map::new();
                p.insert(
                    "error",
                    Value::from("The provider ended the stream with an error."),
                );
                p.insert("reason", Value::from(reason));
                p.insert("step_number", Value::from(run.step));
                self.emit("agent.run.failed", p);
                run.ended = true;
                run.failed = true;
            }
            _ => {
                let mut p = Map::new();
                if !text.is_empty() {
                    p.insert("final_answer", Value::from(text));
                }
                p.insert("reason", Value::from(reason));
                self.emit("agent.run.completed", p);
                run.ended = true;
            }
        }
        Ok(())
    }

    fn error(&mut self, run: &mut Run) -> Result<()> {
        let kind = req_str(self.event, "type")?.to_string();
        let message = req_str(self.event, "message")?.to_string();
        let recoverable = req_bool(self.event, "recoverable")?;
        // A provider call can fail before it streams anything (and the job
        // before the agent streams), so an error may well open the run.
        if recoverable && kind != "stream_failed" {
            // The provider goes on streaming: the error belongs to its step.
            self.start(run, true);
            let n = self.step(run);
            let mut p = Map::new();
            p.insert("error", Value::from(format!("{kind}: {message}")));
            p.insert("step_number", Value::from(n));
            self.emit("agent.step.failed", p);
            return Ok(());
        }
        if run.failed {
            // BroadcastAgent::failed() reports the failure the provider's
            // error already ended the run with.
            return Ok(());
        }
        if !run.started {
            self.start(run, true);
        }
        let mut p = Map::new();
        p.insert("error", Value::from(message));
        p.insert("reason", Value::from(kind));
        if run.step > 0 {
            p.insert("step_number", Value::from(run.step));
        }
        self.emit("agent.run.failed", p);
        run.open = false;
        run.ended = true;
        run.failed = true;
        Ok(())
    }

    fn provider_tool(&mut self, run: &mut Run) -> Result<()> {
        let kind = req_str(self.event, "type")?;
        let item = req_str(self.event, "item_id")?;
        let status = req_str(self.event, "status")?;
        let data = arguments(self.event.get("data"), "/data")?;
        let provider = opt_str(self.event, "provider")?;
        self.start(run, false);
        let n = self.step(run);
        let mut d = Map::new();
        d.insert("type", Value::from(kind));
        d.insert("item_id", Value::from(item));
        d.insert("status", Value::from(status));
        if let Some(provider) = provider {
            d.insert("provider", Value::from(provider));
        }
        d.insert("data", data);
        let mut p = Map::new();
        p.insert("name", Value::from(format!("{kind}:{item}")));
        p.insert("data", Value::Object(d));
        p.insert("step_number", Value::from(n));
        self.emit("agent.data", p);
        Ok(())
    }
}

/// The key naming a text or reasoning part.
fn part_key(kind: &str) -> &'static str {
    if kind.starts_with("text") {
        "message_id"
    } else {
        "reasoning_id"
    }
}

/// `Usage::toArray()` in the normalised usage names.
fn usage(u: &Map) -> Result<Map> {
    let mut out = Map::new();
    for (wire, name) in [
        ("prompt_tokens", "input"),
        ("completion_tokens", "output"),
        ("cache_read_input_tokens", "cacheRead"),
        ("cache_write_input_tokens", "cacheWrite"),
        ("reasoning_tokens", "reasoning"),
    ] {
        let at = child("/usage", wire);
        let n = match u.get(wire) {
            None | Some(Value::Null) => 0,
            Some(Value::Number(n)) => match n.as_i64().filter(|n| *n >= 0) {
                Some(n) => n,
                None => {
                    return Err(SteplineError::at(
                        ErrorCode::OutOfRange,
                        &at,
                        "expected a whole number of tokens, 0 or more",
                    ))
                }
            },
            Some(other) => return Err(wrong(&at, "a number", other)),
        };
        out.insert(name, Value::from(n));
    }
    Ok(out)
}

/// Tool arguments (or provider tool data): a PHP array, so an object, or `[]`
/// for an empty one (`json_encode([])`), which reads as `{}`.
fn arguments(v: Option<&Value>, at: &str) -> Result<Value> {
    match v {
        Some(Value::Object(m)) => Ok(Value::Object(m.clone())),
        Some(Value::Array(a)) if a.is_empty() => Ok(Value::Object(Map::new())),
        // A list PHP array stays a list.
        Some(Value::Array(a)) => Ok(Value::Array(a.clone())),
        None | Some(Value::Null) => Err(missing(at, "an array of arguments")),
        Some(other) => Err(wrong(at, "an object", other)),
    }
}

/// The event's `timestamp` (Unix seconds) as RFC 3339.
fn req_timestamp(event: &Map, last: &mut LastTimestamp) -> Result<Option<String>> {
    let secs = match event.get("timestamp") {
        None | Some(Value::Null) => return Err(missing("/timestamp", "a Unix timestamp")),
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => return Err(wrong("/timestamp", "a number of seconds", other)),
    };
    timestamp_of(secs, last)
}

/// The last timestamp written, by its seconds' bits: a stream's events
/// mostly share their second (PHP's `time()`), and writing it was a
/// twentieth of a bulk replay.
type LastTimestamp = Option<(u64, String)>;

/// [`req_timestamp`] of the Unix seconds `secs` (one copy for both
/// callers: wasm size).
#[inline(never)]
fn timestamp_of(secs: f64, last: &mut LastTimestamp) -> Result<Option<String>> {
    if let Some((bits, written)) = last {
        if *bits == secs.to_bits() {
            return Ok(Some(written.clone()));
        }
    }
    let t = crate::model::time::from_epoch_millis(secs * 1000.0)
        .filter(crate::model::time::in_atom_range)
        .ok_or_else(|| {
            SteplineError::at(
                ErrorCode::OutOfRange,
                "/timestamp",
                "expected Unix seconds within years 1 to 9999",
            )
        })?;
    let written = crate::model::time::format_utc_millis(&t);
    *last = Some((secs.to_bits(), written.clone()));
    Ok(Some(written))
}

fn missing(at: &str, what: &str) -> SteplineError {
    SteplineError::at(ErrorCode::MissingField, at, format!("expected {what}"))
}

fn wrong(at: &str, what: &str, found: &Value) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidType,
        at,
        format!("expected {what}, found {}", type_name(found)),
    )
}

fn field_str<'a>(m: &'a Map, key: &str, at: &str) -> Result<&'a str> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(missing(&child(at, key), &format!("`{key}`"))),
        Some(other) => Err(wrong(&child(at, key), "a string", other)),
    }
}

fn field_opt_str<'a>(m: &'a Map, key: &str, at: &str) -> Result<Option<&'a str>> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(Some(s)),
        None | Some(Value::Null) => Ok(None),
        Some(other) => Err(wrong(&child(at, key), "a string or null", other)),
    }
}

fn req_str<'a>(m: &'a Map, key: &str) -> Result<&'a str> {
    field_str(m, key, "")
}

fn opt_str<'a>(m: &'a Map, key: &str) -> Result<Option<&'a str>> {
    field_opt_str(m, key, "")
}

fn req_bool(m: &Map, key: &str) -> Result<bool> {
    match m.get(key) {
        Some(Value::Bool(b)) => Ok(*b),
        None | Some(Value::Null) => Err(missing(&child("", key), &format!("`{key}`"))),
        Some(other) => Err(wrong(&child("", key), "a boolean", other)),
    }
}

fn opt_bool(m: &Map, key: &str) -> Result<Option<bool>> {
    match m.get(key) {
        Some(Value::Bool(b)) => Ok(Some(*b)),
        None | Some(Value::Null) => Ok(None),
        Some(other) => Err(wrong(&child("", key), "a boolean or null", other)),
    }
}

/// laravel/ai's broadcast stream events (`stream_start`, `text_delta`, …).
#[derive(Debug)]
pub struct LaravelAi;

impl crate::dialects::Dialect for LaravelAi {
    fn emits_normalised(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "laravel-ai"
    }

    fn claims(&self, event: &Map) -> bool {
        claims(event)
    }

    fn translator(&self) -> Box<dyn crate::dialects::Translator> {
        Box::new(State::default())
    }

    fn final_form(&self) -> Option<&dyn crate::dialects::FinalForm> {
        Some(&final_form::Rows)
    }
}

impl crate::dialects::Translator for State {
    fn translate(&mut self, event: Map, out: &mut Out) -> Result<()> {
        State::translate(self, event, out)
    }

    fn translate_line(&mut self, line: &str, out: &mut Out) -> Option<LineRead> {
        State::translate_line(self, line, out)
    }

    fn boxed_clone(&self) -> Box<dyn crate::dialects::Translator> {
        Box::new(self.clone())
    }
}
