//! Tool calls: their start, arguments and end (`agent.tool.started`), and results.

use super::read::{missing, opt_str, req_str, wrong};
use super::{Call, Chunking, Ev, State};
use crate::error::Result;
use crate::json::{Limits, Map, Value};

impl State {
    pub(super) fn tool_start(&mut self, id: &str, name: &str, ev: &mut Ev<'_>) {
        if self.calls.get(id).is_some_and(|c| c.started) {
            ev.out.duplicate();
            return;
        }
        let step = self.content_step(ev);
        self.steps.has_tool_calls = true;
        let run = self.exec();
        if !self.calls.contains_key(id) {
            self.calls.insert(id, Call::default());
        }
        if let Some(call) = self.calls.get_mut(id) {
            call.name = name.to_string();
            call.started = true;
            call.step = step;
            call.run = run;
        }
    }

    /// A call whose start never arrived: kept in the step its content goes
    /// to now, its name unknown (the view shows its start as not seen).
    fn unnamed_call(&mut self, id: &str, ev: &mut Ev<'_>) {
        let step = self.content_step(ev);
        self.steps.has_tool_calls = true;
        let run = self.exec();
        self.calls.insert(
            id,
            Call {
                step,
                run,
                ..Call::default()
            },
        );
    }

    pub(super) fn tool_args(&mut self, id: &str, delta: &str, ev: &mut Ev<'_>) {
        if !self.calls.contains_key(id) {
            ev.out.warn(
                "/toolCallId",
                "gap",
                format!("arguments for tool call `{id}`, whose TOOL_CALL_START never arrived: kept, its name unknown"),
            );
            self.unnamed_call(id, ev);
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

    pub(super) fn tool_end(&mut self, id: &str, ev: &mut Ev<'_>) {
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
            self.unnamed_call(id, ev);
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

    pub(super) fn tool_chunk(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
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
                if name.is_some() && self.calls.get(id).is_some_and(|c| c.started) {
                    // A second start of the call (as a repeated TOOL_CALL_START):
                    // a redelivery, which changes nothing.
                    ev.out.duplicate();
                    return Ok(());
                }
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
                    self.unnamed_call(id, ev);
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

    pub(super) fn tool_result(&mut self, event: &Map, ev: &mut Ev<'_>) -> Result<()> {
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
        let (name, step, run) = match self.calls.get(id) {
            Some(c) => {
                if !c.ended {
                    ev.out.warn(
                        "/toolCallId",
                        "gap",
                        format!("result for tool call `{id}` before its TOOL_CALL_END"),
                    );
                }
                (c.name.clone(), c.step, c.run.clone())
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
                (String::new(), self.steps.number, None)
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
        self.emit_in(run.as_deref(), "agent.tool.completed", p, ev);
        Ok(())
    }
}

/// Why a tool failed, from its result content, by the conventions of AG-UI's
/// reference adapters (see the module documentation); `None` for a success.
pub(crate) fn failure_of(content: &str) -> Option<String> {
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
pub(super) fn parse_args(text: &str) -> Value {
    crate::json::parse(text, &Limits::default()).unwrap_or_else(|_| Value::from(text))
}
