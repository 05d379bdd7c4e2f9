//! Two ways to decode the JSONL lines of a recording in the wasm, each export taking the
//! whole text and returning how many lines decoded:
//!
//! - `own`: the core's parser into its JSON value, then `decode_owned` into the normalised
//!   envelope (what `Session::ingest_jsonl` does per line before the session's own work);
//! - `serde_typed`: serde_json into borrowed typed structs of the known envelope types, with
//!   the same checks on the fields it reads (required fields, kinds, RFC 3339 timestamps).
//!   It does less than `own`: unknown fields are skipped, not kept with a warning, and no
//!   normalised value is built;
//! - `serde_to_value`: `serde_typed`, then the normalised envelope built from the structs
//!   (the value the session applies), which is what replacing the parser would cost;
//! - `own_parse` and `serde_value`: each parser alone into its untyped tree, for scale.
use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use stepline::envelope::decode::{decode_owned, ENVELOPE_LIMITS};
use stepline::json::{Map, Value};
use stepline::model::time::is_rfc3339;
use wasm_bindgen::prelude::*;

type Str<'a> = Cow<'a, str>;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    #[serde(borrow)]
    session_id: Option<Str<'a>>,
    #[serde(borrow)]
    execution_id: Option<Str<'a>>,
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Status<'a> {
    #[serde(borrow)]
    status: Str<'a>,
    #[serde(borrow)]
    previous_status: Option<Str<'a>>,
    step_count: Option<i64>,
    #[serde(borrow)]
    error_message: Option<Str<'a>>,
    #[serde(borrow)]
    last_response: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct StepStarted<'a> {
    #[serde(alias = "step_index")]
    step_number: i64,
    message_count: Option<i64>,
    available_tools: Option<i64>,
    #[serde(borrow)]
    step_id: Option<Str<'a>>,
}

#[derive(Deserialize)]
#[allow(non_snake_case)]
struct Usage {
    input: Option<i64>,
    output: Option<i64>,
    cacheWrite: Option<i64>,
    cacheRead: Option<i64>,
    reasoning: Option<i64>,
    total: Option<i64>,
}

#[derive(Deserialize)]
struct StepCompleted<'a> {
    #[serde(alias = "step_index")]
    step_number: i64,
    has_tool_calls: Option<bool>,
    errors: Option<i64>,
    #[serde(borrow)]
    finish_reason: Option<Str<'a>>,
    usage: Option<Usage>,
    duration_ms: Option<f64>,
    #[serde(borrow)]
    continuation: Option<&'a RawValue>,
    #[serde(borrow)]
    step: Option<&'a RawValue>,
    #[serde(borrow)]
    step_id: Option<Str<'a>>,
    #[serde(borrow)]
    annotations: Option<&'a RawValue>,
    recorded_steps: Option<i64>,
}

#[derive(Deserialize)]
struct ToolStarted<'a> {
    #[serde(alias = "tool", borrow)]
    tool_name: Str<'a>,
    #[serde(borrow)]
    tool_call_id: Option<Str<'a>>,
    #[serde(borrow)]
    args_summary: Option<Str<'a>>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_call: Option<&'a RawValue>,
    step_index: Option<i64>,
    #[serde(borrow)]
    step_id: Option<Str<'a>>,
    #[serde(borrow)]
    annotations: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolCompleted<'a> {
    #[serde(alias = "tool", borrow)]
    tool_name: Str<'a>,
    #[serde(borrow)]
    tool_call_id: Option<Str<'a>>,
    success: Option<bool>,
    #[serde(borrow)]
    error: Option<Str<'a>>,
    duration_ms: Option<f64>,
    #[serde(borrow)]
    result_summary: Option<Str<'a>>,
    #[serde(borrow)]
    tool_result: Option<&'a RawValue>,
    step_index: Option<i64>,
    #[serde(borrow)]
    step_id: Option<Str<'a>>,
    #[serde(borrow)]
    annotations: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(alias = "chunk", borrow)]
    content: Str<'a>,
    is_complete: Option<bool>,
    chunk_index: Option<i64>,
    tokens_delta: Option<i64>,
}

