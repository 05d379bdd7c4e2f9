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
//! - `STATE_SNAPSHOT` / `STATE_DELTA` (RFC 6902, [`super::json_patch`]):
//!   `agent.data` `state`, the state after the event. `MESSAGES_SNAPSHOT`:
//!   `agent.data` `messages`. `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA`:
//!   `agent.data` `activities` (by message id: type and content). `CUSTOM`:
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

use std::collections::{BTreeMap, BTreeSet};

use crate::dialects::json_patch::{self, PatchFailure};
use crate::dialects::Out;
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Limits, Map, Value};

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
    TYPES.contains(&kind)
        || (kind.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
            && kind
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
}

/// The run an event starts (`RUN_STARTED`'s `runId`), if it starts one.
pub(crate) fn run_start(event: &Map) -> Option<&str> {
    if event.get("type").and_then(Value::as_str) != Some("RUN_STARTED") {
        return None;
    }
    event.get("runId").and_then(Value::as_str)
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
}

/// A text or reasoning message.
#[derive(Debug, Default, Clone)]
struct Message {
    role: String,
    ended: bool,
    /// Text of a non-assistant message (emitted as data at its end).
    text: String,
}

/// What an open `*_CHUNK` sequence is building.
#[derive(Debug, Clone, PartialEq)]
enum Chunking {
    Text(String),
    Tool(String),
    Reasoning(String),
}

/// The translation state of one session's AG-UI stream.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    run: Option<Run>,
    steps: Steps,
    calls: BTreeMap<String, Call>,
    messages: BTreeMap<String, Message>,
    reasoning: BTreeMap<String, Message>,
    /// `TOOL_CALL_RESULT` message ids already translated.
    results: BTreeSet<String>,
    chunking: Option<Chunking>,
    /// The agent state (`{}` until a snapshot, as `@ag-ui/client` starts).
    state: Option<Value>,
    activities: Map,
    subagents: Map,
    /// A gap warning for content outside any run was given (once per gap).
    outside_warned: bool,
}

/// One event being translated: its timestamp and the output.
struct Ev<'a> {
    ts: Option<String>,
    out: &'a mut Out,
}

