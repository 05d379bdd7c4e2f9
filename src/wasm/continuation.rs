//! `evaluateContinuation`, `resolveOutcome`, `replayContinuation`.

use std::rc::Rc;

use crate::json::Value;
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::SteplineError;
use crate::json::{child, Limits};
use crate::model::continuation::criteria::ResponseCallback;
use crate::model::continuation::evaluate::resolve_evaluations;
use crate::model::continuation::replay::ReplayOptions;
use crate::model::continuation::spec::parse_criteria_with;
use crate::model::continuation::Criterion;
use crate::model::time::{resolve_now, Timestamp};
use crate::state_formats::{evaluate_state, replay_state};

use super::convert::{clock, now_option, options, out_with, started_at_option, to_js_of};
#[cfg(feature = "devtools")]
use super::session::Session;
use super::walk;

/// Reads `criteria`, swapping JavaScript `continueWhen` functions for
/// `{callback: n}` markers the core resolves to the collected functions.
fn read_criteria(input: &JsValue) -> Result<Vec<Criterion>, SteplineError> {
    let mut functions = Vec::new();
    let swapped = swap_functions(input, CRITERIA, 1, &mut functions)?;
    let value = walk::json_value(&swapped, Some(CRITERIA), "criteria")?;
    let callbacks: Vec<ResponseCallback> = functions.into_iter().map(callback).collect();
    parse_criteria_with(&value, CRITERIA, &callbacks)
}

const CRITERIA: &str = "/criteria";

/// A list of specs at `path`, `depth` levels of JSON nesting deep, with its
/// functions swapped; anything else as is. Nesting is checked here, before any
/// recursion, against the same limit the JSON reader applies afterwards.
fn swap_functions(
    input: &JsValue,
    path: &str,
    depth: usize,
    functions: &mut Vec<Function>,
) -> Result<JsValue, SteplineError> {
    if !walk::is_array(input, path)? {
        return Ok(input.clone());
    }
    let limit = Limits::default().max_depth;
    if depth > limit {
        return Err(walk::too_deep(path, limit));
    }
    let out = Array::new();
    for i in 0..walk::length(input, path)? {
        let item = walk::get_index(input, i, path)?;
        let item_path = child(path, &i.to_string());
        out.push(&swap_in_spec(&item, &item_path, depth + 1, functions)?);
    }
    Ok(out.into())
}

fn swap_in_spec(
    spec: &JsValue,
    path: &str,
    depth: usize,
    functions: &mut Vec<Function>,
) -> Result<JsValue, SteplineError> {
    if !spec.is_object() {
        return Ok(spec.clone());
    }
    let limit = Limits::default().max_depth;
    if depth > limit {
        return Err(walk::too_deep(path, limit));
    }
    let when = walk::get(spec, "continueWhen", path)?;
    let nested = walk::get(spec, "criteria", path)?;
    let nested_path = child(path, "criteria");
    let has_list = walk::is_array(&nested, &nested_path)?;
    if !when.is_function() && !has_list {
        return Ok(spec.clone());
    }
    let copy = walk::copy_own(spec, path)?;
    let set = |key: &str, value: &JsValue| {
        Reflect::set(&copy, &JsValue::from_str(key), value)
            .map(drop)
            .map_err(|e| walk::read_failed(&child(path, key), &e))
    };
    if let Some(f) = when.dyn_ref::<Function>() {
        let marker = Object::new();
        Reflect::set(
            &marker,
            &"callback".into(),
            &JsValue::from(functions.len() as u32),
        )
        .map_err(|e| walk::read_failed(path, &e))?;
        functions.push(f.clone());
        set("continueWhen", &marker)?;
    }
    if has_list {
        set(
            "criteria",
            &swap_functions(&nested, &nested_path, depth + 1, functions)?,
        )?;
    }
    Ok(copy.into())
}

