//! The v2 dialect of the encoder: instructor-php v2.x's `AgentEventBroadcaster`
//! (tests/vectors/instructor-php-v2.7/README.md, items 1–15). Step and tool
//! starts are encoded as in v1.22; what differs is here.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, obj, Value};
use crate::model::continuation::v2::broadcast::{
    on_continuation_stop, on_execution_stopped, ON_EXECUTION_FAILED,
};
use crate::model::continuation::v2::StopReason;
use crate::model::time::{self, Timestamp};
use crate::model::v2::{ExecutionState, ExecutionStatus};
use crate::model::Usage;

use super::{checked, step_duration_ms, tool_duration_ms, Broadcast, Encoder};

impl Encoder {
    pub(super) fn push_v2(
        &mut self,
        event: &str,
        args: &Value,
        now: &Timestamp,
    ) -> Result<Vec<Broadcast>> {
        let out = match event {
            "AgentStepStarted" | "ToolCallStarted" => return self.push_v1(event, args, now),
            // Polyglot's text deltas (a non-string delta is ignored) and, with
            // a real HTTP driver, every raw SSE frame (item 15).
            "PartialInferenceDeltaCreated" | "StreamEventParsed" => {
                let key = if event == "StreamEventParsed" {
                    "content"
                } else {
                    "contentDelta"
                };
                match args.get(key) {
                    Some(Value::String(text)) => self.stream_chunks(text, now),
                    _ => Vec::new(),
                }
            }
            "ToolCallCompleted" => vec![self.tool_completed_v2(args, now)?],
            "AgentStepCompleted" => vec![self.step_completed_v2(args, now)?],
            "ContinuationEvaluated" => self.continuation_evaluated_v2(args, now)?,
            "AgentExecutionStopped" => self.execution_stopped_v2(args, now)?,
            "AgentExecutionFailed" => {
                let out = self.four_key(ON_EXECUTION_FAILED, present(args, "message"), now);
                self.chunk_counter = 0;
                out.into_iter().collect()
            }
            _ => Vec::new(),
        };
        out.into_iter().map(|b| self.capped(b)).collect()
    }

    /// `ToolCallCompleted`: its duration from `startedAt` and `completedAt`, else 0.
    fn tool_completed_v2(&self, args: &Value, now: &Timestamp) -> Result<Broadcast> {
        let stamp = |k: &str| -> Result<Option<Timestamp>> {
            present(args, k)
                .map(|v| time::read(&v, now, &child("/args", k)))
                .transpose()
        };
        let duration = match (stamp("startedAt")?, stamp("completedAt")?) {
            (Some(s), Some(e)) => Value::from(tool_duration_ms(&s, &e)),
            _ => Value::from(0),
        };
        let arg = |k: &str, default: Value| present(args, k).unwrap_or(default);
        let payload = checked(
            "agent.tool.completed",
            obj([
                ("tool_name", arg("tool", Value::Null)),
                ("tool_call_id", self.tool_call_id(args)),
                ("success", arg("success", Value::Bool(false))),
                ("error", arg("error", Value::Null)),
                ("duration_ms", duration),
                ("result_summary", self.result_summary(args)),
            ]),
        )?;
        Ok(self.emit("agent.tool.completed", payload, now))
    }

    /// `AgentStepCompleted`. A failed step still completes (item 9): zero
    /// usage, no finish reason. Without a `durationMs` the event measures one
    /// from the step's `startedAt` as v1.22's does (item 12; v1.22 quirk 4 in
    /// compat mode); an event with neither started now (0.0).
    fn step_completed_v2(&self, args: &Value, now: &Timestamp) -> Result<Broadcast> {
        let usage = match present(args, "usage") {
            Some(u) => Usage::from_value(&u, "/args/usage")?,
            None => Usage::default(),
        };
        let duration = match (present(args, "durationMs"), present(args, "startedAt")) {
            (Some(d), _) => d,
            (None, Some(started)) => {
                let started = time::read(&started, now, &child("/args", "startedAt"))?;
                Value::from(step_duration_ms(
                    &started,
                    now,
                    self.config.compat.is_some(),
                ))
            }
            (None, None) => Value::from(0.0),
        };
        let arg = |k: &str, default: Value| present(args, k).unwrap_or(default);
        let payload = checked(
            "agent.step.completed",
            obj([
                ("step_number", arg("stepNumber", Value::from(0))),
                ("has_tool_calls", arg("hasToolCalls", Value::Bool(false))),
                ("errors", arg("errorCount", Value::from(0))),
                ("finish_reason", arg("finishReason", Value::Null)),
                ("usage", usage.to_value()),
                ("duration_ms", duration),
            ]),
        )?;
        let payload = self.with_continuation(payload, args)?;
        Ok(self.emit("agent.step.completed", payload, now))
    }

