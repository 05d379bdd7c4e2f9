//! How each envelope type changes the view. Every rule here is order
//! independent: a step, tool run or chunk is created by whichever of its
//! events arrives first and completed by the others.

use crate::event::{
    Body, Chunk, Data, Event, Status, StepCompleted, StepFailed, StepObject, StepStarted,
    ToolEvent, ToolKind,
};
use crate::json::Value;
use crate::session::attribution::instant;
use crate::session::kept_continuation::KeptContinuation;
use crate::session::limits::Cap;
use crate::session::stamp::Stamp;
use crate::session::text::{push_within, Arrival, ChunkOutcome};
use crate::session::view::{add_usage, sub_usage, Approval, Execution, StepView, ToolRun};

/// Step `n` of execution `exec`, made to exist. The latest step (most
/// events) is taken from the tree's last entry, without the search `entry`
/// makes (comparing keys down the tree was a fiftieth of the bench
/// recording's replay, bench/findings.md). A macro, not a function: a
/// function that returns the last entry on one path cannot fall back to
/// `entry` on the other (the borrow checker keeps the first borrow for the
/// whole function), where a borrow at the call site can.
macro_rules! step_mut {
    ($exec:ident, $n:expr) => {{
        let n: i64 = $n;
        match $exec.steps.last_entry() {
            Some(e) if *e.key() == n => e.into_mut(),
            _ => {
                if !$exec.steps.contains_key(&n) {
                    $exec.step_gaps.arrived(n, 1);
                }
                $exec
                    .steps
                    .entry(n)
                    .or_insert_with(|| Box::new(StepView::new(n)))
            }
        }
    }};
}

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

/// The step an event belongs to: its own step number, else the highest
/// step whose start or completion has arrived. (Tool events without a step
/// number take this only as their arrival step, where timestamps cannot
/// place them: see `attribution`.) A continuation that arrives early does
/// not move tool events into the next step.
pub fn step_of(exec: &Execution, own: Option<i64>) -> i64 {
    own.unwrap_or_else(|| {
        exec.steps
            .values()
            .rev()
            .find(|s| s.seen_started || s.seen_completed)
            .map_or(1, |s| s.number)
    })
}

/// Applies one event. `arrival` is its place in the session's log (and its
/// fingerprint): stream text keeps it while the text it brought can show,
/// and hands it back through `exec.stream.take_evicted()` when the text
/// limit drops that text.
///
/// The event is the session's to drop afterwards (its log keeps the text):
/// what the view keeps is moved out of it, not copied. `ts` is the
/// envelope's timestamp, borrowed (the event's own `timestamp` when `None`):
/// only what keeps it (a step's start or completion, a tool event) copies
/// it, where a copy per event was an allocation and a free that most
/// events (a run's chunks) made for nothing (bench/findings.md).
pub fn apply(exec: &mut Execution, event: Event, ts: Option<&str>, arrival: Arrival) -> Touched {
    let n = step_of(exec, event.step);
    // The step's usage before and after, each read in one lookup (a search
    // of the steps per field was a fiftieth of a bulk replay,
    // bench/findings.md); the latest step, where most events go, without
    // comparing keys down the tree.
    let usage_of = |exec: &Execution| {
        let step = match exec.steps.last_key_value() {
            Some((&last, s)) if last == n => Some(s),
            _ => exec.steps.get(&n),
        };
        step.map_or((None, 0), |s| (s.usage, s.usage_total_extra()))
    };
    let (before, extra_before) = usage_of(exec);
    let Event {
        step,
        timestamp,
        annotations,
        body,
    } = event;
    let ts = ts.or(timestamp.as_deref());
    let mut touched = apply_event(exec, step, ts, body, arrival);
    if crate::session::annotate::absorb(exec, n, annotations) && touched == Touched::Header {
        // A step touch re-sends the header too.
        touched = Touched::Step(n);
    }
    let (after, extra_after) = usage_of(exec);
    if before != after {
        let total = sub_usage(&exec.usage_total, &before.unwrap_or_default());
        exec.usage_total = add_usage(&total, &after.unwrap_or_default());
    }
    exec.usage_total_extra = exec
        .usage_total_extra
        .saturating_add(extra_after.saturating_sub(extra_before));
    touched
}

