//! `StopReason`, `StopSignal`, `StopSignals` and `ExecutionContinuation` of v2.x.

use std::cmp::Ordering;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Map, Value};
use crate::model::read;

/// Why an execution stopped. Lower priority wins when several signals compete.
///
/// ```
/// use stepline::model::continuation::v2::StopReason;
/// assert!(StopReason::Error.priority() < StopReason::Completed.priority());
/// assert_eq!(StopReason::parse("steps_limit", "").unwrap(), StopReason::StepsLimit);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// `completed`: the agent finished its work.
    Completed,
    /// `steps_limit`: the step limit was reached.
    StepsLimit,
    /// `token_limit`: the token limit was reached.
    TokenLimit,
    /// `time_limit`: the execution time limit was reached.
    TimeLimit,
    /// `retry_limit`: too many retries.
    RetryLimit,
    /// `error`: an error stopped the run.
    Error,
    /// `stop_requested`: a hook or tool asked to stop.
    StopRequested,
    /// `finish_reason`: the model's finish reason matched a stop condition.
    FinishReason,
    /// `user_requested`: the user stopped the run.
    UserRequested,
    /// `unknown`: a reason this version does not know.
    Unknown,
}

impl StopReason {
    /// Every reason in the producer's declaration order.
    pub const ALL: [StopReason; 10] = [
        StopReason::Completed,
        StopReason::StepsLimit,
        StopReason::TokenLimit,
        StopReason::TimeLimit,
        StopReason::RetryLimit,
        StopReason::Error,
        StopReason::StopRequested,
        StopReason::FinishReason,
        StopReason::UserRequested,
        StopReason::Unknown,
    ];

    /// Every reason's wire value, in [`StopReason::ALL`]'s order (what the
    /// snapshot schema's enum lists).
    #[expect(
        clippy::indexing_slicing,
        reason = "evaluated at compile time: an index out of range fails the build"
    )]
    pub const NAMES: [&'static str; 10] = {
        let mut out = [""; 10];
        let mut i = 0;
        while i < out.len() {
            out[i] = Self::ALL[i].as_str();
            i += 1;
        }
        out
    };

    /// The wire value (`steps_limit`).
    pub const fn as_str(self) -> &'static str {
        match self {
            StopReason::Completed => "completed",
            StopReason::StepsLimit => "steps_limit",
            StopReason::TokenLimit => "token_limit",
            StopReason::TimeLimit => "time_limit",
            StopReason::RetryLimit => "retry_limit",
            StopReason::Error => "error",
            StopReason::StopRequested => "stop_requested",
            StopReason::FinishReason => "finish_reason",
            StopReason::UserRequested => "user_requested",
            StopReason::Unknown => "unknown",
        }
    }

    /// The PHP enum case name (`StepsLimitReached`).
    pub fn case_name(self) -> &'static str {
        match self {
            StopReason::Completed => "Completed",
            StopReason::StepsLimit => "StepsLimitReached",
            StopReason::TokenLimit => "TokenLimitReached",
            StopReason::TimeLimit => "TimeLimitReached",
            StopReason::RetryLimit => "RetryLimitReached",
            StopReason::Error => "ErrorForbade",
            StopReason::StopRequested => "StopRequested",
            StopReason::FinishReason => "FinishReasonReceived",
            StopReason::UserRequested => "UserRequested",
            StopReason::Unknown => "Unknown",
        }
    }

    /// 0 (`error`) wins over 9 (`unknown`).
    pub fn priority(self) -> u8 {
        match self {
            StopReason::Error => 0,
            StopReason::StopRequested => 1,
            StopReason::UserRequested => 2,
            StopReason::StepsLimit => 3,
            StopReason::TokenLimit => 4,
            StopReason::TimeLimit => 5,
            StopReason::RetryLimit => 6,
            StopReason::FinishReason => 7,
            StopReason::Completed => 8,
            StopReason::Unknown => 9,
        }
    }

    /// `compare()`: negative when `self` wins over `other`.
    pub fn compare(self, other: StopReason) -> Ordering {
        self.priority().cmp(&other.priority())
    }

    /// Every reason but a natural completion (`completed`, `finish_reason`)
    /// forced the stop; a forced stop leaves the execution `stopped`.
    pub fn was_force_stopped(self) -> bool {
        !matches!(self, StopReason::Completed | StopReason::FinishReason)
    }

    /// The reason for a wire value. v1.22's `guard` and any other string is
    /// `invalid_value` (the producer's `ValueError`).
    pub fn parse(s: &str, path: &str) -> Result<StopReason> {
        StopReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::InvalidValue,
                    path,
                    format!(
                        "expected a v2 stop reason ({}), found {}",
                        StopReason::ALL.map(StopReason::as_str).join(", "),
                        crate::json::quote(s)
                    ),
                )
            })
    }
}

