//! Token usage as the reference counts it.

use crate::json::Value;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::model::read;
use crate::php;

/// Token counts of one inference (or a sum of them).
///
/// Wire form (`toArray`): `{input, output, cacheWrite, cacheRead, reasoning}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: i64,
    pub output: i64,
    pub cache_write: i64,
    pub cache_read: i64,
    pub reasoning: i64,
}

/// The reference refuses to accumulate a field over this many tokens.
const UNREALISTIC_TOKENS: i64 = 1_000_000;

/// Token counts with their total (`total` is the producer's own count
/// when it sent one that differs from the sum of the fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UsageWithTotal {
    /// Input (prompt) tokens.
    pub input: i64,
    /// Output (completion) tokens.
    pub output: i64,
    /// Tokens written to the provider's prompt cache.
    pub cache_write: i64,
    /// Tokens read from the provider's prompt cache.
    pub cache_read: i64,
    /// Reasoning tokens.
    pub reasoning: i64,
    /// All tokens.
    pub total: i64,
}

impl UsageWithTotal {
    /// `u`'s fields with the given `total`.
    pub fn new(u: &Usage, total: i64) -> UsageWithTotal {
        UsageWithTotal {
            input: u.input,
            output: u.output,
            cache_write: u.cache_write,
            cache_read: u.cache_read,
            reasoning: u.reasoning,
            total,
        }
    }
}

impl Usage {
    /// Reads `{input, output, cacheWrite, cacheRead, reasoning}` with PHP `(int)`
    /// casts; other keys (including snake_case ones) are ignored, as in the reference.
    pub fn from_value(v: &Value, path: &str) -> Result<Usage> {
        let m = read::object(v, path, "usage")?;
        let field = |k: &str| m.get(k).map(php::int_cast).unwrap_or(0);
        Ok(Usage {
            input: field("input"),
            output: field("output"),
            cache_write: field("cacheWrite"),
            cache_read: field("cacheRead"),
            reasoning: field("reasoning"),
        })
    }

    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("input", Value::from(self.input)),
            ("output", Value::from(self.output)),
            ("cacheWrite", Value::from(self.cache_write)),
            ("cacheRead", Value::from(self.cache_read)),
            ("reasoning", Value::from(self.reasoning)),
        ])
    }

    /// Field-wise sum that saturates instead of overflowing: what stepline's
    /// own totals (the session's, a v2 state's, which has no "unrealistic
    /// tokens" refusal) use; v1.22's accumulation refuses instead.
    ///
    /// ```
    /// use stepline::model::Usage;
    /// let a = Usage { input: 3, output: 2, ..Usage::default() };
    /// assert_eq!(a.saturating_add(&a).total(), 10);
    /// ```
    pub fn saturating_add(&self, other: &Usage) -> Usage {
        Usage {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cache_write: self.cache_write.saturating_add(other.cache_write),
            cache_read: self.cache_read.saturating_add(other.cache_read),
            reasoning: self.reasoning.saturating_add(other.reasoning),
        }
    }

    /// All tokens: input + output + cacheWrite + cacheRead + reasoning.
    pub fn total(&self) -> i64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_write)
            .saturating_add(self.cache_read)
            .saturating_add(self.reasoning)
    }

    /// Output including reasoning tokens (the reference's `output()`).
    pub fn output_total(&self) -> i64 {
        self.output.saturating_add(self.reasoning)
    }

    /// Cache tokens written and read (the reference's `cache()`).
    pub fn cache_total(&self) -> i64 {
        self.cache_write.saturating_add(self.cache_read)
    }

    /// `Tokens: 135 (i:100 o:20 c:12 r:3)`.
    pub fn summary(&self) -> String {
        format!(
            "Tokens: {} (i:{} o:{} c:{} r:{})",
            self.total(),
            self.input,
            self.output,
            self.cache_total(),
            self.reasoning
        )
    }

    /// Field-wise sum. Like the reference, refuses operands over 1,000,000 tokens
    /// in any field (checked in the order input, output, cacheWrite, cacheRead,
    /// reasoning), since such counts indicate an accumulation bug upstream.
    pub fn with_accumulated(&self, other: &Usage) -> Result<Usage> {
        let pairs = [
            ("inputTokens", self.input, other.input),
            ("outputTokens", self.output, other.output),
            ("cacheWriteTokens", self.cache_write, other.cache_write),
            ("cacheReadTokens", self.cache_read, other.cache_read),
            ("reasoningTokens", self.reasoning, other.reasoning),
        ];
        for (name, a, b) in pairs {
            if a > UNREALISTIC_TOKENS || b > UNREALISTIC_TOKENS {
                return Err(SteplineError::new(
                    ErrorCode::OutOfRange,
                    None,
                    format!(
                        "Unrealistic token count detected in {name}: {a} + {b}. This indicates a bug in token accumulation logic. Token counts should not exceed {UNREALISTIC_TOKENS}."
                    ),
                ));
            }
        }
        Ok(Usage {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cache_write: self.cache_write.saturating_add(other.cache_write),
            cache_read: self.cache_read.saturating_add(other.cache_read),
            reasoning: self.reasoning.saturating_add(other.reasoning),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_saturate_instead_of_overflowing() {
        let u = Usage {
            input: i64::MAX,
            output: i64::MAX,
            cache_write: 1,
            cache_read: 1,
            reasoning: i64::MAX,
        };
        assert_eq!(u.total(), i64::MAX);
        assert_eq!(u.output_total(), i64::MAX);
    }
}
