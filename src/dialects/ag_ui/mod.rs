//! AG-UI 1.x events (`@ag-ui/core`), translated into the normalised vocabulary.
//!
//! What each event becomes (the view's side of it in parentheses):
//! - `RUN_STARTED`: `agent.status` processing under `runId` (a new execution);
//!   `threadId` is the session's id when it has none; `input` → `agent.data`
//!   `input`, `parentRunId` → `agent.data` `parent_run_id`.
//! - `RUN_FINISHED`: the open step completes; `agent.run.completed` with
//!   `final_answer` (`result` when a string, else the run's last assistant
//!   text) and `reason` (the outcome's type, `success` when absent, as the
//!   protocol defines it); `result` → `agent.data` `result`; `usage` (per
//!   model) → `agent.data` `usage`, and its sum is the run's last step's usage
//!   (AG-UI counts usage per run, not per step). An `interrupt` outcome is
//!   `agent.run.interrupted` (reason: the interrupts' reasons, data: the
//!   interrupts) and, for each interrupt naming a `toolCallId`, an
//!   `agent.tool.approval` requested (the tool shows "approval requested").
//! - `RUN_ERROR`: the open step completes with `finish_reason` `error`;
//!   `agent.run.failed` (`message`, reason: `code` or `error`).
//! - `STEP_STARTED` / `STEP_FINISHED`: a step opens and completes. Without
//!   them a step opens at the first text, reasoning or tool call after the
//!   run starts or after tool results arrived, and completes when the next
//!   opens or the run ends.
//! - `TEXT_MESSAGE_START/CONTENT/END` of role assistant:
//!   `agent.llm.output_text.delta` per content (the step's text); other roles'
//!   text is `agent.data` `message:<role>` at the end.
//! - `REASONING_*` (and the pre-1.0 `THINKING_TEXT_MESSAGE_CONTENT`):
//!   `agent.llm.reasoning.delta` (the step's reasoning).
//!   `REASONING_ENCRYPTED_VALUE` → `agent.data` `reasoning_encrypted_value`
//!   (which entity, and the value's length; the value itself is opaque).
//! - `TOOL_CALL_START/ARGS/END`: the arguments accumulate; at the end
//!   `agent.tool.started` with `args` parsed as JSON when they parse, else the
//!   text. `TOOL_CALL_RESULT`: `agent.tool.completed` with `result` the
//!   content as sent. AG-UI has no failure flag on a result; a tool is failed
//!   when the event carries an `error` string (the `error` of the ToolMessage
//!   it mints), or its content is a JSON object whose `error` is a string (the
//!   Cloudflare Agents adapter's `tool-error`) or `true` (the Claude Agent SDK
//!   adapter, whose message is then `content` or `message`).
//! - `*_CHUNK`: expanded as `@ag-ui/client`'s `transformChunks` does: a chunk
//!   continues the open message or call of its kind (or starts one when its id
//!   differs), and any other event except `RAW`, `ACTIVITY_*` and
//!   `REASONING_ENCRYPTED_VALUE` closes it (a tool call chunk's close is its end).
//! - `STATE_SNAPSHOT` / `STATE_DELTA` (RFC 6902, [`crate::json::patch`]):
//!   `agent.data` `state`, the state after the event (a delta after the
//!   run's first sends only its patch, applied in place), at most
//!   [`STATE_LIMIT`] (past it: a `limit_exceeded` warning, once). `MESSAGES_SNAPSHOT`:
//!   `agent.data` `messages`. `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA`:
//!   `agent.data` `activity:<messageId>` (its type and content). `CUSTOM`:
//!   `agent.data` `custom:<name>`. `RAW`: `agent.data` `raw` (or
//!   `raw:<source>`). `SUBAGENT_*`: `agent.data` `subagents`.
//! - Any other type in AG-UI's `SCREAMING_SNAKE` form: an `unknown_type` warning.
//!
//! Gaps are kept and shown, never papered over: content, arguments or an end
//! whose start never arrived, a result for a call never seen, a delta that
//! does not apply to the state held, events outside any run. What is known is
//! emitted (a tool's missing start leaves its `seen_started` false) and a
//! `gap` warning says what is missing. A repeated start, end or result of one
//! already translated is a redelivery (counted as a duplicate).

mod data;
mod final_form;
mod ids;
mod messages;
mod read;
pub(crate) mod tools;

pub use data::STATE_LIMIT;

use ids::Ids;
use read::{
    missing, obj, opt_str, req_str, req_str_at, take_str, timestamp, usage, wrong, LastSecond,
};

use std::collections::{BTreeMap, BTreeSet};

use crate::dialects::line::Line;
use crate::dialects::{LineRead, Out};
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Map, Value};