/// Written as its wire value; [`StopReason::NAMES`] is the one list the
/// schema's enum is made from.
impl serde::Serialize for StopReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for StopReason {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StopReasonV2".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // One `const` per reason, as a derived enum writes them (a bare `enum`
        // list was declared again, under a new name, at each use).
        let names: Vec<_> = StopReason::NAMES
            .iter()
            .map(|n| serde_json::json!({ "type": "string", "const": n }))
            .collect();
        schemars::json_schema!({
            "description": "One of v2's ten stop reasons (lower priority wins: `error` 0 … `unknown` 9).",
            "oneOf": names,
        })
    }
}

/// A v2 stop signal: one reason to stop, with who raised it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "StopSignalV2"))]
pub struct StopSignal {
    /// Why to stop.
    pub reason: StopReason,
    /// For a person (`Step limit reached: 3/3`).
    pub message: String,
    /// A PHP array as stored: a map (`[]` when empty) or a list, which the
    /// producer keeps and writes back; anything else reads as `[]`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::continuation::schemas::php_map")
    )]
    pub context: Value,
    /// The class or name that raised it; `null` when empty or not a string.
    pub source: Option<String>,
}

/// A stop signal as [`StopSignal::from_value`] reads it (declared for the
/// schema only: the reader fills [`StopSignal`]).
#[cfg(feature = "schema")]
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StopSignalInput {
    /// Default `completed`; v1.22's `guard` or any other string is an `invalid_value` error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<StopReason>,
    /// Default empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Anything but a map or a list reads as `[]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::model::continuation::schemas::php_map")]
    pub context: Option<Value>,
    /// An empty or non-string source reads as `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl StopSignal {
    /// A signal with an empty context.
    pub fn new(reason: StopReason, message: &str, source: Option<&str>) -> StopSignal {
        StopSignal {
            reason,
            message: message.into(),
            context: Value::Array(Vec::new()),
            source: source.map(String::from),
        }
    }

    /// Reads `{reason, message, context, source}` as `StopSignal::fromArray`:
    /// a missing reason is `completed`, a context that is not an array is `[]`,
    /// an empty or non-string source is null; an unknown reason is an error.
    pub fn from_value(v: &Value, path: &str) -> Result<StopSignal> {
        let m = read::object(v, path, "a stop signal")?;
        let reason = match m.get("reason") {
            None | Some(Value::Null) => StopReason::Completed,
            Some(Value::String(s)) => StopReason::parse(s, &child(path, "reason"))?,
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(path, "reason"),
                    format!(
                        "expected the stop reason as a string, found {}",
                        type_name(other)
                    ),
                ))
            }
        };
        let message = read::opt_scalar_string(m, "message", path)?.unwrap_or_default();
        let context = match m.get("context") {
            Some(c @ Value::Object(_)) => c.clone(),
            Some(Value::Array(a)) => Value::Array(a.clone()),
            _ => Value::Array(Vec::new()),
        };
        let source = match m.get("source") {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        Ok(StopSignal {
            reason,
            message,
            context,
            source,
        })
    }

    /// The wire form as a value (for the state and snapshot writers).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    /// `reason: message`, or the reason alone when there is no message.
    pub fn describe(&self) -> String {
        if self.message.is_empty() {
            self.reason.as_str().to_string()
        } else {
            format!("{}: {}", self.reason.as_str(), self.message)
        }
    }

    /// The higher-priority of two signals; `self` on a tie (the producer
    /// compares with `<= 0`, so the left one, e.g. the step's, is kept).
    pub fn higher<'a>(&'a self, other: &'a StopSignal) -> &'a StopSignal {
        if self.reason.compare(other.reason) != Ordering::Greater {
            self
        } else {
            other
        }
    }
}

/// The signals raised during a step or an execution, in the order raised.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(transparent)]
pub struct StopSignals(pub Vec<StopSignal>);

