//! The AI SDK 6 UI message stream (`ai@6.0.324`): the chunks
//! `toUIMessageStream()` / `createUIMessageStream()` send to `useChat` and
//! `readUIMessageStream`, read into the normalised vocabulary.
//!
//! One run is one assistant message: `start` opens it (its `messageId` is
//! the execution id; without one the translator makes `ai-sdk-<n>`), a
//! `start` with another `messageId` opens the next, and `finish` ends it
//! with the producer's `finishReason`. A response that continues the same
//! message (its `start` repeats the `messageId`, or content simply follows
//! the `finish`: the response after a person answered a tool approval)
//! reopens the run (the same execution, no new turn) until its next
//! `finish`. The stream carries no timestamps, so neither do the envelopes.
//! What each chunk becomes:
//!
//! | chunk | envelope |
//! |---|---|
//! | `start` | `agent.status` processing (new run); `messageMetadata` as `metadata` data |
//! | `start-step` / `finish-step` | `agent.step.started` / `agent.step.completed` (`has_tool_calls`) |
//! | `text-start` / `-end` | nothing (the part is tracked: a delta or end without its start is a gap) |
//! | `text-delta` | `agent.llm.output_text.delta` |
//! | `reasoning-start` / `-end` | nothing (tracked like text) |
//! | `reasoning-delta` | `agent.llm.reasoning.delta` |
//! | `tool-input-start` / `-delta` | nothing yet: the input text accumulates |
//! | `tool-input-available` | `agent.tool.started` (`args` = `input`) |
//! | `tool-input-error` | `agent.tool.started` (if not yet) + `agent.tool.completed` failed |
//! | `tool-output-available` | `agent.tool.completed` (`result` = `output`); `preliminary`: `agent.tool.output` (the output's JSON, one line each) |
//! | `tool-output-error` | `agent.tool.completed` failed (`error` = `errorText`) |
//! | `tool-approval-request` | `agent.tool.approval` requested (`approval_id`) |
//! | `tool-output-denied` | `agent.tool.approval` denied + `agent.tool.completed` failed (`error` "denied") |
//! | `source-url` / `source-document` | a citation in the step's annotations |
//! | `file` | `agent.data` `file#<n>` |
//! | `data-<name>` | `agent.data` `data-<name>:<id>` (a later chunk with the id replaces), `data-<name>#<n>` without an id, `data-<name>` when transient |
//! | `message-metadata` (and `start`/`finish` metadata) | `agent.data` `metadata`, merged as the SDK merges it |
//! | `finish` | `agent.run.completed` (`reason` = `finishReason`, `final_answer` = the last step's text) |
//! | `error` | `agent.run.failed` (`error` = `errorText`, `reason` "error"); a later `finish` changes nothing |
//! | `abort` | `agent.run.interrupted` (`reason` "abort", `data.reason` the producer's) |
//!
//! An abort is an interruption, not a failure: the client stopped the
//! stream (`useChat`'s `stop()`), no error happened, and `useChat` returns to
//! "ready", not "error". An unknown chunk type is kept as a warning; a chunk
//! whose opening chunk never came (a text delta without its `text-start`, a
//! tool output for an unknown call, any chunk before `start`) is translated
//! anyway, with a `gap` warning.

mod chunk;
mod final_form;

use std::collections::BTreeMap;

use crate::dialects::line::Line;
use crate::dialects::{LineRead, Out};
use crate::error::Result;
use crate::json::{child, obj, Map, Value};

use chunk::{flag, merge_objects, one_of, str_of, Kind};

/// The finish reasons of `ai@6.0.324` (`FinishReason`).
const FINISH_REASONS: &[&str] = &[
    "stop",
    "length",
    "content-filter",
    "tool-calls",
    "error",
    "other",
];

/// The last step's text kept for the run's final answer is cut at this many
/// bytes (the session keeps the full text; this copy only names the answer).
const ANSWER_MAX: usize = 1 << 20;