fn callback(f: Function) -> ResponseCallback {
    Rc::new(
        move |response: &str| match f.call1(&JsValue::NULL, &JsValue::from_str(response)) {
            Ok(v) => Ok(v.is_truthy()),
            Err(e) => Err(walk::thrown_message(&e)
                .unwrap_or_else(|| "the continueWhen callback threw".into())),
        },
    )
}

/// `now`, `executionStartedAt`, whether `now` was given, and `compat`.
fn time_options(
    opts: &Option<JsValue>,
) -> Result<(Timestamp, Option<Timestamp>, bool, bool), SteplineError> {
    let opts = options(opts, &["now", "executionStartedAt", "compat"])?;
    let clock = clock();
    let spec = now_option(&opts)?;
    let now = resolve_now(spec.as_ref(), clock, "/options/now")?;
    let started = started_at_option(&opts, clock)?;
    let compat = crate::model::read::opt_bool(&opts, "compat", "/options")?.unwrap_or(false);
    Ok((now, started, spec.is_some(), compat))
}

/// Runs continuation criteria on an agent state, exactly as the producer does,
/// and returns the outcome in the producer's array form plus `explanation`.
///
/// `state` is the producer's full state (or what `parseAgentState` returns).
/// `criteria` is a list of specs (`[{kind: 'steps_limit', max: 20}, …]`) or
/// `{defaults: {maxSteps?, maxTokens?, maxExecutionTime?, cumulativeTimeout?, errorPolicy?, finishReasons?}}`
/// for the producer's default agent list. A `response_content_check` may take a
/// function as `continueWhen`. `options.now` fixes the evaluation time (default:
/// now); `options.executionStartedAt` overrides the state's own. A stored state
/// without one (the producer never restores it) measures its time limit from
/// the latest execution's first step, not the session's start as the producer
/// does (seed 004; `options.compat: true` measures as the producer);
/// `timeOrigin` says which start was used.
///
/// @example
/// ```js
/// const outcome = evaluateContinuation(state, { defaults: { maxSteps: 5 } }, { now: Date.now() });
/// outcome.shouldContinue; // false
/// outcome.explanation;    // "Stopped (steps_limit) by StepsLimit: Step limit reached: 5/5."
/// ```
#[wasm_bindgen(js_name = evaluateContinuation, unchecked_return_type = "ExplainedOutcome")]
pub fn evaluate_continuation(
    #[wasm_bindgen(unchecked_param_type = "string | object")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CriteriaInput")] criteria: JsValue,
    opts: Option<super::types::EvaluateOptionsArg>,
) -> Result<JsValue, JsValue> {
    out_with(
        (|| {
            let list = read_criteria(&criteria)?;
            let (now, started, _, compat) = time_options(&opts.map(JsValue::from))?;
            let value = walk::json_value(&state, None, "the agent state")?;
            evaluate_state(&value, &list, now, started, compat)
        })(),
        |(outcome, origin)| to_js_of(&outcome.explained_from(origin)),
    )
}

/// Resolves evaluations (`[{criterion, decision, reason?, stopReason?, context?}]`)
/// into an outcome: any forbid stops; else any request continues; else any stop
/// stops; else any allow continues; none stops.
///
/// @example
/// ```js
/// resolveOutcome([{ criterion: 'A\\B', decision: 'allow' }, { criterion: 'A\\C', decision: 'stop' }]).shouldContinue; // false
/// ```
#[wasm_bindgen(js_name = resolveOutcome, unchecked_return_type = "ExplainedOutcome")]
pub fn resolve_outcome(
    #[wasm_bindgen(unchecked_param_type = "ContinuationEvaluationInput[] | string")]
    evaluations: JsValue,
) -> Result<JsValue, JsValue> {
    out_with(
        walk::json_value(&evaluations, None, "evaluations")
            .and_then(|v| resolve_evaluations(&v, "/evaluations")),
        |outcome| to_js_of(&outcome.explained()),
    )
}

