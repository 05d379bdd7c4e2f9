//! How each envelope type changes the view. Every rule here is order
//! independent: a step, tool run or chunk is created by whichever of its
//! events arrives first and completed by the others.

use crate::json::{Map, Value};

use crate::model::usage::Usage;
use crate::session::attribution::instant;
use crate::session::limits::Cap;
use crate::session::text::{push_within, Arrival, ChunkOutcome};
use crate::session::view::{add_usage, sub_usage, Approval, Execution, StepView, ToolRun};

/// What an applied envelope touched, so the next patch sends only that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touched {
    Header,
    Step(i64),
    /// The streamed text grew at its end (`false`) or changed inside (`true`).
    Text {
        replaced: bool,
    },
}

/// The step an event belongs to: its own `step_number`/`step_index`, else
/// the highest step whose start or completion has arrived. (Tool events
/// without a step number take this only as their arrival step, where
/// timestamps cannot place them: see `attribution`.) A continuation that
/// arrives early does not move tool events into the next step.
pub fn step_of(exec: &Execution, payload: &Map) -> i64 {
    payload
        .get("step_index")
        .or_else(|| payload.get("step_number"))
        .and_then(Value::as_i64)
        .unwrap_or_else(|| {
            exec.steps
                .values()
                .rev()
                .find(|s| s.seen_started || s.seen_completed)
                .map_or(1, |s| s.number)
        })
}

/// Applies one decoded envelope of a known or unknown type. `arrival` is
/// its place in the session's log (and its fingerprint): stream text keeps
/// it while the text it brought can show, and hands it back through
/// `exec.stream.take_evicted()` when the text limit drops that text.
///
/// The payload is the envelope's own, which the session drops afterwards (its
/// log keeps the text): what the view keeps is moved out of it, not copied.
pub fn apply(
    exec: &mut Execution,
    kind: &str,
    ts: Option<&str>,
    p: &mut Map,
    arrival: Arrival,
) -> Touched {
    let n = step_of(exec, p);
    let before = exec.steps.get(&n).and_then(|s| s.usage);
    let extra_before = exec.steps.get(&n).map_or(0, StepView::usage_total_extra);
    let mut touched = apply_event(exec, kind, ts, p, arrival);
    if crate::session::annotate::absorb(exec, n, p) && touched == Touched::Header {
        // A step touch re-sends the header too.
        touched = Touched::Step(n);
    }
    let after = exec.steps.get(&n).and_then(|s| s.usage);
    if before != after {
        let total = sub_usage(&exec.usage_total, &before.unwrap_or_default());
        exec.usage_total = add_usage(&total, &after.unwrap_or_default());
    }
    let extra_after = exec.steps.get(&n).map_or(0, StepView::usage_total_extra);
    exec.usage_total_extra = exec
        .usage_total_extra
        .saturating_add(extra_after.saturating_sub(extra_before));
    touched
}

fn apply_event(
    exec: &mut Execution,
    kind: &str,
    ts: Option<&str>,
    p: &mut Map,
    arrival: Arrival,
) -> Touched {
    if let Some(ts) = ts {
        widen_bounds(exec, ts);
    }
    let ts = ts.map(str::to_string);
    match kind {
        "agent.status" => status(exec, ts.as_deref(), p),
        "agent.step.started" | "agent.llm.started" => step_started(exec, ts, p),
        "agent.step.completed" | "agent.llm.completed" => step_completed(exec, kind, ts, p),
        "agent.step.failed" | "agent.run.failed" => step_failed(exec, kind, p),
        "agent.run.completed" => {
            exec.final_answer = str_of(p, "final_answer");
            set(&mut exec.end_reason, str_of(p, "reason"));
            exec.push_status("completed".into(), None);
            Touched::Header
        }
        "agent.run.interrupted" => {
            set(&mut exec.end_reason, str_of(p, "reason"));
            exec.push_status("interrupted".into(), None);
            Touched::Header
        }
        "agent.data" => data(exec, p),
        "agent.llm.reasoning.delta" => reasoning_delta(exec, p, arrival),
        "agent.continuation" => continuation(exec, ts.as_deref(), p),
        "agent.tool.started"
        | "agent.tool.completed"
        | "agent.tool.failed"
        | "agent.tool.approval"
        | "agent.tool.output" => tool(exec, kind, ts, p, arrival),
        "agent.stream.chunk" => stream_chunk(exec, ts.as_deref(), p, arrival),
        "agent.llm.output_text.delta" => text_delta(exec, p, arrival),
        _ => Touched::Header,
    }
}