fn apply_event(
    exec: &mut Execution,
    own: Option<i64>,
    ts: Option<&str>,
    body: Body,
    arrival: Arrival,
) -> Touched {
    if let Some(ts) = ts {
        widen_bounds(exec, ts);
    }
    match body {
        Body::Status(s) => status(exec, ts, s),
        Body::StepStarted(s) => step_started(exec, own, ts, s),
        Body::StepCompleted(c) => step_completed(exec, own, ts, *c),
        Body::StepFailed(f) => step_failed(exec, own, *f),
        Body::RunCompleted {
            final_answer,
            reason,
        } => {
            exec.final_answer = final_answer;
            set(&mut exec.end_reason, reason);
            exec.push_status("completed".into(), None);
            Touched::Header
        }
        Body::RunInterrupted { reason } => {
            set(&mut exec.end_reason, reason);
            exec.push_status("interrupted".into(), None);
            Touched::Header
        }
        Body::Data(d) => data(exec, d),
        Body::ReasoningDelta(delta) => reasoning_delta(exec, own, &delta, arrival),
        Body::Continuation(c) => {
            let n = step_of(exec, own);
            keep_continuation(step_mut!(exec, n), c, ts.and_then(instant));
            Touched::Step(n)
        }
        Body::Tool(t) => tool(exec, own, ts, *t, arrival),
        Body::StreamChunk(c) => stream_chunk(exec, ts, c, arrival),
        Body::TextDelta(delta) => text_delta(exec, own, &delta, arrival),
        Body::Other => Touched::Header,
    }
}

/// The run's first and last timestamps seen, in any arrival order. Written
/// into the strings they replace (nearly every envelope moves `last_at`:
/// a new `String` each was an allocation and a free per envelope).
fn widen_bounds(exec: &mut Execution, ts: &str) {
    if exec.first_at.as_deref().is_none_or(|f| ts < f) {
        set_text(&mut exec.first_at, ts);
    }
    if exec.last_at.as_deref().is_none_or(|l| ts > l) {
        set_text(&mut exec.last_at, ts);
    }
}

/// `slot` holds `text`, in the string it held when it held one.
fn set_text(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(s) => {
            s.clear();
            s.push_str(text);
        }
        None => *slot = Some(text.to_string()),
    }
}

/// `agent.status`.
fn status(exec: &mut Execution, ts: Option<&str>, s: Status) -> Touched {
    let at = ts.and_then(crate::session::status::epoch_ms);
    exec.status_detail.absorb(&s, at);
    if let Some(status) = s.status {
        if crate::session::view::TERMINAL.contains(&status.as_str()) {
            exec.chunk_segments.ended(at);
        }
        // Seed 000 names no previous status: when it was sent says
        // whether the run resumed.
        let timed = at
            .filter(|_| s.previous.is_none())
            .map(|at| (status.clone(), at));
        exec.push_status(status, s.previous);
        if let Some((status, at)) = timed {
            exec.note_status_time(&status, at);
        }
    }
    Touched::Header
}

/// A step's or its model call's start.
fn step_started(
    exec: &mut Execution,
    own: Option<i64>,
    ts: Option<&str>,
    s: StepStarted,
) -> Touched {
    let n = step_of(exec, own);
    let step = step_mut!(exec, n);
    step.seen_started = true;
    if step.started_at.is_none() {
        step.started_at = ts.map(str::to_string);
    }
    set(&mut step.step_id, s.step_id);
    set(&mut step.message_count, s.message_count);
    set(&mut step.tools_available, s.available_tools);
    bounds_changed(exec, n);
    Touched::Step(n)
}

