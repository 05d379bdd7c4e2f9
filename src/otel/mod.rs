//! OpenTelemetry export of a run: the session's view as an OTLP/HTTP JSON
//! `ExportTraceServiceRequest`, so Langfuse, Phoenix or any OTLP collector
//! can import it.
//!
//! Spans follow the GenAI semantic conventions of the pinned version
//! [`SEMCONV_VERSION`](crate::otel::SEMCONV_VERSION) (the resource's `schemaUrl` names it): one trace per
//! execution, an `invoke_agent` span for the run, a `chat` span per step
//! (the step is one inference) under it, and an `execute_tool {tool}` span
//! per tool call under its step's `chat` span (parallel calls are siblings
//! whose times overlap). Ids are hashes of the session, execution, step and
//! call ids ([`ids`](crate::otel::ids)), so the same recording always exports the same spans.
//! Times are envelope timestamps ([`times`](crate::otel::times)), never the clock.
//!
//! The OTLP JSON encoding differs from plain proto3 JSON in one place:
//! `traceId` / `spanId` are hex, not base64 (OTLP specification, "JSON
//! Protobuf Encoding").

pub mod attrs;
pub mod ids;
pub mod shape;
pub mod times;

use crate::session::stamp::Stamp;
use crate::session::view::{Execution, StepView, ToolRun};
use crate::session::Session;
use attrs::Attrs;
use shape::{OtlpTraceRequest, Resource, ResourceSpans, Scope, ScopeSpans, Span, Status};
use times::Interval;

/// The OpenTelemetry semantic-conventions version the attributes follow.
pub const SEMCONV_VERSION: &str = "1.40.0";
/// Its schema URL, written on the resource and scope.
pub const SCHEMA_URL: &str = "https://opentelemetry.io/schemas/1.40.0";

/// `SPAN_KIND_INTERNAL`: the run and its tool calls happen in-process.
const KIND_INTERNAL: i64 = 1;
/// `SPAN_KIND_CLIENT`: an inference is a call to the model provider.
const KIND_CLIENT: i64 = 3;
/// `STATUS_CODE_ERROR`.
const STATUS_ERROR: i64 = 2;
/// `error.type` when the producer names no error class (the conventions'
/// fallback value).
const ERROR_OTHER: &str = "_OTHER";

/// What the export is told (`{ serviceName? }` in JavaScript).
#[derive(Clone, Debug)]
pub struct OtelOptions {
    /// The resource's `service.name`.
    pub service_name: String,
}

impl Default for OtelOptions {
    fn default() -> OtelOptions {
        OtelOptions {
            service_name: "stepline".to_string(),
        }
    }
}

/// The run's spans as an OTLP/HTTP JSON `ExportTraceServiceRequest`.
pub fn export(session: &Session, options: &OtelOptions) -> OtlpTraceRequest {
    let sid = session.session_id().unwrap_or("");
    let mut spans = Vec::new();
    for (n, e) in session.executions().iter().enumerate() {
        execution_spans(sid, n, e, &mut spans);
    }
    let mut resource = Attrs::default();
    resource.string("service.name", &options.service_name);
    OtlpTraceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Resource {
                attributes: resource.0,
            },
            scope_spans: vec![ScopeSpans {
                scope: Scope {
                    name: "stepline",
                    version: crate::version(),
                },
                spans,
                schema_url: SCHEMA_URL,
            }],
            schema_url: SCHEMA_URL,
        }],
    }
}

/// The ids every span of one execution shares.
struct Ctx<'a> {
    session_id: &'a str,
    exec_key: String,
    trace_id: String,
}

/// The spans of execution `n` of session `session_id`, appended to `out`:
/// its `invoke_agent` span, then each step's `chat` span and its tool spans.
pub fn execution_spans(session_id: &str, n: usize, e: &Execution, out: &mut Vec<Span>) {
    // Executions without an id are told apart by their position.
    let exec_key = e.id.clone().unwrap_or_else(|| format!("#{n}"));
    let ctx = Ctx {
        session_id,
        trace_id: ids::trace_id(&[session_id, &exec_key]),
        exec_key,
    };
    let run_iv = times::execution(e);
    let run_id = ids::span_id(&["run", session_id, &ctx.exec_key]);

    let mut a = Attrs::default();
    a.string("gen_ai.operation.name", "invoke_agent");
    a.string("gen_ai.conversation.id", session_id);
    let u = e.usage_total;
    a.int("gen_ai.usage.input_tokens", u.input);
    a.int("gen_ai.usage.output_tokens", u.output);
    cache_attrs(&mut a, u.cache_read, u.cache_write);
    if let Some(id) = &e.id {
        a.string("stepline.execution.id", id);
    }
    if let Some(s) = e.status() {
        a.string("stepline.status", s);
    }
    let failed = e.status() == Some("failed") || e.run_error.is_some();
    let message = e
        .run_error
        .as_deref()
        .or(e.status_detail.error_message())
        .unwrap_or("the run failed");
    if failed {
        a.string("error.type", ERROR_OTHER);
    }
    out.push(span(
        &ctx,
        &run_id,
        None,
        "invoke_agent".to_string(),
        KIND_INTERNAL,
        run_iv,
        a,
        failed.then_some(message),
    ));

    let step_ivs = times::steps(e, run_iv);
    for (s, iv) in e.steps.values().zip(step_ivs) {
        step_spans(&ctx, &run_id, s, iv, out);
    }
}