#[derive(Deserialize)]
struct Evaluation<'a> {
    #[serde(borrow)]
    criterion: Str<'a>,
    #[serde(borrow)]
    decision: Str<'a>,
    #[serde(borrow)]
    reason: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct Continuation<'a> {
    #[serde(alias = "step_index")]
    step_number: i64,
    should_continue: Option<bool>,
    should_stop: Option<bool>,
    #[serde(borrow)]
    stop_reason: Option<Str<'a>>,
    #[serde(borrow)]
    resolved_by: Option<Str<'a>>,
    #[serde(borrow)]
    evaluations: Option<Vec<Evaluation<'a>>>,
    recorded_steps: Option<i64>,
}

/// One decoded payload of a known type (an unknown type's is skipped).
enum Payload<'a> {
    Status(Status<'a>),
    StepStarted(StepStarted<'a>),
    StepCompleted(StepCompleted<'a>),
    ToolStarted(ToolStarted<'a>),
    ToolCompleted(ToolCompleted<'a>),
    Chunk(Chunk<'a>),
    Continuation(Continuation<'a>),
    Unknown,
}

/// The envelope and its payload, dispatched on `type`; `None` where `own` fails too.
fn typed(line: &str) -> Option<(Envelope<'_>, Payload<'_>)> {
    let env: Envelope = serde_json::from_str(line).ok()?;
    env.session_id.as_ref()?;
    if let Some(t) = &env.timestamp {
        if !is_rfc3339(t) {
            return None;
        }
    }
    let text = env.payload.map_or("{}", RawValue::get);
    fn p<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
        serde_json::from_str(text).ok()
    }
    let payload = match &*env.kind {
        "agent.status" => Payload::Status(p(text)?),
        "agent.step.started" => Payload::StepStarted(p(text)?),
        "agent.step.completed" => Payload::StepCompleted(p(text)?),
        "agent.tool.started" => Payload::ToolStarted(p(text)?),
        "agent.tool.completed" => Payload::ToolCompleted(p(text)?),
        "agent.stream.chunk" => Payload::Chunk(p(text)?),
        "agent.continuation" => {
            let c: Continuation = p(text)?;
            if c.should_continue.is_none() && c.should_stop.is_none() {
                return None;
            }
            Payload::Continuation(c)
        }
        _ => Payload::Unknown,
    };
    Some((env, payload))
}

fn s(v: &Option<Str>) -> Value {
    v.as_deref().map_or(Value::Null, Value::from)
}

fn n(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

fn b(v: Option<bool>) -> Value {
    v.map_or(Value::Null, Value::Bool)
}

fn f(v: Option<f64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

/// A raw sub-document (arguments, objects kept as they are) read by the core's parser.
fn raw(v: Option<&RawValue>) -> Value {
    v.and_then(|r| stepline::json::parse(r.get(), &ENVELOPE_LIMITS).ok())
        .unwrap_or(Value::Null)
}

fn object<const K: usize>(fields: [(&'static str, Value); K]) -> Value {
    Value::Object(fields.into_iter().filter(|(_, v)| !v.is_null()).collect())
}

/// The normalised envelope `decode_owned` gives, from the typed structs.
fn to_value(env: Envelope, payload: Payload) -> Value {
    let payload = match payload {
        Payload::Status(p) => object([
            ("status", Value::from(&*p.status)),
            ("previous_status", s(&p.previous_status)),
            ("step_count", n(p.step_count)),
            ("error_message", s(&p.error_message)),
            ("last_response", s(&p.last_response)),
        ]),
        Payload::StepStarted(p) => object([
            ("step_number", Value::from(p.step_number)),
            ("message_count", n(p.message_count)),
            ("available_tools", n(p.available_tools)),
            ("step_id", s(&p.step_id)),
        ]),
        Payload::StepCompleted(p) => object([
            ("step_number", Value::from(p.step_number)),
            ("has_tool_calls", b(p.has_tool_calls)),
            ("errors", n(p.errors)),
            ("finish_reason", s(&p.finish_reason)),
            (
                "usage",
                p.usage.map_or(Value::Null, |u| {
                    object([
                        ("input", Value::from(u.input.unwrap_or(0))),
                        ("output", Value::from(u.output.unwrap_or(0))),
                        ("cacheWrite", Value::from(u.cacheWrite.unwrap_or(0))),
                        ("cacheRead", Value::from(u.cacheRead.unwrap_or(0))),
                        ("reasoning", Value::from(u.reasoning.unwrap_or(0))),
                        ("total", n(u.total)),
                    ])
                }),
            ),
            ("duration_ms", f(p.duration_ms)),
            ("continuation", raw(p.continuation)),
            ("step", raw(p.step)),
            ("step_id", s(&p.step_id)),
            ("annotations", raw(p.annotations)),
            ("recorded_steps", n(p.recorded_steps)),
        ]),
        Payload::ToolStarted(p) => object([
            ("tool_name", Value::from(&*p.tool_name)),
            ("tool_call_id", s(&p.tool_call_id)),
            ("args_summary", s(&p.args_summary)),
            ("args", raw(p.args)),
            ("tool_call", raw(p.tool_call)),
            ("step_index", n(p.step_index)),
            ("step_id", s(&p.step_id)),
            ("annotations", raw(p.annotations)),
        ]),
        Payload::ToolCompleted(p) => object([
            ("tool_name", Value::from(&*p.tool_name)),
            ("tool_call_id", s(&p.tool_call_id)),
            ("success", b(p.success)),
            ("error", s(&p.error)),
            ("duration_ms", f(p.duration_ms)),
            ("result_summary", s(&p.result_summary)),
            ("tool_result", raw(p.tool_result)),
            ("step_index", n(p.step_index)),
            ("step_id", s(&p.step_id)),
            ("annotations", raw(p.annotations)),
        ]),
        Payload::Chunk(p) => object([
            ("content", Value::from(&*p.content)),
            ("is_complete", b(p.is_complete)),
            ("chunk_index", n(p.chunk_index)),
            ("tokens_delta", n(p.tokens_delta)),
        ]),
        Payload::Continuation(p) => object([
            ("step_number", Value::from(p.step_number)),
            (
                "should_continue",
                b(p.should_continue.or(p.should_stop.map(|x| !x))),
            ),
            ("should_stop", b(p.should_stop)),
            ("stop_reason", s(&p.stop_reason)),
            ("resolved_by", s(&p.resolved_by)),
            (
                "evaluations",
                p.evaluations.map_or(Value::Null, |list| {
                    Value::Array(
                        list.into_iter()
                            .map(|e| {
                                object([
                                    ("criterion", Value::from(&*e.criterion)),
                                    ("decision", Value::from(&*e.decision)),
                                    ("reason", s(&e.reason)),
                                ])
                            })
                            .collect(),
                    )
                }),
            ),
            ("recorded_steps", n(p.recorded_steps)),
        ]),
        Payload::Unknown => raw(env.payload),
    };
    let out: Map = [
        ("type", Value::from(&*env.kind)),
        ("session_id", s(&env.session_id)),
        ("execution_id", s(&env.execution_id)),
        ("timestamp", s(&env.timestamp)),
        ("payload", payload),
    ]
    .into_iter()
    .collect();
    Value::Object(out)
}

fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim().is_empty())
}

/// The core's parser and decoder on every line.
#[wasm_bindgen]
pub fn own(text: &str) -> u32 {
    lines(text)
        .filter(|l| {
            stepline::json::parse(l, &ENVELOPE_LIMITS)
                .and_then(decode_owned)
                .is_ok()
        })
        .count() as u32
}

/// The core's parser alone.
#[wasm_bindgen]
pub fn own_parse(text: &str) -> u32 {
    lines(text)
        .filter(|l| stepline::json::parse(l, &ENVELOPE_LIMITS).is_ok())
        .count() as u32
}

/// serde_json into the typed structs.
#[wasm_bindgen]
pub fn serde_typed(text: &str) -> u32 {
    lines(text).filter(|l| typed(l).is_some()).count() as u32
}

/// serde_json into the typed structs, then the normalised envelope value.
#[wasm_bindgen]
pub fn serde_to_value(text: &str) -> u32 {
    lines(text)
        .filter(|l| typed(l).map(|(e, p)| to_value(e, p)).is_some())
        .count() as u32
}

/// serde_json's own untyped value.
#[wasm_bindgen]
pub fn serde_value(text: &str) -> u32 {
    lines(text)
        .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
        .count() as u32
}