/// Whether `event` is a UI message chunk: a type `ai@6.0.324` declares (an
/// `error` only with its `errorText`, as laravel/ai's `error` has none), a
/// `data-` part, or any other lower-case kebab-case type (a chunk type of a
/// newer SDK, kept as a warning).
pub(crate) fn claims(event: &Map) -> bool {
    let Some(kind) = event.get("type").and_then(Value::as_str) else {
        return false;
    };
    match kind {
        "error" => event.contains_key("errorText"),
        "start" | "finish" | "abort" | "file" => true,
        k => {
            Kind::of(k).is_some()
                || (k.contains('-')
                    && !k.starts_with('-')
                    && k.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
        }
    }
}

/// The run a chunk starts: a `start` chunk's `messageId` (a run sent again
/// with the same id is a redelivery while its chunks repeat; see
/// `Translators`). A `start` without one starts no run of its own.
pub(crate) fn run_start(event: &Map) -> Option<&str> {
    match event.get("type").and_then(Value::as_str) {
        Some("start") => str_of(event, "messageId"),
        _ => None,
    }
}

/// A tool call of the current run.
#[derive(Debug, Default, Clone)]
struct Tool {
    /// The tool's name (empty when only its output was seen).
    name: String,
    /// The input text streamed so far (`tool-input-delta`), until it is available.
    input: String,
    /// The step it belongs to.
    step: i64,
    /// `agent.tool.started` was emitted.
    started: bool,
    /// It completed, failed or was denied.
    ended: bool,
    /// An approval was requested and not yet answered.
    awaiting_approval: bool,
}

/// Per-session translation state: the run being read.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    /// The current run's execution id (`None` before the first chunk).
    execution: Option<String>,
    /// Runs opened without a `messageId` (names the next one `ai-sdk-<n>`).
    unnamed: u64,
    /// How the current run ended (`completed`, `failed`, `interrupted`),
    /// `None` while it runs.
    ended: Option<&'static str>,
    /// The current run failed (an `error` chunk).
    failed: bool,
    /// The current step number (0 before the first `start-step`).
    step: i64,
    /// A step is open (`start-step` seen, `finish-step` not yet).
    in_step: bool,
    /// The open step had a tool call.
    step_tools: bool,
    /// Open text and reasoning part ids (cleared at `finish-step`, as the SDK does).
    open_text: Vec<String>,
    open_reasoning: Vec<String>,
    /// The current step's text (the final answer when it is the last).
    step_text: String,
    /// The last completed step's text.
    last_text: String,
    /// Tool calls of the run by id.
    tools: BTreeMap<String, Tool>,
    /// Data parts without an id, and files, counted per name.
    counts: BTreeMap<String, u64>,
    /// The run's message metadata, merged.
    metadata: Option<Value>,
}

