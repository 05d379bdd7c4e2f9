//! The broadcast side: agent events → `{channel, envelope}` exactly as the
//! reference's `AgentEventEnvelopeAdapter` produces them (envelopes.json),
//! with three fixes unless `compat` is set: cuts at character boundaries
//! (v1.22 quirk 9 cuts bytes), true UTC timestamps (v1.22 quirk 5) and real
//! step durations (v1.22 quirk 4).

use crate::json::Value;

use crate::envelope::cap;
use crate::envelope::config::BroadcastConfig;
use crate::envelope::decode;
use crate::envelope::summary::{summarize_args, truncate_args};
use crate::error::Result;
use crate::json::{child, obj};
use crate::model::continuation::Outcome;
use crate::model::time::{self, Timestamp};
use crate::model::tool_execution::millis_between;
use chrono::Timelike;

mod v2;

/// One encoded broadcast: the Pusher channel and the envelope.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Broadcast {
    /// The channel to publish on: `agent.{session_id}`.
    pub channel: String,
    /// The envelope to publish, in the producer's wire form.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::envelope::schema::json_schema::broadcast_envelope_ref")
    )]
    pub envelope: Value,
}

impl Broadcast {
    /// `{channel, envelope}` as a value (for Rust callers and tests).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }
}

/// The channel a session's envelopes are broadcast on.
pub fn channel_for(session_id: &str) -> String {
    format!("agent.{session_id}")
}

/// Per-execution encoder state: the chunk counter and the broadcast status.
#[derive(Clone, Debug)]
pub struct Encoder {
    /// The session every envelope names (and whose channel it goes to).
    pub session_id: String,
    /// The execution every envelope names; [`Encoder::reset`] may change it.
    pub execution_id: String,
    /// What is broadcast and how.
    pub config: BroadcastConfig,
    chunk_counter: u64,
    status: String,
    /// The highest step number this execution's events named: the seed's
    /// `step_count` in `agent.status` (docs/seeds/000-slim-serialization-and-adapter.md).
    steps: u64,
    /// The latest continuation decision (its step number and the seed's
    /// `{should_continue, stop_reason, resolved_by}`), for the step's completion.
    trace: Option<(Value, Value)>,
}

impl Encoder {
    /// An encoder at the start of an execution: status `idle`, chunk counter 0.
    pub fn new(session_id: &str, execution_id: &str, config: BroadcastConfig) -> Encoder {
        Encoder {
            session_id: session_id.into(),
            execution_id: execution_id.into(),
            config,
            chunk_counter: 0,
            status: "idle".into(),
            steps: 0,
            trace: None,
        }
    }

    /// The broadcast status so far (`idle`, `processing`, `completed`, …).
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Starts a new execution: chunk counter and status back to the start, and
    /// optionally a new execution id.
    pub fn reset(&mut self, execution_id: Option<&str>) {
        self.chunk_counter = 0;
        self.status = "idle".into();
        self.steps = 0;
        self.trace = None;
        if let Some(id) = execution_id {
            self.execution_id = id.into();
        }
    }

    /// Encodes one producer event (`event` is the reference class name, `args`
    /// its fields as in envelopes.json). Events the adapter does not broadcast
    /// give no envelopes. The config's dialect says which producer's adapter
    /// (v1.22's, or v2's `AgentEventBroadcaster` and its events) is reproduced.
    pub fn push(&mut self, event: &str, args: &Value, now: &Timestamp) -> Result<Vec<Broadcast>> {
        if let Some(n) = args.get("stepNumber").and_then(Value::as_u64) {
            self.steps = self.steps.max(n);
        }
        match self.config.dialect {
            crate::envelope::config::Dialect::V1_22 => self.push_v1(event, args, now),
            crate::envelope::config::Dialect::V2 => self.push_v2(event, args, now),
        }
    }

    /// Text streamed by the model as `agent.stream.chunk`s (none when chunks
    /// are off or the text is empty); a text over the cap is split into
    /// consecutive chunks, never cut.
    fn stream_chunks(&mut self, content: &str, now: &Timestamp) -> Vec<Broadcast> {
        let mut out = Vec::new();
        if self.config.include_stream_chunks && !content.is_empty() {
            let pieces = match self.config.max_message_bytes {
                Some(max) => {
                    let overhead = cap::encoded_len(&self.chunk("", u64::MAX, now).envelope);
                    cap::split_text(content, max.saturating_sub(overhead + 2))
                }
                None => vec![content],
            };
            for piece in pieces {
                let index = self.chunk_counter;
                self.chunk_counter += 1;
                out.push(self.chunk(piece, index, now));
            }
        }
        out
    }

