//! Reconciliation against a foreign producer's final form: a session's
//! executions against the runs an AG-UI message array, an AI SDK
//! `UIMessage[]` or laravel/ai's stored conversation keeps, with the same
//! [`Difference`] kinds as
//! [`Session::reconcile`](crate::session::Session::reconcile), each naming
//! its execution and the run step it is about.
//!
//! Runs are paired with executions by id where the form keeps one (an AI
//! SDK message id that is an execution id), otherwise from the end: the last
//! run with the last execution, and so on. A form usually holds the whole
//! conversation; its runs before the session's first execution were never
//! streamed to it and are not compared, nor are executions it has no run for.

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::Value;
use crate::model::usage::Usage;
use crate::session::reconcile::matcher::{
    match_tools, same_json, step_runs, text_agrees, Call, Extent, Rule,
};
use crate::session::reconcile::{lost_events, Difference, Diffs};
use crate::session::view::{Approval, Execution, ToolRun};

use crate::dialects::final_form::{FinalDialect, FinalRun, FinalStep, FinalTool, FinalTurn};

/// `reconcileMessages()` options.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ReconcileMessagesOptions"))]
pub struct ReconcileMessagesOptions {
    /// Whose final form it is; detected from the messages when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<FinalDialect>,
}

impl ReconcileMessagesOptions {
    /// Reads the options object found at `path` (`null` or absent gives the
    /// defaults); an unknown key or dialect is a typed error at its path.
    pub fn from_value(v: Option<&Value>, path: &str) -> Result<ReconcileMessagesOptions> {
        let m = match v {
            None | Some(Value::Null) => return Ok(ReconcileMessagesOptions::default()),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    path,
                    format!(
                        "expected the options as an object, found {}",
                        crate::json::type_name(other)
                    ),
                ))
            }
        };
        crate::model::read::only_keys(m, &["dialect"], path)?;
        let dialect = crate::model::read::opt_str(m, "dialect", path)?
            .map(|d| {
                crate::dialects::Dialects::built_in()
                    .final_form_named(d, &crate::json::child(path, "dialect"))
                    .map(|d| FinalDialect(d.name()))
            })
            .transpose()?;
        Ok(ReconcileMessagesOptions { dialect })
    }
}

/// Which execution a run of the final form was compared with.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TurnPairing {
    /// JSON pointer to the run's first message in the final form.
    pub path: String,
    /// The run's id in the form (an AI SDK message id), or `null`.
    pub id: Option<String>,
    /// How many steps the form shows for it (laravel/ai's rows: 1, the whole run).
    pub step_count: usize,
    /// The position of the execution it was compared with in the session
    /// view's `executions`, or `null`: a run the session never streamed.
    pub execution_index: Option<usize>,
    /// That execution's id.
    pub execution_id: Option<String>,
}

/// What `reconcileMessages()` returns: the differences between the session
/// and a producer's final form, each with its `execution_id` and `step`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MessagesReconcileReport {
    /// No difference at all.
    pub consistent: bool,
    /// Whose final form it was (given, or detected).
    pub dialect: FinalDialect,
    /// Where the session and the final form disagree, run by run in the
    /// form's order (the same kinds as `reconcile()`).
    pub differences: Vec<Difference>,
    /// Each run of the final form and the execution it was compared with.
    pub turns: Vec<TurnPairing>,
    /// Positions of the executions no run of the form was paired with (not compared).
    pub unpaired_executions: Vec<usize>,
}

impl MessagesReconcileReport {
    /// The report as a value (for tests).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }
}