/// The run's first and last timestamps seen, in any arrival order.
fn widen_bounds(exec: &mut Execution, ts: &str) {
    if exec.first_at.as_deref().is_none_or(|f| ts < f) {
        exec.first_at = Some(ts.to_string());
    }
    if exec.last_at.as_deref().is_none_or(|l| ts > l) {
        exec.last_at = Some(ts.to_string());
    }
}

/// `agent.status`.
fn status(exec: &mut Execution, ts: Option<&str>, p: &mut Map) -> Touched {
    let at = ts.and_then(crate::session::status::epoch_ms);
    exec.status_detail.absorb(p, at);
    if let Some(s) = str_of(p, "status") {
        if crate::session::view::TERMINAL.contains(&s.as_str()) {
            exec.chunk_segments.ended(at);
        }
        let from = str_of(p, "previous_status");
        // Seed 000 names no previous status: when it was sent says
        // whether the run resumed.
        let timed = at.filter(|_| from.is_none()).map(|at| (s.clone(), at));
        exec.push_status(s, from);
        if let Some((s, at)) = timed {
            exec.note_status_time(&s, at);
        }
    }
    Touched::Header
}

/// `agent.step.started` and `agent.llm.started`.
fn step_started(exec: &mut Execution, ts: Option<String>, p: &mut Map) -> Touched {
    let n = step_of(exec, p);
    let step = step_mut(exec, n);
    step.seen_started = true;
    step.started_at = step.started_at.take().or(ts);
    set(&mut step.step_id, str_of(p, "step_id"));
    set(&mut step.message_count, int_of(p, "message_count"));
    set(&mut step.tools_available, int_of(p, "available_tools"));
    bounds_changed(exec, n);
    Touched::Step(n)
}

/// `agent.step.completed` and `agent.llm.completed` (only the first completes the step).
fn step_completed(exec: &mut Execution, kind: &str, ts: Option<String>, p: &mut Map) -> Touched {
    let n = step_of(exec, p);
    let step = step_mut(exec, n);
    if kind == "agent.step.completed" {
        step.seen_completed = true;
        step.completed_at = ts;
        step.attempt_failed |= p.contains_key("recorded_steps");
    }
    set(&mut step.step_id, str_of(p, "step_id"));
    set(
        &mut step.has_tool_calls,
        p.get("has_tool_calls").and_then(Value::as_bool),
    );
    set(&mut step.errors, int_of(p, "errors"));
    set(&mut step.finish_reason, str_of(p, "finish_reason"));
    if let Some(u) = p.get("usage").and_then(usage_of) {
        step.usage = Some(u);
        step.usage_reported_total = p.get("usage").and_then(|v| reported_total(v, &u));
    }
    set(
        &mut step.duration_ms,
        p.remove("duration_ms").filter(|v| !v.is_null()),
    );
    // Seed 000's summary of the step's decision (`should_continue`,
    // `stop_reason`, `resolved_by`) stands in only where no
    // `agent.continuation` gave the whole decision, in either order: it
    // keeps no instant, so a later full decision always replaces it.
    if let Some(c) = p.remove("continuation").filter(Value::is_object) {
        if step.continuation.is_none() {
            step.continuation = Some(c);
        }
    }
    if let Some(s) = p.get_mut("step").and_then(Value::as_object_mut) {
        absorb_step_object(step, s);
    }
    bounds_changed(exec, n);
    Touched::Step(n)
}

