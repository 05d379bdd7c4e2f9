//! The v2 dialect of the encoder: instructor-php v2.x's `AgentEventBroadcaster`
//! (tests/vectors/instructor-php-v2.7/README.md, items 1–15). Step and tool
//! starts are encoded as in v1.22; what differs is here.

use crate::continuation::v2::broadcast::{
    on_continuation_stop, on_execution_stopped, ON_EXECUTION_FAILED,
};
use crate::continuation::v2::StopReason;
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, obj, Value};
use crate::model::time::{self, Timestamp};
use crate::model::v2::{ExecutionState, ExecutionStatus};
use crate::model::Usage;

use super::{checked, tool_duration_ms, Broadcast, Encoder};

impl Encoder {
    pub(super) fn push_v2(
        &mut self,
        event: &str,
        args: &Value,
        now: &Timestamp,
    ) -> Result<Vec<Broadcast>> {
        let arg = |k: &str| args.get(k).filter(|v| !v.is_null()).cloned();
        let mut out = Vec::new();
        match event {
            "AgentStepStarted" | "ToolCallStarted" => return self.push_v1(event, args, now),
            // Polyglot's text deltas (a non-string delta is ignored) and, with
            // a real HTTP driver, every raw SSE frame (item 15).
            "PartialInferenceDeltaCreated" | "StreamEventParsed" => {
                let key = if event == "StreamEventParsed" {
                    "content"
                } else {
                    "contentDelta"
                };
                if let Some(Value::String(text)) = args.get(key) {
                    out.extend(self.stream_chunks(text, now));
                }
            }
            "ToolCallCompleted" => {
                let stamp = |k: &str| -> Result<Option<Timestamp>> {
                    arg(k)
                        .map(|v| time::read(&v, now, &child("/args", k)))
                        .transpose()
                };
                let duration = match (stamp("startedAt")?, stamp("completedAt")?) {
                    (Some(s), Some(e)) => Value::from(tool_duration_ms(&s, &e)),
                    _ => Value::from(0),
                };
                let payload = checked(
                    "agent.tool.completed",
                    obj([
                        ("tool_name", arg("tool").unwrap_or(Value::Null)),
                        ("tool_call_id", Value::Null),
                        ("success", arg("success").unwrap_or(Value::Bool(false))),
                        ("error", arg("error").unwrap_or(Value::Null)),
                        ("duration_ms", duration),
                        ("result_summary", Value::Null),
                    ]),
                )?;
                out.push(self.emit("agent.tool.completed", payload, now));
            }
            // A failed step still completes (item 9): zero usage, no finish reason.
            "AgentStepCompleted" => {
                let usage = match arg("usage") {
                    Some(u) => Usage::from_value(&u, "/args/usage")?,
                    None => Usage::default(),
                };
                let payload = checked(
                    "agent.step.completed",
                    obj([
                        ("step_number", arg("stepNumber").unwrap_or(Value::from(0))),
                        (
                            "has_tool_calls",
                            arg("hasToolCalls").unwrap_or(Value::Bool(false)),
                        ),
                        ("errors", arg("errorCount").unwrap_or(Value::from(0))),
                        ("finish_reason", arg("finishReason").unwrap_or(Value::Null)),
                        ("usage", usage.to_value()),
                        ("duration_ms", arg("durationMs").unwrap_or(Value::from(0.0))),
                    ]),
                )?;
                out.push(self.emit("agent.step.completed", payload, now));
            }
            "ContinuationEvaluated" => {
                let exec = match arg("executionState") {
                    Some(e) => Some(ExecutionState::from_value(&e, "/args/executionState", now)?),
                    None => None,
                };
                let should_stop = exec.as_ref().is_none_or(ExecutionState::should_stop);
                let signal = exec.as_ref().and_then(|e| e.continuation.stop_signal());
                let failed = exec
                    .as_ref()
                    .is_some_and(|e| e.status == ExecutionStatus::Failed);
                if self.config.auto_status_tracking && should_stop && !failed {
                    let status = on_continuation_stop(signal.map(|s| s.reason));
                    out.extend(self.transition(status, now));
                    self.chunk_counter = 0;
                }
                if self.config.include_continuation_trace {
                    let payload = obj([
                        ("step_number", arg("stepNumber").unwrap_or(Value::from(0))),
                        ("should_stop", Value::Bool(should_stop)),
                        (
                            "stop_reason",
                            signal.map_or(Value::Null, |s| Value::from(s.reason.as_str())),
                        ),
                        (
                            "resolved_by",
                            Value::from(signal.and_then(|s| s.source.as_deref()).unwrap_or("")),
                        ),
                    ]);
                    out.push(self.emit("agent.continuation", payload, now));
                }
            }
            // Every execution ends with it, also a natural completion (item 6).
            "AgentExecutionStopped" => {
                let reason = match arg("stopReason") {
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
                let message = arg("stopMessage").filter(|m| m.as_str() != Some(""));
                out.extend(self.four_key(on_execution_stopped(reason), message, now));
                self.chunk_counter = 0;
            }
            "AgentExecutionFailed" => {
                out.extend(self.four_key(ON_EXECUTION_FAILED, arg("message"), now));
                self.chunk_counter = 0;
            }
            _ => {}
        }
        out.into_iter().map(|b| self.capped(b)).collect()
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