/// Re-evaluates a recorded run step by step under other criteria ("what if max
/// steps were 5?"): per step, the outcome, whether the run would have stopped
/// there, and the recorded outcome it replaces. Without `options.now`, each step
/// is evaluated at its own recorded time.
///
/// @example
/// ```js
/// const { stopsAtStep, steps } = replayContinuation(state, { defaults: { maxSteps: 5 } });
/// steps.filter((s) => s.changed).map((s) => s.stepNumber);
/// ```
#[wasm_bindgen(js_name = replayContinuation, unchecked_return_type = "ContinuationReplay")]
pub fn replay_continuation(
    #[wasm_bindgen(unchecked_param_type = "string | object")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CriteriaInput")] criteria: JsValue,
    opts: Option<super::types::EvaluateOptionsArg>,
) -> Result<JsValue, JsValue> {
    out_with(
        (|| {
            let list = read_criteria(&criteria)?;
            let (now, started, fixed_now, compat) = time_options(&opts.map(JsValue::from))?;
            let value: Value = walk::json_value(&state, None, "the agent state")?;
            let options = ReplayOptions {
                now: fixed_now.then_some(now),
                execution_started_at: started,
            };
            replay_state(&value, &list, options, now, compat)
        })(),
        |replay| to_js_of(&replay.view()),
    )
}

#[cfg(feature = "devtools")]
#[wasm_bindgen]
impl Session {
    /// "What if" for a streamed run: re-evaluates one execution of this
    /// session (its position in `getSnapshot().executions`, its execution
    /// id, or the latest when `null`) under other criteria, from what was
    /// streamed — usage, finish reasons, tool calls, failures as errors,
    /// timing, and each step's streamed continuation as its recorded outcome.
    /// `recordedRun` says how the run ended as streamed (a run whose driver
    /// threw "Never finished…", not "stopped (completed)"). Criteria and
    /// options as `replayContinuation`. In `stepline/devtools` only.
    ///
    /// @example
    /// ```js
    /// const whatIf = session.replayContinuation(0, { defaults: { maxSteps: 5 } });
    /// whatIf.recordedRun.summary;  // "Ended completed after step 12. Stopped (completed): …"
    /// whatIf.stopsAtStep;          // 5
    /// whatIf.steps.filter((s) => s.changed).map((s) => s.stepNumber); // [5]
    /// ```
    #[wasm_bindgen(js_name = replayContinuation, unchecked_return_type = "StreamedContinuationReplay")]
    pub fn replay_continuation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number | string | null")] execution: JsValue,
        #[wasm_bindgen(unchecked_param_type = "CriteriaInput")] criteria: JsValue,
        opts: Option<super::types::EvaluateOptionsArg>,
    ) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        out_with(
            (|| {
                let (index, id) = if let Some(n) = execution.as_f64() {
                    if n < 0.0 || n.fract() != 0.0 || n > u32::MAX as f64 {
                        return Err(SteplineError::at(
                            crate::error::ErrorCode::InvalidValue,
                            "/execution",
                            format!("expected an execution position, found {n}"),
                        ));
                    }
                    (Some(n as usize), None)
                } else if let Some(s) = execution.as_string() {
                    (None, Some(s))
                } else if execution.is_null() || execution.is_undefined() {
                    (None, None)
                } else {
                    return Err(SteplineError::at(
                        crate::error::ErrorCode::InvalidType,
                        "/execution",
                        "expected an execution position, an execution id or null",
                    ));
                };
                let list = read_criteria(&criteria)?;
                let (now, started, fixed_now, _) = time_options(&opts.map(JsValue::from))?;
                let options = ReplayOptions {
                    now: fixed_now.then_some(now),
                    execution_started_at: started,
                };
                inner
                    .core
                    .replay_streamed(index, id.as_deref(), &list, options, now)
            })(),
            |r| to_js_of(&r.view()),
        )
    }
}