/// `agent.step.failed` and `agent.run.failed` (which also fails the run).
fn step_failed(exec: &mut Execution, kind: &str, p: &mut Map) -> Touched {
    let n = step_of(exec, p);
    let error = str_of(p, "error");
    if kind == "agent.run.failed" {
        exec.run_error = error.clone();
        set(&mut exec.end_reason, str_of(p, "reason"));
        exec.push_status("failed".into(), None);
    }
    let step = step_mut(exec, n);
    step.error = error;
    if let Some(s) = p.get_mut("step").and_then(Value::as_object_mut) {
        absorb_step_object(step, s);
    }
    // The step changed in both cases (a step touch re-sends the header too).
    Touched::Step(n)
}

/// `agent.continuation`: the decision is kept on its step.
fn continuation(exec: &mut Execution, ts: Option<&str>, p: &mut Map) -> Touched {
    let n = step_of(exec, p);
    let mut c = Map::new();
    for k in [
        "should_continue",
        "stop_reason",
        "resolved_by",
        "evaluations",
    ] {
        c.insert(k, p.remove(k).unwrap_or(Value::Null));
    }
    keep_continuation(step_mut(exec, n), Value::Object(c), ts.and_then(instant));
    Touched::Step(n)
}

/// A step's continuation is the latest sent: a guard's stop re-sent after the
/// step's own decision wins however the two arrive (a page that saw the
/// second live and the first in a resync). Without timestamps to tell them
/// apart, the one that arrived last.
fn keep_continuation(step: &mut StepView, c: Value, at: Option<i64>) {
    if let (Some(kept), Some(new)) = (step.continuation_at, at) {
        if new < kept {
            return;
        }
    }
    step.continuation = Some(c);
    step.continuation_at = at.or(step.continuation_at);
}

/// `agent.tool.*`: placed by its step number, else its timestamp, else arrival
/// (see `attribution`); the arrival step is made to exist.
fn tool(
    exec: &mut Execution,
    kind: &str,
    ts: Option<String>,
    p: &mut Map,
    arrival: Arrival,
) -> Touched {
    let own = own_step(p);
    let arrival_step = exec.tool_placement.pending.arrival;
    let n = own.or(arrival_step).unwrap_or_else(|| step_of(exec, p));
    step_mut(exec, n);
    let limit = exec.stream.limit();
    let kind = tool_kind(kind);
    let payload = std::mem::take(p);
    let placed =
        exec.tool_placement
            .add(&mut exec.steps, kind, ts, payload, own, n, arrival.0, limit);
    Touched::Step(placed)
}

/// `agent.stream.chunk`. A raw provider frame (the decoder's
/// `provider_frame`) holds its index, counted, but no text.
fn stream_chunk(exec: &mut Execution, ts: Option<&str>, p: &mut Map, arrival: Arrival) -> Touched {
    let frame = p.contains_key("provider_frame");
    let content = match frame {
        true => String::new(),
        false => str_of(p, "content").unwrap_or_default(),
    };
    exec.provider_frames += u64::from(frame);
    let index = match int_of(p, "chunk_index") {
        Some(i) => {
            let at = ts.and_then(crate::session::status::epoch_ms);
            exec.chunk_segments.key(i, at, &exec.stream)
        }
        None => exec.stream.next_index(),
    };
    if p.get("is_complete").and_then(Value::as_bool) == Some(true) {
        exec.stream_complete = true;
    }
    let outcome = exec
        .stream
        .chunk(index, content, &mut exec.text, Some(arrival));
    if exec.stream.over_limit() {
        exec.limits.reached(Cap::Text);
    }
    match outcome {
        ChunkOutcome::Kept { replaced } => Touched::Text { replaced },
        // The dropped size shows in the header.
        ChunkOutcome::Dropped => Touched::Header,
    }
}

