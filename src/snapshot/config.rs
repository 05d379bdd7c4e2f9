//! What a slim snapshot keeps: the reference's `SlimSerializationConfig`.

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::child;
use crate::model::read;

/// Limits and switches for [`crate::snapshot::serialize::slim`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlimConfig {
    /// Most recent messages kept (≤ 0 keeps none).
    pub max_messages: i64,
    /// Most recent steps kept (≤ 0 keeps none).
    pub max_steps: i64,
    /// Longer string contents are cut to this many bytes plus `...`; ≤ 0 cuts
    /// nothing (the reference truncates only when the limit is positive).
    pub max_content_length: i64,
    /// `false` replaces tool results with `[tool result omitted]`.
    pub include_tool_results: bool,
    /// Write the recent steps (`steps`).
    pub include_steps: bool,
    /// Write each step's continuation evaluations.
    pub include_continuation_trace: bool,
    /// Tool calls in message metadata become `{id, name}`, and an assistant
    /// message whose content is one of its calls' arguments (seed 004's leak)
    /// gets content `''` (DESIGN fix 5; the reference, `compat`, keeps it).
    pub redact_tool_args: bool,
    /// Reproduce the reference's bugs instead of the fixes (DESIGN.md section 1):
    /// byte-based cuts that can split a character (shown as U+FFFD here),
    /// tool results still held in `_metadata.result` when results are excluded,
    /// and tool-call arguments left in assistant content under `redact_tool_args`.
    pub compat: bool,
}

impl Default for SlimConfig {
    /// The reference's `standard()` preset.
    fn default() -> Self {
        SlimConfig {
            max_messages: 50,
            max_steps: 20,
            max_content_length: 2000,
            include_tool_results: true,
            include_steps: true,
            include_continuation_trace: false,
            redact_tool_args: false,
            compat: false,
        }
    }
}

impl SlimConfig {
    /// The reference's `standard()` preset (the default).
    pub fn standard() -> SlimConfig {
        SlimConfig::default()
    }

    /// The reference's `minimal()` preset: 20 messages of 500 bytes, no steps, no tool results.
    pub fn minimal() -> SlimConfig {
        SlimConfig {
            max_messages: 20,
            max_steps: 0,
            max_content_length: 500,
            include_tool_results: false,
            include_steps: false,
            ..SlimConfig::default()
        }
    }

    /// The reference's `full()` preset: 100 messages of 5000 bytes, 50 steps, continuation traces.
    pub fn full() -> SlimConfig {
        SlimConfig {
            max_messages: 100,
            max_steps: 50,
            max_content_length: 5000,
            include_tool_results: true,
            include_steps: true,
            include_continuation_trace: true,
            ..SlimConfig::default()
        }
    }

    /// Reads `{preset?, maxMessages?, …, compat?}`; fields override the preset
    /// (default `standard`). Returns the config and the `maxBytes` budget, if any.
    pub fn from_options(m: &Map, path: &str) -> Result<(SlimConfig, Option<usize>)> {
        read::only_keys(
            m,
            &[
                "preset",
                "maxMessages",
                "maxSteps",
                "maxContentLength",
                "includeToolResults",
                "includeSteps",
                "includeContinuationTrace",
                "redactToolArgs",
                "maxBytes",
                "compat",
            ],
            path,
        )?;
        let mut c = match read::opt_str(m, "preset", path)? {
            None | Some("standard") | Some("default") => SlimConfig::standard(),
            Some("minimal") => SlimConfig::minimal(),
            Some("full") => SlimConfig::full(),
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "preset"),
                    format!(
                        "expected \"minimal\", \"standard\" or \"full\", found {}",
                        crate::json::quote(other)
                    ),
                ))
            }
        };
        let int = |k: &str| read::opt_i64(m, k, path);
        let flag = |k: &str| read::opt_bool(m, k, path);
        if let Some(n) = int("maxMessages")? {
            c.max_messages = n;
        }
        if let Some(n) = int("maxSteps")? {
            c.max_steps = n;
        }
        if let Some(n) = int("maxContentLength")? {
            c.max_content_length = n;
        }
        if let Some(b) = flag("includeToolResults")? {
            c.include_tool_results = b;
        }
        if let Some(b) = flag("includeSteps")? {
            c.include_steps = b;
        }
        if let Some(b) = flag("includeContinuationTrace")? {
            c.include_continuation_trace = b;
        }
        if let Some(b) = flag("redactToolArgs")? {
            c.redact_tool_args = b;
        }
        if let Some(b) = flag("compat")? {
            c.compat = b;
        }
        let max_bytes = match int("maxBytes")? {
            None => None,
            // Past the address space (a 32-bit usize in wasm) no output is larger:
            // saturate instead of truncating to a small budget.
            Some(n) if n > 0 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            Some(n) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "maxBytes"),
                    format!("expected `maxBytes` greater than zero, found {n}"),
                ))
            }
        };
        Ok((c, max_bytes))
    }

    /// The reference's `{maxMessages, …, redactToolArgs}` form (as in the vectors).
    pub fn from_reference(v: &Value) -> Option<SlimConfig> {
        let m = v.as_object()?;
        Some(SlimConfig {
            max_messages: m.get("maxMessages")?.as_i64()?,
            max_steps: m.get("maxSteps")?.as_i64()?,
            max_content_length: m.get("maxContentLength")?.as_i64()?,
            include_tool_results: m.get("includeToolResults")?.as_bool()?,
            include_steps: m.get("includeSteps")?.as_bool()?,
            include_continuation_trace: m.get("includeContinuationTrace")?.as_bool()?,
            redact_tool_args: m.get("redactToolArgs")?.as_bool()?,
            compat: false,
        })
    }
}