/// The report for `run` against `executions`.
pub fn reconcile_run(executions: &[Execution], run: &FinalRun) -> MessagesReconcileReport {
    let pairs = pair(executions, &run.turns);
    let mut d = Diffs(Vec::new());
    let mut turns = Vec::with_capacity(run.turns.len());
    for (t, exec) in run.turns.iter().zip(&pairs) {
        let e = exec.and_then(|i| executions.get(i));
        turns.push(TurnPairing {
            path: t.path.clone(),
            id: t.id.clone(),
            step_count: t.steps.len(),
            execution_index: *exec,
            execution_id: e.and_then(|e| e.id.clone()),
        });
        let Some(e) = e else { continue };
        let mut e = e.clone();
        e.settle();
        let before = d.0.len();
        compare_turn(&e, t, &mut d);
        for diff in d.0.iter_mut().skip(before) {
            diff.execution_id = e.id.clone();
        }
    }
    let unpaired_executions = (0..executions.len())
        .filter(|i| !pairs.contains(&Some(*i)))
        .collect();
    MessagesReconcileReport {
        consistent: d.0.is_empty(),
        dialect: run.dialect,
        differences: d.0,
        turns,
        unpaired_executions,
    }
}

/// The execution each turn is compared with: the one with its id, else by
/// position from the end among the rest.
fn pair(executions: &[Execution], turns: &[FinalTurn]) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = turns
        .iter()
        .map(|t| {
            let id = t.id.as_deref()?;
            executions.iter().position(|e| e.id.as_deref() == Some(id))
        })
        .collect();
    let taken: Vec<usize> = out.iter().flatten().copied().collect();
    let mut free = (0..executions.len()).rev().filter(|i| !taken.contains(i));
    for slot in out.iter_mut().rev().filter(|s| s.is_none()) {
        match free.next() {
            Some(i) => *slot = Some(i),
            None => break,
        }
    }
    out
}

fn compare_turn(e: &Execution, t: &FinalTurn, d: &mut Diffs) {
    if let Some(fin) = t.status {
        let streamed = e.status();
        if streamed != Some(fin) {
            d.push(
                "status_mismatch",
                t.path.clone(),
                None,
                streamed.map_or(Value::Null, Value::from),
                Value::from(fin),
                format!(
                    "the run ended {} in the stream; the final form keeps it as {fin}",
                    streamed.unwrap_or("(no status)")
                ),
            );
        }
    }
    if t.steps_known {
        compare_steps(e, t, d);
    } else {
        compare_whole(e, t, d);
    }
    compare_tools(e, t, d);
    if let (Some(fin), Some(path)) = (t.usage, t.usage_path.as_ref()) {
        compare_usage(e, &fin, path, d);
    }
    lost_events(e, d);
}

/// Step by step: text and reasoning; steps only one side has.
fn compare_steps(e: &Execution, t: &FinalTurn, d: &mut Diffs) {
    let dropped = e.text_dropped_bytes() > 0;
    let limit = e.stream.limit();
    for (n, fs) in (1i64..).zip(&t.steps) {
        let Some(s) = e.steps.get(&n) else {
            d.push(
                "missing_step",
                fs.path.clone(),
                Some(n),
                Value::Null,
                Value::from(n),
                format!("step {n} is in the final form but nothing of it was streamed"),
            );
            continue;
        };
        if !text_agrees(&s.text, &fs.text, Extent::Whole { truncated: dropped }) {
            push_text(d, n, "text", &s.text, fs, fs.text_path.as_ref());
        }
        if !text_agrees(
            &s.reasoning,
            &fs.reasoning,
            Extent::Whole {
                truncated: fs.reasoning.len() > limit,
            },
        ) {
            push_text(
                d,
                n,
                "reasoning",
                &s.reasoning,
                fs,
                fs.reasoning_path.as_ref(),
            );
        }
    }
    let listed = i64::try_from(t.steps.len()).unwrap_or(i64::MAX);
    for (n, s) in e.steps.range(listed.saturating_add(1)..) {
        let said = !s.text.is_empty() || !s.reasoning.is_empty() || !s.tools.is_empty();
        if said {
            d.push(
                "extra_step",
                format!("/stream/steps/{n}"),
                Some(*n),
                crate::json::to_value_of(&s.view(e.id.as_deref())),
                Value::Null,
                format!("step {n} was streamed but the final form has no step {n}"),
            );
        }
    }
}