impl State {
    /// Translates one chunk (`path` prefix "" for its root).
    pub(crate) fn translate(&mut self, mut event: Map, out: &mut Out) -> Result<()> {
        let kind = str_of(&event, "type").unwrap_or_default();
        let Some(k) = Kind::of(kind) else {
            out.warn(
                "/type",
                "unknown_type",
                format!(
                    "unknown AI SDK chunk type {} (kept)",
                    crate::json::quote(kind)
                ),
            );
            return Ok(());
        };
        for extra in chunk::check(&event, k.fields())? {
            out.warn(
                &child("", extra),
                "unknown_field",
                format!(
                    "unknown field {} of a {} chunk (kept in the recording)",
                    crate::json::quote(extra),
                    kind
                ),
            );
        }
        // Every refusal comes before any state changes: a refused chunk's
        // envelopes are discarded and its line is not recorded, so a
        // translator that had opened (or reopened) a run for it would go on
        // differently from the recording's replay, which never sees it.
        match k {
            Kind::Finish => {
                one_of(&event, "finishReason", FINISH_REASONS)?;
            }
            Kind::ToolInputStart => {
                one_of(&event, "inputEncoding", &["json", "text"])?;
            }
            _ => {}
        }
        if k == Kind::Start {
            return self.start(&event, out);
        }
        if self.execution.is_none() {
            out.warn(
                "/type",
                "gap",
                format!("a {kind} chunk before any start chunk: the run's start is missing"),
            );
            self.open(None, out);
        }
        if self.ended.is_some() && k.reopens() {
            self.reopen();
        }
        match k {
            Kind::StartStep => self.start_step(out),
            Kind::FinishStep => self.finish_step(out),
            Kind::TextStart | Kind::ReasoningStart => self.part_start(k, &event),
            Kind::TextEnd | Kind::ReasoningEnd => self.part_end(k, kind, &event, out),
            Kind::TextDelta | Kind::ReasoningDelta => self.delta(k, &mut event, out),
            Kind::ToolInputStart => self.tool_input_start(&event)?,
            Kind::ToolInputDelta => self.tool_input_delta(&event, out),
            Kind::ToolInputAvailable => self.tool_input_available(event, out),
            Kind::ToolInputError => self.tool_input_error(event, out),
            Kind::ToolOutputAvailable => self.tool_output(event, out),
            Kind::ToolOutputError => self.tool_output_error(&event, out),
            Kind::ToolApprovalRequest => self.approval_request(&event, out),
            Kind::ToolOutputDenied => self.denied(&event, out),
            Kind::SourceUrl | Kind::SourceDocument => {
                let kind = kind.to_string();
                self.source(&kind, event, out)
            }
            Kind::File => self.file(event, out),
            Kind::MessageMetadata => self.metadata(event, out),
            Kind::Finish => self.finish(event, out)?,
            Kind::Error => self.error(&event, out),
            Kind::Abort => self.abort(&event, out),
            // (A start returned above.)
            Kind::Start | Kind::Data => {
                let kind = kind.to_string();
                self.data(&kind, event, out)
            }
        }
        Ok(())
    }

    fn id(&self) -> Option<&str> {
        self.execution.as_deref()
    }

    /// A `text-delta`, `reasoning-delta` or `tool-input-delta` chunk read
    /// from its line, as `ai@6.0.324` writes it (`{"type":…,"id":…,
    /// "delta":…}`, `{"type":"tool-input-delta","toolCallId":…,
    /// "inputTextDelta":…}`), while a run is open and has not ended: what
    /// [`translate`](State::translate) does with the parsed chunk then
    /// (no unknown field, no refusal, no gap before a start, no reopening).
    fn translate_line(&mut self, line: &str, out: &mut Out) -> Option<LineRead> {
        let rest = line.strip_prefix("{\"type\":\"")?;
        let (k, kind) = if rest.starts_with("text-delta\"") {
            (Kind::TextDelta, "text-delta")
        } else if rest.starts_with("reasoning-delta\"") {
            (Kind::ReasoningDelta, "reasoning-delta")
        } else if rest.starts_with("tool-input-delta\"") {
            (Kind::ToolInputDelta, "tool-input-delta")
        } else {
            return None;
        };
        if self.execution.is_none() || self.ended.is_some() {
            return None;
        }
        let mut l = Line::new(line, true)?;
        l.key(true, "type")?;
        l.word()?;
        if k == Kind::ToolInputDelta {
            l.key(false, "toolCallId")?;
            let id = l.text()?;
            l.key(false, "inputTextDelta")?;
            let delta = l.text()?;
            let fingerprint = l.end()?;
            self.tool_input_delta_of(&id, &delta, out);
            return Some(LineRead { kind, fingerprint });
        }
        l.key(false, "id")?;
        let id = l.text()?;
        l.key(false, "delta")?;
        let delta = l.string()?;
        let fingerprint = l.end()?;
        self.delta_of(k, kind, &id, delta, out);
        Some(LineRead { kind, fingerprint })
    }

    /// The step an event outside any step belongs to (the current, or 1).
    fn step_number(&self) -> i64 {
        self.step.max(1)
    }