    fn push_v1(&mut self, event: &str, args: &Value, now: &Timestamp) -> Result<Vec<Broadcast>> {
        let out = match event {
            "StreamEventReceived" => {
                let content = args.get("content").and_then(Value::as_str).unwrap_or("");
                self.stream_chunks(content, now)
            }
            "AgentStepStarted" => self.step_started(args, now)?,
            "AgentStepCompleted" => vec![self.step_completed(args, now)?],
            "ToolCallStarted" => vec![self.tool_started(args, now)?],
            "ToolCallCompleted" => vec![self.tool_completed(args, now)?],
            "ContinuationEvaluated" => self.continuation_evaluated(args, now)?,
            _ => Vec::new(),
        };
        out.into_iter().map(|b| self.capped(b)).collect()
    }

    /// `AgentStepStarted`: the step's start, after a `processing` status when tracked.
    fn step_started(&mut self, args: &Value, now: &Timestamp) -> Result<Vec<Broadcast>> {
        let count = |k: &str| {
            args.get(k)
                .filter(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::from(0))
        };
        let payload = checked(
            "agent.step.started",
            obj([
                ("step_number", arg(args, "stepNumber")),
                ("message_count", count("messageCount")),
                ("available_tools", count("availableTools")),
            ]),
        )?;
        let mut out = Vec::new();
        if self.config.auto_status_tracking {
            out.extend(self.transition("processing", now));
        }
        out.push(self.emit("agent.step.started", payload, now));
        Ok(out)
    }

    /// `AgentStepCompleted`: its duration is given, or measured from `startedAt` to now.
    fn step_completed(&self, args: &Value, now: &Timestamp) -> Result<Broadcast> {
        let compat = self.config.compat.is_some();
        let duration = match (
            args.get("durationMs").filter(|v| !v.is_null()),
            args.get("startedAt").and_then(Value::as_str),
        ) {
            (Some(d), _) => d.clone(),
            (None, Some(started)) => {
                let started = time::read(&Value::from(started), now, &child("/args", "startedAt"))?;
                Value::from(step_duration_ms(&started, now, compat))
            }
            (None, None) => Value::Null,
        };
        let payload = checked(
            "agent.step.completed",
            obj([
                ("step_number", arg(args, "stepNumber")),
                ("has_tool_calls", arg(args, "hasToolCalls")),
                ("errors", arg(args, "errorCount")),
                ("finish_reason", arg(args, "finishReason")),
                ("usage", arg(args, "usage")),
                ("duration_ms", duration),
            ]),
        )?;
        let payload = self.with_continuation(payload, args)?;
        Ok(self.emit("agent.step.completed", payload, now))
    }

    /// Unless `compat`, a step's completion carries its continuation decision
    /// when the trace is on (`includeContinuationTrace`, off by default), as
    /// the seed's adapter does (docs/seeds/000-slim-serialization-and-adapter.md,
    /// `agent.step.completed`): the event's own `continuationOutcome`, else the
    /// decision this execution broadcast for the same step (the producers
    /// evaluate the continuation before the step completes). The reference
    /// never writes it.
    fn with_continuation(&self, mut payload: Value, args: &Value) -> Result<Value> {
        if self.config.compat.is_some() || !self.config.include_continuation_trace {
            return Ok(payload);
        }
        let trace = match args.get("continuationOutcome").filter(|v| !v.is_null()) {
            Some(v) => Some(continuation_of(&Outcome::from_value(
                v,
                "/args/continuationOutcome",
            )?)),
            None => self
                .trace
                .as_ref()
                .filter(|(step, _)| Some(step) == args.get("stepNumber"))
                .map(|(_, t)| t.clone()),
        };
        if let (Some(trace), Value::Object(m)) = (trace, &mut payload) {
            m.insert("continuation", trace);
        }
        Ok(payload)
    }