fn push_text(
    d: &mut Diffs,
    n: i64,
    what: &str,
    streamed: &str,
    fs: &FinalStep,
    path: Option<&String>,
) {
    let fin = if what == "text" {
        &fs.text
    } else {
        &fs.reasoning
    };
    d.push(
        "text_mismatch",
        path.cloned().unwrap_or_else(|| fs.path.clone()),
        Some(n),
        Value::from(streamed),
        Value::from(fin.as_str()),
        format!("step {n}: the streamed {what} differs from the final form's"),
    );
}

/// A form without known step boundaries (laravel/ai, AG-UI) is compared
/// with the whole run: its text joined against the streamed steps' text
/// joined, and so its reasoning. A difference is placed in the streamed
/// step the first differing byte falls in, and points at the final text
/// that byte falls in.
fn compare_whole(e: &Execution, t: &FinalTurn, d: &mut Diffs) {
    let truncated = e.text_dropped_bytes() > 0;
    let limit = e.stream.limit();
    let streamed: Vec<(i64, &str)> = e.steps.iter().map(|(n, s)| (*n, s.text.as_str())).collect();
    let fin: Vec<(&str, &str)> = t
        .steps
        .iter()
        .map(|s| (s.text.as_str(), s.text_path.as_deref().unwrap_or(&s.path)))
        .collect();
    compare_joined("text", &streamed, &fin, truncated, &t.path, d);
    if t.keeps_reasoning {
        let streamed: Vec<(i64, &str)> = e
            .steps
            .iter()
            .map(|(n, s)| (*n, s.reasoning.as_str()))
            .collect();
        let fin: Vec<(&str, &str)> = t
            .steps
            .iter()
            .map(|s| {
                let path = s.reasoning_path.as_deref().unwrap_or(&s.path);
                (s.reasoning.as_str(), path)
            })
            .collect();
        let cut = fin.iter().map(|(r, _)| r.len()).sum::<usize>() > limit;
        compare_joined("reasoning", &streamed, &fin, cut, &t.path, d);
    }
}

fn compare_joined(
    what: &str,
    streamed: &[(i64, &str)],
    fin: &[(&str, &str)],
    truncated: bool,
    turn_path: &str,
    d: &mut Diffs,
) {
    let a: String = streamed.iter().map(|(_, t)| *t).collect();
    let b: String = fin.iter().map(|(t, _)| *t).collect();
    if text_agrees(&a, &b, Extent::Whole { truncated }) {
        return;
    }
    let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut end = 0usize;
    let mut step = None;
    for (n, t) in streamed {
        step = Some(*n);
        end += t.len();
        if at < end {
            break;
        }
    }
    let mut end = 0usize;
    let mut path = fin.first().map_or(turn_path, |(_, p)| *p);
    for (t, p) in fin {
        path = p;
        end += t.len();
        if at < end {
            break;
        }
    }
    d.push(
        "text_mismatch",
        path.to_string(),
        step,
        Value::from(a.as_str()),
        Value::from(b.as_str()),
        format!(
            "the streamed {what} differs from the final form's from byte {at}{}",
            step.map(|n| format!(" (streamed step {n})"))
                .unwrap_or_default()
        ),
    );
}

/// Tool calls by call id (a streamed run without an id: by name in the
/// same step): missing, unexpected, in another step, or with other
/// arguments, outcome, result or approval.
fn compare_tools(e: &Execution, t: &FinalTurn, d: &mut Diffs) {
    let runs: Vec<_> = e.steps.values().flat_map(|s| step_runs(s)).collect();
    let placed: Vec<(Option<i64>, &FinalTool)> = (1i64..)
        .zip(&t.steps)
        .flat_map(|(k, fs)| {
            let fin_step = t.steps_known.then_some(k);
            fs.tools.iter().map(move |ft| (fin_step, ft))
        })
        .collect();
    let calls: Vec<Call<'_>> = placed
        .iter()
        .map(|(step, ft)| Call {
            step: *step,
            name: &ft.name,
            id: Some(&ft.call_id),
        })
        .collect();
    let m = match_tools(&runs, &calls, Rule::IdThenName);
    for ((fin_step, ft), hit) in placed.iter().zip(&m.calls) {
        match hit.and_then(|j| runs.get(j)) {
            Some(r) => compare_tool(r.step, r.run, ft, *fin_step, d),
            None => d.push(
                "tool_call_missing",
                ft.path.clone(),
                *fin_step,
                Value::Null,
                final_call(ft),
                format!(
                    "{}tool call {} ({}) was never streamed",
                    fin_step.map(|k| format!("step {k}: ")).unwrap_or_default(),
                    ft.name,
                    ft.call_id
                ),
            ),
        }
    }
    for r in m.unmatched.iter().filter_map(|j| runs.get(*j)) {
        d.push(
            "tool_call_unexpected",
            format!("/stream/steps/{}/tools/{}", r.step, r.index),
            Some(r.step),
            crate::json::to_value_of(&r.run.view()),
            Value::Null,
            format!(
                "step {}: streamed tool run {} is not in the final form",
                r.step, r.run.name
            ),
        );
    }
}