    /// Opens a new run named `message_id` (else `ai-sdk-<n>`).
    fn open(&mut self, message_id: Option<&str>, out: &mut Out) {
        let id = match message_id {
            Some(id) => id.to_string(),
            None => {
                self.unnamed += 1;
                format!("ai-sdk-{}", self.unnamed)
            }
        };
        let unnamed = self.unnamed;
        *self = State {
            execution: Some(id),
            unnamed,
            ..State::default()
        };
        out.emit(
            "agent.status",
            self.id(),
            None,
            map([
                ("status", Value::from("processing")),
                ("previous_status", Value::Null),
            ]),
        );
    }

    /// The ended run goes on: the response that continues its message (after
    /// a tool approval, or a resumed stream) belongs to the same execution
    /// until its next `finish`. No status is sent: to the session a run that
    /// completes and then processes again is its next turn, which this is not.
    fn reopen(&mut self) {
        self.ended = None;
        self.failed = false;
    }

    /// `start`: a new run, unless it continues the current one (no
    /// `messageId`, or the same one, while the run has not ended: merged
    /// streams and resumed streams send `start` again).
    fn start(&mut self, event: &Map, out: &mut Out) -> Result<()> {
        let message_id = str_of(event, "messageId");
        let continues = match (&self.execution, message_id) {
            (None, _) => false,
            (Some(current), Some(id)) => current == id,
            (Some(_), None) => self.ended.is_none(),
        };
        if continues && self.ended.is_some() {
            self.reopen();
        }
        if !continues {
            if self.execution.is_some() && self.ended.is_none() {
                out.warn(
                    "/messageId",
                    "gap",
                    format!(
                        "run {} never finished before this start",
                        crate::json::quote(self.id().unwrap_or_default())
                    ),
                );
            }
            self.open(message_id, out);
        }
        if let Some(m) = event.get("messageMetadata").cloned() {
            self.merge_metadata(m, out);
        }
        Ok(())
    }

    fn start_step(&mut self, out: &mut Out) {
        if self.in_step {
            out.warn(
                "/type",
                "gap",
                format!("step {} never finished before this start-step", self.step),
            );
        }
        self.step += 1;
        self.in_step = true;
        self.step_tools = false;
        self.step_text.clear();
        out.emit(
            "agent.step.started",
            self.id(),
            None,
            map([("step_number", Value::from(self.step))]),
        );
    }

    fn finish_step(&mut self, out: &mut Out) {
        if !self.in_step {
            out.warn(
                "/type",
                "gap",
                "a finish-step without its start-step (not applied)",
            );
            return;
        }
        self.in_step = false;
        self.open_text.clear();
        self.open_reasoning.clear();
        self.last_text = std::mem::take(&mut self.step_text);
        self.unfinished_inputs(out);
        out.emit(
            "agent.step.completed",
            self.id(),
            None,
            map([
                ("step_number", Value::from(self.step)),
                ("has_tool_calls", Value::from(self.step_tools)),
            ]),
        );
    }

    fn part_start(&mut self, k: Kind, event: &Map) {
        let id = str_of(event, "id").unwrap_or_default().to_string();
        let open = self.parts(k);
        if !open.contains(&id) {
            open.push(id);
        }
    }

    /// `kind` is the chunk's type (`k`) as written.
    fn part_end(&mut self, k: Kind, kind: &str, event: &Map, out: &mut Out) {
        let id = str_of(event, "id").unwrap_or_default();
        let open = self.parts(k);
        match open.iter().position(|o| o == id) {
            Some(i) => {
                open.remove(i);
            }
            None => out.warn(
                "/id",
                "gap",
                format!(
                    "{kind} for part {} that never started",
                    crate::json::quote(id)
                ),
            ),
        }
    }

    /// Its text is moved out of the chunk into the envelope, not copied: the
    /// chunk is dropped after this, its redelivery fingerprint already taken.
    fn delta(&mut self, k: Kind, event: &mut Map, out: &mut Out) {
        let delta = match event.get_mut("delta") {
            Some(Value::String(s)) => std::mem::take(s),
            _ => String::new(),
        };
        let kind = str_of(event, "type").unwrap_or_default();
        let id = str_of(event, "id").unwrap_or_default();
        self.delta_of(k, kind, id, delta, out);
    }

