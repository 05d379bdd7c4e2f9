//! Two runs side by side: their steps paired by execution and step number,
//! the usage and duration deltas, and the first step where they diverge
//! (the step whose tools, finish reason, status or continuation differ).
//! The panel's Compare view shows this; it derives none of it.

use crate::json::Value;
use crate::session::view::{Execution, StepView};

/// One step of one run, as far as a comparison looks at it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ComparedStep {
    /// The tools called, in order, each `name:status`
    /// (`status`: `running`, `succeeded` or `failed`).
    pub tools: Vec<String>,
    /// The model's finish reason.
    pub finish_reason: Option<String>,
    /// The step type (`tool_execution`, `final_response`, `error`), once known.
    pub status: Option<String>,
    /// The continuation's `should_continue`, as sent.
    pub should_continue: Option<bool>,
    /// The continuation's `stop_reason`, as sent.
    pub stop_reason: Option<String>,
    /// The step's token total.
    pub usage_total: Option<i64>,
    /// The producer's duration in milliseconds.
    pub duration_ms: Option<f64>,
}

/// One step number of one execution in both runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepPair {
    /// The execution's index in its session (executions are paired by index).
    pub execution: usize,
    /// The step number (from 1).
    pub step: i64,
    /// The step in the first run, `null` when it has no such step.
    pub a: Option<ComparedStep>,
    /// The step in the second run, `null` when it has no such step.
    pub b: Option<ComparedStep>,
    /// `b`'s token total minus `a`'s (`null` unless both have usage).
    pub usage_delta: Option<i64>,
    /// `b`'s duration minus `a`'s in ms (`null` unless both sent one).
    pub duration_delta_ms: Option<f64>,
    /// What differs: any of `missing`, `tools`, `finish_reason`, `status`,
    /// `continuation` (empty when the steps agree).
    pub differs: Vec<String>,
}

/// Where two runs first part ways.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Divergence {
    /// The execution's index.
    pub execution: usize,
    /// The step number.
    pub step: i64,
    /// What differs there (as [`StepPair::differs`]).
    pub differs: Vec<String>,
}

/// Token and duration totals of both runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CompareTotals {
    /// The first run's token total over its steps.
    pub usage_a: i64,
    /// The second run's token total over its steps.
    pub usage_b: i64,
    /// `usage_b - usage_a`.
    pub usage_delta: i64,
    /// The first run's summed step durations (ms).
    pub duration_a_ms: f64,
    /// The second run's summed step durations (ms).
    pub duration_b_ms: f64,
    /// `duration_b_ms - duration_a_ms`.
    pub duration_delta_ms: f64,
}

/// Two runs compared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunComparison {
    /// Every step of either run, by execution then step number.
    pub steps: Vec<StepPair>,
    /// The totals and their deltas.
    pub totals: CompareTotals,
    /// The first differing step, `null` when the runs agree step for step.
    pub divergence: Option<Divergence>,
}

fn compared(s: &StepView) -> ComparedStep {
    let c = s
        .continuation
        .as_ref()
        .map(crate::session::kept_continuation::KeptContinuation::value);
    let c = c.as_deref();
    ComparedStep {
        tools: s
            .tools
            .iter()
            .map(|t| format!("{}:{}", t.name, t.status().as_str()))
            .collect(),
        finish_reason: s.finish_reason.clone(),
        status: s.step_type().map(str::to_owned),
        should_continue: c
            .and_then(|c| c.get("should_continue"))
            .and_then(Value::as_bool),
        stop_reason: c
            .and_then(|c| c.get("stop_reason"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        usage_total: s.usage_total(),
        duration_ms: s.duration_ms.as_ref().and_then(Value::as_f64),
    }
}

fn differences(a: Option<&ComparedStep>, b: Option<&ComparedStep>) -> Vec<String> {
    let (Some(a), Some(b)) = (a, b) else {
        return vec!["missing".into()];
    };
    let mut d = Vec::new();
    if a.tools != b.tools {
        d.push("tools".into());
    }
    if a.finish_reason != b.finish_reason {
        d.push("finish_reason".into());
    }
    if a.status != b.status {
        d.push("status".into());
    }
    if (a.should_continue, &a.stop_reason) != (b.should_continue, &b.stop_reason) {
        d.push("continuation".into());
    }
    d
}

/// Compares two sessions' executions: execution `i` of `a` against
/// execution `i` of `b`, their steps paired by number.
pub fn compare_runs(a: &[Execution], b: &[Execution]) -> RunComparison {
    let mut steps = Vec::new();
    let mut totals = CompareTotals::default();
    for i in 0..a.len().max(b.len()) {
        let (ea, eb) = (a.get(i), b.get(i));
        let mut numbers: Vec<i64> = ea
            .into_iter()
            .chain(eb)
            .flat_map(|e| e.steps.keys().copied())
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        for n in numbers {
            let sa = ea.and_then(|e| e.steps.get(&n)).map(|s| compared(s));
            let sb = eb.and_then(|e| e.steps.get(&n)).map(|s| compared(s));
            let ua = sa.as_ref().and_then(|s| s.usage_total);
            let ub = sb.as_ref().and_then(|s| s.usage_total);
            let da = sa.as_ref().and_then(|s| s.duration_ms);
            let db = sb.as_ref().and_then(|s| s.duration_ms);
            totals.usage_a += ua.unwrap_or(0);
            totals.usage_b += ub.unwrap_or(0);
            totals.duration_a_ms += da.unwrap_or(0.0);
            totals.duration_b_ms += db.unwrap_or(0.0);
            steps.push(StepPair {
                execution: i,
                step: n,
                differs: differences(sa.as_ref(), sb.as_ref()),
                usage_delta: ua.zip(ub).map(|(x, y)| y - x),
                duration_delta_ms: da.zip(db).map(|(x, y)| y - x),
                a: sa,
                b: sb,
            });
        }
    }
    totals.usage_delta = totals.usage_b - totals.usage_a;
    totals.duration_delta_ms = totals.duration_b_ms - totals.duration_a_ms;
    let divergence = steps
        .iter()
        .find(|p| !p.differs.is_empty())
        .map(|p| Divergence {
            execution: p.execution,
            step: p.step,
            differs: p.differs.clone(),
        });
    RunComparison {
        steps,
        totals,
        divergence,
    }
}