/// `{id, name, args}` of a final call, for a `tool_call_missing`.
fn final_call(ft: &FinalTool) -> Value {
    crate::json::obj([
        ("id", Value::from(ft.call_id.as_str())),
        ("name", Value::from(ft.name.as_str())),
        ("args", ft.args.clone().unwrap_or(Value::Null)),
    ])
}

fn compare_tool(n: i64, run: &ToolRun, ft: &FinalTool, fin_step: Option<i64>, d: &mut Diffs) {
    let result_path = ft.result_path.clone().unwrap_or_else(|| ft.path.clone());
    let mut field = |what: &str, path: &str, streamed: Value, fin: Value| {
        d.push(
            "field_mismatch",
            path.to_string(),
            Some(n),
            streamed,
            fin,
            format!(
                "step {n}: tool call {} ({}) differs in its {what}",
                ft.name, ft.call_id
            ),
        );
    };
    if let Some(k) = fin_step.filter(|k| *k != n) {
        field("step", &ft.path, Value::from(n), Value::from(k));
    }
    if run.name != ft.name && !ft.name.is_empty() {
        field(
            "name",
            &ft.path,
            Value::from(run.name.as_str()),
            Value::from(ft.name.as_str()),
        );
    }
    if let (Some(a), Some(b)) = (run.args.as_ref(), ft.args.as_ref()) {
        if !same_json(a, b) {
            field("arguments", &ft.path, a.clone(), b.clone());
        }
    }
    let streamed_outcome = match run.success {
        None => "running",
        Some(true) => "succeeded",
        Some(false) => "failed",
    };
    let final_outcome = match (ft.finished, &ft.error) {
        (false, _) => Some("running"),
        (true, Some(_)) => Some("failed"),
        (true, None) if ft.failure_known => Some("succeeded"),
        // laravel/ai keeps no failure flag, and a denied call never ran:
        // only whether it finished is known.
        (true, None) => (streamed_outcome == "running").then_some("finished"),
    };
    if let Some(fin) = final_outcome.filter(|f| *f != streamed_outcome) {
        field(
            "outcome",
            &result_path,
            Value::from(streamed_outcome),
            Value::from(fin),
        );
    } else if let (Some(a), Some(b)) = (run.more().error.as_deref(), ft.error.as_deref()) {
        if a != b {
            field("error", &result_path, Value::from(a), Value::from(b));
        }
    }
    if let (Some(a), Some(b)) = (run.more().result.as_ref(), ft.result.as_ref()) {
        if !same_json(a, b) {
            field("result", &result_path, a.clone(), b.clone());
        }
    }
    if let Some(fin) = ft.approval {
        if run.more().approval != Approval::parse(fin) {
            let streamed = run
                .more()
                .approval
                .map_or(Value::Null, |a| crate::json::to_value_of(&a));
            field("approval", &ft.path, streamed, Value::from(fin));
        }
    }
}

fn compare_usage(e: &Execution, fin: &Usage, path: &str, d: &mut Diffs) {
    let streamed = e.usage();
    if streamed != *fin {
        d.push(
            "field_mismatch",
            path.to_string(),
            None,
            crate::json::to_value_of(&streamed),
            crate::json::to_value_of(fin),
            "the run's streamed usage differs from the final form's".into(),
        );
    }
}