impl State {
    /// Translates one AG-UI event (its `type` is one [`claims`] accepts).
    pub(crate) fn translate(&mut self, event: Map, out: &mut Out) -> Result<()> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let ts = timestamp(&event)?;
        let mut ev = Ev { ts, out };
        // transformChunks: everything but these (and a chunk of the open
        // kind, handled by the chunk itself) closes an open chunk sequence.
        let keeps_chunks = matches!(
            kind.as_str(),
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
        match kind.as_str() {
            "RUN_STARTED" => self.run_started(&event, &mut ev),
            "RUN_FINISHED" => self.run_finished(&event, &mut ev),
            "RUN_ERROR" => self.run_error(&event, &mut ev),
            "STEP_STARTED" => self.step_started(&event, &mut ev),
            "STEP_FINISHED" => self.step_finished(&event, &mut ev),
            "TEXT_MESSAGE_START" => {
                let id = req_str(&event, "messageId")?;
                let role = opt_str(&event, "role")?.unwrap_or("assistant");
                self.text_start(id, role, &mut ev);
                Ok(())
            }
            "TEXT_MESSAGE_CONTENT" => {
                let id = req_str(&event, "messageId")?;
                let delta = req_str(&event, "delta")?;
                self.text_content(id, delta, &mut ev);
                Ok(())
            }
            "TEXT_MESSAGE_END" => {
                let id = req_str(&event, "messageId")?;
                self.text_end(id, &mut ev);
                Ok(())
            }
            "TEXT_MESSAGE_CHUNK" => self.text_chunk(&event, &mut ev),
            "TOOL_CALL_START" => {
                let id = req_str(&event, "toolCallId")?;
                let name = req_str(&event, "toolCallName")?;
                opt_str(&event, "parentMessageId")?;
                self.tool_start(id, name, &mut ev);
                Ok(())
            }
            "TOOL_CALL_ARGS" => {
                let id = req_str(&event, "toolCallId")?;
                let delta = req_str(&event, "delta")?;
                self.tool_args(id, delta, &mut ev);
                Ok(())
            }
            "TOOL_CALL_END" => {
                let id = req_str(&event, "toolCallId")?;
                self.tool_end(id, &mut ev);
                Ok(())
            }
            "TOOL_CALL_CHUNK" => self.tool_chunk(&event, &mut ev),
            "TOOL_CALL_RESULT" => self.tool_result(&event, &mut ev),
            "REASONING_START" | "REASONING_END" => {
                req_str(&event, "messageId")?;
                if kind == "REASONING_START" {
                    self.content_step(&mut ev);
                }
                Ok(())
            }
            "REASONING_MESSAGE_START" => {
                let id = req_str(&event, "messageId")?;
                self.reasoning_start(id, &mut ev);
                Ok(())
            }
            "REASONING_MESSAGE_CONTENT" => {
                let id = req_str(&event, "messageId")?;
                let delta = req_str(&event, "delta")?;
                self.reasoning_content(Some(id), delta, &mut ev);
                Ok(())
            }
            "REASONING_MESSAGE_END" => {
                let id = req_str(&event, "messageId")?;
                self.reasoning_end(id, &mut ev);
                Ok(())
            }
            "REASONING_MESSAGE_CHUNK" => self.reasoning_chunk(&event, &mut ev),
            "REASONING_ENCRYPTED_VALUE" => {
                let subtype = req_str(&event, "subtype")?;
                let entity = req_str(&event, "entityId")?;
                let value = req_str(&event, "encryptedValue")?;
                let data = obj([
                    ("subtype", subtype.into()),
                    ("entityId", entity.into()),
                    ("length", Value::from(value.len())),
                ]);
                self.data("reasoning_encrypted_value", data, &mut ev);
                Ok(())
            }
            // Deprecated before 1.0 (removed from @ag-ui/core 1.0.0); still what
            // older producers send for reasoning.
            "THINKING_START" | "THINKING_TEXT_MESSAGE_START" => {
                opt_str(&event, "title")?;
                self.content_step(&mut ev);
                Ok(())
            }
            "THINKING_END" | "THINKING_TEXT_MESSAGE_END" => Ok(()),
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                let delta = req_str(&event, "delta")?;
                self.reasoning_content(None, delta, &mut ev);
                Ok(())
            }
            "STATE_SNAPSHOT" => {
                let snapshot = event
                    .get("snapshot")
                    .ok_or_else(|| missing("snapshot"))?
                    .clone();
                self.state = Some(snapshot.clone());
                self.data("state", snapshot, &mut ev);
                Ok(())
            }
            "STATE_DELTA" => self.state_delta(&event, &mut ev),
            "MESSAGES_SNAPSHOT" => {
                let messages = event.get("messages").ok_or_else(|| missing("messages"))?;
                if !messages.is_array() {
                    return Err(wrong("messages", "an array", messages));
                }
                self.data("messages", messages.clone(), &mut ev);
                Ok(())
            }
            "ACTIVITY_SNAPSHOT" => self.activity_snapshot(&event, &mut ev),
            "ACTIVITY_DELTA" => self.activity_delta(&event, &mut ev),
            "RAW" => {
                let raw = event.get("event").ok_or_else(|| missing("event"))?.clone();
                let source = opt_str(&event, "source")?;
                let name = source.map_or_else(|| "raw".to_string(), |s| format!("raw:{s}"));
                self.data(&name, raw, &mut ev);
                Ok(())
            }
            "CUSTOM" => {
                let name = req_str(&event, "name")?;
                let value = event.get("value").ok_or_else(|| missing("value"))?.clone();
                self.data(&format!("custom:{name}"), value, &mut ev);
                Ok(())
            }
            "SUBAGENT_STARTED" | "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                self.subagent(&kind, &event, &mut ev)
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
    fn exec(&self) -> Option<String> {
        self.run.as_ref().map(|r| r.id.clone())
    }

    fn emit(&self, kind: &str, payload: Map, ev: &mut Ev<'_>) {
        let exec = self.exec();
        ev.out.emit(kind, exec.as_deref(), ev.ts.clone(), payload);
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
        if let Some(input) = event.get("input").filter(|v| !v.is_null()) {
            if !input.is_object() {
                return Err(wrong("input", "an object", input));
            }
            self.data("input", input.clone(), ev);
        }
        Ok(())
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
            let mut p = Map::with_capacity(2);
            p.insert("step_number", Value::from(self.steps.number));
            if let Some(u) = usage {
                p.insert("usage", Value::Object(u));
            }
            self.emit("agent.step.completed", p, ev);
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
                Some(Value::Array(a)) => Some(a.clone()),
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
        if let Some(interrupts) = interrupts {
            return self.interrupted(interrupts, ev);
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
    /// approval; the run pauses with the interrupts' reasons.
    fn interrupted(&mut self, interrupts: Vec<Value>, ev: &mut Ev<'_>) -> Result<()> {
        let mut reasons: Vec<String> = vec![];
        for (i, it) in interrupts.iter().enumerate() {
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
            if !reasons.iter().any(|r| r == reason) {
                reasons.push(reason.to_string());
            }
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
            if let Some(call) = call {
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
        p.insert("data", Value::Array(interrupts));
        self.emit("agent.run.interrupted", p, ev);
        Ok(())
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

    fn text_start(&mut self, id: &str, role: &str, ev: &mut Ev<'_>) {
        if self.messages.get(id).is_some_and(|m| !m.ended) {
            ev.out.duplicate();
            return;
        }
        if role == "assistant" {
            self.content_step(ev);
            if let Some(r) = self.run.as_mut() {
                r.last_text = Some((id.to_string(), String::new()));
            }
        }
        self.messages.insert(
            id.to_string(),
            Message {
                role: role.to_string(),
                ..Message::default()
            },
        );
    }

    fn text_content(&mut self, id: &str, delta: &str, ev: &mut Ev<'_>) {
        let role = match self.messages.get(id) {
            Some(m) => {
                if m.ended {
                    ev.out.warn(
                        "/messageId",
                        "gap",
                        format!("content for message `{id}` after its TEXT_MESSAGE_END: kept"),
                    );
                }
                m.role.clone()
            }
            None => {
                ev.out.warn(
                    "/messageId",
                    "gap",
                    format!("content for message `{id}`, whose TEXT_MESSAGE_START never arrived: kept as assistant text"),
                );
                self.text_start(id, "assistant", ev);
                "assistant".to_string()
            }
        };
        if role != "assistant" {
            if let Some(m) = self.messages.get_mut(id) {
                m.text.push_str(delta);
            }
            return;
        }
        if delta.is_empty() {
            return;
        }
        let step = self.content_step(ev);
        if let Some(r) = self.run.as_mut() {
            match &mut r.last_text {
                Some((last, text)) if last == id => text.push_str(delta),
                slot => *slot = Some((id.to_string(), delta.to_string())),
            }
        }
        let mut p = Map::with_capacity(2);
        p.insert("text_delta", Value::from(delta));
        p.insert("step_number", Value::from(step));
        self.emit("agent.llm.output_text.delta", p, ev);
    }

    fn text_end(&mut self, id: &str, ev: &mut Ev<'_>) {
        let Some(m) = self.messages.get_mut(id) else {
            ev.out.warn(
                "/messageId",
                "gap",
                format!("message `{id}` ended, but its TEXT_MESSAGE_START never arrived"),
            );
            return;
        };
        if m.ended {
            ev.out.duplicate();
            return;
        }
        m.ended = true;
        if m.role != "assistant" {
            let role = m.role.clone();
            let data = obj([("messageId", id.into()), ("content", m.text.clone().into())]);
            self.data(&format!("message:{role}"), data, ev);
        }
    }

    fn text_chunk(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = opt_str(event, "messageId")?;
        let role = opt_str(event, "role")?;
        let delta = opt_str(event, "delta")?;
        opt_str(event, "name")?;
        let open = match &self.chunking {
            Some(Chunking::Text(open)) => Some(open.clone()),
            _ => None,
        };
        let id = match (open, id) {
            (Some(open), None) => open,
            (Some(open), Some(id)) if open == id => open,
            (_, Some(id)) => {
                self.close_chunks(ev);
                self.chunking = Some(Chunking::Text(id.to_string()));
                if self.messages.get(id).is_none_or(|m| m.ended) {
                    self.text_start(id, role.unwrap_or("assistant"), ev);
                }
                id.to_string()
            }
            (None, None) => {
                self.close_chunks(ev);
                ev.out.warn(
                    "/messageId",
                    "gap",
                    "TEXT_MESSAGE_CHUNK without `messageId` and no chunked message open: its text is kept as assistant text",
                );
                let id = String::new();
                self.chunking = Some(Chunking::Text(id.clone()));
                self.text_start(&id, role.unwrap_or("assistant"), ev);
                id
            }
        };
        if let Some(delta) = delta {
            self.text_content(&id, delta, ev);
        }
        Ok(())
    }

    /// Ends what an open chunk sequence built (a tool call's end is its
    /// `agent.tool.started`).
    fn close_chunks(&mut self, ev: &mut Ev<'_>) {
        match self.chunking.take() {
            Some(Chunking::Text(id)) => {
                if let Some(m) = self.messages.get_mut(&id) {
                    m.ended = true;
                }
            }
            Some(Chunking::Tool(id)) => self.tool_end(&id, ev),
            Some(Chunking::Reasoning(id)) => {
                if let Some(m) = self.reasoning.get_mut(&id) {
                    m.ended = true;
                }
            }
            None => {}
        }
    }

    fn tool_start(&mut self, id: &str, name: &str, ev: &mut Ev<'_>) {
        if self.calls.get(id).is_some_and(|c| c.started) {
            ev.out.duplicate();
            return;
        }
        let step = self.content_step(ev);
        self.steps.has_tool_calls = true;
        let call = self.calls.entry(id.to_string()).or_default();
        call.name = name.to_string();
        call.started = true;
        call.step = step;
    }

    fn tool_args(&mut self, id: &str, delta: &str, ev: &mut Ev<'_>) {
        if !self.calls.contains_key(id) {
            ev.out.warn(
                "/toolCallId",
                "gap",
                format!("arguments for tool call `{id}`, whose TOOL_CALL_START never arrived: kept, its name unknown"),
            );
            let step = self.content_step(ev);
            self.steps.has_tool_calls = true;
            self.calls.insert(
                id.to_string(),
                Call {
                    step,
                    ..Call::default()
                },
            );
        }
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        if call.ended {
            ev.out.warn(
                "/toolCallId",
                "gap",
                format!("arguments for tool call `{id}` after its TOOL_CALL_END: ignored"),
            );
            return;
        }
        call.args.push_str(delta);
    }

    fn tool_end(&mut self, id: &str, ev: &mut Ev<'_>) {
        if self.calls.get(id).is_some_and(|c| c.ended) {
            ev.out.duplicate();
            return;
        }
        if !self.calls.contains_key(id) {
            ev.out.warn(
                "/toolCallId",
                "gap",
                format!(
                    "tool call `{id}` ended, but neither its TOOL_CALL_START nor arguments arrived"
                ),
            );
            let step = self.content_step(ev);
            self.steps.has_tool_calls = true;
            self.calls.insert(
                id.to_string(),
                Call {
                    step,
                    ..Call::default()
                },
            );
        }
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        call.ended = true;
        let args = parse_args(&call.args);
        let mut p = Map::with_capacity(4);
        p.insert("tool_name", Value::from(call.name.as_str()));
        p.insert("tool_call_id", Value::from(id));
        p.insert("args", args);
        p.insert("step_number", Value::from(call.step));
        self.emit("agent.tool.started", p, ev);
    }

    fn tool_chunk(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = opt_str(event, "toolCallId")?;
        let name = opt_str(event, "toolCallName")?;
        opt_str(event, "parentMessageId")?;
        let delta = opt_str(event, "delta")?;
        let open = match &self.chunking {
            Some(Chunking::Tool(open)) => Some(open.clone()),
            _ => None,
        };
        let id = match (open, id) {
            (Some(open), None) => open,
            (Some(open), Some(id)) if open == id => open,
            (_, Some(id)) => {
                self.close_chunks(ev);
                match name {
                    Some(name) => self.tool_start(id, name, ev),
                    None => ev.out.warn(
                        "/toolCallName",
                        "gap",
                        format!("the first TOOL_CALL_CHUNK of call `{id}` has no `toolCallName`: its name is unknown"),
                    ),
                }
                if !self.calls.contains_key(id) {
                    let step = self.content_step(ev);
                    self.steps.has_tool_calls = true;
                    self.calls.insert(
                        id.to_string(),
                        Call {
                            step,
                            ..Call::default()
                        },
                    );
                }
                self.chunking = Some(Chunking::Tool(id.to_string()));
                id.to_string()
            }
            (None, None) => {
                self.close_chunks(ev);
                ev.out.warn(
                    "/toolCallId",
                    "gap",
                    "TOOL_CALL_CHUNK without `toolCallId` and no chunked call open: its arguments have no call to belong to",
                );
                return Ok(());
            }
        };
        if let Some(delta) = delta {
            self.tool_args(&id, delta, ev);
        }
        Ok(())
    }

    fn tool_result(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let message_id = req_str(event, "messageId")?;
        let id = req_str(event, "toolCallId")?;
        let content = event.get("content").ok_or_else(|| missing("content"))?;
        if !(content.is_string() || content.is_array()) {
            return Err(wrong("content", "a string or an array of parts", content));
        }
        opt_str(event, "role")?;
        let error_field = opt_str(event, "error")?;
        if !self.results.insert(message_id.to_string()) {
            ev.out.duplicate();
            return Ok(());
        }
        let (name, step) = match self.calls.get(id) {
            Some(c) => {
                if !c.ended {
                    ev.out.warn(
                        "/toolCallId",
                        "gap",
                        format!("result for tool call `{id}` before its TOOL_CALL_END"),
                    );
                }
                (c.name.clone(), c.step)
            }
            None => {
                ev.out.warn(
                    "/toolCallId",
                    "gap",
                    format!(
                        "result for tool call `{id}`, which never started: kept, its name unknown"
                    ),
                );
                self.check_inside_run(ev);
                if self.steps.number == 0 {
                    self.open_step(None, ev);
                }
                (String::new(), self.steps.number)
            }
        };
        if self.steps.open && self.steps.name.is_none() {
            self.steps.results_arrived = true;
        }
        let error = error_field
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .or_else(|| content.as_str().and_then(failure_of));
        let mut p = Map::with_capacity(6);
        p.insert("tool_name", Value::from(name));
        p.insert("tool_call_id", Value::from(id));
        p.insert("success", Value::Bool(error.is_none()));
        if let Some(e) = error {
            p.insert("error", Value::from(e));
        }
        p.insert("result", content.clone());
        p.insert("step_number", Value::from(step.max(1)));
        self.emit("agent.tool.completed", p, ev);
        Ok(())
    }

    fn reasoning_start(&mut self, id: &str, ev: &mut Ev<'_>) {
        if self.reasoning.get(id).is_some_and(|m| !m.ended) {
            ev.out.duplicate();
            return;
        }
        self.content_step(ev);
        self.reasoning.insert(
            id.to_string(),
            Message {
                role: "reasoning".into(),
                ..Message::default()
            },
        );
    }

    /// `id` is `None` for the pre-1.0 `THINKING_TEXT_MESSAGE_CONTENT`, which names no message.
    fn reasoning_content(&mut self, id: Option<&str>, delta: &str, ev: &mut Ev<'_>) {
        if let Some(id) = id {
            if !self.reasoning.contains_key(id) {
                ev.out.warn(
                    "/messageId",
                    "gap",
                    format!("reasoning for message `{id}`, whose REASONING_MESSAGE_START never arrived: kept"),
                );
                self.reasoning_start(id, ev);
            }
        }
        if delta.is_empty() {
            return;
        }
        let step = self.content_step(ev);
        let mut p = Map::with_capacity(2);
        p.insert("text_delta", Value::from(delta));
        p.insert("step_number", Value::from(step));
        self.emit("agent.llm.reasoning.delta", p, ev);
    }

    fn reasoning_end(&mut self, id: &str, ev: &mut Ev<'_>) {
        match self.reasoning.get_mut(id) {
            None => ev.out.warn(
                "/messageId",
                "gap",
                format!(
                    "reasoning message `{id}` ended, but its REASONING_MESSAGE_START never arrived"
                ),
            ),
            Some(m) if m.ended => ev.out.duplicate(),
            Some(m) => m.ended = true,
        }
    }

    fn reasoning_chunk(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = opt_str(event, "messageId")?.filter(|s| !s.is_empty());
        let delta = opt_str(event, "delta")?;
        let open = match &self.chunking {
            Some(Chunking::Reasoning(open)) => Some(open.clone()),
            _ => None,
        };
        let id = match (open, id) {
            (Some(open), None) => open,
            (Some(open), Some(id)) if open == id => open,
            (_, Some(id)) => {
                self.close_chunks(ev);
                self.chunking = Some(Chunking::Reasoning(id.to_string()));
                if self.reasoning.get(id).is_none_or(|m| m.ended) {
                    self.reasoning_start(id, ev);
                }
                id.to_string()
            }
            (None, None) => {
                self.close_chunks(ev);
                ev.out.warn(
                    "/messageId",
                    "gap",
                    "REASONING_MESSAGE_CHUNK without `messageId` and no chunked reasoning open: kept",
                );
                let id = String::new();
                self.chunking = Some(Chunking::Reasoning(id.clone()));
                self.reasoning_start(&id, ev);
                id
            }
        };
        if let Some(delta) = delta {
            self.reasoning_content(Some(&id), delta, ev);
        }
        Ok(())
    }

    fn state_delta(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let delta = event.get("delta").ok_or_else(|| missing("delta"))?;
        let current = self
            .state
            .take()
            .unwrap_or_else(|| Value::Object(Map::new()));
        match json_patch::apply(&current, delta, "/delta") {
            Ok(next) => {
                self.state = Some(next.clone());
                self.data("state", next, ev);
                Ok(())
            }
            Err(PatchFailure::Malformed(e)) => {
                self.state = Some(current);
                Err(e)
            }
            Err(PatchFailure::NotApplicable(e)) => {
                self.state = Some(current);
                ev.out.warn(
                    e.path.as_deref().unwrap_or("/delta"),
                    "gap",
                    format!(
                        "the state delta does not apply to the state held (a snapshot or delta before it is missing): {}; the state is unchanged",
                        e.message
                    ),
                );
                Ok(())
            }
        }
    }

    fn activity_snapshot(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = req_str(event, "messageId")?;
        let activity_type = req_str(event, "activityType")?;
        let content = event.get("content").ok_or_else(|| missing("content"))?;
        if !content.is_object() {
            return Err(wrong("content", "an object", content));
        }
        let replace = match event.get("replace") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(wrong("replace", "a boolean", other)),
        };
        if replace || !self.activities.contains_key(id) {
            let entry = obj([
                ("activityType", activity_type.into()),
                ("content", content.clone()),
            ]);
            self.activities.insert(id.to_string(), entry);
        }
        self.data("activities", Value::Object(self.activities.clone()), ev);
        Ok(())
    }

    fn activity_delta(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = req_str(event, "messageId")?;
        let activity_type = req_str(event, "activityType")?;
        let patch = event.get("patch").ok_or_else(|| missing("patch"))?;
        let Some(entry) = self.activities.get_mut(id).and_then(Value::as_object_mut) else {
            // Checked for shape even though there is nothing to apply it to.
            json_patch::apply(&Value::Object(Map::new()), patch, "/patch").or_else(
                |f| match f {
                    PatchFailure::Malformed(e) => Err(e),
                    PatchFailure::NotApplicable(_) => Ok(Value::Null),
                },
            )?;
            ev.out.warn(
                "/messageId",
                "gap",
                format!("activity `{id}` changed, but its ACTIVITY_SNAPSHOT never arrived: the change is not applied"),
            );
            return Ok(());
        };
        let content = entry
            .get("content")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        match json_patch::apply(&content, patch, "/patch") {
            Ok(next) => {
                entry.insert("activityType", Value::from(activity_type));
                entry.insert("content", next);
            }
            Err(PatchFailure::Malformed(e)) => return Err(e),
            Err(PatchFailure::NotApplicable(e)) => {
                ev.out.warn(
                    e.path.as_deref().unwrap_or("/patch"),
                    "gap",
                    format!(
                        "the activity delta does not apply to activity `{id}` as held: {}; it is unchanged",
                        e.message
                    ),
                );
                return Ok(());
            }
        }
        self.data("activities", Value::Object(self.activities.clone()), ev);
        Ok(())
    }

    fn subagent(&mut self, kind: &str, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
        let id = req_str(event, "subagentRunId")?;
        let entry = match kind {
            "SUBAGENT_STARTED" => {
                let name = req_str(event, "name")?;
                let mut m = Map::with_capacity(4);
                m.insert("name", Value::from(name));
                m.insert("status", Value::from("running"));
                for key in [
                    "description",
                    "parentSubagentRunId",
                    "parentToolCallId",
                    "parentMessageId",
                ] {
                    if let Some(v) = opt_str(event, key)? {
                        m.insert(key.to_string(), Value::from(v));
                    }
                }
                m
            }
            "SUBAGENT_FINISHED" => {
                let mut m = self
                    .subagents
                    .get(id)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let status = match event.get("outcome") {
                    Some(Value::Object(o)) => o
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("success")
                        .to_string(),
                    None | Some(Value::Null) => "success".to_string(),
                    Some(other) => return Err(wrong("outcome", "an object", other)),
                };
                m.insert("status", Value::from(status));
                if let Some(r) = event.get("result").filter(|v| !v.is_null()) {
                    m.insert("result", r.clone());
                }
                m
            }
            _ => {
                let message = req_str(event, "message")?;
                let mut m = self
                    .subagents
                    .get(id)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                m.insert("status", Value::from("failed"));
                m.insert("error", Value::from(message));
                if let Some(code) = opt_str(event, "code")? {
                    m.insert("code", Value::from(code));
                }
                m
            }
        };
        self.subagents.insert(id.to_string(), Value::Object(entry));
        self.data("subagents", Value::Object(self.subagents.clone()), ev);
        Ok(())
    }
}

/// Why a tool failed, from its result content, by the conventions of AG-UI's
/// reference adapters (see the module documentation); `None` for a success.
fn failure_of(content: &str) -> Option<String> {
    let trimmed = content.trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    let v = crate::json::parse(content, &Limits::default()).ok()?;
    let m = v.as_object()?;
    match m.get("error")? {
        Value::String(e) if !e.is_empty() => Some(e.clone()),
        Value::Bool(true) => Some(
            ["content", "message"]
                .iter()
                .find_map(|k| m.get(k).and_then(Value::as_str))
                .map_or_else(|| content.to_string(), str::to_string),
        ),
        _ => None,
    }
}

/// A tool call's argument text: the JSON value when it parses, else the text.
fn parse_args(text: &str) -> Value {
    crate::json::parse(text, &Limits::default()).unwrap_or_else(|_| Value::from(text))
}

/// `timestamp` (milliseconds since the epoch, as every AG-UI SDK writes it)
/// as RFC 3339.
fn timestamp(event: &Map) -> Result<Option<String>> {
    let ms = match event.get("timestamp") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(wrong(
                "timestamp",
                "a number (milliseconds since 1970)",
                other,
            ))
        }
    };
    let t = ms
        .and_then(crate::model::time::from_epoch_millis)
        .filter(crate::model::time::in_atom_range)
        .ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidTimestamp,
                "/timestamp",
                "expected milliseconds since 1970 within years 0 to 9999",
            )
        })?;
    Ok(Some(crate::model::time::format_utc_millis(&t)))
}

