//! The latest execution against a slim snapshot (v1.22's, or v2's
//! `state_version: "v2"`): the snapshot wins, and the report says exactly
//! where the two disagree. Steps, their fields, tool calls, text and lost
//! events are compared the same way for both versions; what differs is a
//! hook of [`StateFormat`].

use crate::json::{child, Map, Value};

use crate::dialects::final_form::{FinalStep, FinalTool, RunRecord, StepRecord};
use crate::session::reconcile::final_run::read_slim;
use crate::session::reconcile::formats::StateFormat;
use crate::session::reconcile::matcher::{
    match_tools, step_runs, text_agrees, Call, Extent, Matching, Rule,
};
use crate::session::reconcile::{lost_events, Diffs, Report};
use crate::session::view::{Execution, StepView, ToolRun, TERMINAL};
use crate::session::window::Window;

/// A listed step as compared: the neutral step, what the state records of
/// it, and its calls matched with its streamed runs (`None` when the state
/// does not list its calls).
struct Listed<'a> {
    step: &'a FinalStep,
    record: &'a StepRecord,
    matched: Option<Matching>,
}

/// The matcher's view of a state's call: in its step, by name, and by id
/// where the state keeps one.
fn call(ft: &FinalTool) -> Call<'_> {
    Call {
        step: None,
        name: &ft.name,
        id: (!ft.id_missing).then_some(ft.call_id.as_str()),
    }
}

/// `reconcile()` of `streamed`, the latest execution (settled), against
/// `snap`; `error` is the final state's error text, which a slim snapshot
/// does not keep.
pub(crate) fn reconcile(
    mut streamed: Execution,
    snap: &Map,
    error: Option<&str>,
    has_executions: bool,
) -> Report {
    let turn = read_slim(snap);
    let empty = RunRecord::default();
    let run = turn.record.as_ref().unwrap_or(&empty);
    let no_record = StepRecord::default();
    let format = StateFormat::of(snap);
    let window = Window::of(snap, &streamed);
    // Each listed step's calls are matched once with its streamed runs, for
    // the comparison and for the view the snapshot wins.
    let listed: Vec<Listed<'_>> = (0..)
        .zip(&turn.steps)
        .map(|(i, step)| {
            let record = step.record.as_ref().unwrap_or(&no_record);
            let matched = record.lists_calls.then(|| {
                let s = streamed.steps.get(&window.run_step(i));
                let runs: Vec<_> = s.into_iter().flat_map(|s| step_runs(s)).collect();
                let calls: Vec<Call<'_>> = step.tools.iter().map(call).collect();
                match_tools(&runs, &calls, Rule::NameInStep)
            });
            Listed {
                step,
                record,
                matched,
            }
        })
        .collect();
    let status = run.status.as_deref();
    let mut d = Diffs(Vec::new());
    let exception_path = format.exception_path(&streamed, status);
    format.compare_status(&streamed, status, &mut d);
    compare_steps(&streamed, &listed, &window, &mut d);
    format.compare_continuation(&streamed, snap, &mut d);
    compare_text(&streamed, run, &mut d);
    lost_events(&streamed, &mut d);
    format.compare_duration(&streamed, snap, &window, &mut d);
    format.name_causes(&streamed, snap, &window, exception_path, &mut d);
    // Every difference names its execution, as `reconcileMessages()`'s do.
    for diff in &mut d.0 {
        diff.execution_id.clone_from(&streamed.id);
    }
    snapshot_wins(&mut streamed, run, &listed, &window, error, exception_path);
    Report {
        differences: d.0,
        window,
        won: has_executions.then_some(streamed),
        state_status: run.status.clone(),
    }
}