    /// A text or reasoning delta of type `kind` to the part `id`.
    fn delta_of(&mut self, k: Kind, kind: &str, id: &str, delta: String, out: &mut Out) {
        if !self.parts(k).iter().any(|o| o == id) {
            out.warn(
                "/id",
                "gap",
                format!(
                    "{kind} for part {} that never started (its text is kept)",
                    crate::json::quote(id)
                ),
            );
        }
        if k == Kind::TextDelta && self.step_text.len() < ANSWER_MAX {
            push_cut(&mut self.step_text, &delta, ANSWER_MAX);
        }
        let step = self.step_number();
        out.emit_delta(k != Kind::TextDelta, self.id(), None, step, delta);
    }

    fn parts(&mut self, k: Kind) -> &mut Vec<String> {
        if matches!(k, Kind::TextStart | Kind::TextEnd | Kind::TextDelta) {
            &mut self.open_text
        } else {
            &mut self.open_reasoning
        }
    }

    fn tool_input_start(&mut self, event: &Map) -> Result<()> {
        one_of(event, "inputEncoding", &["json", "text"])?;
        let id = str_of(event, "toolCallId").unwrap_or_default().to_string();
        let tool = Tool {
            name: str_of(event, "toolName").unwrap_or_default().to_string(),
            step: self.step_number(),
            ..Tool::default()
        };
        self.step_tools = true;
        self.tools.insert(id, tool);
        Ok(())
    }

    fn tool_input_delta(&mut self, event: &Map, out: &mut Out) {
        let id = str_of(event, "toolCallId").unwrap_or_default();
        let delta = str_of(event, "inputTextDelta").unwrap_or_default();
        self.tool_input_delta_of(id, delta, out);
    }

    fn tool_input_delta_of(&mut self, id: &str, delta: &str, out: &mut Out) {
        match self.tools.get_mut(id).filter(|t| !t.started) {
            Some(tool) => tool.input.push_str(delta),
            None => out.warn(
                "/toolCallId",
                "gap",
                format!(
                    "tool input for call {} that never started streaming (not applied)",
                    crate::json::quote(id)
                ),
            ),
        }
    }

    /// The tool call `id` as a later chunk of this step finds it: a call
    /// that has ended stays with its step; the same id in a later step is a
    /// new call (the SDK keeps both parts).
    fn tool_for_input(&mut self, id: &str, name: &str) -> &mut Tool {
        let step = self.step_number();
        let fresh = match self.tools.get(id) {
            Some(t) => t.step != step && (t.started || t.ended),
            None => true,
        };
        if fresh {
            self.tools.insert(
                id.to_string(),
                Tool {
                    step,
                    ..Tool::default()
                },
            );
        }
        self.step_tools = true;
        let tool = self.tools.entry(id.to_string()).or_default();
        tool.name = name.to_string();
        tool
    }

    fn tool_input_available(&mut self, mut event: Map, out: &mut Out) {
        let id = str_of(&event, "toolCallId").unwrap_or_default().to_string();
        let name = str_of(&event, "toolName").unwrap_or_default().to_string();
        let input = event.remove("input").unwrap_or(Value::Null);
        let execution = self.execution.clone();
        let tool = self.tool_for_input(&id, &name);
        tool.started = true;
        tool.input.clear();
        let step = tool.step;
        out.emit(
            "agent.tool.started",
            execution.as_deref(),
            None,
            map([
                ("tool_name", Value::from(name)),
                ("tool_call_id", Value::from(id)),
                ("args", input),
                ("step_number", Value::from(step)),
            ]),
        );
    }

    fn tool_input_error(&mut self, mut event: Map, out: &mut Out) {
        let id = str_of(&event, "toolCallId").unwrap_or_default().to_string();
        let name = str_of(&event, "toolName").unwrap_or_default().to_string();
        let error = str_of(&event, "errorText").unwrap_or_default().to_string();
        let input = event.remove("input").unwrap_or(Value::Null);
        let execution = self.execution.clone();
        let tool = self.tool_for_input(&id, &name);
        let step = tool.step;
        let started = std::mem::replace(&mut tool.started, true);
        tool.ended = true;
        tool.input.clear();
        if !started {
            out.emit(
                "agent.tool.started",
                execution.as_deref(),
                None,
                map([
                    ("tool_name", Value::from(name.as_str())),
                    ("tool_call_id", Value::from(id.as_str())),
                    ("args", input),
                    ("step_number", Value::from(step)),
                ]),
            );
        }
        tool_completed(
            out,
            execution.as_deref(),
            name,
            id,
            Outcome::Error(Value::from(error)),
            step,
        );
    }

