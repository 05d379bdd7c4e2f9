//! `parseAgentState`.

use wasm_bindgen::prelude::*;

use crate::model::time::{resolve_now, Timestamp};
use crate::state_formats::State;

use crate::model::shape::ParseAgentStateOptions;

use super::convert::{clock, options_map, out_with};
use super::walk;

/// Reads a stored agent state of either producer release and returns it as
/// plain objects. The release is recognised from the state's keys
/// (`stateVersion` in the result says which was read for v2):
///
/// - instructor-php v1.22 (`AgentState::toArray()` of `packages/addons`): the
///   state with derived values on every step: `stepType`,
///   `requestedToolCalls`, `executedToolCalls`, `finishReason`, `usage.total`
///   and `durationMs` (when the step's start and end are stored).
///   `executionStartedAt` is never restored from storage: it is always `null`.
/// - instructor-php v2.x (`packages/agents`): the state as stored with
///   `stateVersion: "v2"` and `derived` (`status`, `stepCount`, `stopReason`,
///   `stopSource`, `usage`, `hasErrors`, `finalResponse`, per-step summaries,
///   …). A stored `llmConfig.apiKey` is shown as `"[redacted]"`.
///
/// Each v1.22 step reads as seed 001 derives it (the slim snapshot's reading
/// too): a model or driver error makes it `error`, `toolCalls` are the
/// requested calls (legacy `toolCalls` fill an empty
/// `inferenceResponse.toolCalls`), `usage` is the inference response's.
/// `options.compat: true` shows the steps exactly as the producer stored them.
///
/// Missing parts take the producer's defaults; `options.now` (ISO string or
/// epoch ms) is the time used for missing dates. A state that is neither, or
/// mixes both, throws {@link SteplineError} with code `unknown_state_version`
/// rather than being read as an empty state.
///
/// Throws {@link SteplineError} with a JSON-pointer `path` on bad input.
///
/// @example
/// ```js
/// const state = parseAgentState(row.state_json);
/// if ('stateVersion' in state) {
///   console.log(state.derived.status, state.derived.stopReason, state.derived.usage);
/// } else {
///   for (const step of state.steps) {
///     console.log(step.stepType, step.finishReason, step.usage.total,
///                 step.requestedToolCalls.map(c => c.name));
///   }
/// }
/// ```
#[wasm_bindgen(js_name = parseAgentState, unchecked_return_type = "AgentState | AgentStateV2")]
pub fn parse_agent_state(
    #[wasm_bindgen(unchecked_param_type = "string | object")] input: JsValue,
    opts: Option<super::types::ParseAgentStateOptionsArg>,
) -> Result<JsValue, JsValue> {
    out_with(
        (|| {
            let opts = ParseAgentStateOptions::read(&options_map(&opts.map(JsValue::from))?)?;
            let now = resolve_now(opts.now.as_ref(), clock(), "/options/now")?;
            // Through `walk`: what a getter, Proxy trap or `toJSON` throws is named in the error.
            let value = walk::json_value(&input, None, "the agent state")?;
            Ok((
                crate::state_formats::read(&value, &now, opts.compat())?,
                now,
            ))
        })(),
        |(state, now)| state_js(&**state, now),
    )
}

/// Writes a state of either release as `parseAgentState` and `restoreState` return it.
pub(super) fn state_js(state: &dyn State, now: &Timestamp) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(&state.view_text(now))
}
