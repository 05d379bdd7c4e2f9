//! The latest execution against a slim snapshot (v1.22's, or v2's
//! `state_version: "v2"`): the snapshot wins, and the report says exactly
//! where the two disagree. Steps, their fields, tool calls, text and lost
//! events are compared the same way for both versions; what differs is a
//! hook of [`StateFormat`].

use crate::json::{child, index, Map, Value};

use crate::session::reconcile::formats::StateFormat;
use crate::session::reconcile::matcher::{
    match_tools, text_agrees, Call, Extent, Matching, Rule, Streamed,
};
use crate::session::reconcile::{lost_events, Diffs, Report};
use crate::session::view::{Execution, StepView, ToolRun, TERMINAL};
use crate::session::window::Window;

/// A slim snapshot's parts that reconciliation reads, each read once here;
/// an unreadable part reads as absent.
pub(crate) struct Slim<'a> {
    pub(crate) format: StateFormat,
    /// `status`, when it is a string.
    pub(crate) status: Option<&'a str>,
    /// The listed steps (the run's last ones, see [`Window`]).
    pub(crate) steps: &'a [Value],
    pub(crate) messages: Option<&'a [Value]>,
}

impl<'a> Slim<'a> {
    pub(crate) fn read(map: &'a Map) -> Slim<'a> {
        Slim {
            format: StateFormat::of(map),
            status: map.get("status").and_then(Value::as_str),
            steps: map
                .get("steps")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice),
            messages: map
                .get("messages")
                .and_then(Value::as_array)
                .map(Vec::as_slice),
        }
    }

    /// The last assistant message with text content, and where it is.
    fn last_assistant_text(&self) -> Option<(usize, &'a str)> {
        self.messages?.iter().enumerate().rev().find_map(|(i, m)| {
            (m.get("role").and_then(Value::as_str) == Some("assistant"))
                .then(|| m.get("content").and_then(Value::as_str).map(|c| (i, c)))
                .flatten()
        })
    }

    /// The content of the last assistant message (`None` when it has none,
    /// or it is empty or not text).
    fn answer(&self) -> Option<&'a str> {
        self.messages?
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .and_then(|m| m.get("content").and_then(Value::as_str))
            .filter(|c| !c.is_empty())
    }
}

/// A listed step's tool calls, for the matcher.
fn calls(st: &Value) -> Option<Vec<Call<'_>>> {
    let calls = st.get("tool_calls").and_then(Value::as_array)?;
    Some(
        calls
            .iter()
            .map(|call| Call {
                step: None,
                name: call.get("name").and_then(Value::as_str).unwrap_or_default(),
                id: call.get("id").and_then(Value::as_str),
            })
            .collect(),
    )
}

fn runs(s: &StepView) -> Vec<Streamed<'_>> {
    s.tools
        .iter()
        .enumerate()
        .map(|(index, run)| Streamed {
            step: s.number,
            index,
            run,
        })
        .collect()
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
    let slim = Slim::read(snap);
    let format = slim.format;
    let window = Window::of(snap, &streamed);
    // Each listed step's calls matched once with its streamed runs, for the
    // comparison and for the view the snapshot wins.
    let matched: Vec<Option<Matching>> = slim
        .steps
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let s = streamed.steps.get(&window.run_step(i));
            let runs = s.map(runs).unwrap_or_default();
            Some(match_tools(&runs, &calls(st)?, Rule::NameInStep))
        })
        .collect();
    let mut d = Diffs(Vec::new());
    let exception_path = format.exception_path(&streamed, slim.status);
    format.compare_status(&streamed, slim.status, &mut d);
    compare_steps(&streamed, &slim, &window, &matched, &mut d);
    format.compare_continuation(&streamed, snap, &mut d);
    compare_text(&streamed, &slim, &mut d);
    lost_events(&streamed, &mut d);
    format.compare_duration(&streamed, snap, &window, &mut d);
    format.name_causes(&streamed, snap, &window, exception_path, &mut d);
    // Every difference names its execution, as `reconcileMessages()`'s do.
    for diff in &mut d.0 {
        diff.execution_id.clone_from(&streamed.id);
    }
    snapshot_wins(
        &mut streamed,
        &slim,
        &window,
        &matched,
        error,
        exception_path,
    );
    Report {
        differences: d.0,
        window,
        won: has_executions.then_some(streamed),
        state_status: slim.status.map(String::from),
    }
}