    /// The call a result chunk names; unknown calls are a gap (the call
    /// was made in a stream that is not here), still applied.
    fn tool_for_result(&mut self, id: &str, kind: &str, out: &mut Out) -> (String, i64) {
        if !self.tools.contains_key(id) {
            out.warn(
                "/toolCallId",
                "gap",
                format!(
                    "{kind} for tool call {} whose input never arrived",
                    crate::json::quote(id)
                ),
            );
            let step = self.step_number();
            self.tools.insert(
                id.to_string(),
                Tool {
                    step,
                    started: true,
                    ..Tool::default()
                },
            );
        }
        match self.tools.get(id) {
            Some(t) => (t.name.clone(), t.step),
            None => (String::new(), self.step_number()),
        }
    }

    fn tool_output(&mut self, mut event: Map, out: &mut Out) {
        let id = str_of(&event, "toolCallId").unwrap_or_default().to_string();
        let preliminary = flag(&event, "preliminary");
        let output = event.remove("output").unwrap_or(Value::Null);
        let (name, step) = self.tool_for_result(&id, "tool-output-available", out);
        if preliminary {
            let mut line = match &output {
                Value::String(s) => s.clone(),
                v => crate::json::to_string(v),
            };
            line.push('\n');
            out.emit(
                "agent.tool.output",
                self.id(),
                None,
                map([
                    ("tool_name", Value::from(name)),
                    ("tool_call_id", Value::from(id)),
                    ("text_delta", Value::from(line)),
                    ("step_number", Value::from(step)),
                ]),
            );
            return;
        }
        self.approved_if_awaiting(&id, &name, step, out);
        if let Some(t) = self.tools.get_mut(&id) {
            t.ended = true;
        }
        tool_completed(out, self.id(), name, id, Outcome::Result(output), step);
    }

    fn tool_output_error(&mut self, event: &Map, out: &mut Out) {
        let id = str_of(event, "toolCallId").unwrap_or_default().to_string();
        let error = str_of(event, "errorText").unwrap_or_default();
        let (name, step) = self.tool_for_result(&id, "tool-output-error", out);
        self.approved_if_awaiting(&id, &name, step, out);
        if let Some(t) = self.tools.get_mut(&id) {
            t.ended = true;
        }
        tool_completed(
            out,
            self.id(),
            name,
            id,
            Outcome::Error(Value::from(error)),
            step,
        );
    }

    /// A call that awaited approval and then ran was approved: the stream
    /// never says so itself (the answer travels in the client's next request).
    fn approved_if_awaiting(&mut self, id: &str, name: &str, step: i64, out: &mut Out) {
        let Some(t) = self.tools.get_mut(id).filter(|t| t.awaiting_approval) else {
            return;
        };
        t.awaiting_approval = false;
        self.approval(id, name, "approved", None, step, out);
    }

    fn approval(
        &self,
        id: &str,
        name: &str,
        approval: &str,
        approval_id: Option<&str>,
        step: i64,
        out: &mut Out,
    ) {
        let mut p = Map::with_capacity(5);
        if !name.is_empty() {
            p.push("tool_name", Value::from(name));
        }
        p.push("tool_call_id", Value::from(id));
        p.push("approval", Value::from(approval));
        if let Some(a) = approval_id {
            p.push("approval_id", Value::from(a));
        }
        p.push("step_number", Value::from(step));
        out.emit("agent.tool.approval", self.id(), None, p);
    }

