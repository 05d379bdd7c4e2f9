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
    /// gets content `''` (fixed by default; the reference, `compat`, keeps it).
    pub redact_tool_args: bool,
    /// Reproduce the reference's bugs instead of the fixes (v1.22 quirk 1, seed 004 §Issue 1):
    /// byte-based cuts that can split a character (shown as U+FFFD here),
    /// tool results still held in `_metadata.result` when results are excluded,
    /// and tool-call arguments left in assistant content under `redact_tool_args`.
    pub compat: bool,
}

/// A configured count or length as a size: none when ≤ 0, and any count
/// past the address space is all of them (on wasm32 `usize` is 32 bits:
/// a large `maxSteps` must keep every step, not none).
pub(crate) fn limit(max: i64) -> usize {
    if max <= 0 {
        0
    } else {
        usize::try_from(max).unwrap_or(usize::MAX)
    }
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
        SlimOptions::read(m, path)?.config(path)
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

/// A preset of [`SlimOptions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SlimPreset"))]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// 20 messages of 500 bytes, no steps, no tool results.
    Minimal,
    /// 50 messages of 2,000 bytes, 20 steps (the default).
    Standard,
    /// 100 messages of 5,000 bytes, 50 steps, the continuation trace.
    Full,
}

/// What a slim snapshot keeps (`slimSnapshot`'s options); fields override the
/// preset (default `standard`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SlimOptions {
    /// The preset the other fields override (`"default"` is `standard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// The newest messages kept; 0 or less keeps none (as the producer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_messages: Option<i64>,
    /// The newest steps kept; 0 or less keeps none (as the producer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<i64>,
    /// Longer string contents are cut to this many bytes plus `...`; 0 or less
    /// cuts nothing (as the producer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_content_length: Option<i64>,
    /// Keep tool results (else `[tool result omitted]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_tool_results: Option<bool>,
    /// Keep step summaries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_steps: Option<bool>,
    /// Keep the last continuation decision (v2: the execution's continuation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_continuation_trace: Option<bool>,
    /// Tool calls in messages become `{id, name}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact_tool_args: Option<bool>,
    /// Tighten until the compact JSON encoding fits this many bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<i64>,
    /// Reproduce the producer's byte-cut truncation, `_metadata.result` leak and
    /// tool arguments left in content under `redactToolArgs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compat: Option<bool>,
}

impl SlimOptions {
    /// Reads the options object (unknown keys and wrong types are errors at `path`).
    pub fn read(m: &Map, path: &str) -> Result<SlimOptions> {
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
        let preset = match read::opt_str(m, "preset", path)? {
            None => None,
            Some("standard") | Some("default") => Some(Preset::Standard),
            Some("minimal") => Some(Preset::Minimal),
            Some("full") => Some(Preset::Full),
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
        Ok(SlimOptions {
            preset,
            max_messages: int("maxMessages")?,
            max_steps: int("maxSteps")?,
            max_content_length: int("maxContentLength")?,
            include_tool_results: flag("includeToolResults")?,
            include_steps: flag("includeSteps")?,
            include_continuation_trace: flag("includeContinuationTrace")?,
            redact_tool_args: flag("redactToolArgs")?,
            // Read in this order: the first bad field is the one reported.
            compat: flag("compat")?,
            max_bytes: int("maxBytes")?,
        })
    }

    /// The config these options ask for, and the `maxBytes` budget, if any.
    pub fn config(&self, path: &str) -> Result<(SlimConfig, Option<usize>)> {
        let mut c = match self.preset {
            None | Some(Preset::Standard) => SlimConfig::standard(),
            Some(Preset::Minimal) => SlimConfig::minimal(),
            Some(Preset::Full) => SlimConfig::full(),
        };
        c.max_messages = self.max_messages.unwrap_or(c.max_messages);
        c.max_steps = self.max_steps.unwrap_or(c.max_steps);
        c.max_content_length = self.max_content_length.unwrap_or(c.max_content_length);
        c.include_tool_results = self.include_tool_results.unwrap_or(c.include_tool_results);
        c.include_steps = self.include_steps.unwrap_or(c.include_steps);
        c.include_continuation_trace = self
            .include_continuation_trace
            .unwrap_or(c.include_continuation_trace);
        c.redact_tool_args = self.redact_tool_args.unwrap_or(c.redact_tool_args);
        c.compat = self.compat.unwrap_or(c.compat);
        let max_bytes = match self.max_bytes {
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
}