/// Every event type of AG-UI 1.0 (`@ag-ui/core` 1.0.0), plus the `THINKING_*`
/// types it deprecated before 1.0 (still sent by older producers).
const TYPES: &[&str] = &[
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "STEP_STARTED",
    "STEP_FINISHED",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "TOOL_CALL_RESULT",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK",
    "REASONING_END",
    "REASONING_ENCRYPTED_VALUE",
    "THINKING_START",
    "THINKING_END",
    "THINKING_TEXT_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END",
    "STATE_SNAPSHOT",
    "STATE_DELTA",
    "MESSAGES_SNAPSHOT",
    "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA",
    "RAW",
    "CUSTOM",
    "SUBAGENT_STARTED",
    "SUBAGENT_FINISHED",
    "SUBAGENT_ERROR",
];

/// Whether `event` is AG-UI's: its `type` is one of AG-UI's, or written the
/// way AG-UI writes types (`SCREAMING_SNAKE`, which laravel/ai's `snake_case`
/// and the AI SDK's `kebab-case` never are), so a type from a newer AG-UI is
/// kept as an unknown type rather than refused.
pub(crate) fn claims(event: &Map) -> bool {
    let Some(kind) = event.get("type").and_then(Value::as_str) else {
        return false;
    };
    // Every type of TYPES starts with a capital (a test below checks it), so
    // the other dialects' lowercase types, asked here first for every event
    // of theirs, are told apart by one byte instead of a scan of the list.
    kind.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && (TYPES.contains(&kind)
            || kind
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
}

/// The run an event starts (`RUN_STARTED`'s `runId`), if it starts one: a
/// run that starts again is a redelivery while its events repeat (see
/// `Translators`).
pub(crate) fn run_start(event: &Map) -> Option<&str> {
    match event.get("type").and_then(Value::as_str) {
        Some("RUN_STARTED") => event.get("runId").and_then(Value::as_str),
        _ => None,
    }
}

/// The current run.
#[derive(Debug, Default, Clone)]
struct Run {
    /// `runId`: the execution's id.
    id: String,
    /// Ended by `RUN_FINISHED` (`Some(false)`) or `RUN_ERROR` (`Some(true)`).
    ended: Option<bool>,
    /// The latest assistant message: its id and text (the final answer when
    /// the run finishes without a string `result`).
    last_text: Option<(String, String)>,
}

/// Where the run's steps stand.
#[derive(Debug, Default, Clone)]
struct Steps {
    /// The last step opened (1-based; 0 before any).
    number: i64,
    /// A step is open.
    open: bool,
    /// The open step came from `STEP_STARTED` (its name), not from content.
    name: Option<String>,
    /// The name of the last explicit step completed (a redelivered
    /// `STEP_FINISHED` names it again).
    finished_name: Option<String>,
    /// Tool results arrived since the open step opened: the next content
    /// opens a new step (implicit steps only).
    results_arrived: bool,
    /// The open step called tools.
    has_tool_calls: bool,
    /// The open step has had any content.
    has_content: bool,
    /// When the last step completed (a later completion carrying the run's
    /// usage repeats it, so the step keeps its own end time).
    completed_at: Option<String>,
}

/// A tool call, from its start (or first sign) on.
#[derive(Debug, Default, Clone)]
struct Call {
    name: String,
    args: String,
    /// `TOOL_CALL_START` (or a chunk that opened it) arrived.
    started: bool,
    /// `TOOL_CALL_END` (or the close of its chunks) arrived.
    ended: bool,
    step: i64,
    /// The run it was made in (its result may arrive in the run that
    /// resumes an interrupted one, and is shown with the call).
    run: Option<String>,
}

/// A text or reasoning message.
#[derive(Debug, Default, Clone)]
struct Message {
    role: String,
    ended: bool,
    /// Text of a non-assistant message (emitted as data at its end).
    text: String,
}

/// What an open `*_CHUNK` sequence is building: its id, and whether the
/// chunks opened it (a message opened by its own START is ended by its own
/// END, not by the close of chunks that continued it).
#[derive(Debug, Clone, PartialEq)]
enum Chunking {
    Text(String, bool),
    Tool(String),
    Reasoning(String, bool),
}

/// The translation state of one session's AG-UI stream.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    run: Option<Run>,
    steps: Steps,
    calls: Ids<Call>,
    messages: Ids<Message>,
    reasoning: Ids<Message>,
    /// `TOOL_CALL_RESULT` message ids already translated.
    results: BTreeSet<String>,
    chunking: Option<Chunking>,
    /// The agent state (`{}` until a snapshot, as `@ag-ui/client` starts).
    state: Option<Value>,
    /// Its size ([`crate::json::patch::size`]), kept up to date by the deltas.
    state_size: usize,
    /// The state went past [`STATE_LIMIT`]: deltas wait for a snapshot.
    state_suspended: bool,
    /// The run (execution) the whole state was last sent in: deltas in it
    /// send only their patch.
    state_shown: Option<Option<String>>,
    activities: Map,
    subagents: Map,
    /// A gap warning for content outside any run was given (once per gap).
    outside_warned: bool,
    /// Interrupts on tool calls, by interrupt id: the call they ask about (a
    /// later run's `input.resume` answers them).
    interrupts: BTreeMap<String, String>,
    /// Every interrupt id raised (on a tool call or not).
    seen_interrupts: BTreeSet<String>,
    /// The second of the last event's timestamp, written.
    last_second: LastSecond,
}

