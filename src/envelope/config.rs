//! What the encoder broadcasts: the reference's `BroadcastConfig` and presets.

use crate::json::{Map, Value};
use chrono::FixedOffset;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::child;
use crate::model::read;
use crate::model::time::{resolve_now, NowSpec, Timestamp};

/// Which producer's broadcaster the encoder reproduces: `"v1.22"` (default,
/// `AgentEventEnvelopeAdapter`) or `"v2"` (`AgentEventBroadcaster`: events
/// `PartialInferenceDeltaCreated`, `StreamEventParsed`, `ContinuationEvaluated
/// {stepNumber, executionState}`, `AgentExecutionStopped`, `AgentExecutionFailed`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EncoderDialect"))]
pub enum Dialect {
    /// instructor-php v1.22's `AgentEventEnvelopeAdapter` (the default).
    #[default]
    #[serde(rename = "v1.22")]
    V1_22,
    /// instructor-php v2.x's `AgentEventBroadcaster`: continuation
    /// `{step_number, should_stop, stop_reason, resolved_by}`, four-key status
    /// on failure and stop, the trailing `stopped` after `completed`.
    #[serde(rename = "v2")]
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
    /// Reproduce the reference instead of stepline's fixes: byte cuts that can
    /// split a character (v1.22 quirk 9), local time printed with a literal `Z`
    /// (at this offset; v1.22 quirk 5), and step durations that drop minutes,
    /// hours and sign (v1.22 quirk 4).
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

    /// Reads an `EnvelopeEncoderConfig` object (see [`ConfigOptions`]).
    pub fn from_options(m: &Map, path: &str) -> Result<BroadcastConfig> {
        ConfigOptions::read(m, path)?.resolve(path)
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

/// A preset of the reference's `BroadcastConfig`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EncoderPreset"))]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// No stream chunks.
    Minimal,
    /// The reference's default.
    Standard,
    /// The same as `standard`.
    Default,
    /// Continuation traces and tool arguments (up to 500 bytes each).
    Debug,
}

/// `compat`: `true` (local time = UTC) or the producer's UTC offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EncoderCompat"))]
#[serde(untagged)]
pub enum Compat {
    /// On (local time = UTC) or off.
    Flag(bool),
    /// On, with the producer's local time at this offset.
    Offset(CompatOffset),
}

/// The producer's UTC offset, for `compat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EncoderCompatOffset"))]
#[serde(rename_all = "camelCase")]
pub struct CompatOffset {
    /// Minutes east of UTC (default 0), within ±24 hours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utc_offset_minutes: Option<i64>,
}

/// Broadcast configuration as the encoder's options give it: the reference
/// `BroadcastConfig` plus the cap, compat and dialect. A missing field takes
/// the preset's value.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EnvelopeEncoderConfig"))]
#[serde(rename_all = "camelCase")]
pub struct ConfigOptions {
    /// The preset the other fields override (default `standard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// Send the model's text as `agent.stream.chunk`s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_stream_chunks: Option<bool>,
    /// Send each continuation's criteria and votes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_continuation_trace: Option<bool>,
    /// Send the (truncated) tool arguments instead of a one-line summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_tool_args: Option<bool>,
    /// String arguments longer than this many bytes are cut (with `includeToolArgs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_arg_length: Option<i64>,
    /// Emit `agent.status` transitions (idle → processing → completed/failed/…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_status_tracking: Option<bool>,
    /// Every envelope's compact JSON stays within this many bytes (default
    /// 10,000, at least 256); `null` turns the cap off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_message_bytes: Option<Option<i64>>,
    /// Reproduce the producer: local time printed with `Z`, quirky step durations, byte cuts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compat: Option<Compat>,
    /// Which producer's broadcaster (default `"v1.22"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
}

impl ConfigOptions {
    /// The keys the options object may have (the fields above, as written).
    pub const KEYS: &'static [&'static str] = &[
        "preset",
        "includeStreamChunks",
        "includeContinuationTrace",
        "includeToolArgs",
        "maxArgLength",
        "autoStatusTracking",
        "maxMessageBytes",
        "compat",
        "dialect",
    ];