/// `agent.llm.output_text.delta`: the run's text and its step's text grow.
fn text_delta(exec: &mut Execution, p: &mut Map, arrival: Arrival) -> Touched {
    let n = step_of(exec, p);
    let delta = str_of(p, "text_delta").unwrap_or_default();
    let kept = exec.stream.delta(&delta, &mut exec.text);
    if kept.len() < delta.len() {
        exec.limits.reached(Cap::Text);
    }
    if kept.is_empty() && !delta.is_empty() {
        // Nothing of it can show: the log need not keep it.
        exec.stream.drop_arrival(arrival);
    }
    step_mut(exec, n).text.push_str(kept);
    Touched::Step(n)
}

/// `agent.llm.reasoning.delta`: the step's reasoning, up to the text limit.
fn reasoning_delta(exec: &mut Execution, p: &mut Map, arrival: Arrival) -> Touched {
    let n = step_of(exec, p);
    let delta = str_of(p, "text_delta").unwrap_or_default();
    let limit = exec.stream.limit();
    let step = step_mut(exec, n);
    let full = !step.reasoning.is_empty();
    let kept = push_within(&mut step.reasoning, &delta, limit).len();
    if kept < delta.len() {
        exec.limits.reached(Cap::Reasoning);
        if kept == 0 && full {
            // Nothing of it can show, and the step existed before it: the
            // log need not keep it (as text past the limit, above).
            exec.stream.drop_arrival(arrival);
        }
    }
    Touched::Step(n)
}

/// `agent.data`: the latest value under its name, or a translator's patch
/// to it (src/session/data.rs).
fn data(exec: &mut Execution, p: &mut Map) -> Touched {
    if let Some(name) = str_of(p, "name") {
        // Only the foreign dialects' translators (full package) send patches.
        #[cfg(feature = "full")]
        if let Some(patch) = p.remove(crate::dialects::DATA_PATCH) {
            crate::session::data::patch(exec, &name, &patch);
            return Touched::Header;
        }
        let value = p.remove("data").unwrap_or(Value::Null);
        crate::session::data::put(exec, name, value);
    }
    Touched::Header
}

/// Re-places tool events after step `n`'s start or completion changed.
fn bounds_changed(exec: &mut Execution, n: i64) {
    let limit = exec.stream.limit();
    exec.tool_placement.step_changed(&mut exec.steps, n, limit);
}

/// The step number a tool event carries itself, if any.
pub fn own_step(p: &Map) -> Option<i64> {
    p.get("step_index")
        .or_else(|| p.get("step_number"))
        .and_then(Value::as_i64)
}

fn tool_kind(kind: &str) -> &'static str {
    match kind {
        "agent.tool.started" => "agent.tool.started",
        "agent.tool.completed" => "agent.tool.completed",
        "agent.tool.failed" => "agent.tool.failed",
        "agent.tool.approval" => "agent.tool.approval",
        _ => "agent.tool.output",
    }
}

/// Applies one tool event to its step; returns the position of the run it
/// started, completed or added output to.
pub(crate) fn tool_event(
    step: &mut StepView,
    kind: &str,
    ts: Option<String>,
    p: &mut Map,
    limit: usize,
) -> usize {
    let mut call = match p.remove("tool_call") {
        Some(Value::Object(c)) => Some(c),
        _ => None,
    };
    let name = str_of(p, "tool_name")
        .or_else(|| call.as_mut().and_then(|c| str_of(c, "name")))
        .unwrap_or_default();
    let call_id = str_of(p, "tool_call_id").or_else(|| call.as_mut().and_then(|c| str_of(c, "id")));
    let i = run_for(step, kind, name, call_id.as_deref());
    let Some(run) = step.tools.get_mut(i) else {
        // `i` was found in, or just pushed to, the step's runs.
        return i;
    };
    if let (Some(id), None) = (call_id.as_deref(), run.call_id.as_deref()) {
        step.tool_index.named(i, id);
    }
    set(&mut run.call_id, call_id);
    match kind {
        "agent.tool.started" => tool_started(run, ts, p, call.as_mut()),
        "agent.tool.completed" | "agent.tool.failed" => tool_ended(run, kind, ts, p),
        "agent.tool.approval" => {
            set(
                &mut run.approval,
                str_of(p, "approval").as_deref().and_then(Approval::parse),
            );
        }
        _ => {
            if let Some(d) = str_of(p, "text_delta") {
                let kept = push_within(&mut run.output, &d, limit);
                let dropped = (d.len() - kept.len()) as u64;
                run.output_dropped_bytes = run.output_dropped_bytes.saturating_add(dropped);
            }
        }
    }
    i
}