/// A step's completion, or its model call's (which does not complete it).
fn step_completed(
    exec: &mut Execution,
    own: Option<i64>,
    ts: Option<&str>,
    c: StepCompleted,
) -> Touched {
    let n = step_of(exec, own);
    let step = step_mut!(exec, n);
    if !c.llm {
        step.seen_completed = true;
        step.completed_at = ts.map(str::to_string);
        step.attempt_failed |= c.attempt_failed;
    }
    set(&mut step.step_id, c.step_id);
    set(&mut step.has_tool_calls, c.has_tool_calls);
    set(&mut step.errors, c.errors);
    set(&mut step.finish_reason, c.finish_reason);
    if let Some(u) = c.usage {
        step.usage = Some(u.usage);
        step.usage_reported_total = u.reported_total;
    }
    set(&mut step.duration_ms, c.duration_ms);
    // Seed 000's summary of the step's decision (`should_continue`,
    // `stop_reason`, `resolved_by`) stands in only where no
    // `agent.continuation` gave the whole decision, in either order: it
    // keeps no instant, so a later full decision always replaces it.
    if let Some(decision) = c.continuation {
        if step.continuation.is_none() {
            step.continuation = Some(KeptContinuation::new(decision));
        }
    }
    if let Some(o) = c.step_object {
        absorb_step_object(step, o);
    }
    bounds_changed(exec, n);
    Touched::Step(n)
}

/// A step's failure, or the run's (which also fails the step).
fn step_failed(exec: &mut Execution, own: Option<i64>, f: StepFailed) -> Touched {
    let n = step_of(exec, own);
    if f.run {
        exec.run_error = f.error.clone();
        set(&mut exec.end_reason, f.reason);
        exec.push_status("failed".into(), None);
    }
    let step = step_mut!(exec, n);
    step.error = f.error;
    if let Some(o) = f.step_object {
        absorb_step_object(step, o);
    }
    // The step changed in both cases (a step touch re-sends the header too).
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
    // Kept for the session's life: typed (src/session/kept_continuation.rs).
    step.continuation = Some(KeptContinuation::new(c));
    step.continuation_at = at.or(step.continuation_at);
}

/// A tool event: placed by its step number, else its timestamp, else arrival
/// (see `attribution`); the arrival step is made to exist.
fn tool(
    exec: &mut Execution,
    own: Option<i64>,
    ts: Option<&str>,
    event: ToolEvent,
    arrival: Arrival,
) -> Touched {
    let arrival_step = exec.tool_placement.pending.arrival;
    let n = own.or(arrival_step).unwrap_or_else(|| step_of(exec, own));
    step_mut!(exec, n);
    let limit = exec.stream.limit();
    let placed = exec
        .tool_placement
        .add(&mut exec.steps, event, ts, own, n, arrival.0, limit);
    Touched::Step(placed)
}

/// A chunk of the run's text. A raw provider frame (the decoder's
/// `provider_frame`) holds its index, counted, but no text.
fn stream_chunk(exec: &mut Execution, ts: Option<&str>, c: Chunk, arrival: Arrival) -> Touched {
    exec.provider_frames += u64::from(c.provider_frame);
    let index = match c.index {
        Some(i) => {
            // The instant the session read for its vouch, else read here.
            let at = match exec.stream.vouched_instant() {
                Some(us) => Some(us.div_euclid(1000)),
                None => ts.and_then(crate::session::status::epoch_ms),
            };
            exec.chunk_segments.key(i, at, &exec.stream)
        }
        None => exec.stream.next_index(),
    };
    if c.is_complete {
        exec.stream_complete = true;
    }
    // The session vouched for the envelope's parts (src/session/chunk_key.rs):
    // not what the stream text would make the key of, for a frame (no text)
    // or a chunk the segments placed under another index.
    if c.provider_frame || c.index != Some(index) {
        exec.stream.clear_vouch();
    }
    let outcome = exec
        .stream
        .chunk(index, c.content, &mut exec.text, Some(arrival));
    if exec.stream.over_limit() {
        exec.limits.reached(Cap::Text);
    }
    match outcome {
        ChunkOutcome::Kept { replaced } => Touched::Text { replaced },
        // The dropped size shows in the header.
        ChunkOutcome::Dropped => Touched::Header,
    }
}