    /// `ToolCallStarted`: the arguments (truncated) or only their summary, as configured.
    fn tool_started(&self, args: &Value, now: &Timestamp) -> Result<Broadcast> {
        let compat = self.config.compat.is_some();
        let tool_args = args.get("args").cloned().unwrap_or(Value::Null);
        let detail = if self.config.include_tool_args {
            (
                "args",
                truncate_args(&tool_args, self.config.max_arg_length, compat),
            )
        } else {
            (
                "args_summary",
                Value::from(summarize_args(&tool_args, compat)),
            )
        };
        let payload = checked(
            "agent.tool.started",
            obj([
                ("tool_name", arg(args, "tool")),
                ("tool_call_id", self.tool_call_id(args)),
                detail,
            ]),
        )?;
        Ok(self.emit("agent.tool.started", payload, now))
    }

    /// `ToolCallCompleted`: its duration from `startedAt` and `endedAt`, else 0.
    fn tool_completed(&self, args: &Value, now: &Timestamp) -> Result<Broadcast> {
        let stamp = |k: &str| -> Result<Option<Timestamp>> {
            args.get(k)
                .filter(|v| !v.is_null())
                .map(|v| time::read(v, now, &child("/args", k)))
                .transpose()
        };
        let duration = match (stamp("startedAt")?, stamp("endedAt")?) {
            (Some(s), Some(e)) => Value::from(tool_duration_ms(&s, &e)),
            _ => Value::from(0),
        };
        let payload = checked(
            "agent.tool.completed",
            obj([
                ("tool_name", arg(args, "tool")),
                ("tool_call_id", self.tool_call_id(args)),
                ("success", arg(args, "success")),
                ("error", arg(args, "error")),
                ("duration_ms", duration),
                ("result_summary", self.result_summary(args)),
            ]),
        )?;
        Ok(self.emit("agent.tool.completed", payload, now))
    }

    /// `ContinuationEvaluated`: the status a stop implies when tracked, then the
    /// decision's trace when configured.
    fn continuation_evaluated(&mut self, args: &Value, now: &Timestamp) -> Result<Vec<Broadcast>> {
        let outcome = Outcome::from_value(
            args.get("outcome").unwrap_or(&Value::Array(Vec::new())),
            "/args/outcome",
        )?;
        // Checked before the status changes, so a refused event changes nothing.
        let step_number = arg(args, "stepNumber");
        if self.config.include_continuation_trace {
            checked(
                "agent.continuation",
                obj([
                    ("step_number", step_number.clone()),
                    ("should_continue", Value::Bool(outcome.should_continue)),
                ]),
            )?;
        }
        self.trace = Some((step_number.clone(), continuation_of(&outcome)));
        let mut out = Vec::new();
        if self.config.auto_status_tracking && !outcome.should_continue {
            let status = match outcome.stop_reason() {
                "completed" => "completed",
                "error" => "failed",
                "user_requested" => "cancelled",
                _ => "stopped",
            };
            out.extend(self.transition(status, now));
            self.chunk_counter = 0;
        }
        if self.config.include_continuation_trace {
            let evaluations: Vec<Value> = outcome
                .evaluations
                .iter()
                .map(|e| {
                    obj([
                        ("criterion", Value::from(e.short_criterion())),
                        ("decision", Value::from(e.decision.as_str())),
                        ("reason", Value::from(e.reason.as_str())),
                    ])
                })
                .collect();
            out.push(self.emit(
                "agent.continuation",
                obj([
                    ("step_number", step_number),
                    ("should_continue", Value::Bool(outcome.should_continue)),
                    ("stop_reason", Value::from(outcome.stop_reason())),
                    ("resolved_by", Value::from(outcome.resolved_by())),
                    ("evaluations", Value::Array(evaluations)),
                ]),
                now,
            ));
        }
        Ok(out)
    }

    /// The broadcast within `max_message_bytes` (see [`cap::fit`]).
    fn capped(&self, b: Broadcast) -> Result<Broadcast> {
        match self.config.max_message_bytes {
            Some(max) => Ok(Broadcast {
                envelope: cap::fit(b.envelope, max)?,
                ..b
            }),
            None => Ok(b),
        }
    }

