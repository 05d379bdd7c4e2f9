//! `evaluateContinuation`, `resolveOutcome`, `replayContinuation`.

use std::rc::Rc;

use js_sys::{Array, Function, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::continuation::criteria::ResponseCallback;
use crate::continuation::evaluate::{evaluate_state, replay_state, resolve_evaluations};
use crate::continuation::replay::ReplayOptions;
use crate::continuation::spec::parse_criteria_with;
use crate::continuation::Criterion;
use crate::error::SteplineError;
use crate::model::time::{resolve_now, NowSpec, Timestamp};

use super::convert::{clock, from_js, now_option, options, out};

/// Reads `criteria`, swapping JavaScript `continueWhen` functions for
/// `{callback: n}` markers the core resolves to the collected functions.
fn read_criteria(input: &JsValue) -> Result<Vec<Criterion>, SteplineError> {
    let mut functions = Vec::new();
    let swapped = swap_functions(input, &mut functions);
    let value = from_js(&swapped, "criteria")?;
    let callbacks: Vec<ResponseCallback> = functions.into_iter().map(callback).collect();
    parse_criteria_with(&value, "/criteria", &callbacks)
}

fn swap_functions(input: &JsValue, functions: &mut Vec<Function>) -> JsValue {
    if Array::is_array(input) {
        let out = Array::new();
        for item in Array::from(input).iter() {
            out.push(&swap_in_spec(&item, functions));
        }
        return out.into();
    }
    input.clone()
}

fn swap_in_spec(spec: &JsValue, functions: &mut Vec<Function>) -> JsValue {
    if !spec.is_object() {
        return spec.clone();
    }
    let get = |k: &str| Reflect::get(spec, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    let when = get("continueWhen");
    let nested = get("criteria");
    if !when.is_function() && !Array::is_array(&nested) {
        return spec.clone();
    }
    let copy = Object::assign(&Object::new(), &Object::from(spec.clone()));
    if let Some(f) = when.dyn_ref::<Function>() {
        let marker = Object::new();
        let _ = Reflect::set(
            &marker,
            &"callback".into(),
            &JsValue::from(functions.len() as u32),
        );
        functions.push(f.clone());
        let _ = Reflect::set(&copy, &"continueWhen".into(), &marker);
    }
    if Array::is_array(&nested) {
        let _ = Reflect::set(
            &copy,
            &"criteria".into(),
            &swap_functions(&nested, functions),
        );
    }
    copy.into()
}

fn callback(f: Function) -> ResponseCallback {
    Rc::new(
        move |response: &str| match f.call1(&JsValue::NULL, &JsValue::from_str(response)) {
            Ok(v) => Ok(v.is_truthy()),
            Err(e) => Err(e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .or_else(|| e.as_string())
                .unwrap_or_else(|| "the continueWhen callback threw".into())),
        },
    )
}

fn time_options(
    opts: &Option<JsValue>,
) -> Result<(Timestamp, Option<Timestamp>, bool), SteplineError> {
    let opts = options(opts, &["now", "executionStartedAt"])?;
    let clock = clock();
    let spec = now_option(&opts)?;
    let now = resolve_now(spec.as_ref(), clock, "/options/now")?;
    let started = match opts.get("executionStartedAt").filter(|v| !v.is_null()) {
        Some(v) => Some(resolve_now(
            Some(&NowSpec::from_value(v, "/options/executionStartedAt")?),
            clock,
            "/options/executionStartedAt",
        )?),
        None => None,
    };
    Ok((now, started, spec.is_some()))
}

/// Runs continuation criteria on an agent state, exactly as the producer does,
/// and returns the outcome in the producer's array form plus `explanation`.
///
/// `state` is the producer's full state (or what `parseAgentState` returns).
/// `criteria` is a list of specs (`[{kind: 'steps_limit', max: 20}, …]`) or
/// `{defaults: {maxSteps?, maxTokens?, maxExecutionTime?, cumulativeTimeout?, errorPolicy?, finishReasons?}}`
/// for the producer's default agent list. A `response_content_check` may take a
/// function as `continueWhen`. `options.now` fixes the evaluation time (default:
/// now); `options.executionStartedAt` overrides the state's own.
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
    out((|| {
        let list = read_criteria(&criteria)?;
        let (now, started, _) = time_options(&opts.map(JsValue::from))?;
        let value = from_js(&state, "the agent state")?;
        Ok(evaluate_state(&value, &list, now, started)?.to_explained_value())
    })())
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
    out(from_js(&evaluations, "evaluations")
        .and_then(|v| resolve_evaluations(&v, "/evaluations"))
        .map(|o| o.to_explained_value()))
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
    out((|| {
        let list = read_criteria(&criteria)?;
        let (now, started, fixed_now) = time_options(&opts.map(JsValue::from))?;
        let value: Value = from_js(&state, "the agent state")?;
        let options = ReplayOptions {
            now: fixed_now.then_some(now),
            execution_started_at: started,
        };
        Ok(replay_state(&value, &list, options, now)?.to_value())
    })())
}