/// The position of the run a tool event belongs to, added when there is none.
/// A start or an end pairs with the run it completes: by call id when the
/// producer sends one, else the first run of the same name still waiting for
/// that half. Output deltas join the newest run of that name.
fn run_for(step: &mut StepView, kind: &str, name: String, call_id: Option<&str>) -> usize {
    let starting = kind == "agent.tool.started";
    let ending = kind == "agent.tool.completed" || kind == "agent.tool.failed";
    // An approval may name only the call.
    let pairs = |t: &ToolRun| {
        (t.name == name || name.is_empty() || t.name.is_empty())
            && match (call_id, &t.call_id) {
                (Some(a), Some(b)) => a == b,
                _ if starting => !t.seen_started && t.seen_completed,
                _ if ending => !t.seen_completed,
                _ => false,
            }
    };
    // Only runs with this call id or with none can pair: the index lists
    // them (src/session/tool_index.rs), in order, so the first found is the
    // first a scan of every run finds.
    step.tool_index.sync(&step.tools);
    let found = step
        .tool_index
        .candidates(call_id)
        .into_iter()
        .find(|&i| step.tools.get(i).is_some_and(pairs));
    let found = found.or_else(|| {
        (!starting && !ending)
            .then(|| step.tools.iter().rposition(|t| t.name == name))
            .flatten()
    });
    match found {
        Some(i) => {
            // A run an approval opened learns its name from the call's events.
            if let Some(t) = step.tools.get_mut(i).filter(|t| t.name.is_empty()) {
                t.name = name;
            }
            i
        }
        None => {
            step.tools.push(ToolRun {
                name,
                ..ToolRun::default()
            });
            let i = step.tools.len() - 1;
            step.tool_index.add(i, call_id);
            i
        }
    }
}

/// `agent.tool.started`: the start time and the arguments (or their summary).
fn tool_started(run: &mut ToolRun, ts: Option<String>, p: &mut Map, call: Option<&mut Map>) {
    run.seen_started = true;
    run.started_at = ts;
    set(&mut run.args_summary, str_of(p, "args_summary"));
    let args = p
        .remove("args")
        .filter(|v| !v.is_null())
        .or_else(|| call.and_then(|c| c.remove("arguments")));
    set(&mut run.args, args);
}