    fn approval_request(&mut self, event: &Map, out: &mut Out) {
        let id = str_of(event, "toolCallId").unwrap_or_default().to_string();
        let (name, step) = self.tool_for_result(&id, "tool-approval-request", out);
        if let Some(t) = self.tools.get_mut(&id) {
            t.awaiting_approval = true;
        }
        self.approval(
            &id,
            &name,
            "requested",
            str_of(event, "approvalId"),
            step,
            out,
        );
    }

    fn denied(&mut self, event: &Map, out: &mut Out) {
        let id = str_of(event, "toolCallId").unwrap_or_default().to_string();
        let (name, step) = self.tool_for_result(&id, "tool-output-denied", out);
        if let Some(t) = self.tools.get_mut(&id) {
            t.awaiting_approval = false;
            t.ended = true;
        }
        self.approval(&id, &name, "denied", None, step, out);
        tool_completed(
            out,
            self.id(),
            name,
            id,
            Outcome::Error(Value::from("denied")),
            step,
        );
    }

    /// Tool inputs that started streaming and never became available (the
    /// step ended first): shown as started with the text that came, as a gap.
    fn unfinished_inputs(&mut self, out: &mut Out) {
        let execution = self.execution.clone();
        for (id, tool) in self.tools.iter_mut().filter(|(_, t)| !t.started) {
            tool.started = true;
            out.warn(
                "/type",
                "gap",
                format!(
                    "the input of tool call {} never became available (its streamed text is kept)",
                    crate::json::quote(id)
                ),
            );
            out.emit(
                "agent.tool.started",
                execution.as_deref(),
                None,
                map([
                    ("tool_name", Value::from(tool.name.as_str())),
                    ("tool_call_id", Value::from(id.as_str())),
                    ("args", Value::from(std::mem::take(&mut tool.input))),
                    ("step_number", Value::from(tool.step)),
                ]),
            );
        }
    }

    fn source(&mut self, kind: &str, mut event: Map, out: &mut Out) {
        let mut provider_ref = Map::new();
        for k in ["sourceId", "mediaType", "filename", "providerMetadata"] {
            if let Some(v) = event.remove(k) {
                provider_ref.push(k, v);
            }
        }
        let url = event.remove("url");
        let label = match (str_of(&event, "title"), &url) {
            (Some(t), _) => t.to_string(),
            (None, Some(Value::String(u))) => u.clone(),
            _ => kind.to_string(),
        };
        let mut citation = Map::with_capacity(3);
        citation.push("label", Value::from(label));
        citation.push("url", url.unwrap_or(Value::Null));
        citation.push("provider_ref", Value::Object(provider_ref));
        // An empty text delta carries the citation to the step it belongs to.
        out.emit(
            "agent.llm.output_text.delta",
            self.id(),
            None,
            map([
                ("text_delta", Value::from("")),
                ("step_number", Value::from(self.step_number())),
                (
                    "annotations",
                    obj([("citations", Value::from(vec![Value::Object(citation)]))]),
                ),
            ]),
        );
    }

    fn counted(&mut self, name: &str) -> String {
        let n = self.counts.entry(name.to_string()).or_insert(0);
        *n += 1;
        format!("{name}#{n}")
    }

    fn file(&mut self, mut event: Map, out: &mut Out) {
        event.remove("type");
        let name = self.counted("file");
        self.emit_data(&name, Value::Object(event), out);
    }

    fn data(&mut self, kind: &str, mut event: Map, out: &mut Out) {
        let value = event.remove("data").unwrap_or(Value::Null);
        let name = match (str_of(&event, "id"), flag(&event, "transient")) {
            (_, true) => kind.to_string(),
            (Some(id), false) => format!("{kind}:{id}"),
            (None, false) => self.counted(kind),
        };
        self.emit_data(&name, value, out);
    }

    fn emit_data(&self, name: &str, data: Value, out: &mut Out) {
        out.emit(
            "agent.data",
            self.id(),
            None,
            map([
                ("name", Value::from(name)),
                ("data", data),
                ("step_number", Value::from(self.step_number())),
            ]),
        );
    }

