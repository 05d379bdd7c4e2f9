//! The envelopes, as received, that built one step (the panel's "raw" view
//! and its "copy as JSON"), and the step as a conversation.
//!
//! Which envelopes built a step is what the session did with them, not what
//! they say (a tool event names no step; the session places it by time), so
//! the log is replayed into a new session and each envelope is kept when it
//! changed that step. This costs one replay of the log: a click, not a frame.
//!
//! The streams stepline reads do not carry a step's input messages (the
//! prompt): `message_count` says how many there were. What they carry of
//! the step — its reasoning, text, tool calls and results — is returned as
//! its output conversation ([`StepMessage`]).

use crate::json::{Limits, Value};
use crate::session::view::{StepView, ToolStatus};
use crate::session::Session;

/// One message of a step's output, in the order the model produced it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepMessage {
    /// `reasoning`, `assistant` (streamed text), `tool_call` or `tool_result`.
    pub role: &'static str,
    /// The text, or the tool call's arguments / the tool's result as JSON text.
    pub content: String,
    /// The tool's name (tool messages only).
    pub tool: Option<String>,
    /// The tool call's id, when streamed (tool messages only).
    pub call_id: Option<String>,
    /// The tool failed (tool results only).
    pub failed: bool,
}

/// What `Session.envelopesOf` returns.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepEnvelopes {
    /// The envelopes that changed the step, as received, in arrival order.
    #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::json::Map>"))]
    pub envelopes: Vec<Value>,
    /// Messages in the context when the step started (the stream carries
    /// their count, not their text).
    pub input_message_count: Option<i64>,
    /// The step's output as a conversation: reasoning, text, tool calls and results.
    pub messages: Vec<StepMessage>,
}

fn message(role: &'static str, content: String) -> StepMessage {
    StepMessage {
        role,
        content,
        tool: None,
        call_id: None,
        failed: false,
    }
}

/// The step's output as messages.
pub fn step_messages(step: &StepView) -> Vec<StepMessage> {
    let mut out = Vec::new();
    if !step.reasoning.is_empty() {
        out.push(message("reasoning", step.reasoning.clone()));
    }
    if !step.text.is_empty() {
        out.push(message("assistant", step.text.clone()));
    }
    for t in &step.tools {
        let args = t
            .args
            .as_ref()
            .map(crate::json::to_string)
            .or_else(|| t.more().args_summary.clone())
            .unwrap_or_default();
        out.push(StepMessage {
            tool: Some(t.name.clone()),
            call_id: t.call_id.clone(),
            ..message("tool_call", args)
        });
    }
    for t in &step.tools {
        let failed = t.status() == ToolStatus::Failed;
        let content = if failed {
            t.more().error.clone().unwrap_or_default()
        } else {
            let more = t.more();
            more.result
                .as_ref()
                .map(crate::json::to_string)
                .or_else(|| more.result_summary.clone())
                .unwrap_or_else(|| more.output.clone())
        };
        if t.seen_completed || failed {
            out.push(StepMessage {
                tool: Some(t.name.clone()),
                call_id: t.call_id.clone(),
                failed,
                ..message("tool_result", content)
            });
        }
    }
    out
}

impl Session {
    /// The envelopes that built step `step` of the execution at position
    /// `execution` (arrival order), and the step's output as messages;
    /// `None` when there is no such step.
    ///
    /// With `before`, the step as it stood after the session's first
    /// `before` envelopes (what a time slider moved back shows): the
    /// position [`Timeline::at`](crate::session::timeline::Timeline::at)
    /// counts, so the step and its messages are those of that prefix's
    /// view, and `None` when the step had not started by then. A bound
    /// past the end is the end.
    ///
    /// ```
    /// use stepline::session::Session;
    /// let mut s = Session::new(None);
    /// for line in [
    ///   r#"{"type":"agent.step.started","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:00Z","payload":{"step_number":1}}"#,
    ///   r#"{"type":"agent.step.started","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:01Z","payload":{"step_number":2}}"#,
    ///   r#"{"type":"agent.step.completed","session_id":"s","execution_id":"e","timestamp":"2026-01-20T12:00:02Z","payload":{"step_number":1}}"#,
    /// ] { s.ingest_text(line).unwrap(); }
    /// let one = s.envelopes_of(0, 1, None).unwrap();
    /// assert_eq!(one.envelopes.len(), 2);
    /// assert_eq!(one.envelopes[1]["type"], "agent.step.completed");
    /// assert!(s.envelopes_of(0, 3, None).is_none());
    /// // After the first two envelopes: step 1 had started, not completed;
    /// // after the first one, step 2 had not started.
    /// assert_eq!(s.envelopes_of(0, 1, Some(2)).unwrap().envelopes.len(), 1);
    /// assert!(s.envelopes_of(0, 2, Some(1)).is_none());
    /// ```
    pub fn envelopes_of(
        &self,
        execution: usize,
        step: i64,
        before: Option<usize>,
    ) -> Option<StepEnvelopes> {
        // The whole session knows at once whether the step exists.
        let whole = match before {
            None => Some(self.executions().get(execution)?.steps.get(&step)?),
            Some(_) => None,
        };
        let mut replay =
            Session::with_text_limit(self.given_id().map(String::from), self.text_limit());
        let mut envelopes = Vec::new();
        // Delivered as the session received it, as the timeline replays it
        // (src/session/timeline.rs).
        let mut delivery = crate::session::timeline::Delivery::default();
        for (d, arrival, line) in self.log_replay().take(before.unwrap_or(usize::MAX)) {
            delivery.replay(&mut replay, d, arrival, &line);
            let touched = replay.dirty.take_steps();
            if touched
                .iter()
                .any(|(pos, steps)| *pos == execution && steps.contains(&step))
            {
                // A step's start re-places the tools of the step before it
                // (touching it); an envelope naming another step is that one's.
                if let Ok(v) = crate::json::parse(&line, &Limits::default()) {
                    let named = v
                        .get("payload")
                        .and_then(|p| p.get("step_number"))
                        .and_then(Value::as_i64);
                    if named.is_none_or(|n| n == step) {
                        envelopes.push(v);
                    }
                }
            }
        }
        // Bounded, the step is the prefix's (settled as the timeline's is):
        // its text, tools and status as they had arrived.
        replay.settle();
        let found = match whole {
            Some(found) => found,
            None => replay.executions().get(execution)?.steps.get(&step)?,
        };
        Some(StepEnvelopes {
            envelopes,
            input_message_count: found.message_count,
            messages: step_messages(found),
        })
    }
}