fn compare_steps(
    e: &Execution,
    slim: &Slim<'_>,
    w: &Window,
    matched: &[Option<Matching>],
    d: &mut Diffs,
) {
    for (i, st) in slim.steps.iter().enumerate() {
        let path = index("/steps", i);
        // Placed by position: `step_number` counts within the window (v1.22 quirk 2).
        let n = w.run_step(i);
        let Some(s) = e.steps.get(&n) else {
            d.push(
                "missing_step",
                path,
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
                child(&path, "step_number"),
                Some(n),
                Value::from(n),
                Value::from(n),
                format!("step {n} started but its completion was never streamed"),
            );
        }
        compare_fields(s, st, &path, d);
        if let Some(m) = matched.get(i).and_then(Option::as_ref) {
            compare_tools(s, st, m, &path, d);
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

fn compare_fields(s: &StepView, st: &Value, path: &str, d: &mut Diffs) {
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
        st.get("has_tool_calls"),
    );
    field(
        "finish_reason",
        s.finish_reason.as_deref().map_or(Value::Null, Value::from),
        st.get("finish_reason"),
    );
    field(
        "errors",
        s.errors.map_or(Value::Null, Value::from),
        st.get("errors"),
    );
    field(
        "type",
        s.step_type().map_or(Value::Null, Value::from),
        st.get("type"),
    );
    let total = st.get("usage").and_then(|u| u.get("total"));
    // The producer's own total where it sent one (seed 000's `usage.total`).
    let streamed_total = s.usage_total().map_or(Value::Null, Value::from);
    if let Some(total) = total {
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
fn compare_tools(s: &StepView, st: &Value, m: &Matching, path: &str, d: &mut Diffs) {
    let calls = st
        .get("tool_calls")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (j, (call, hit)) in calls.iter().zip(&m.calls).enumerate() {
        if hit.is_some() {
            continue;
        }
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        d.push(
            "tool_call_missing",
            index(&child(path, "tool_calls"), j),
            Some(s.number),
            Value::Null,
            call.clone(),
            format!("step {}: tool call {name} was never streamed", s.number),
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
fn compare_text(e: &Execution, slim: &Slim<'_>, d: &mut Diffs) {
    if e.stream.is_empty() && e.steps.values().all(|s| s.text.is_empty()) {
        return;
    }
    let Some((i, content)) = slim.last_assistant_text() else {
        return;
    };
    let streamed = e.text.as_str();
    let extent = Extent::End {
        dropped: e.text_dropped_bytes(),
    };
    if !text_agrees(streamed, content, extent) {
        d.push(
            "text_mismatch",
            format!("/messages/{i}/content"),
            None,
            Value::from(streamed),
            Value::from(content),
            "the streamed text differs from the final assistant message".into(),
        );
    }
}

/// The execution corrected by the snapshot: its status, and per listed
/// step (placed in the run by the window) the final fields; steps that never
/// streamed are added. Steps outside the window keep what was streamed.
fn snapshot_wins(
    e: &mut Execution,
    slim: &Slim<'_>,
    w: &Window,
    matched: &[Option<Matching>],
    error: Option<&str>,
    exception_path: bool,
) {
    for (i, st) in slim.steps.iter().enumerate() {
        let n = w.run_step(i);
        if !e.steps.contains_key(&n) {
            e.step_gaps.arrived(n, 1);
        }
        let s = e.steps.entry(n).or_insert_with(|| StepView::new(n));
        if let Some(b) = st.get("has_tool_calls").and_then(Value::as_bool) {
            s.has_tool_calls = Some(b);
        }
        if let Some(f) = st.get("finish_reason").and_then(Value::as_str) {
            s.finish_reason = Some(f.to_string());
        }
        if let Some(n) = st.get("errors").and_then(Value::as_i64) {
            s.errors = Some(n);
        }
        // Seed 000: the snapshot's duration from the stored step timing
        // (docs/seeds/000-slim-serialization-and-adapter.md); null keeps the streamed one.
        if let Some(ms) = st.get("duration_ms").filter(|v| v.is_number()) {
            s.duration_ms = Some(ms.clone());
        }
        if let (Some(calls), Some(m)) = (
            st.get("tool_calls").and_then(Value::as_array),
            matched.get(i).and_then(Option::as_ref),
        ) {
            let clean = st.get("errors").and_then(Value::as_i64) == Some(0);
            // The reference's exception path leaves the throwing tool out of
            // the final state: that run is real.
            let keep_unlisted = exception_path && !s.seen_completed;
            s.tools = final_tools(std::mem::take(&mut s.tools), calls, m, clean, keep_unlisted);
            s.tool_index = Default::default();
        }
    }
    let broadcast = match slim.status {
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
    if slim.status == Some("failed")
        && e.run_error.is_none()
        && e.status_detail.error_message().is_none()
    {
        e.run_error = Some(error.map_or_else(|| unworded_failure(slim, w), str::to_string));
    }
    // An answer the stream never carried (no chunk, no `agent.run.completed`)
    // is the final state's last assistant message: the panel shows it as the
    // run's answer instead of an empty text.
    if e.final_answer.is_none() && e.text.is_empty() {
        e.final_answer = slim.answer().map(String::from);
    }
    // The turn's user message is the final state's last one (each turn
    // starts from the previous state with the user's message added);
    // seed 002's turns carry it (docs/seeds/002-event-serialization-system-design.md §4.1).
    if e.user_message.is_none() {
        e.user_message = slim
            .messages
            .and_then(crate::session::view::last_user_content)
            .map(String::from);
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
    calls: &[Value],
    m: &Matching,
    clean: bool,
    keep_unlisted: bool,
) -> Vec<ToolRun> {
    let mut runs: Vec<Option<ToolRun>> = streamed.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(calls.len());
    for (call, hit) in calls.iter().zip(&m.calls) {
        let run = hit.and_then(|k| runs.get_mut(k)).and_then(Option::take);
        out.push(run.unwrap_or_else(|| {
            ToolRun {
                name: call
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                call_id: call.get("id").and_then(Value::as_str).map(str::to_string),
                args: call.get("args").filter(|v| !v.is_null()).cloned(),
                success: clean.then_some(true),
                ..ToolRun::default()
            }
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
fn unworded_failure(slim: &Slim<'_>, w: &Window) -> String {
    let with_errors = slim.steps.iter().enumerate().rev().find_map(|(i, st)| {
        let n = st
            .get("errors")
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
