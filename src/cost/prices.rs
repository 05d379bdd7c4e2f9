//! Price tables: `{ [model]: { input, output, cacheRead?, cacheWrite?, reasoning? } }`
//! in USD per 1,000,000 tokens, read as instructor-php v2.7's
//! `InferencePricing::fromArray` reads one model's pricing (each field also
//! under its `…PerMToken` name; numeric, non-negative; `cacheRead`,
//! `cacheWrite` and `reasoning` default to the input price).

use std::collections::BTreeMap;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, Value};
use crate::model::read;

/// One model's prices in USD per 1,000,000 tokens, every field resolved
/// (v2.7's `InferencePricing::toArray`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pricing {
    /// Input (prompt) tokens.
    pub input: f64,
    /// Output (completion) tokens.
    pub output: f64,
    /// Tokens read from the provider's cache (the input price unless set).
    pub cache_read: f64,
    /// Tokens written to the provider's cache (the input price unless set).
    pub cache_write: f64,
    /// Reasoning tokens (the input price unless set, as v2.7 does).
    pub reasoning: f64,
}

impl Pricing {
    /// v2.7's `hasAnyPricing`: an input or output price above 0.
    pub fn has_any(&self) -> bool {
        self.input > 0.0 || self.output > 0.0
    }

    /// Reads one model's pricing at `path`.
    pub fn from_value(v: &Value, path: &str) -> Result<Pricing> {
        let m = read::object(v, path, "a pricing")?;
        let field = |name: &str, long: &str| -> Result<Option<f64>> {
            let (key, value) = match (m.get(name), m.get(long)) {
                (Some(v), _) if !v.is_null() => (name, v),
                (_, Some(v)) if !v.is_null() => (long, v),
                _ => return Ok(None),
            };
            // PHP's is_numeric: numbers and numeric strings.
            let n = match value {
                Value::String(s) => crate::json::parse_f64(s.trim()),
                other => other.as_f64(),
            };
            match n {
                Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
                Some(_) => Err(SteplineError::at(
                    ErrorCode::OutOfRange,
                    &child(path, key),
                    format!("pricing field '{name}' must be non-negative"),
                )),
                None => Err(read::wrong_type(path, key, "a number", value)),
            }
        };
        let input = field("input", "inputPerMToken")?.unwrap_or(0.0);
        Ok(Pricing {
            input,
            output: field("output", "outputPerMToken")?.unwrap_or(0.0),
            cache_read: field("cacheRead", "cacheReadPerMToken")?.unwrap_or(input),
            cache_write: field("cacheWrite", "cacheWritePerMToken")?.unwrap_or(input),
            reasoning: field("reasoning", "reasoningPerMToken")?.unwrap_or(input),
        })
    }
}

/// Prices by model name.
pub type PriceTable = BTreeMap<String, Pricing>;

/// Reads `{ [model]: pricing }` (`{}` or `[]`: no prices).
pub fn price_table(v: &Value, path: &str) -> Result<PriceTable> {
    let m = read::object(v, path, "a price table")?;
    m.iter()
        .map(|(k, p)| Ok((k.to_string(), Pricing::from_value(p, &child(path, k))?)))
        .collect()
}

/// The prices a stored state carries, and why there are none when so.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatePrices {
    /// `{ [llmConfig.model]: llmConfig.pricing }`, or `{}`.
    pub prices: PriceTable,
    /// The model the state's `llmConfig` names.
    pub model: Option<String>,
    /// Why `prices` is empty (`null` when it is not).
    pub reason: Option<String>,
}

/// The price table of a v2 state's `llmConfig.pricing` under its
/// `llmConfig.model`. An empty or all-zero pricing (v2.7 stores `[]` unless
/// one was configured) is no prices, with the reason said. A v1.22 state
/// stores no pricing at all: that is an error, not an empty table.
pub fn prices_from_state(state: &Value) -> Result<StatePrices> {
    crate::state_formats::StateFormats::built_in()
        .of(state)?
        .prices()?;
    let none = |model: Option<String>, reason: String| StatePrices {
        prices: PriceTable::new(),
        model,
        reason: Some(reason),
    };
    let config = match state.get("llmConfig") {
        None | Some(Value::Null) => return Ok(none(None, "the state stores no llmConfig".into())),
        Some(c) => read::object(c, "/llmConfig", "llmConfig")?,
    };
    let model = read::opt_str(config, "model", "/llmConfig")?.map(str::to_owned);
    let pricing = match config.get("pricing") {
        None | Some(Value::Null) => None,
        Some(p) => Some(Pricing::from_value(p, "/llmConfig/pricing")?),
    };
    let name = model.clone().unwrap_or_default();
    match (pricing, &model) {
        (Some(p), Some(_)) if p.has_any() => Ok(StatePrices {
            prices: PriceTable::from([(name, p)]),
            model,
            reason: None,
        }),
        (_, None) => Ok(none(None, "llmConfig names no model".into())),
        _ => Ok(none(
            model,
            format!("llmConfig.pricing is empty: no prices were configured for {name}"),
        )),
    }
}