fn compare_steps(e: &Execution, listed: &[Listed<'_>], w: &Window, d: &mut Diffs) {
    for (i, l) in listed.iter().enumerate() {
        let path = &l.step.path;
        // Placed by position: `step_number` counts within the window (v1.22 quirk 2).
        let n = w.run_step(i);
        let Some(s) = e.steps.get(&n) else {
            d.push(
                "missing_step",
                path.clone(),
                Some(n),
                Value::Null,
                Value::from(n),
                format!("step {n} is in the final state but nothing of it was streamed"),
            );
            continue;
        };
        if !s.seen_completed && s.seen_started {
            d.push(
                "step_not_completed",
                child(path, "step_number"),
                Some(n),
                Value::from(n),
                Value::from(n),
                format!("step {n} started but its completion was never streamed"),
            );
        }
        compare_fields(s, l.record, path, d);
        if let Some(m) = &l.matched {
            compare_tools(s, &l.step.tools, m, d);
        }
    }
    for (n, s) in e.steps.iter().filter(|(n, _)| **n > w.last) {
        d.push(
            "extra_step",
            format!("/stream/steps/{n}"),
            Some(*n),
            crate::json::to_value_of(&s.view(e.id.as_deref())),
            Value::Null,
            format!("step {n} was streamed but the final state does not list it"),
        );
    }
}

fn compare_fields(s: &StepView, r: &StepRecord, path: &str, d: &mut Diffs) {
    if !s.seen_completed {
        return;
    }
    let mut field = |k: &str, streamed: Value, fin: Option<&Value>| {
        let Some(fin) = fin else { return };
        if streamed.is_null() || &streamed == fin {
            return;
        }
        d.push(
            "field_mismatch",
            child(path, k),
            Some(s.number),
            streamed,
            fin.clone(),
            format!(
                "step {}: `{k}` differs between stream and final state",
                s.number
            ),
        );
    };
    field(
        "has_tool_calls",
        s.has_tool_calls.map_or(Value::Null, Value::from),
        r.has_tool_calls.as_ref(),
    );
    field(
        "finish_reason",
        s.finish_reason.as_deref().map_or(Value::Null, Value::from),
        r.finish_reason.as_ref(),
    );
    field(
        "errors",
        s.errors.map_or(Value::Null, Value::from),
        r.errors.as_ref(),
    );
    field(
        "type",
        s.step_type().map_or(Value::Null, Value::from),
        r.step_type.as_ref(),
    );
    // The producer's own total where it sent one (seed 000's `usage.total`).
    let streamed_total = s.usage_total().map_or(Value::Null, Value::from);
    if let Some(total) = &r.usage_total {
        if !streamed_total.is_null() && &streamed_total != total {
            d.push(
                "field_mismatch",
                format!("{path}/usage/total"),
                Some(s.number),
                streamed_total,
                total.clone(),
                format!(
                    "step {}: usage differs between stream and final state",
                    s.number
                ),
            );
        }
    }
}

/// A listed step's tool calls against its streamed runs, as `m` matched them.
fn compare_tools(s: &StepView, calls: &[FinalTool], m: &Matching, d: &mut Diffs) {
    for (ft, hit) in calls.iter().zip(&m.calls) {
        if hit.is_some() {
            continue;
        }
        d.push(
            "tool_call_missing",
            ft.path.clone(),
            Some(s.number),
            Value::Null,
            ft.kept.clone().unwrap_or(Value::Null),
            format!(
                "step {}: tool call {} was never streamed",
                s.number, ft.name
            ),
        );
    }
    for (t, run) in m
        .unmatched
        .iter()
        .filter_map(|t| Some((t, s.tools.get(*t)?)))
    {
        d.push(
            "tool_call_unexpected",
            format!("/stream/steps/{}/tools/{t}", s.number),
            Some(s.number),
            crate::json::to_value_of(&run.view()),
            Value::Null,
            format!(
                "step {}: streamed tool run {} is not in the final state",
                s.number, run.name
            ),
        );
    }
}

/// The streamed text against the last assistant message, which holds the
/// end of it ([`Extent::End`]). When the session's text limit dropped the
/// end of the stream, only what was kept is compared; a truncated stream is
/// not a difference in itself.
fn compare_text(e: &Execution, run: &RunRecord, d: &mut Diffs) {
    if e.stream.is_empty() && e.steps.values().all(|s| s.text.is_empty()) {
        return;
    }
    let Some((i, content)) = &run.last_text else {
        return;
    };
    let streamed = e.text.as_str();
    let streamed = streamed.as_ref();
    let extent = Extent::End {
        dropped: e.text_dropped_bytes(),
    };
    if !text_agrees(streamed, content, extent) {
        d.push(
            "text_mismatch",
            format!("/messages/{i}/content"),
            None,
            Value::from(streamed),
            Value::from(content.as_str()),
            "the streamed text differs from the final assistant message".into(),
        );
    }
}

/// The execution corrected by the snapshot: its status, and per listed
/// step (placed in the run by the window) the final fields; steps that never
/// streamed are added. Steps outside the window keep what was streamed.
fn snapshot_wins(
    e: &mut Execution,
    run: &RunRecord,
    listed: &[Listed<'_>],
    w: &Window,
    error: Option<&str>,
    exception_path: bool,
) {
    for (i, l) in listed.iter().enumerate() {
        let r = l.record;
        let n = w.run_step(i);
        if !e.steps.contains_key(&n) {
            e.step_gaps.arrived(n, 1);
        }
        let s = e
            .steps
            .entry(n)
            .or_insert_with(|| Box::new(StepView::new(n)));
        if let Some(b) = r.has_tool_calls.as_ref().and_then(Value::as_bool) {
            s.has_tool_calls = Some(b);
        }
        if let Some(f) = r.finish_reason.as_ref().and_then(Value::as_str) {
            s.finish_reason = Some(f.to_string());
        }
        let errors = r.errors.as_ref().and_then(Value::as_i64);
        if let Some(n) = errors {
            s.errors = Some(n);
        }
        // Seed 000: the snapshot's duration from the stored step timing
        // (docs/seeds/000-slim-serialization-and-adapter.md); null keeps the streamed one.
        if let Some(ms) = r.duration_ms.as_ref().filter(|v| v.is_number()) {
            s.duration_ms = Some(ms.clone());
        }
        if let Some(m) = &l.matched {
            let clean = errors == Some(0);
            // The reference's exception path leaves the throwing tool out of
            // the final state: that run is real.
            let keep_unlisted = exception_path && !s.seen_completed;
            let streamed = std::mem::take(&mut s.tools);
            s.tools = final_tools(streamed, &l.step.tools, m, clean, keep_unlisted);
            s.tool_index = Default::default();
        }
    }
    let status = run.status.as_deref();
    let broadcast = match status {
        Some("failed") => Some("failed"),
        Some("completed") if !e.status().is_some_and(|s| TERMINAL.contains(&s)) => {
            Some("completed")
        }
        _ => None,
    };
    if let Some(b) = broadcast {
        if e.status() != Some(b) {
            let prev = e.status().map(str::to_string);
            e.push_status(b.to_string(), prev);
        }
    }
    // A run whose driver threw broadcasts no error (v1.22 quirk 7): the
    // final state's own words say why it failed, else what it counts.
    if status == Some("failed")
        && e.run_error.is_none()
        && e.status_detail.error_message().is_none()
    {
        e.run_error = Some(error.map_or_else(|| unworded_failure(listed, w), str::to_string));
    }
    // An answer the stream never carried (no chunk, no `agent.run.completed`)
    // is the final state's last assistant message: the panel shows it as the
    // run's answer instead of an empty text.
    if e.final_answer.is_none() && e.text.is_empty() {
        e.final_answer.clone_from(&run.answer);
    }
    // The turn's user message is the final state's last one (each turn
    // starts from the previous state with the user's message added);
    // seed 002's turns carry it (docs/seeds/002-event-serialization-system-design.md §4.1).
    if e.user_message.is_none() {
        e.user_message.clone_from(&run.user_message);
    }
}

/// A step's tool runs once the final state won: its calls in its order
/// (the model's; runs without call ids streamed in arrival order), each
/// the streamed run `m` matched it with, with what the stream told of it,
/// or, when nothing of it was streamed, a run made from the call. Streamed
/// runs the final state does not list are not in it: seed 002's final
/// response is canonical, interim completions are replaced, not merged
/// (docs/seeds/002-event-serialization-system-design.md). A call known
/// only from the final state of a step without errors succeeded. With
/// `keep_unlisted` (a step the reference's exception path cut short, whose
/// throwing tool its final state never lists) the unlisted runs stay, after
/// the listed ones.
fn final_tools(
    streamed: Vec<ToolRun>,
    calls: &[FinalTool],
    m: &Matching,
    clean: bool,
    keep_unlisted: bool,
) -> Vec<ToolRun> {
    let mut runs: Vec<Option<ToolRun>> = streamed.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(calls.len());
    for (ft, hit) in calls.iter().zip(&m.calls) {
        let run = hit.and_then(|k| runs.get_mut(k)).and_then(Option::take);
        out.push(run.unwrap_or_else(|| ToolRun {
            name: ft.name.clone(),
            call_id: (!ft.id_missing).then(|| ft.call_id.clone()),
            args: ft.args.clone(),
            success: clean.then_some(true),
            ..ToolRun::default()
        }));
    }
    if keep_unlisted {
        out.extend(runs.into_iter().flatten());
    }
    out
}

/// Why a run failed when the final state keeps no error text (a slim
/// snapshot counts a step's errors, it does not keep them): its last step
/// with errors and how many, said as such.
fn unworded_failure(listed: &[Listed<'_>], w: &Window) -> String {
    let with_errors = listed.iter().enumerate().rev().find_map(|(i, l)| {
        let n = l
            .record
            .errors
            .as_ref()
            .and_then(Value::as_i64)
            .filter(|n| *n > 0)?;
        Some((w.run_step(i), n))
    });
    match with_errors {
        Some((step, 1)) => format!(
            "failed with 1 error in step {step}; the final snapshot keeps no error text (a stored agent state does)"
        ),
        Some((step, n)) => format!(
            "failed with {n} errors in step {step}; the final snapshot keeps no error text (a stored agent state does)"
        ),
        None => "failed; the final snapshot keeps no error text (a stored agent state does)".into(),
    }
}