/// One event being translated: its timestamp and the output.
struct Ev<'a> {
    ts: Option<String>,
    out: &'a mut Out,
    /// The chunk sequence the event closed, and whether that ended what it
    /// built (see [`State::close_chunks`]).
    closed: Option<(Chunking, bool)>,
}

impl State {
    /// Translates one AG-UI event (its `type` is one [`claims`] accepts).
    pub(crate) fn translate(&mut self, mut event: Map, out: &mut Out) -> Result<()> {
        // Borrowed from the event, not copied: the handlers read the event.
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let ts = timestamp(&event, &mut self.last_second)?;
        let mut ev = Ev {
            ts,
            out,
            closed: None,
        };
        // transformChunks: everything but these (and a chunk of the open
        // kind, handled by the chunk itself) closes an open chunk sequence.
        let keeps_chunks = matches!(
            kind,
            "RAW"
                | "ACTIVITY_SNAPSHOT"
                | "ACTIVITY_DELTA"
                | "REASONING_ENCRYPTED_VALUE"
                | "TEXT_MESSAGE_CHUNK"
                | "TOOL_CALL_CHUNK"
                | "REASONING_MESSAGE_CHUNK"
        );
        if !keeps_chunks {
            self.close_chunks(&mut ev);
        }
        // A text or reasoning delta (most of a stream) moves its text out of
        // the event into its envelope: the event is dropped after this, its
        // fingerprint for the redelivery rule already taken.
        let done = match kind {
            "TEXT_MESSAGE_CONTENT" => self.content(false, &mut event, &mut ev),
            "REASONING_MESSAGE_CONTENT" => self.content(true, &mut event, &mut ev),
            _ => self.dispatch(kind, &event, &mut ev),
        };
        // A refused event is not logged, nor is a redelivery: neither may
        // leave a change the recording cannot replay. Each handler reads all
        // it needs before it changes anything; the chunks it closed on the
        // way in are reopened here.
        if done.is_err() || ev.out.duplicate {
            if let Some(closed) = ev.closed.take() {
                self.reopen_chunks(closed);
            }
        }
        done
    }

    /// A `TEXT_MESSAGE_CONTENT`, `REASONING_MESSAGE_CONTENT` or
    /// `TOOL_CALL_ARGS` event read from its line in the layout
    /// `@ag-ui/core`'s encoder writes (`{"type":…,"messageId"|"toolCallId":…,
    /// "delta":…[,"timestamp":N]}`): what [`translate`](State::translate)
    /// does with the parsed event.
    fn translate_line(&mut self, line: &str, out: &mut Out) -> Option<LineRead> {
        let rest = line.strip_prefix("{\"type\":\"")?;
        let (kind, id_key) = [
            ("TEXT_MESSAGE_CONTENT", "messageId"),
            ("REASONING_MESSAGE_CONTENT", "messageId"),
            ("TOOL_CALL_ARGS", "toolCallId"),
        ]
        .into_iter()
        .find(|(k, _)| {
            rest.strip_prefix(k)
                .is_some_and(|after| after.starts_with('"'))
        })?;
        let mut l = Line::new(line, true)?;
        l.key(true, "type")?;
        l.word()?;
        l.key(false, id_key)?;
        let id = l.text()?;
        l.key(false, "delta")?;
        let delta = l.string()?;
        let ms = match l.closes() {
            true => None,
            false => {
                l.key(false, "timestamp")?;
                Some(l.count()? as f64)
            }
        };
        let fingerprint = l.end()?;
        // The last reading that may decline: nothing changed before it.
        let ts = match ms {
            None => None,
            Some(ms) => read::millis(Some(ms), &mut self.last_second).ok()?,
        };
        let mut ev = Ev {
            ts,
            out,
            closed: None,
        };
        self.close_chunks(&mut ev);
        match kind {
            "TEXT_MESSAGE_CONTENT" => self.text_content(&id, delta, &mut ev),
            "REASONING_MESSAGE_CONTENT" => self.reasoning_content(Some(&id), delta, &mut ev),
            _ => self.tool_args(&id, &delta, &mut ev),
        }
        if ev.out.duplicate {
            if let Some(closed) = ev.closed.take() {
                self.reopen_chunks(closed);
            }
        }
        Some(LineRead { kind, fingerprint })
    }