/// Answer text: the run's text and its step's text grow.
fn text_delta(exec: &mut Execution, own: Option<i64>, delta: &str, arrival: Arrival) -> Touched {
    let n = step_of(exec, own);
    let kept = exec.stream.delta(delta, &mut exec.text);
    if kept.len() < delta.len() {
        exec.limits.reached(Cap::Text);
    }
    if kept.is_empty() && !delta.is_empty() {
        // Nothing of it can show: the log need not keep it.
        exec.stream.drop_arrival(arrival);
    }
    step_mut!(exec, n).text.push_str(kept);
    Touched::Step(n)
}

/// Reasoning text: the step's reasoning, up to the text limit.
fn reasoning_delta(
    exec: &mut Execution,
    own: Option<i64>,
    delta: &str,
    arrival: Arrival,
) -> Touched {
    let n = step_of(exec, own);
    let limit = exec.stream.limit();
    let step = step_mut!(exec, n);
    let full = !step.reasoning.is_empty();
    let kept = push_within(&mut step.reasoning, delta, limit).len();
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

/// A named value: the latest under its name, or a translator's patch to it
/// (src/session/data.rs).
fn data(exec: &mut Execution, d: Data) -> Touched {
    match d {
        Data::Put { name, value } => crate::session::data::put(exec, name, value),
        #[cfg(feature = "full")]
        Data::Patch { name, patch } => crate::session::data::patch(exec, &name, &patch),
        // Only the foreign dialects' translators (full package) send patches.
        #[cfg(not(feature = "full"))]
        Data::Patch { .. } => {}
    }
    Touched::Header
}

/// Re-places tool events after step `n`'s start or completion changed.
fn bounds_changed(exec: &mut Execution, n: i64) {
    let limit = exec.stream.limit();
    exec.tool_placement.step_changed(&mut exec.steps, n, limit);
}

/// Applies one tool event to its step; returns the position of the run it
/// started, completed or added output to. The event stays with the
/// placement (a step's runs are built again when an event moves): what the
/// run keeps is copied from it.
pub(crate) fn tool_event(
    step: &mut StepView,
    e: &ToolEvent,
    ts: Option<Stamp>,
    limit: usize,
) -> usize {
    let i = run_for(step, e.kind, &e.name, e.call_id.as_deref());
    let Some(run) = step.tools.get_mut(i) else {
        // `i` was found in, or just pushed to, the step's runs.
        return i;
    };
    if let (Some(id), None) = (e.call_id.as_deref(), run.call_id.as_deref()) {
        step.tool_index.named(i, id);
    }
    set(&mut run.call_id, e.call_id.clone());
    match e.kind {
        ToolKind::Started => tool_started(run, ts, e),
        ToolKind::Completed | ToolKind::Failed => tool_ended(run, ts, e),
        ToolKind::Approval => {
            if let Some(a) = e.approval.as_deref().and_then(Approval::parse) {
                run.more_mut().approval = Some(a);
            }
        }
        ToolKind::Output => {
            if let Some(d) = e.text_delta.as_deref() {
                let more = run.more_mut();
                let kept = push_within(&mut more.output, d, limit);
                let dropped = (d.len() - kept.len()) as u64;
                more.output_dropped_bytes = more.output_dropped_bytes.saturating_add(dropped);
            }
        }
    }
    i
}

/// The position of the run a tool event belongs to, added when there is none.
/// A start or an end pairs with the run it completes: by call id when the
/// producer sends one, else the first run of the same name still waiting for
/// that half. Output deltas join the newest run of that name.
fn run_for(step: &mut StepView, kind: ToolKind, name: &str, call_id: Option<&str>) -> usize {
    let starting = kind == ToolKind::Started;
    let ending = kind.ends();
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
                t.name = name.to_string();
            }
            i
        }
        None => {
            step.tools.push(ToolRun {
                name: name.to_string(),
                ..ToolRun::default()
            });
            let i = step.tools.len() - 1;
            step.tool_index.add(i, call_id);
            i
        }
    }
}

/// A tool's start: the start time and the arguments (or their summary).
fn tool_started(run: &mut ToolRun, ts: Option<Stamp>, e: &ToolEvent) {
    run.seen_started = true;
    run.started_at = ts;
    if let Some(summary) = &e.args_summary {
        run.more_mut().args_summary = Some(summary.clone());
    }
    set(&mut run.args, e.args.clone());
}

