//! v2's stop logic in JavaScript: `stopReasons`, `resolveStopSignals`,
//! `explainContinuation`, `evaluateGuards`, `replayGuards`. v1.22's criteria
//! (`evaluateContinuation`, `replayContinuation`) decide after each step; v2's
//! guards before it, with `>=`, adding stop signals: different semantics, so
//! they have their own names.

use wasm_bindgen::prelude::*;

use crate::error::SteplineError;
use crate::model::continuation::v2::data;
use crate::model::continuation::v2::guard::{GuardOptions, Trigger};
use crate::model::continuation::v2::replay::ReplayClock;
use crate::model::time::{resolve_now, NowSpec, Timestamp};

use super::convert::{clock, options, out, out_with, to_js_of};
use super::walk;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "GuardOptions")]
    pub type GuardOptionsArg;
}

/// The options read into their declared shape, then `{now, executionStartedAt}`
/// resolved against the clock: `(now, now was given, started, trigger)`.
fn guard_options(
    opts: Option<GuardOptionsArg>,
    allowed: &[&str],
) -> Result<(Timestamp, bool, Option<Timestamp>, Option<Trigger>), SteplineError> {
    let opts = options(&opts.map(JsValue::from), allowed)?;
    let instant = |key: &str| {
        opts.get(key)
            .filter(|v| !v.is_null())
            .map(|v| NowSpec::from_value(v, &format!("/options/{key}")))
            .transpose()
    };
    let read = GuardOptions {
        now: instant("now")?,
        execution_started_at: instant("executionStartedAt")?,
        trigger: data::trigger(opts.get("trigger"), "/options/trigger")?,
    };
    let clock = clock();
    let now = resolve_now(read.now.as_ref(), clock, "/options/now")?;
    let started = read
        .execution_started_at
        .as_ref()
        .map(|s| resolve_now(Some(s), clock, "/options/executionStartedAt"))
        .transpose()?;
    Ok((now, read.now.is_some(), started, read.trigger))
}

/// v2's ten stop reasons, highest priority first, with whether each forces
/// the stop (a forced stop leaves the state `stopped`) and the status the
/// broadcaster sends for it.
///
/// @example
/// ```js
/// stopReasons().map((r) => `${r.priority} ${r.reason}`); // ["0 error", "1 stop_requested", …, "9 unknown"]
/// ```
#[wasm_bindgen(js_name = stopReasons, unchecked_return_type = "StopReasonInfo[]")]
pub fn stop_reasons() -> Result<JsValue, JsValue> {
    out(Ok(data::stop_reasons()))
}

/// The winning signal of a list, as v2's `StopSignals::highest()`: the lowest
/// priority number, the earliest on ties. A signal's reason must be one of the
/// ten (v1.22's `guard` is `invalid_value`); a missing reason reads as `completed`.
///
/// @example
/// ```js
/// const { stopSignal, index } = resolveStopSignals([
///   { reason: 'completed', message: '' },
///   { reason: 'steps_limit', message: 'Step limit reached: 3/3' },
/// ]);
/// stopSignal.reason; // "steps_limit"
/// ```
#[wasm_bindgen(js_name = resolveStopSignals, unchecked_return_type = "StopSignalResolution")]
pub fn resolve_stop_signals(
    #[wasm_bindgen(unchecked_param_type = "StopSignalInput[] | string")] signals: JsValue,
) -> Result<JsValue, JsValue> {
    out(walk::json_value(&signals, None, "stop signals")
        .and_then(|v| data::resolve_signals(&v, "/signals")))
}

/// Explains an `ExecutionContinuation` (`{stop_signals,
/// is_continuation_requested}`, as a v2 state stores it): whether its signals
/// stop the run (some signal, and nobody asked to continue), the winning
/// signal, and the producer's `explain()` text.
///
/// @example
/// ```js
/// explainContinuation(state.execution.continuation).explain;
/// // "Stop Signals: steps_limit: Step limit reached: 2/2; Continuation Requested: No"
/// ```
#[wasm_bindgen(js_name = explainContinuation, unchecked_return_type = "ContinuationExplanation")]
pub fn explain_continuation(
    #[wasm_bindgen(unchecked_param_type = "ExecutionContinuationV2 | string")]
    continuation: JsValue,
) -> Result<JsValue, JsValue> {
    out(walk::json_value(&continuation, None, "the continuation")
        .and_then(|v| data::explain_continuation(&v, "/continuation")))
}

/// Runs v2 guards on a v2 state, as the loop's hooks would now: steps,
/// tokens and time compare with `>=` (before a step), the finish-reason guard
/// reads the current step (after it). Returns the signals they add and what
/// the state then says. `guards` is a list of specs: `{kind: 'steps_limit',
/// max}`, `{kind: 'token_usage_limit', max}`, `{kind: 'execution_time_limit',
/// max}` (seconds), `{kind: 'finish_reason', stopReasons}`. Options: `now`
/// (default: now), `executionStartedAt` (default: the execution's start),
/// `trigger` (`before_step` or `after_step`; default: every guard).
///
/// @example
/// ```js
/// const check = evaluateGuards(state, [{ kind: 'steps_limit', max: 2 }], { now: state.updatedAt });
/// check.stopReason; // "steps_limit" once two steps are recorded
/// ```
#[wasm_bindgen(js_name = evaluateGuards, unchecked_return_type = "GuardCheck")]
pub fn evaluate_guards(
    #[wasm_bindgen(unchecked_param_type = "string | object")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "GuardSpec[]")] guards: JsValue,
    opts: Option<GuardOptionsArg>,
) -> Result<JsValue, JsValue> {
    out_with(
        (|| {
            let (now, _, started, trigger) =
                guard_options(opts, &["now", "executionStartedAt", "trigger"])?;
            let guards = walk::json_value(&guards, Some("/guards"), "guards")?;
            let state = walk::json_value(&state, None, "the agent state")?;
            crate::state_formats::evaluate_guards(&state, &guards, trigger, now, started)
        })(),
        |check| to_js_of(&check.view()),
    )
}

/// "What if": replays a recorded v2 run under other guards and marks where it
/// would have stopped — before a step (`stopsBeforeStep`: steps, tokens, time)
/// or after one (`stopsAfterStep`: finish reason) — with the signal it would
/// have ended with. Each moment is checked at its recorded time (a step's
/// start; after the last step, the execution's end) unless `options.now` is
/// given. `runsPastRecord` says the run would have gone on beyond its last
/// recorded step. Under the run's own guards, it stops where the producer did.
///
/// @example
/// ```js
/// const whatIf = replayGuards(state, [{ kind: 'steps_limit', max: 1 }]);
/// whatIf.stepsRun;          // 1
/// whatIf.stopSignal.message; // "Step limit reached: 1/1"
/// ```
#[wasm_bindgen(js_name = replayGuards, unchecked_return_type = "GuardReplay")]
pub fn replay_guards(
    #[wasm_bindgen(unchecked_param_type = "string | object")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "GuardSpec[]")] guards: JsValue,
    opts: Option<GuardOptionsArg>,
) -> Result<JsValue, JsValue> {
    out_with(
        (|| {
            let (now, fixed, started, _) = guard_options(opts, &["now", "executionStartedAt"])?;
            let guards = walk::json_value(&guards, Some("/guards"), "guards")?;
            let state = walk::json_value(&state, None, "the agent state")?;
            let clock = ReplayClock {
                now: fixed.then_some(now),
                execution_started_at: started,
            };
            crate::state_formats::replay_guards(&state, &guards, clock, now)
        })(),
        |replay| to_js_of(&replay.view()),
    )
}