    /// Reads the options object at `path`; wrong keys, types and values are
    /// errors at their path.
    pub fn read(m: &Map, path: &str) -> Result<ConfigOptions> {
        read::only_keys(m, Self::KEYS, path)?;
        let preset = match read::opt_str(m, "preset", path)? {
            None => None,
            Some("minimal") => Some(Preset::Minimal),
            Some("standard") => Some(Preset::Standard),
            Some("default") => Some(Preset::Default),
            Some("debug") => Some(Preset::Debug),
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
        };
        let dialect = match read::opt_str(m, "dialect", path)? {
            None => None,
            Some("v1.22") => Some(Dialect::V1_22),
            Some("v2") => Some(Dialect::V2),
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
        };
        let flag = |k: &str| read::opt_bool(m, k, path);
        let include_stream_chunks = flag("includeStreamChunks")?;
        let include_continuation_trace = flag("includeContinuationTrace")?;
        let include_tool_args = flag("includeToolArgs")?;
        let auto_status_tracking = flag("autoStatusTracking")?;
        let max_arg_length = read::opt_i64(m, "maxArgLength", path)?;
        let max_message_bytes = match m.get("maxMessageBytes") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(_) => Some(read::opt_i64(m, "maxMessageBytes", path)?),
        };
        let compat = match m.get("compat") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(Compat::Flag(*b)),
            Some(Value::Object(o)) => {
                let p = child(path, "compat");
                read::only_keys(o, &["utcOffsetMinutes"], &p)?;
                Some(Compat::Offset(CompatOffset {
                    utc_offset_minutes: read::opt_i64(o, "utcOffsetMinutes", &p)?,
                }))
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
        };
        Ok(ConfigOptions {
            preset,
            include_stream_chunks,
            include_continuation_trace,
            include_tool_args,
            max_arg_length,
            auto_status_tracking,
            max_message_bytes,
            compat,
            dialect,
        })
    }

    /// The configuration these options give: the preset, overridden by the
    /// fields present. `path` locates the options for the errors of values
    /// out of range.
    pub fn resolve(&self, path: &str) -> Result<BroadcastConfig> {
        let mut c = match self.preset {
            None | Some(Preset::Default) | Some(Preset::Standard) => BroadcastConfig::standard(),
            Some(Preset::Minimal) => BroadcastConfig::minimal(),
            Some(Preset::Debug) => BroadcastConfig::debug(),
        };
        c.dialect = self.dialect.unwrap_or_default();
        if let Some(b) = self.include_stream_chunks {
            c.include_stream_chunks = b;
        }
        if let Some(b) = self.include_continuation_trace {
            c.include_continuation_trace = b;
        }
        if let Some(b) = self.include_tool_args {
            c.include_tool_args = b;
        }
        if let Some(b) = self.auto_status_tracking {
            c.auto_status_tracking = b;
        }
        if let Some(n) = self.max_arg_length {
            c.max_arg_length = n;
        }
        match self.max_message_bytes {
            None => {}
            Some(None) => c.max_message_bytes = None,
            // Saturate: `as` would truncate a large cap to a small one in wasm32.
            Some(Some(n)) if n >= 256 => {
                c.max_message_bytes = Some(usize::try_from(n).unwrap_or(usize::MAX))
            }
            Some(Some(_)) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "maxMessageBytes"),
                    "expected `maxMessageBytes` of at least 256, or null for no cap",
                ))
            }
        }
        c.compat = match self.compat {
            None | Some(Compat::Flag(false)) => None,
            Some(Compat::Flag(true)) => FixedOffset::east_opt(0),
            Some(Compat::Offset(CompatOffset { utc_offset_minutes })) => Some(
                utc_offset_minutes
                    .unwrap_or(0)
                    .checked_mul(60)
                    .and_then(|seconds| i32::try_from(seconds).ok())
                    .and_then(FixedOffset::east_opt)
                    .ok_or_else(|| {
                        SteplineError::at(
                            ErrorCode::OutOfRange,
                            &child(&child(path, "compat"), "utcOffsetMinutes"),
                            "expected an offset within ±24 hours",
                        )
                    })?,
            ),
        };
        Ok(c)
    }
}

/// A time as the caller gives it: an ISO string (or a word `resolve_now`
/// reads, such as `"now"`) or epoch milliseconds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum TimeInput {
    /// Epoch milliseconds.
    Millis(f64),
    /// An ISO date string.
    Text(String),
}

impl TimeInput {
    /// Reads a time at `path`.
    pub fn read(v: &Value, path: &str) -> Result<TimeInput> {
        Ok(match NowSpec::from_value(v, path)? {
            NowSpec::EpochMillis(ms) => TimeInput::Millis(ms),
            NowSpec::Text(s) => TimeInput::Text(s),
        })
    }

    /// The instant, with `clock` for relative words.
    pub fn resolve(&self, clock: Timestamp, path: &str) -> Result<Timestamp> {
        let spec = match self {
            TimeInput::Millis(ms) => NowSpec::EpochMillis(*ms),
            TimeInput::Text(s) => NowSpec::Text(s.clone()),
        };
        resolve_now(Some(&spec), clock, path)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for TimeInput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TimeInput".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["string", "number"] })
    }
}

/// The options of `new EnvelopeEncoder()`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "EnvelopeEncoderOptions"))]
#[serde(rename_all = "camelCase")]
pub struct EncoderOptions {
    /// The session whose channel the envelopes go to.
    pub session_id: String,
    /// The execution the envelopes belong to (default `""`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_id: Option<String>,
    /// What is broadcast, and how (default: the `standard` preset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<ConfigOptions>,
    /// A fixed clock (ISO string or epoch ms) for replays and tests; default: now, per event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<TimeInput>,
}

