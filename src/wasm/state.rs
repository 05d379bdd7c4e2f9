//! `parseAgentState`.

use wasm_bindgen::prelude::*;

use crate::model::time::resolve_now;
use crate::model::view::agent_state_view;
use crate::model::AgentState;

use super::convert::{clock, now_option, options, out};
use super::walk;

/// Reads an agent state in the reference producer's full format
/// (`AgentState::toArray()` of instructor-php) and returns it as plain objects,
/// with derived values on every step: `stepType`, `requestedToolCalls`,
/// `executedToolCalls`, `finishReason`, `usage.total` and `durationMs` (when the
/// step's start and end are stored). Missing parts take the producer's defaults;
/// `options.now` (ISO string or epoch ms) is the time used for missing dates.
/// `executionStartedAt` is never restored from storage: it is always `null`.
///
/// Throws {@link SteplineError} with a JSON-pointer `path` on bad input.
///
/// @example
/// ```js
/// const state = parseAgentState(row.state_json);
/// for (const step of state.steps) {
///   console.log(step.stepType, step.finishReason, step.usage.total,
///               step.requestedToolCalls.map(c => c.name));
/// }
/// ```
#[wasm_bindgen(js_name = parseAgentState, unchecked_return_type = "AgentState")]
pub fn parse_agent_state(
    #[wasm_bindgen(unchecked_param_type = "string | object")] input: JsValue,
    opts: Option<super::types::ParseAgentStateOptionsArg>,
) -> Result<JsValue, JsValue> {
    out((|| {
        let opts = options(&opts.map(JsValue::from), &["now"])?;
        let now = resolve_now(now_option(&opts)?.as_ref(), clock(), "/options/now")?;
        // Through `walk`: what a getter, Proxy trap or `toJSON` throws is named in the error.
        let value = walk::json_value(&input, None, "the agent state")?;
        let state = AgentState::from_value(&value, &now)?;
        Ok(agent_state_view(&state))
    })())
}