    /// `ContinuationEvaluated`: the status a stop implies when tracked (a
    /// failed execution's comes with `AgentExecutionFailed`), then the
    /// decision's trace when configured.
    fn continuation_evaluated_v2(
        &mut self,
        args: &Value,
        now: &Timestamp,
    ) -> Result<Vec<Broadcast>> {
        let exec = match present(args, "executionState") {
            Some(e) => Some(ExecutionState::from_value(&e, "/args/executionState", now)?),
            None => None,
        };
        let should_stop = exec.as_ref().is_none_or(ExecutionState::should_stop);
        let signal = exec.as_ref().and_then(|e| e.continuation.stop_signal());
        let failed = exec
            .as_ref()
            .is_some_and(|e| e.status == ExecutionStatus::Failed);
        let step_number = present(args, "stepNumber").unwrap_or(Value::from(0));
        let stop_reason = signal.map_or(Value::Null, |s| Value::from(s.reason.as_str()));
        let resolved_by = Value::from(signal.and_then(|s| s.source.as_deref()).unwrap_or(""));
        self.trace = Some((
            step_number.clone(),
            obj([
                ("should_continue", Value::Bool(!should_stop)),
                ("stop_reason", stop_reason.clone()),
                ("resolved_by", resolved_by.clone()),
            ]),
        ));
        let mut out = Vec::new();
        if self.config.auto_status_tracking && should_stop && !failed {
            let status = on_continuation_stop(signal.map(|s| s.reason));
            out.extend(self.transition(status, now));
            self.chunk_counter = 0;
        }
        if self.config.include_continuation_trace {
            let payload = obj([
                ("step_number", step_number),
                ("should_stop", Value::Bool(should_stop)),
                ("stop_reason", stop_reason),
                ("resolved_by", resolved_by),
            ]);
            out.push(self.emit("agent.continuation", payload, now));
        }
        Ok(out)
    }

    /// `AgentExecutionStopped`: every execution ends with it, also a natural
    /// completion (item 6).
    fn execution_stopped_v2(&mut self, args: &Value, now: &Timestamp) -> Result<Vec<Broadcast>> {
        let reason = match present(args, "stopReason") {
            None => StopReason::Completed,
            Some(Value::String(r)) => StopReason::parse(&r, "/args/stopReason")?,
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    "/args/stopReason",
                    format!(
                        "expected the stop reason as a string, found {}",
                        crate::json::type_name(&other)
                    ),
                ))
            }
        };
        let message = present(args, "stopMessage").filter(|m| m.as_str() != Some(""));
        let out = self.four_key(on_execution_stopped(reason), message, now);
        self.chunk_counter = 0;
        Ok(out.into_iter().collect())
    }

    /// A failure or stop status (`{status, previous_status, error_message,
    /// last_response}`), sent whatever `autoStatusTracking` says, but only on change.
    fn four_key(
        &mut self,
        status: &str,
        error: Option<Value>,
        now: &Timestamp,
    ) -> Option<Broadcast> {
        if self.status == status {
            return None;
        }
        let previous = std::mem::replace(&mut self.status, status.into());
        Some(self.emit(
            "agent.status",
            obj([
                ("status", Value::from(status)),
                ("previous_status", Value::from(previous)),
                ("error_message", error.unwrap_or(Value::Null)),
                ("last_response", Value::Null),
            ]),
            now,
        ))
    }
}

/// An event's field, `None` when absent or null.
fn present(args: &Value, key: &str) -> Option<Value> {
    args.get(key).filter(|v| !v.is_null()).cloned()
}