impl EncoderOptions {
    /// The keys the options object may have.
    pub const KEYS: &'static [&'static str] = &["sessionId", "executionId", "config", "now"];

    /// Reads the options object; errors are located under `/options`.
    pub fn read(m: &Map) -> Result<EncoderOptions> {
        const AT: &str = "/options";
        read::only_keys(m, Self::KEYS, AT)?;
        let now = match m.get("now").filter(|v| !v.is_null()) {
            Some(v) => Some(TimeInput::read(v, "/options/now")?),
            None => None,
        };
        let session_id = read::opt_str(m, "sessionId", AT)?.ok_or_else(|| {
            SteplineError::at(
                ErrorCode::MissingField,
                "/options/sessionId",
                "expected `sessionId`",
            )
        })?;
        let execution_id = read::opt_str(m, "executionId", AT)?.map(String::from);
        let config = match m.get("config") {
            Some(c) if !c.is_null() => {
                let at = "/options/config";
                Some(ConfigOptions::read(read::object(c, at, "config")?, at)?)
            }
            _ => None,
        };
        Ok(EncoderOptions {
            session_id: session_id.into(),
            execution_id,
            config,
            now,
        })
    }
}

/// A producer event for the encoder: the reference event class name and its
/// fields.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgentEventInput {
    /// The producer's event class name (`AgentStepStarted`, `ToolCallCompleted`, …).
    pub event: String,
    /// The event's fields, as the producer names them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "args_schema"))]
    pub args: Option<Value>,
    /// When the event happened (ISO string or epoch ms); it overrides the
    /// encoder's clock for this event, so recorded events replay with their own times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<TimeInput>,
}

impl AgentEventInput {
    /// The keys the event object may have.
    pub const KEYS: &'static [&'static str] = &["event", "args", "at"];

    /// Reads an event object; errors are located from its root.
    pub fn read(v: &Value) -> Result<AgentEventInput> {
        let m = read::object(v, "", "an event")?;
        read::only_keys(m, Self::KEYS, "")?;
        let event = read::opt_str(m, "event", "")?.ok_or_else(|| {
            SteplineError::at(ErrorCode::MissingField, "/event", "expected `event`")
        })?;
        let at = match m.get("at").filter(|v| !v.is_null()) {
            Some(v) => Some(TimeInput::read(v, "/at")?),
            None => None,
        };
        Ok(AgentEventInput {
            event: event.into(),
            args: m.get("args").cloned(),
            at,
        })
    }
}

#[cfg(feature = "schema")]
fn args_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object", "additionalProperties": true })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(text: &str) -> Result<ConfigOptions> {
        let v = crate::json::from_str(text).unwrap_or(Value::Null);
        ConfigOptions::read(read::object(&v, "/c", "config")?, "/c")
    }

    #[test]
    fn read_options_write_back_as_given() {
        let text = r#"{"preset":"debug","includeStreamChunks":false,"maxArgLength":20,"maxMessageBytes":null,"compat":{"utcOffsetMinutes":60},"dialect":"v2"}"#;
        let o = options(text).unwrap_or_default();
        assert_eq!(crate::json::to_text(&o), text);
        let c = o.resolve("/c").unwrap_or_default();
        assert_eq!(c.max_message_bytes, None);
        assert_eq!(c.dialect, Dialect::V2);
        assert!(c.include_tool_args && !c.include_stream_chunks);
        assert_eq!(c.compat, FixedOffset::east_opt(3600));
    }

    #[test]
    fn wrong_options_are_errors_at_their_path() {
        let err = |text: &str| {
            options(text)
                .and_then(|o| o.resolve("/c"))
                .err()
                .map(|e| (e.code, e.path.unwrap_or_default()))
        };
        assert_eq!(
            err(r#"{"preset":"loud"}"#),
            Some((ErrorCode::InvalidValue, "/c/preset".into()))
        );
        assert_eq!(
            err(r#"{"maxMessageBytes":100}"#),
            Some((ErrorCode::InvalidValue, "/c/maxMessageBytes".into()))
        );
        assert_eq!(
            err(r#"{"compat":"yes"}"#),
            Some((ErrorCode::InvalidType, "/c/compat".into()))
        );
        assert_eq!(
            err(r#"{"compat":{"utcOffsetMinutes":100000}}"#),
            Some((ErrorCode::OutOfRange, "/c/compat/utcOffsetMinutes".into()))
        );
        assert_eq!(err(r#"{"loud":true}"#).map(|e| e.1), Some("/c/loud".into()));
    }

    /// The key lists the readers accept are the declared fields.
    #[cfg(feature = "schema")]
    #[test]
    fn accepted_keys_are_the_declared_properties() {
        fn keys<T: schemars::JsonSchema>() -> Vec<String> {
            let schema = schemars::generate::SchemaSettings::draft2020_12()
                .for_serialize()
                .into_generator()
                .into_root_schema_for::<T>();
            let mut keys: Vec<String> = schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            keys.sort();
            keys
        }
        let sorted = |k: &[&str]| {
            let mut k: Vec<String> = k.iter().map(|s| s.to_string()).collect();
            k.sort();
            k
        };
        assert_eq!(keys::<ConfigOptions>(), sorted(ConfigOptions::KEYS));
        assert_eq!(keys::<EncoderOptions>(), sorted(EncoderOptions::KEYS));
        assert_eq!(keys::<AgentEventInput>(), sorted(AgentEventInput::KEYS));
    }
}