impl StopSignals {
    /// Reads a list of signals (a JSON array or a PHP list as an object).
    pub fn from_value(v: &Value, path: &str) -> Result<StopSignals> {
        read::entries(v, path, "stop signals")?
            .into_iter()
            .map(|(k, s)| StopSignal::from_value(s, &child(path, &k)))
            .collect::<Result<Vec<_>>>()
            .map(StopSignals)
    }

    /// The wire form as a value (for the state and snapshot writers).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    /// The highest-priority signal; the earliest on ties.
    pub fn highest(&self) -> Option<&StopSignal> {
        self.0
            .iter()
            .fold(None, |best: Option<&StopSignal>, s| match best {
                Some(b) if s.reason.compare(b.reason) != Ordering::Less => Some(b),
                _ => Some(s),
            })
    }

    /// The first signal raised.
    pub fn first(&self) -> Option<&StopSignal> {
        self.0.first()
    }

    /// Whether any signal was raised.
    pub fn has_any(&self) -> bool {
        !self.0.is_empty()
    }

    /// Every signal described, joined with ` | `.
    pub fn describe(&self) -> String {
        self.0
            .iter()
            .map(StopSignal::describe)
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

/// The continuation state of a step or an execution: the signals raised and
/// whether a hook asked to keep going regardless.
///
/// Wire form (snake_case only): `{stop_signals, is_continuation_requested}`.
///
/// ```
/// use stepline::model::continuation::v2::ExecutionContinuation;
/// let c = ExecutionContinuation::default();
/// assert_eq!(c.explain(), "No Stop Signals; Continuation Requested: No");
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ExecutionContinuationV2"))]
#[cfg_attr(
    feature = "schema",
    schemars(
        description = "A v2 execution's continuation as its state stores it: the stop signals raised and whether a hook asked to keep going regardless."
    )
)]
pub struct ExecutionContinuation {
    /// The signals raised, in the order raised.
    pub stop_signals: StopSignals,
    /// A hook asked to keep going whatever the signals say.
    pub is_continuation_requested: bool,
}

impl ExecutionContinuation {
    /// Reads `{stop_signals, is_continuation_requested}`; the flag must be a
    /// real boolean (`1` is the producer's `TypeError`).
    pub fn from_value(v: &Value, path: &str) -> Result<ExecutionContinuation> {
        let m: &Map = read::object(v, path, "a continuation")?;
        let stop_signals = match m.get("stop_signals") {
            None | Some(Value::Null) => StopSignals::default(),
            Some(list) => StopSignals::from_value(list, &child(path, "stop_signals"))?,
        };
        let is_continuation_requested = match m.get("is_continuation_requested") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(path, "is_continuation_requested"),
                    format!(
                        "expected `is_continuation_requested` to be a boolean, found {}",
                        type_name(other)
                    ),
                ))
            }
        };
        Ok(ExecutionContinuation {
            stop_signals,
            is_continuation_requested,
        })
    }

    /// The wire form as a value (for the state and snapshot writers).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    /// A copy with `signal` added after the others.
    pub fn with_new_stop_signal(&self, signal: StopSignal) -> ExecutionContinuation {
        let mut out = self.clone();
        out.stop_signals.0.push(signal);
        out
    }

    /// A copy with the request to continue set or cleared.
    pub fn with_continuation_requested(&self, requested: bool) -> ExecutionContinuation {
        ExecutionContinuation {
            stop_signals: self.stop_signals.clone(),
            is_continuation_requested: requested,
        }
    }

    /// A signal exists and nobody asked to continue.
    pub fn should_stop(&self) -> bool {
        self.stop_signals.has_any() && !self.is_continuation_requested
    }

    /// The highest-priority signal.
    pub fn stop_signal(&self) -> Option<&StopSignal> {
        self.stop_signals.highest()
    }

    /// `Stop Signals: a: x | b: y; Continuation Requested: No`.
    pub fn explain(&self) -> String {
        let signals = if self.stop_signals.has_any() {
            format!("Stop Signals: {}", self.stop_signals.describe())
        } else {
            "No Stop Signals".to_string()
        };
        let requested = if self.is_continuation_requested {
            "Yes"
        } else {
            "No"
        };
        format!("{signals}; Continuation Requested: {requested}")
    }
}