fn cache_attrs(a: &mut Attrs, read: i64, write: i64) {
    if read > 0 {
        a.int("gen_ai.usage.cache_read.input_tokens", read);
    }
    if write > 0 {
        a.int("gen_ai.usage.cache_creation.input_tokens", write);
    }
}

fn step_key(s: &StepView) -> String {
    s.step_id
        .clone()
        .unwrap_or_else(|| format!("#{}", s.number))
}

fn step_spans(ctx: &Ctx, run_id: &str, s: &StepView, iv: Interval, out: &mut Vec<Span>) {
    let key = step_key(s);
    let id = ids::span_id(&["step", ctx.session_id, &ctx.exec_key, &key]);
    let mut a = Attrs::default();
    a.string("gen_ai.operation.name", "chat");
    a.string("gen_ai.conversation.id", ctx.session_id);
    if let Some(u) = s.usage {
        a.int("gen_ai.usage.input_tokens", u.input);
        a.int("gen_ai.usage.output_tokens", u.output);
        cache_attrs(&mut a, u.cache_read, u.cache_write);
    }
    if let Some(r) = &s.finish_reason {
        a.strings("gen_ai.response.finish_reasons", &[r]);
    }
    a.int("stepline.step.number", s.number);
    if let Some(sid) = &s.step_id {
        a.string("stepline.step.id", sid);
    }
    let failed = s.error.is_some() || s.attempt_failed || s.errors.unwrap_or(0) > 0;
    if failed {
        a.string("error.type", ERROR_OTHER);
    }
    out.push(span(
        ctx,
        &id,
        Some(run_id),
        "chat".to_string(),
        KIND_CLIENT,
        iv,
        a,
        failed.then_some(s.error.as_deref().unwrap_or("the step failed")),
    ));
    for (i, t) in s.tools.iter().enumerate() {
        tool_span(ctx, &id, &key, i, t, iv, out);
    }
}

fn tool_span(
    ctx: &Ctx,
    step_id: &str,
    step_key: &str,
    i: usize,
    t: &ToolRun,
    step_iv: Interval,
    out: &mut Vec<Span>,
) {
    // A call without an id is told apart by its place in the step.
    let call_key = t.call_id.clone().unwrap_or_else(|| format!("#{i}"));
    let id = ids::span_id(&["tool", ctx.session_id, &ctx.exec_key, step_key, &call_key]);
    let (started, completed) = (
        t.started_at.as_ref().map(Stamp::as_str),
        t.completed_at.as_ref().map(Stamp::as_str),
    );
    let iv = Interval::of(
        times::nanos(started.as_deref()),
        times::nanos(completed.as_deref()),
        step_iv,
    );
    let mut a = Attrs::default();
    a.string("gen_ai.operation.name", "execute_tool");
    a.string("gen_ai.conversation.id", ctx.session_id);
    a.string("gen_ai.tool.name", &t.name);
    if let Some(c) = &t.call_id {
        a.string("gen_ai.tool.call.id", c);
    }
    let failed = t.success == Some(false);
    if failed {
        a.string("error.type", ERROR_OTHER);
    }
    out.push(span(
        ctx,
        &id,
        Some(step_id),
        format!("execute_tool {}", t.name),
        KIND_INTERNAL,
        iv,
        a,
        failed.then_some(t.more().error.as_deref().unwrap_or("the tool call failed")),
    ));
}

#[allow(clippy::too_many_arguments)]
fn span(
    ctx: &Ctx,
    id: &str,
    parent: Option<&str>,
    name: String,
    kind: i64,
    iv: Interval,
    attrs: Attrs,
    error: Option<&str>,
) -> Span {
    Span {
        trace_id: ctx.trace_id.clone(),
        span_id: id.to_string(),
        parent_span_id: parent.map(str::to_string),
        name,
        kind,
        start_time_unix_nano: iv.start.to_string(),
        end_time_unix_nano: iv.end.to_string(),
        attributes: attrs.0,
        status: Status {
            code: error.map(|_| STATUS_ERROR),
            message: error.map(str::to_string),
        },
    }
}