    /// Translates one event of type `kind` (open chunks already closed when it closes them).
    fn dispatch(&mut self, kind: &str, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        match kind {
            "RUN_STARTED" => self.run_started(event, ev),
            "RUN_FINISHED" => self.run_finished(event, ev),
            "RUN_ERROR" => self.run_error(event, ev),
            "STEP_STARTED" => self.step_started(event, ev),
            "STEP_FINISHED" => self.step_finished(event, ev),
            "TEXT_MESSAGE_START" => {
                let id = req_str(event, "messageId")?;
                let role = opt_str(event, "role")?.unwrap_or("assistant");
                self.text_start(id, role, ev);
                Ok(())
            }
            // `translate` moves a delta's text instead (`State::content`).
            "TEXT_MESSAGE_CONTENT" => {
                let id = req_str(event, "messageId")?;
                let delta = req_str(event, "delta")?;
                self.text_content(id, delta.to_string(), ev);
                Ok(())
            }
            "TEXT_MESSAGE_END" => {
                let id = req_str(event, "messageId")?;
                self.text_end(id, ev);
                Ok(())
            }
            "TEXT_MESSAGE_CHUNK" => self.text_chunk(event, ev),
            "TOOL_CALL_START" => {
                let id = req_str(event, "toolCallId")?;
                let name = req_str(event, "toolCallName")?;
                opt_str(event, "parentMessageId")?;
                self.tool_start(id, name, ev);
                Ok(())
            }
            "TOOL_CALL_ARGS" => {
                let id = req_str(event, "toolCallId")?;
                let delta = req_str(event, "delta")?;
                self.tool_args(id, delta, ev);
                Ok(())
            }
            "TOOL_CALL_END" => {
                let id = req_str(event, "toolCallId")?;
                self.tool_end(id, ev);
                Ok(())
            }
            "TOOL_CALL_CHUNK" => self.tool_chunk(event, ev),
            "TOOL_CALL_RESULT" => self.tool_result(event, ev),
            "REASONING_START" | "REASONING_END" => {
                req_str(event, "messageId")?;
                if kind == "REASONING_START" {
                    self.content_step(ev);
                }
                Ok(())
            }
            "REASONING_MESSAGE_START" => {
                let id = req_str(event, "messageId")?;
                self.reasoning_start(id, ev);
                Ok(())
            }
            "REASONING_MESSAGE_CONTENT" => {
                let id = req_str(event, "messageId")?;
                let delta = req_str(event, "delta")?;
                self.reasoning_content(Some(id), delta.to_string(), ev);
                Ok(())
            }
            "REASONING_MESSAGE_END" => {
                let id = req_str(event, "messageId")?;
                self.reasoning_end(id, ev);
                Ok(())
            }
            "REASONING_MESSAGE_CHUNK" => self.reasoning_chunk(event, ev),
            "REASONING_ENCRYPTED_VALUE" => {
                let subtype = req_str(event, "subtype")?;
                let entity = req_str(event, "entityId")?;
                let value = req_str(event, "encryptedValue")?;
                let data = obj([
                    ("subtype", subtype.into()),
                    ("entityId", entity.into()),
                    ("length", Value::from(value.len())),
                ]);
                self.data("reasoning_encrypted_value", data, ev);
                Ok(())
            }
            // Deprecated before 1.0 (removed from @ag-ui/core 1.0.0); still what
            // older producers send for reasoning.
            "THINKING_START" | "THINKING_TEXT_MESSAGE_START" => {
                opt_str(event, "title")?;
                self.content_step(ev);
                Ok(())
            }
            "THINKING_END" | "THINKING_TEXT_MESSAGE_END" => Ok(()),
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                let delta = req_str(event, "delta")?;
                self.reasoning_content(None, delta.to_string(), ev);
                Ok(())
            }
            "STATE_SNAPSHOT" => self.state_snapshot(event, ev),
            "STATE_DELTA" => self.state_delta(event, ev),
            "MESSAGES_SNAPSHOT" => {
                let messages = event.get("messages").ok_or_else(|| missing("messages"))?;
                if !messages.is_array() {
                    return Err(wrong("messages", "an array", messages));
                }
                self.data("messages", messages.clone(), ev);
                Ok(())
            }
            "ACTIVITY_SNAPSHOT" => self.activity_snapshot(event, ev),
            "ACTIVITY_DELTA" => self.activity_delta(event, ev),
            "RAW" => {
                let raw = event.get("event").ok_or_else(|| missing("event"))?.clone();
                let source = opt_str(event, "source")?;
                let name = source.map_or_else(|| "raw".to_string(), |s| format!("raw:{s}"));
                self.data(&name, raw, ev);
                Ok(())
            }
            "CUSTOM" => {
                let name = req_str(event, "name")?;
                let value = event.get("value").ok_or_else(|| missing("value"))?.clone();
                self.data(&format!("custom:{name}"), value, ev);
                Ok(())
            }
            "SUBAGENT_STARTED" | "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                self.subagent(kind, event, ev)
            }
            other => {
                ev.out.warn(
                    "/type",
                    "unknown_type",
                    format!("`{other}` is not an AG-UI 1.0 event type: kept, not translated"),
                );
                Ok(())
            }
        }
    }

    /// The current run's id (also after it ended: late events stay with it).
    /// `TEXT_MESSAGE_CONTENT` (or, if `reasoning`, `REASONING_MESSAGE_CONTENT`).
    fn content(&mut self, reasoning: bool, event: &mut Map, ev: &mut Ev<'_>) -> Result<()> {
        req_str(event, "messageId")?;
        let delta = take_str(event, "delta")?;
        let id = req_str(event, "messageId")?;
        if reasoning {
            self.reasoning_content(Some(id), delta, ev);
        } else {
            self.text_content(id, delta, ev);
        }
        Ok(())
    }

    fn exec(&self) -> Option<String> {
        self.run.as_ref().map(|r| r.id.clone())
    }

    fn emit(&self, kind: &str, payload: Map, ev: &mut Ev<'_>) {
        let exec = self.run.as_ref().map(|r| r.id.as_str());
        ev.out.emit(kind, exec, ev.ts.clone(), payload);
    }

    /// Emits a text (or, if `reasoning`, reasoning) delta to step `step`
    /// as the event's last envelope: its timestamp moved into it, not copied
    /// (a delta, most of a stream, emits it last). Nothing of the event may
    /// emit after it.
    fn emit_delta_last(&self, reasoning: bool, step: i64, delta: String, ev: &mut Ev<'_>) {
        let exec = self.run.as_ref().map(|r| r.id.as_str());
        ev.out
            .emit_delta(reasoning, exec, ev.ts.take(), step, delta);
    }

    /// Emits under the run `exec` (a tool call's own run), or the current one.
    fn emit_in(&self, exec: Option<&str>, kind: &str, payload: Map, ev: &mut Ev<'_>) {
        match exec {
            Some(id) => ev.out.emit(kind, Some(id), ev.ts.clone(), payload),
            None => self.emit(kind, payload, ev),
        }
    }

    fn data(&self, name: &str, data: Value, ev: &mut Ev<'_>) {
        let mut p = Map::with_capacity(2);
        p.insert("name", Value::from(name));
        p.insert("data", data);
        self.emit("agent.data", p, ev);
    }

    /// Content outside a run is kept (under the last run, if any) and shown
    /// as a gap, once per stretch.
    fn check_inside_run(&mut self, ev: &mut Ev<'_>) {
        let inside = self.run.as_ref().is_some_and(|r| r.ended.is_none());
        if inside {
            self.outside_warned = false;
        } else if !self.outside_warned {
            self.outside_warned = true;
            ev.out.warn(
                "/type",
                "gap",
                match &self.run {
                    None => "content before any RUN_STARTED: kept without a run".to_string(),
                    Some(r) => format!(
                        "content after run `{}` ended, before another RUN_STARTED: kept under it",
                        r.id
                    ),
                },
            );
        }
    }

    /// The step content belongs to, opening one when none is open or tool
    /// results arrived since the open (implicit) step began.
    fn content_step(&mut self, ev: &mut Ev<'_>) -> i64 {
        self.check_inside_run(ev);
        let fresh = self.steps.open && !(self.steps.name.is_none() && self.steps.results_arrived);
        if !fresh {
            self.open_step(None, ev);
        }
        self.steps.has_content = true;
        self.steps.number
    }

    fn open_step(&mut self, name: Option<String>, ev: &mut Ev<'_>) {
        if self.steps.open {
            self.complete_step(None, None, ev);
        }
        self.steps.number += 1;
        self.steps.open = true;
        self.steps.name = name;
        self.steps.results_arrived = false;
        self.steps.has_tool_calls = false;
        self.steps.has_content = false;
        let mut p = Map::with_capacity(1);
        p.insert("step_number", Value::from(self.steps.number));
        self.emit("agent.step.started", p, ev);
    }

    fn complete_step(&mut self, finish_reason: Option<&str>, usage: Option<Map>, ev: &mut Ev<'_>) {
        self.steps.open = false;
        self.steps.finished_name = self.steps.name.take();
        self.steps.completed_at = ev.ts.clone();
        let mut p = Map::with_capacity(4);
        p.insert("step_number", Value::from(self.steps.number));
        p.insert("has_tool_calls", Value::Bool(self.steps.has_tool_calls));
        if let Some(r) = finish_reason {
            p.insert("finish_reason", Value::from(r));
        }
        if let Some(u) = usage {
            p.insert("usage", Value::Object(u));
        }
        self.emit("agent.step.completed", p, ev);
    }

    fn run_started(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let thread = req_str(event, "threadId")?;
        let run_id = req_str(event, "runId")?;
        let parent = opt_str(event, "parentRunId")?;
        let input = match event.get("input") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => return Err(wrong("input", "an object", other)),
        };
        let answers = input.map(answers).transpose()?.unwrap_or_default();
        if self
            .run
            .as_ref()
            .is_some_and(|r| r.id == run_id && r.ended.is_none())
        {
            ev.out.duplicate();
            return Ok(());
        }
        if let Some(r) = self.run.as_ref().filter(|r| r.ended.is_none()) {
            ev.out.warn(
                "/runId",
                "gap",
                format!(
                    "run `{run_id}` started before run `{}` finished: its end never arrived",
                    r.id
                ),
            );
            if self.steps.open {
                self.complete_step(None, None, ev);
            }
        }
        ev.out.session_hint(thread);
        self.state_shown = None;
        self.run = Some(Run {
            id: run_id.to_string(),
            ..Run::default()
        });
        self.steps = Steps::default();
        self.outside_warned = false;
        let mut p = Map::with_capacity(2);
        p.insert("status", Value::from("processing"));
        p.insert("previous_status", Value::from("idle"));
        self.emit("agent.status", p, ev);
        if let Some(parent) = parent {
            self.data("parent_run_id", Value::from(parent), ev);
        }
        if let Some(input) = input {
            self.resume(answers, ev);
            self.data("input", Value::Object(input.clone()), ev);
        }
        Ok(())
    }

    /// `input.resume` of a run that resumes an interrupted one: each answer
    /// to an interrupt on a tool call is that call's approval, `denied` when
    /// the interrupt was cancelled or its payload says `approved: false`.
    fn resume(&mut self, answers: Vec<Answer<'_>>, ev: &mut Ev<'_>) {
        for Answer { at, id, refused } in answers {
            let Some(call_id) = self.interrupts.get(id).cloned() else {
                // An interrupt not on a tool call (input asked of a person), or one
                // this session never saw: nothing of the view to answer.
                if !self.seen_interrupts.contains(id) {
                    ev.out.warn(
                        &child(&at, "interruptId"),
                        "gap",
                        format!("an answer to interrupt `{id}`, which this stream never raised"),
                    );
                }
                continue;
            };
            let call = self.calls.get(&call_id);
            let mut p = Map::with_capacity(5);
            if let Some(c) = call {
                p.insert("tool_name", Value::from(c.name.as_str()));
            }
            p.insert("tool_call_id", Value::from(call_id.as_str()));
            p.insert(
                "approval",
                Value::from(if refused { "denied" } else { "approved" }),
            );
            p.insert("approval_id", Value::from(id));
            p.insert(
                "step_number",
                Value::from(call.map_or(1, |c| c.step.max(1))),
            );
            let run = call.and_then(|c| c.run.clone());
            self.emit_in(run.as_deref(), "agent.tool.approval", p, ev);
        }
    }

    /// The run a terminal event ends: the current one, or (a gap) one whose
    /// start never arrived. `None` for a redelivery or an end after an end.
    fn ending_run(&mut self, run_id: Option<&str>, what: &str, ev: &mut Ev<'_>) -> Option<()> {
        match (&self.run, run_id) {
            (Some(r), Some(id)) if r.id == id && r.ended.is_some() => {
                if r.ended == Some(false) && what == "RUN_FINISHED" {
                    ev.out.duplicate();
                } else {
                    ev.out.warn(
                        "/type",
                        "gap",
                        format!("{what} for run `{id}`, which had already ended: ignored"),
                    );
                }
                None
            }
            (Some(r), None) if r.ended.is_some() => {
                if r.ended == Some(true) && what == "RUN_ERROR" {
                    ev.out.duplicate();
                } else {
                    ev.out.warn(
                        "/type",
                        "gap",
                        format!("{what} after run `{}` had already ended: ignored", r.id),
                    );
                }
                None
            }
            (Some(r), Some(id)) if r.id == id => Some(()),
            (Some(r), None) if r.ended.is_none() => Some(()),
            (_, id) => {
                let id = id.map(str::to_string);
                ev.out.warn(
                    "/type",
                    "gap",
                    format!("{what} for a run whose RUN_STARTED never arrived"),
                );
                if let Some(id) = id {
                    self.state_shown = None;
                    self.run = Some(Run {
                        id,
                        ..Run::default()
                    });
                    self.steps = Steps::default();
                }
                Some(())
            }
        }
    }

    /// Completes the open step with `usage`, or re-completes the last one
    /// with it (AG-UI reports usage per run).
    fn close_run_steps(
        &mut self,
        finish_reason: Option<&str>,
        usage: Option<Map>,
        ev: &mut Ev<'_>,
    ) {
        if self.steps.open {
            self.complete_step(finish_reason, usage, ev);
        } else if usage.is_some() && self.steps.number > 0 {
            let mut p = Map::with_capacity(3);
            p.insert("step_number", Value::from(self.steps.number));
            p.insert("has_tool_calls", Value::Bool(self.steps.has_tool_calls));
            if let Some(u) = usage {
                p.insert("usage", Value::Object(u));
            }
            let exec = self.exec();
            let at = self.steps.completed_at.clone();
            ev.out.emit("agent.step.completed", exec.as_deref(), at, p);
        }
    }

    fn run_finished(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        req_str(event, "threadId")?;
        let run_id = req_str(event, "runId")?;
        let usage = usage(event)?;
        let outcome = match event.get("outcome") {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(other) => return Err(wrong("outcome", "an object", other)),
        };
        let outcome_type = match outcome {
            None => "success".to_string(),
            Some(o) => match o.get("type") {
                Some(Value::String(t)) => t.clone(),
                None => {
                    return Err(SteplineError::at(
                        ErrorCode::MissingField,
                        "/outcome/type",
                        "expected the outcome to have `type`",
                    ))
                }
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        "/outcome/type",
                        format!("expected `type` to be a string, found {}", type_name(other)),
                    ))
                }
            },
        };
        let interrupts = match (outcome_type.as_str(), outcome) {
            ("interrupt", Some(o)) => match o.get("interrupts") {
                Some(Value::Array(a)) => Some((interrupts(a)?, a)),
                None => {
                    return Err(SteplineError::at(
                        ErrorCode::MissingField,
                        "/outcome/interrupts",
                        "expected an interrupt outcome to have `interrupts`",
                    ))
                }
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        "/outcome/interrupts",
                        format!(
                            "expected `interrupts` to be an array, found {}",
                            type_name(other)
                        ),
                    ))
                }
            },
            _ => None,
        };
        if self.ending_run(Some(run_id), "RUN_FINISHED", ev).is_none() {
            return Ok(());
        }
        if !matches!(outcome_type.as_str(), "success" | "interrupt" | "cancelled") {
            ev.out.warn(
                "/outcome/type",
                "unknown_field",
                format!(
                    "outcome `{outcome_type}` is not one AG-UI 1.0 defines: kept as the end reason"
                ),
            );
        }
        self.close_run_steps(None, usage.as_ref().map(|(sum, _)| sum.clone()), ev);
        if let Some((_, entries)) = usage {
            self.data("usage", entries, ev);
        }
        let result = event.get("result").filter(|v| !v.is_null());
        if let Some(result) = result {
            self.data("result", result.clone(), ev);
        }
        if let Some(r) = self.run.as_mut() {
            r.ended = Some(false);
        }
        if let Some((list, data)) = interrupts {
            self.interrupted(list, data, ev);
            return Ok(());
        }
        let final_answer = result
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| {
                self.run
                    .as_ref()
                    .and_then(|r| r.last_text.as_ref())
                    .map(|(_, t)| t.clone())
            });
        let mut p = Map::with_capacity(2);
        p.insert("status", Value::from("completed"));
        p.insert("previous_status", Value::from("processing"));
        self.emit("agent.status", p, ev);
        let mut p = Map::with_capacity(2);
        if let Some(answer) = final_answer {
            p.insert("final_answer", Value::from(answer));
        }
        p.insert("reason", Value::from(outcome_type));
        self.emit("agent.run.completed", p, ev);
        Ok(())
    }

    /// An `interrupt` outcome: each interrupt on a tool call asks for its
    /// approval; the run pauses with the interrupts' reasons (`data`: the
    /// interrupts as sent).
    fn interrupted(&mut self, list: Vec<Interrupt<'_>>, data: &[Value], ev: &mut Ev<'_>) {
        let mut reasons: Vec<&str> = vec![];
        for Interrupt { id, reason, call } in list {
            self.seen_interrupts.insert(id.to_string());
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
            if let Some(call) = call {
                self.interrupts.insert(id.to_string(), call.to_string());
                let known = self.calls.get(call);
                let mut p = Map::with_capacity(6);
                if let Some(c) = known {
                    p.insert("tool_name", Value::from(c.name.as_str()));
                }
                p.insert("tool_call_id", Value::from(call));
                p.insert("approval", Value::from("requested"));
                p.insert("approval_id", Value::from(id));
                p.insert("reason", Value::from(reason));
                let step = known.map_or(self.steps.number, |c| c.step).max(1);
                p.insert("step_number", Value::from(step));
                self.emit("agent.tool.approval", p, ev);
            }
        }
        let mut p = Map::with_capacity(2);
        p.insert("reason", Value::from(reasons.join(", ")));
        p.insert("data", Value::Array(data.to_vec()));
        self.emit("agent.run.interrupted", p, ev);
    }

    fn run_error(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let message = req_str(event, "message")?;
        let code = opt_str(event, "code")?;
        let usage = usage(event)?;
        if self.ending_run(None, "RUN_ERROR", ev).is_none() {
            return Ok(());
        }
        self.close_run_steps(
            Some("error"),
            usage.as_ref().map(|(sum, _)| sum.clone()),
            ev,
        );
        if let Some((_, entries)) = usage {
            self.data("usage", entries, ev);
        }
        if let Some(r) = self.run.as_mut() {
            r.ended = Some(true);
        }
        let mut p = Map::with_capacity(3);
        p.insert("error", Value::from(message));
        p.insert("reason", Value::from(code.unwrap_or("error")));
        if self.steps.number > 0 {
            p.insert("step_number", Value::from(self.steps.number));
        }
        self.emit("agent.run.failed", p, ev);
        let mut p = Map::with_capacity(2);
        p.insert("status", Value::from("failed"));
        p.insert("previous_status", Value::from("processing"));
        self.emit("agent.status", p, ev);
        Ok(())
    }

    fn step_started(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let name = req_str(event, "stepName")?;
        if self.steps.open && self.steps.name.as_deref() == Some(name) && !self.steps.has_content {
            ev.out.duplicate();
            return Ok(());
        }
        self.check_inside_run(ev);
        if let Some(open) = self.steps.name.as_ref().filter(|_| self.steps.open) {
            ev.out.warn(
                "/stepName",
                "gap",
                format!("step `{name}` started before step `{open}` finished: `{open}` is completed here"),
            );
        }
        self.open_step(Some(name.to_string()), ev);
        Ok(())
    }

    fn step_finished(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let name = req_str(event, "stepName")?;
        if !self.steps.open {
            if self.steps.finished_name.as_deref() == Some(name) {
                ev.out.duplicate();
            } else {
                ev.out.warn(
                    "/stepName",
                    "gap",
                    format!("step `{name}` finished, but no step is open: its STEP_STARTED never arrived"),
                );
            }
            return Ok(());
        }
        if self.steps.name.as_deref() != Some(name) {
            ev.out.warn(
                "/stepName",
                "gap",
                format!(
                    "step `{name}` finished while step {} ({}) is open: that step is completed",
                    self.steps.number,
                    self.steps.name.as_deref().unwrap_or("opened by content")
                ),
            );
        }
        self.complete_step(None, None, ev);
        Ok(())
    }
}

