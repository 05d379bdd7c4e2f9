//! What the encoder broadcasts: the reference's `BroadcastConfig` and presets.

use crate::json::{Map, Value};
use chrono::FixedOffset;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::child;
use crate::model::read;

/// Which producer's broadcaster the encoder reproduces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// instructor-php v1.22's `AgentEventEnvelopeAdapter` (the default).
    #[default]
    V1_22,
    /// instructor-php v2.x's `AgentEventBroadcaster`: continuation
    /// `{step_number, should_stop, stop_reason, resolved_by}`, four-key status
    /// on failure and stop, the trailing `stopped` after `completed`.
    V2,
}

impl Dialect {
    /// `"v1.22"` or `"v2"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::V1_22 => "v1.22",
            Dialect::V2 => "v2",
        }
    }
}

/// Switches of the reference adapter, plus stepline's compat switch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BroadcastConfig {
    /// The producer whose envelopes are reproduced.
    pub dialect: Dialect,
    /// Broadcast the model's streamed text as `agent.stream.chunk` envelopes.
    pub include_stream_chunks: bool,
    /// Broadcast each continuation decision as `agent.continuation`, with its evaluations.
    pub include_continuation_trace: bool,
    /// Send the (truncated) tool arguments instead of a one-line summary.
    pub include_tool_args: bool,
    /// String arguments longer than this many bytes are cut (with `include_tool_args`).
    pub max_arg_length: i64,
    /// Emit `agent.status` transitions (idle → processing → completed/failed/…).
    pub auto_status_tracking: bool,
    /// Reproduce the reference instead of DESIGN.md fixes 1, 3 and 4: byte cuts
    /// that can split a character, local time printed with a literal `Z` (at
    /// this offset), and step durations that drop minutes, hours and sign.
    pub compat: Option<FixedOffset>,
    /// Every envelope's compact JSON stays within this many bytes (texts are
    /// shortened, chunks split); `None` turns the cap off.
    pub max_message_bytes: Option<usize>,
}

impl Default for BroadcastConfig {
    /// The reference's default (= `standard()`).
    fn default() -> Self {
        BroadcastConfig {
            dialect: Dialect::V1_22,
            include_stream_chunks: true,
            include_continuation_trace: false,
            include_tool_args: false,
            max_arg_length: 100,
            auto_status_tracking: true,
            compat: None,
            max_message_bytes: Some(crate::envelope::cap::DEFAULT_MAX_MESSAGE_BYTES),
        }
    }
}

impl BroadcastConfig {
    /// The reference's `minimal` preset: no stream chunks.
    pub fn minimal() -> Self {
        BroadcastConfig {
            include_stream_chunks: false,
            ..Self::default()
        }
    }

    /// The reference's `standard` preset (the default).
    pub fn standard() -> Self {
        Self::default()
    }

    /// The reference's `debug` preset: continuation traces and tool arguments up to 500 bytes.
    pub fn debug() -> Self {
        BroadcastConfig {
            include_continuation_trace: true,
            include_tool_args: true,
            max_arg_length: 500,
            ..Self::default()
        }
    }

    /// Reads `{preset?, includeStreamChunks?, includeContinuationTrace?,
    /// includeToolArgs?, maxArgLength?, autoStatusTracking?, compat?, dialect?}`
    /// where `compat` is `true` (local time = UTC) or `{utcOffsetMinutes}` and
    /// `dialect` is `"v1.22"` (default) or `"v2"`.
    pub fn from_options(m: &Map, path: &str) -> Result<BroadcastConfig> {
        read::only_keys(
            m,
            &[
                "preset",
                "includeStreamChunks",
                "includeContinuationTrace",
                "includeToolArgs",
                "maxArgLength",
                "autoStatusTracking",
                "compat",
                "maxMessageBytes",
                "dialect",
            ],
            path,
        )?;
        let mut c = Self::preset(m, path)?;
        c.dialect = Self::dialect_option(m, path)?;
        let flag = |k: &str| read::opt_bool(m, k, path);
        if let Some(b) = flag("includeStreamChunks")? {
            c.include_stream_chunks = b;
        }
        if let Some(b) = flag("includeContinuationTrace")? {
            c.include_continuation_trace = b;
        }
        if let Some(b) = flag("includeToolArgs")? {
            c.include_tool_args = b;
        }
        if let Some(b) = flag("autoStatusTracking")? {
            c.auto_status_tracking = b;
        }
        if let Some(n) = read::opt_i64(m, "maxArgLength", path)? {
            c.max_arg_length = n;
        }
        if let Some(cap) = Self::cap_option(m, path)? {
            c.max_message_bytes = cap;
        }
        c.compat = Self::compat_option(m, path)?;
        Ok(c)
    }