/// Token usage of `RUN_FINISHED` / `RUN_ERROR`: the entries summed into the
/// view's usage, and the entries as sent.
fn usage(event: &Map) -> Result<Option<(Map, Value)>> {
    let entries = match event.get("usage") {
        None | Some(Value::Null) => return Ok(None),
        Some(v @ Value::Array(_)) => v,
        Some(other) => return Err(wrong("usage", "an array", other)),
    };
    let keys = [
        ("inputTokens", "input"),
        ("outputTokens", "output"),
        ("cachedInputTokens", "cacheRead"),
        ("cacheWriteInputTokens", "cacheWrite"),
        ("reasoningTokens", "reasoning"),
    ];
    let mut sums = [0i64; 5];
    for (i, entry) in entries.as_array().into_iter().flatten().enumerate() {
        let at = format!("/usage/{i}");
        let Some(m) = entry.as_object() else {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                &at,
                format!("expected a token usage object, found {}", type_name(entry)),
            ));
        };
        for ((key, _), sum) in keys.iter().zip(sums.iter_mut()) {
            let n = match m.get(key) {
                None | Some(Value::Null) => 0,
                Some(Value::Number(n)) => match crate::json::whole(n) {
                    crate::json::Whole::Int(n) if n >= 0 => n,
                    _ => {
                        return Err(SteplineError::at(
                            ErrorCode::OutOfRange,
                            &child(&at, key),
                            format!("expected `{key}` to be a whole number of tokens, 0 or more"),
                        ))
                    }
                },
                Some(other) => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        &child(&at, key),
                        format!(
                            "expected `{key}` to be a number, found {}",
                            type_name(other)
                        ),
                    ))
                }
            };
            *sum = sum.saturating_add(n);
        }
    }
    let mut total = Map::with_capacity(5);
    for ((_, name), sum) in keys.iter().zip(sums) {
        total.insert(*name, Value::from(sum));
    }
    Ok(Some((total, entries.clone())))
}

fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    crate::json::obj(pairs)
}

fn missing(key: &str) -> SteplineError {
    SteplineError::at(
        ErrorCode::MissingField,
        &child("", key),
        format!("expected the event to have `{key}`"),
    )
}

fn wrong(key: &str, expected: &str, found: &Value) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidType,
        &child("", key),
        format!(
            "expected `{key}` to be {expected}, found {}",
            type_name(found)
        ),
    )
}

fn req_str<'a>(m: &'a Map, key: &str) -> Result<&'a str> {
    req_str_at(m, key, "")
}

fn req_str_at<'a>(m: &'a Map, key: &str, at: &str) -> Result<&'a str> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s),
        None => Err(SteplineError::at(
            ErrorCode::MissingField,
            &child(at, key),
            format!("expected `{key}`"),
        )),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidType,
            &child(at, key),
            format!(
                "expected `{key}` to be a string, found {}",
                type_name(other)
            ),
        )),
    }
}

/// An optional string; `null` reads as absent (producers that serialise
/// optional fields as `null`, which @ag-ui/core tolerates).
fn opt_str<'a>(m: &'a Map, key: &str) -> Result<Option<&'a str>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong(key, "a string", other)),
    }
}