    fn chunk(&self, content: &str, index: u64, now: &Timestamp) -> Broadcast {
        self.emit(
            "agent.stream.chunk",
            obj([
                ("content", Value::from(content)),
                ("is_complete", Value::Bool(false)),
                ("chunk_index", Value::from(index)),
            ]),
            now,
        )
    }

    /// A manual status change (always emitted, with the previous status).
    pub fn set_status(
        &mut self,
        status: &str,
        error: Option<&str>,
        last_response: Option<&str>,
        now: &Timestamp,
    ) -> Result<Broadcast> {
        let b = self.emit(
            "agent.status",
            obj([
                ("status", Value::from(status)),
                ("previous_status", Value::from(self.status.as_str())),
                ("error_message", Value::from(error)),
                ("last_response", Value::from(last_response)),
            ]),
            now,
        );
        self.status = status.into();
        self.capped(b)
    }

    /// Automatic transitions are emitted only on change.
    fn transition(&mut self, status: &str, now: &Timestamp) -> Option<Broadcast> {
        if self.status == status {
            return None;
        }
        let previous = std::mem::replace(&mut self.status, status.into());
        Some(self.emit(
            "agent.status",
            obj([
                ("status", Value::from(status)),
                ("previous_status", Value::from(previous)),
            ]),
            now,
        ))
    }

    fn emit(&self, kind: &str, payload: Value, now: &Timestamp) -> Broadcast {
        let timestamp = match self.config.compat {
            // v1.22 quirk 5: local time with a literal `Z`.
            Some(offset) => {
                let local = now.with_timezone(&offset).naive_local();
                let utc_like = chrono::DateTime::from_naive_utc_and_offset(
                    local,
                    chrono::FixedOffset::east_opt(0).unwrap_or(offset),
                );
                time::format_utc_millis(&utc_like)
            }
            None => time::format_utc_millis(now),
        };
        let payload = match payload {
            // The seed's status carries the steps so far; the reference's never does.
            Value::Object(mut m) if kind == "agent.status" && self.config.compat.is_none() => {
                m.insert("step_count", Value::from(self.steps));
                Value::Object(m)
            }
            other => other,
        };
        Broadcast {
            channel: channel_for(&self.session_id),
            envelope: obj([
                ("type", Value::from(kind)),
                ("session_id", Value::from(self.session_id.as_str())),
                ("execution_id", Value::from(self.execution_id.as_str())),
                ("timestamp", Value::from(timestamp)),
                ("payload", payload),
            ]),
        }
    }
}

impl Encoder {
    /// Unless `compat`, the event's `toolCallId` (the seed's adapter passes it
    /// on; both producers' broadcasters write `null`).
    fn tool_call_id(&self, args: &Value) -> Value {
        match args.get("toolCallId") {
            Some(Value::String(id)) if self.config.compat.is_none() => Value::from(id.as_str()),
            _ => Value::Null,
        }
    }

    /// Unless `compat`, the seed's `summarizeResult` of the event's `result`
    /// (both producers' broadcasters write `null`).
    fn result_summary(&self, args: &Value) -> Value {
        if self.config.compat.is_some() {
            return Value::Null;
        }
        args.get("result")
            .and_then(summarize_result)
            .map_or(Value::Null, Value::from)
    }
}

/// The seed's `summarizeResult` (docs/seeds/000-slim-serialization-and-adapter.md,
/// `ReverbAgentEventAdapter`): `null` for no result; a string as it is, any
/// other value JSON-encoded with PHP's defaults; over 100 bytes, the first 97
/// plus `...` — cut at a character boundary, as every stepline cut is.
///
/// ```
/// use stepline::envelope::encoder::summarize_result;
/// use stepline::json::Value;
/// assert_eq!(summarize_result(&Value::Null), None);
/// assert_eq!(summarize_result(&stepline::json!({"temp": 21})).as_deref(), Some("{\"temp\":21}"));
/// assert_eq!(summarize_result(&Value::from("x".repeat(101))).unwrap().len(), 100);
/// ```
pub fn summarize_result(result: &Value) -> Option<String> {
    let text = match result {
        Value::Null => return None,
        Value::String(s) => s.clone(),
        other => crate::php::json_encode(other),
    };
    if text.len() <= 100 {
        return Some(text);
    }
    let mut end = 97;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}...", &text[..end]))
}