    /// `preset`: the config the other options change (`standard` when absent).
    fn preset(m: &Map, path: &str) -> Result<BroadcastConfig> {
        Ok(match read::opt_str(m, "preset", path)? {
            None | Some("default") | Some("standard") => Self::standard(),
            Some("minimal") => Self::minimal(),
            Some("debug") => Self::debug(),
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "preset"),
                    format!(
                        "expected \"minimal\", \"standard\" or \"debug\", found {}",
                        crate::json::quote(other)
                    ),
                ))
            }
        })
    }

    /// `dialect`: `v1.22` (the default) or `v2`.
    fn dialect_option(m: &Map, path: &str) -> Result<Dialect> {
        Ok(match read::opt_str(m, "dialect", path)? {
            None | Some("v1.22") => Dialect::V1_22,
            Some("v2") => Dialect::V2,
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "dialect"),
                    format!(
                        "expected \"v1.22\" or \"v2\", found {}",
                        crate::json::quote(other)
                    ),
                ))
            }
        })
    }

    /// `maxMessageBytes`: `None` when absent, `Some(None)` for null (no cap).
    fn cap_option(m: &Map, path: &str) -> Result<Option<Option<usize>>> {
        Ok(match m.get("maxMessageBytes") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(_) => match read::opt_i64(m, "maxMessageBytes", path)? {
                // Saturate: `as` would truncate a large cap to a small one in wasm32.
                Some(n) if n >= 256 => Some(Some(usize::try_from(n).unwrap_or(usize::MAX))),
                _ => {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidValue,
                        &child(path, "maxMessageBytes"),
                        "expected `maxMessageBytes` of at least 256, or null for no cap",
                    ))
                }
            },
        })
    }

    /// `compat`: off, on (UTC), or `{utcOffsetMinutes}` for the local time printed with `Z`.
    fn compat_option(m: &Map, path: &str) -> Result<Option<FixedOffset>> {
        Ok(match m.get("compat") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => FixedOffset::east_opt(0),
            Some(Value::Object(o)) => {
                let p = child(path, "compat");
                read::only_keys(o, &["utcOffsetMinutes"], &p)?;
                let minutes = read::opt_i64(o, "utcOffsetMinutes", &p)?.unwrap_or(0);
                Some(
                    minutes
                        .checked_mul(60)
                        .and_then(|seconds| i32::try_from(seconds).ok())
                        .and_then(FixedOffset::east_opt)
                        .ok_or_else(|| {
                            SteplineError::at(
                                ErrorCode::OutOfRange,
                                &child(&p, "utcOffsetMinutes"),
                                "expected an offset within ±24 hours",
                            )
                        })?,
                )
            }
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(path, "compat"),
                    format!(
                        "expected `compat` as a boolean or {{utcOffsetMinutes}}, found {}",
                        crate::json::type_name(other)
                    ),
                ))
            }
        })
    }

    /// The reference's `{includeStreamChunks, …, autoStatusTracking}` form (vectors).
    pub fn from_reference(v: &Value) -> Option<BroadcastConfig> {
        Some(BroadcastConfig {
            include_stream_chunks: v.get("includeStreamChunks")?.as_bool()?,
            include_continuation_trace: v.get("includeContinuationTrace")?.as_bool()?,
            include_tool_args: v.get("includeToolArgs")?.as_bool()?,
            max_arg_length: v.get("maxArgLength")?.as_i64()?,
            auto_status_tracking: v.get("autoStatusTracking")?.as_bool()?,
            ..BroadcastConfig::default()
        })
    }
}
