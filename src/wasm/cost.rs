//! `Session.cost` and `pricesFromState`: token usage priced (src/cost/).
//! `stepline/devtools` only (the `devtools` feature).

use wasm_bindgen::prelude::*;

use super::convert::{from_js, options, out, to_js_of};
use super::errors::to_js_error;
use super::session::Session;
use crate::cost::prices::{price_table, prices_from_state as from_state};
use crate::cost::run_cost;
use crate::model::read;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "{ model?: string }")]
    pub type CostOptionsArg;
}

#[wasm_bindgen]
impl Session {
    /// What the run cost in USD: each execution and each step's usage priced
    /// as instructor-php v2.7's `FlatRateCostCalculator` does (every token
    /// category at its own rate per 1,000,000 tokens, the total rounded to 6
    /// decimals). `prices` is `{ [model]: { input, output, cacheRead?,
    /// cacheWrite?, reasoning? } }` (v2.7's `InferencePricing` array; the
    /// three optional rates default to the input rate). The model priced is
    /// `options.model`, else the table's only model. Where no price applies
    /// (unknown model, empty table, a step without usage) `cost` is `null`
    /// and `reason` says why — never 0. In `stepline/devtools` only.
    ///
    /// @example
    /// ```js
    /// const session = Session.fromRecording(recordedRun);
    /// const prices = { 'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 } };
    /// const run = session.cost(prices, { model: 'gpt-4o' });
    /// assert.equal(run.currency, 'USD');
    /// for (const e of run.executions) for (const s of e.steps) console.log(s.step, s.cost ?? s.reason);
    /// assert.equal(session.cost(prices, { model: 'claude' }).reason, 'no price for model claude');
    /// ```
    #[wasm_bindgen(unchecked_return_type = "RunCost")]
    pub fn cost(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Record<string, Partial<Pricing>>")] prices: JsValue,
        options_arg: Option<CostOptionsArg>,
    ) -> Result<JsValue, JsValue> {
        let opts = options(&options_arg.map(JsValue::from), &["model"]).map_err(to_js_error)?;
        let model = read::opt_str(&opts, "model", "/options").map_err(to_js_error)?;
        let table = from_js(&prices, "the price table")
            .and_then(|v| price_table(&v, "/prices"))
            .map_err(to_js_error)?;
        let inner = self.inner.borrow();
        to_js_of(&run_cost(inner.core.executions(), &table, model))
    }
}

/// The price table a stored instructor-php v2 state carries:
/// `{ prices: { [llmConfig.model]: llmConfig.pricing }, model, reason }`, for
/// {@link Session.cost}. A pricing that is empty or all zero (v2.7 stores
/// `[]` unless one was configured) gives `prices: {}` and the `reason`. A
/// v1.22 state, which stores no prices, throws {@link SteplineError}
/// (`unknown_state_version`). In `stepline/devtools` only.
///
/// @example
/// ```js
/// const { prices, reason } = pricesFromState(row.state_json);
/// if (reason) console.log(reason); // "llmConfig.pricing is empty: no prices were configured for gpt-4o"
/// else console.log(session.cost(prices).cost);
/// ```
#[wasm_bindgen(js_name = pricesFromState, unchecked_return_type = "StatePrices")]
pub fn prices_from_state(
    #[wasm_bindgen(unchecked_param_type = "string | object")] state: JsValue,
) -> Result<JsValue, JsValue> {
    out(from_js(&state, "the agent state").and_then(|v| from_state(&v)))
}