/// A continuation decision as the seed's step completion carries it.
fn continuation_of(outcome: &Outcome) -> Value {
    obj([
        ("should_continue", Value::Bool(outcome.should_continue)),
        ("stop_reason", Value::from(outcome.stop_reason())),
        ("resolved_by", Value::from(outcome.resolved_by())),
    ])
}

/// Payload fields copied from the event, and the event field each comes from.
const FROM_ARGS: &[(&str, &str)] = &[
    ("step_number", "stepNumber"),
    ("message_count", "messageCount"),
    ("available_tools", "availableTools"),
    ("has_tool_calls", "hasToolCalls"),
    ("errors", "errorCount"),
    ("finish_reason", "finishReason"),
    ("usage", "usage"),
    ("duration_ms", "durationMs"),
    ("tool_name", "tool"),
    ("args", "args"),
    ("success", "success"),
    ("error", "error"),
];

/// An event's field, `null` when absent.
fn arg(args: &Value, key: &str) -> Value {
    args.get(key).cloned().unwrap_or(Value::Null)
}

/// `payload` checked with the decoder's own rules, so the encoder never emits
/// an envelope its decoder (and so every `Session`) rejects. The error points
/// into the event (`/args/stepNumber`, `/args/usage/input`).
fn checked(kind: &str, payload: Value) -> Result<Value> {
    if let Value::Object(m) = &payload {
        decode::check_payload(kind, m).map_err(|mut e| {
            e.path = e.path.map(|p| args_path(&p));
            e
        })?;
    }
    Ok(payload)
}

/// A payload pointer (`/usage/input`) as the pointer of the event field it came from.
fn args_path(payload_path: &str) -> String {
    let rest = payload_path.strip_prefix('/').unwrap_or(payload_path);
    let (field, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match FROM_ARGS.iter().find(|(name, _)| *name == field) {
        Some((_, arg)) => format!("/args/{arg}{tail}"),
        None => format!("/payload{payload_path}"),
    }
}

/// A step's duration. Fixed: the real interval. `compat`: the reference's
/// `DateInterval` reading, which keeps only the seconds and fraction fields
/// (minutes, hours, days and the sign are dropped; v1.22 quirk 4).
pub fn step_duration_ms(started: &Timestamp, now: &Timestamp, compat: bool) -> f64 {
    let real = millis_between(started, now);
    if !compat {
        return real;
    }
    let micros = (real.abs() * 1000.0).round() as i64;
    let seconds = (micros / 1_000_000) % 60;
    let fraction = micros % 1_000_000;
    seconds as f64 * 1000.0 + fraction as f64 / 1000.0
}

/// A tool's duration as the reference computes it: whole-second difference
/// in ms plus the microsecond difference truncated to ms (an int; can be negative).
pub fn tool_duration_ms(started: &Timestamp, ended: &Timestamp) -> i64 {
    let diff = ended.timestamp() - started.timestamp();
    let micro = i64::from(ended.nanosecond() / 1000) - i64::from(started.nanosecond() / 1000);
    diff * 1000 + micro / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        chrono::DateTime::parse_from_rfc3339(s).unwrap()
    }

    #[test]
    fn step_durations_are_real_unless_compat() {
        let (a, b) = (
            at("2026-01-20T11:57:56.750+00:00"),
            at("2026-01-20T12:00:00.250+00:00"),
        );
        assert_eq!(step_duration_ms(&a, &b, false), 123_500.0);
        // The reference keeps only the seconds field: 2 min 3.5 s reads as 3.5 s.
        assert_eq!(step_duration_ms(&a, &b, true), 3_500.0);
        // …and drops the sign of an inverted interval.
        assert_eq!(step_duration_ms(&b, &a, true), 3_500.0);
        assert_eq!(step_duration_ms(&b, &a, false), -123_500.0);
    }

    #[test]
    fn tool_durations_follow_the_reference_formula() {
        assert_eq!(
            tool_duration_ms(
                &at("2026-01-20T11:59:59.100+00:00"),
                &at("2026-01-20T12:00:00.250+00:00")
            ),
            1150
        );
        assert_eq!(
            tool_duration_ms(
                &at("2026-01-20T12:00:00.250+00:00"),
                &at("2026-01-20T11:59:59.100+00:00")
            ),
            -1150
        );
    }
}