/// `agent.tool.completed` and `agent.tool.failed`: the outcome, duration and
/// result.
fn tool_ended(run: &mut ToolRun, kind: &str, ts: Option<String>, p: &mut Map) {
    let mut result = match p.remove("tool_result") {
        Some(Value::Object(r)) => Some(r),
        _ => None,
    };
    let error = str_of(p, "error").or_else(|| result.as_mut().and_then(|r| str_of(r, "error")));
    run.seen_completed = true;
    run.completed_at = ts;
    run.success = Some(match p.get("success").and_then(Value::as_bool) {
        Some(s) => s,
        None => kind == "agent.tool.completed" && error.is_none(),
    });
    run.error = error;
    set(
        &mut run.duration_ms,
        p.remove("duration_ms").filter(|v| !v.is_null()),
    );
    set(&mut run.result_summary, str_of(p, "result_summary"));
    set(&mut run.result, p.remove("result").filter(|v| !v.is_null()));
    // Seed 003's result may carry its own call and latency (its
    // proposed `ToolExecutionResult` id and `latency_ms`).
    if let Some(r) = result.as_mut() {
        if run.duration_ms.is_none() {
            run.duration_ms = ["latency_ms", "duration_ms"]
                .iter()
                .find_map(|k| r.remove(k).filter(Value::is_number));
        }
        if run.call_id.is_none() {
            run.call_id = r
                .get_mut("call")
                .and_then(Value::as_object_mut)
                .and_then(|c| str_of(c, "id"));
        }
    }
    // Seed 003 (docs/seeds/003-agent-response-structure.md): the completion's
    // `tool_result.output` is what the tool returned. Output deltas streamed
    // before it are the tool's log, kept as they are; the completion's output
    // is its result either way.
    if let Some(out) = result.as_mut().and_then(|r| str_of(r, "output")) {
        if run.output.is_empty() {
            run.output = out.clone();
        }
        if run.result.is_none() {
            run.result = Some(Value::String(out.clone()));
        }
        run.final_output = Some(out);
    }
}

/// A seed-003 `step` object: `{llm_response: {text, usage, finish_reason, tool_calls}, tool_results}`.
fn absorb_step_object(step: &mut StepView, s: &mut Map) {
    set(&mut step.step_id, str_of(s, "step_id"));
    set(&mut step.timestamp, str_of(s, "timestamp"));
    if let Some(r) = s.get_mut("llm_response").and_then(Value::as_object_mut) {
        set(&mut step.finish_reason, str_of(r, "finish_reason"));
        if step.usage.is_none() {
            step.usage = r.get("usage").and_then(usage_of);
            step.usage_reported_total = step
                .usage
                .and_then(|u| r.get("usage").and_then(|v| reported_total(v, &u)));
        }
        if let Some(calls) = r.get("tool_calls").and_then(Value::as_array) {
            set(&mut step.has_tool_calls, Some(!calls.is_empty()));
        }
        if step.text.is_empty() {
            if let Some(t) = str_of(r, "text") {
                step.text = t;
            }
        }
    }
}

fn step_mut(exec: &mut Execution, n: i64) -> &mut StepView {
    if !exec.steps.contains_key(&n) {
        exec.step_gaps.arrived(n, 1);
    }
    exec.steps.entry(n).or_insert_with(|| StepView::new(n))
}

/// Keeps what is known when a later event leaves a field out.
fn set<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}

/// The string at `k`, moved out of the payload (each is read once).
fn str_of(m: &mut Map, k: &str) -> Option<String> {
    match m.get_mut(k) {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    }
}

fn int_of(m: &Map, k: &str) -> Option<i64> {
    m.get(k).and_then(Value::as_i64)
}

/// The producer's own `total` (`total_tokens` in seed-003 objects), when
/// it differs from the sum of `u`'s fields.
fn reported_total(v: &Value, u: &Usage) -> Option<i64> {
    let m = v.as_object()?;
    let t = m
        .get("total")
        .or_else(|| m.get("total_tokens"))
        .and_then(Value::as_i64)?;
    (t != u.total()).then_some(t)
}

/// Decoded usage is already `{input, output, cacheWrite, cacheRead, reasoning}`;
/// seed-003 objects may carry `{prompt_tokens, completion_tokens}` instead.
fn usage_of(v: &Value) -> Option<Usage> {
    let m = v.as_object()?;
    let int = |k: &str| m.get(k).and_then(Value::as_i64).unwrap_or(0);
    Some(Usage {
        input: int("input")
            .saturating_add(int("prompt_tokens"))
            .saturating_add(int("prompt")),
        output: int("output")
            .saturating_add(int("completion_tokens"))
            .saturating_add(int("completion")),
        cache_write: int("cacheWrite"),
        cache_read: int("cacheRead"),
        reasoning: int("reasoning"),
    })
}