/// An answer in a resuming run's `input.resume`: where it is, the interrupt
/// it answers, and whether it refuses (`cancelled`, or `approved: false`).
struct Answer<'e> {
    at: String,
    id: &'e str,
    refused: bool,
}

/// The answers in `input.resume` (read whole before the run changes anything).
fn answers(input: &Map) -> Result<Vec<Answer<'_>>> {
    let entries = match input.get("resume") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "/input/resume",
                format!(
                    "expected `resume` to be an array, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("/input/resume/{i}");
        let Some(m) = entry.as_object() else {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &at,
                format!("expected a resume entry object, found {}", type_name(entry)),
            ));
        };
        let id = req_str_at(m, "interruptId", &at)?;
        let status = req_str_at(m, "status", &at)?;
        let refused = status == "cancelled"
            || m.get("payload")
                .and_then(|p| p.get("approved"))
                .and_then(Value::as_bool)
                == Some(false);
        out.push(Answer { at, id, refused });
    }
    Ok(out)
}

/// An interrupt of a `RUN_FINISHED` outcome: its id, reason and the tool
/// call it asks about.
struct Interrupt<'e> {
    id: &'e str,
    reason: &'e str,
    call: Option<&'e str>,
}

/// The interrupts of an `interrupt` outcome (read whole before the run ends).
fn interrupts(list: &[Value]) -> Result<Vec<Interrupt<'_>>> {
    let mut out = Vec::with_capacity(list.len());
    for (i, it) in list.iter().enumerate() {
        let at = format!("/outcome/interrupts/{i}");
        let Some(m) = it.as_object() else {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &at,
                format!("expected an interrupt object, found {}", type_name(it)),
            ));
        };
        let id = req_str_at(m, "id", &at)?;
        let reason = req_str_at(m, "reason", &at)?;
        let call = match m.get("toolCallId") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(&at, "toolCallId"),
                    format!(
                        "expected `toolCallId` to be a string, found {}",
                        type_name(other)
                    ),
                ))
            }
        };
        out.push(Interrupt { id, reason, call });
    }
    Ok(out)
}

/// AG-UI (`@ag-ui/core`): events whose `type` is `SCREAMING_SNAKE`.
#[derive(Debug)]
pub struct AgUi;

impl crate::dialects::Dialect for AgUi {
    fn emits_normalised(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "ag-ui"
    }

    fn claims(&self, event: &Map) -> bool {
        claims(event)
    }

    fn translator(&self) -> Box<dyn crate::dialects::Translator> {
        Box::new(State::default())
    }

    fn events_carry_ids(&self) -> bool {
        false
    }

    fn run_start<'a>(&self, event: &'a Map) -> Option<&'a str> {
        run_start(event)
    }

    fn final_form(&self) -> Option<&dyn crate::dialects::FinalForm> {
        Some(&final_form::Messages)
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

#[cfg(test)]
mod tests {
    /// `claims` looks at the list of types only for a type whose first byte
    /// is a capital: every type of the list must be one.
    #[test]
    fn every_ag_ui_type_starts_with_a_capital() {
        for kind in super::TYPES {
            assert!(
                kind.bytes().next().is_some_and(|b| b.is_ascii_uppercase()),
                "{kind}"
            );
        }
    }
}