/// A tool's completion or failure: the outcome, duration and result.
fn tool_ended(run: &mut ToolRun, ts: Option<Stamp>, e: &ToolEvent) {
    run.seen_completed = true;
    run.completed_at = ts;
    run.success = Some(match e.success {
        Some(s) => s,
        None => e.kind == ToolKind::Completed && e.error.is_none(),
    });
    if e.error.is_some() || run.more().error.is_some() {
        run.more_mut().error = e.error.clone();
    }
    set(&mut run.duration_ms, e.duration_ms.clone());
    if let Some(summary) = &e.result_summary {
        run.more_mut().result_summary = Some(summary.clone());
    }
    if let Some(result) = &e.result {
        run.more_mut().result = Some(result.clone());
    }
    // Seed 003's result may carry its own call and latency (its
    // proposed `ToolExecutionResult` id and `latency_ms`).
    if run.duration_ms.is_none() {
        run.duration_ms = e.result_duration_ms.clone();
    }
    if run.call_id.is_none() {
        run.call_id = e.result_call_id.clone();
    }
    // Seed 003 (docs/seeds/003-agent-response-structure.md): the completion's
    // `tool_result.output` is what the tool returned. Output deltas streamed
    // before it are the tool's log, kept as they are; the completion's output
    // is its result either way.
    if let Some(out) = &e.output {
        let more = run.more_mut();
        if more.output.is_empty() {
            more.output = out.clone();
        }
        if more.result.is_none() {
            more.result = Some(Value::String(out.clone()));
        }
        more.final_output = Some(out.clone());
    }
}

/// A seed-003 `step` object fills what the step lacks.
fn absorb_step_object(step: &mut StepView, o: StepObject) {
    set(&mut step.step_id, o.step_id);
    set(&mut step.timestamp, o.timestamp);
    set(&mut step.finish_reason, o.finish_reason);
    if step.usage.is_none() {
        step.usage = o.usage.map(|u| u.usage);
        step.usage_reported_total = o.usage.and_then(|u| u.reported_total);
    }
    set(&mut step.has_tool_calls, o.has_tool_calls);
    if step.text.is_empty() {
        if let Some(t) = o.text {
            step.text = t;
        }
    }
}

/// Keeps what is known when a later event leaves a field out.
fn set<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}

#[cfg(test)]
mod tests {
    /// The debug-preset case of the reference's envelope vectors (a
    /// continuation trace of five evaluations).
    fn debug_envelopes() -> Vec<String> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/cognesy-v1.22/envelopes.json"
        );
        let text = std::fs::read_to_string(path).expect("the vector file");
        let cases = crate::json::from_str(&text).expect("JSON");
        let case = cases
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["name"].as_str() == Some("final answer with streaming [debug]"))
            .expect("the debug case");
        case["expected"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| e["envelope"].to_string())
            .collect()
    }

    #[test]
    fn a_kept_continuation_is_typed_and_reads_back_as_sent() {
        // Memory: a step keeps its decision for the session's life, and as
        // the decoder's tree its five `{criterion, decision, reason}`
        // objects were about three times its text (bench/findings.md,
        // issue 27's seventh pass).
        let mut session = crate::session::Session::default();
        let lines = debug_envelopes();
        for line in &lines {
            session.ingest_text(line).expect("an envelope");
        }
        let sent = lines
            .iter()
            .map(|l| crate::json::from_str(l).expect("JSON"))
            .find(|e| e["type"] == "agent.continuation")
            .expect("the debug case's continuation");
        let exec = &session.executions()[0];
        let kept: Vec<_> = exec
            .steps
            .values()
            .filter_map(|s| s.continuation.as_ref())
            .collect();
        assert_eq!(kept.len(), 1);
        assert!(kept[0].is_typed());
        let c = kept[0].value();
        for k in [
            "should_continue",
            "stop_reason",
            "resolved_by",
            "evaluations",
        ] {
            assert_eq!(c[k], sent["payload"][k], "{k}");
        }
        assert_eq!(c["evaluations"].as_array().map(Vec::len), Some(5));
        assert_eq!(c["evaluations"][4]["decision"].as_str(), Some("stop"));
    }
}
