//! What a run cost: each step's and each execution's token usage priced with
//! a price table (the `prices` module), as instructor-php v2.7's
//! `FlatRateCostCalculator` prices an `InferenceUsage`: every usage category
//! at its own per-million rate, the total rounded to 6 decimals. Where no
//! price applies the cost is `null` with the reason, never 0.

pub mod prices;

use crate::model::usage::Usage;
use crate::session::view::Execution;
use prices::{PriceTable, Pricing};

/// The cost of each usage category in USD (unrounded, as v2.7's breakdown).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CostBreakdown {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache-read tokens.
    pub cache_read: f64,
    /// Cache-write tokens.
    pub cache_write: f64,
    /// Reasoning tokens.
    pub reasoning: f64,
}

/// One priced amount: `cost` and `breakdown`, or `null` and the `reason`
/// (its fields are written into each step, execution and run, not nested:
/// `#[serde(flatten)]` cost the wasm about 10 KB gzipped).
#[derive(Clone, Debug, PartialEq)]
pub struct Cost {
    /// The total in USD rounded to 6 decimals; `null` when no price applies.
    pub cost: Option<f64>,
    /// Always `"USD"` (v2.7's prices are in USD).
    pub currency: &'static str,
    /// Per category; `null` with `cost`.
    pub breakdown: Option<CostBreakdown>,
    /// Why `cost` is `null` (`null` when it is not).
    pub reason: Option<String>,
}

/// One step's cost.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StepCost {
    /// The step number (from 1).
    pub step: i64,
    /// The total in USD rounded to 6 decimals; `null` when no price applies.
    pub cost: Option<f64>,
    /// Always `"USD"` (v2.7's prices are in USD).
    pub currency: &'static str,
    /// Per category; `null` with `cost`.
    pub breakdown: Option<CostBreakdown>,
    /// Why `cost` is `null` (`null` when it is not).
    pub reason: Option<String>,
}

/// One execution's cost (its summed usage) and its steps'.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExecutionCost {
    /// The execution id.
    pub execution_id: Option<String>,
    /// The total in USD rounded to 6 decimals; `null` when no price applies.
    pub cost: Option<f64>,
    /// Always `"USD"` (v2.7's prices are in USD).
    pub currency: &'static str,
    /// Per category; `null` with `cost`.
    pub breakdown: Option<CostBreakdown>,
    /// Why `cost` is `null` (`null` when it is not).
    pub reason: Option<String>,
    /// Each step's, by step number.
    pub steps: Vec<StepCost>,
}

/// The cost of a session's run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunCost {
    /// The model priced: `options.model`, else the table's only model.
    pub model: Option<String>,
    /// The total in USD rounded to 6 decimals; `null` when no price applies.
    pub cost: Option<f64>,
    /// Always `"USD"` (v2.7's prices are in USD).
    pub currency: &'static str,
    /// Per category; `null` with `cost`.
    pub breakdown: Option<CostBreakdown>,
    /// Why `cost` is `null` (`null` when it is not).
    pub reason: Option<String>,
    /// Each execution's.
    pub executions: Vec<ExecutionCost>,
}

/// v2.7's `FlatRateCostCalculator::calculate`.
pub fn price(u: &Usage, p: &Pricing) -> Cost {
    let per = |tokens: i64, rate: f64| tokens as f64 / 1_000_000.0 * rate;
    let b = CostBreakdown {
        input: per(u.input, p.input),
        output: per(u.output, p.output),
        cache_read: per(u.cache_read, p.cache_read),
        cache_write: per(u.cache_write, p.cache_write),
        reasoning: per(u.reasoning, p.reasoning),
    };
    let total = b.input + b.output + b.cache_read + b.cache_write + b.reasoning;
    Cost {
        cost: Some(round6(total)),
        currency: "USD",
        breakdown: Some(b),
        reason: None,
    }
}

fn round6(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 1_000_000.0
}

fn unpriced(reason: &str) -> Cost {
    Cost {
        cost: None,
        currency: "USD",
        breakdown: None,
        reason: Some(reason.to_string()),
    }
}

/// Which pricing applies: `model`'s, or the table's only one; else why none.
fn choose<'a>(
    prices: &'a PriceTable,
    model: Option<&str>,
) -> (Option<String>, Result<&'a Pricing, String>) {
    match model {
        Some(m) => (
            Some(m.to_string()),
            prices
                .get(m)
                .ok_or_else(|| format!("no price for model {m}")),
        ),
        None => match prices.iter().next() {
            None => (None, Err("the price table is empty".into())),
            Some((m, p)) if prices.len() == 1 => (Some(m.clone()), Ok(p)),
            Some(_) => (
                None,
                Err(
                    "the recording does not name its model: choose one of the price table's".into(),
                ),
            ),
        },
    }
}

/// Each execution and step of `executions` priced with `prices` for
/// `model` (or the table's only model).
pub fn run_cost(executions: &[Execution], prices: &PriceTable, model: Option<&str>) -> RunCost {
    let (model, pricing) = choose(prices, model);
    let of = |u: Option<&Usage>, what: &str| match (&pricing, u) {
        (Err(r), _) => unpriced(r),
        (Ok(_), None) => unpriced(&format!("{what} reported no usage")),
        (Ok(p), Some(u)) => price(u, p),
    };
    let mut total = Usage::default();
    let executions: Vec<ExecutionCost> = executions
        .iter()
        .map(|e| {
            total = total.saturating_add(&e.usage());
            let c = of(Some(&e.usage()), "the execution");
            ExecutionCost {
                execution_id: e.id.clone(),
                cost: c.cost,
                currency: c.currency,
                breakdown: c.breakdown,
                reason: c.reason,
                steps: e
                    .steps
                    .values()
                    .map(|s| {
                        let c = of(s.usage.as_ref(), &format!("step {}", s.number));
                        StepCost {
                            step: s.number,
                            cost: c.cost,
                            currency: c.currency,
                            breakdown: c.breakdown,
                            reason: c.reason,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    let c = of(Some(&total), "the run");
    RunCost {
        model,
        cost: c.cost,
        currency: c.currency,
        breakdown: c.breakdown,
        reason: c.reason,
        executions,
    }
}