    fn merge_metadata(&mut self, value: Value, out: &mut Out) {
        if value.is_null() {
            return;
        }
        match &mut self.metadata {
            Some(m) => merge_objects(m, value),
            None => self.metadata = Some(value),
        }
        let merged = self.metadata.clone().unwrap_or(Value::Null);
        self.emit_data("metadata", merged, out);
    }

    fn metadata(&mut self, mut event: Map, out: &mut Out) {
        if let Some(m) = event.remove("messageMetadata") {
            self.merge_metadata(m, out);
        }
    }

    fn finish(&mut self, mut event: Map, out: &mut Out) -> Result<()> {
        let reason = one_of(&event, "finishReason", FINISH_REASONS)?.map(str::to_string);
        if let Some(m) = event.remove("messageMetadata") {
            self.merge_metadata(m, out);
        }
        if self.in_step {
            out.warn(
                "/type",
                "gap",
                format!("step {} never finished before the run's finish", self.step),
            );
            self.finish_step(out);
        }
        if self.ended.is_some() {
            // A failed run stays failed; a second finish repeats nothing.
            return Ok(());
        }
        self.ended = Some("completed");
        let mut p = Map::with_capacity(2);
        if !self.last_text.is_empty() {
            p.push("final_answer", Value::from(self.last_text.as_str()));
        }
        if let Some(r) = reason {
            p.push("reason", Value::from(r));
        }
        out.emit("agent.run.completed", self.id(), None, p);
        Ok(())
    }

    fn error(&mut self, event: &Map, out: &mut Out) {
        if self.failed {
            // The run already failed: a later error adds nothing the view shows.
            return;
        }
        self.ended = Some("failed");
        self.failed = true;
        out.emit(
            "agent.run.failed",
            self.id(),
            None,
            map([
                (
                    "error",
                    Value::from(str_of(event, "errorText").unwrap_or_default()),
                ),
                ("reason", Value::from("error")),
                ("step_number", Value::from(self.step_number())),
            ]),
        );
    }

    fn abort(&mut self, event: &Map, out: &mut Out) {
        self.ended = Some("interrupted");
        self.in_step = false;
        let mut p = Map::with_capacity(3);
        p.push("reason", Value::from("abort"));
        if let Some(r) = str_of(event, "reason") {
            p.push("data", obj([("reason", Value::from(r))]));
        }
        p.push("step_number", Value::from(self.step_number()));
        out.emit("agent.run.interrupted", self.id(), None, p);
    }
}

/// A payload from key/value pairs, in order.
fn map<const N: usize>(pairs: [(&'static str, Value); N]) -> Map {
    let mut m = Map::with_capacity(N);
    // The names are the translator's own: borrowed, not copied per envelope.
    for (k, v) in pairs {
        m.push(k, v);
    }
    m
}

/// Appends `s` to `out` up to `max` bytes, cut at a character boundary.
fn push_cut(out: &mut String, s: &str, max: usize) {
    let room = max.saturating_sub(out.len());
    let mut end = room.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(s.get(..end).unwrap_or_default());
}

/// How a tool call ended.
enum Outcome {
    /// Its output.
    Result(Value),
    /// Why it failed (or was denied).
    Error(Value),
}

/// Emits the completion of tool call `id` in `step`.
fn tool_completed(
    out: &mut Out,
    execution: Option<&str>,
    name: impl Into<Value>,
    id: impl Into<Value>,
    outcome: Outcome,
    step: i64,
) {
    let (success, key, value) = match outcome {
        Outcome::Result(v) => (true, "result", v),
        Outcome::Error(v) => (false, "error", v),
    };
    out.emit(
        "agent.tool.completed",
        execution,
        None,
        map([
            ("tool_name", name.into()),
            ("tool_call_id", id.into()),
            ("success", Value::from(success)),
            (key, value),
            ("step_number", Value::from(step)),
        ]),
    );
}

/// The AI SDK's UI message stream (`ai`): chunks whose `type` is `kebab-case`.
#[derive(Debug)]
pub struct AiSdk;

impl crate::dialects::Dialect for AiSdk {
    fn emits_normalised(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "ai-sdk"
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
