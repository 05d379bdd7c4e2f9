//! v2's guards as data: the `UseGuards` hooks (`StepsLimitHook`,
//! `TokenUsageLimitHook`, `ExecutionTimeLimitHook`) that run before each step,
//! and `FinishReasonHook`, which runs after one. A guard that trips adds a
//! [`StopSignal`] to the execution; none is installed unless `UseGuards` is
//! (`AgentBuilder::base()` has none). Comparisons are `>=` (item 31).
//!
//! A spec list is an array such as
//! `[{"kind": "steps_limit", "max": 20}, {"kind": "finish_reason", "stopReasons": ["length"]}]`:
//!
//! | kind | fields | `UseGuards()` default |
//! |---|---|---|
//! | `steps_limit` | `max` (steps) | 20 |
//! | `token_usage_limit` | `max` (tokens: input + output + cache write + cache read + reasoning) | 32768 |
//! | `execution_time_limit` | `max` (seconds, fractions allowed) | 300 |
//! | `finish_reason` | `stopReasons` (finish reasons) | — |

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Map, Value};
use crate::model::continuation::v2::{StopReason, StopSignal};
use crate::model::read;
use crate::model::time::Timestamp;
use crate::model::v2::execution::seconds_between;
use crate::model::v2::AgentState;
use crate::model::FinishReason;

/// The producer's hook classes, named as a signal's `source`.
const STEPS: &str = "Cognesy\\Agents\\Hook\\Hooks\\StepsLimitHook";
const TOKENS: &str = "Cognesy\\Agents\\Hook\\Hooks\\TokenUsageLimitHook";
const TIME: &str = "Cognesy\\Agents\\Hook\\Hooks\\ExecutionTimeLimitHook";
const FINISH: &str = "Cognesy\\Agents\\Hook\\Hooks\\FinishReasonHook";

/// When a guard runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", serde(rename_all = "snake_case"))]
pub enum Trigger {
    /// Before a step (steps, tokens, time).
    BeforeStep,
    /// After a step (finish reason).
    AfterStep,
}

/// A v2 guard (instructor-php `UseGuards` hooks and `FinishReasonHook`), as
/// [`Guard::from_value`] reads it (`GuardSpec` in TypeScript).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "GuardSpec"))]
#[cfg_attr(
    feature = "schema",
    schemars(
        description = "A v2 guard (instructor-php `UseGuards` hooks and `FinishReasonHook`)."
    )
)]
#[cfg_attr(feature = "schema", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Guard {
    /// Stops before a step once this many steps are recorded.
    StepsLimit {
        /// Steps.
        max: i64,
    },
    /// Stops before a step once the execution used this many tokens.
    TokenUsageLimit {
        /// Total tokens.
        max: i64,
    },
    /// Stops before a step once the execution ran this long.
    ExecutionTimeLimit {
        /// Seconds.
        #[cfg_attr(feature = "schema", serde(rename = "max"))]
        max_seconds: f64,
    },
    /// Stops after a step whose finish reason is one of these.
    FinishReason {
        /// The finish reasons that stop.
        #[cfg_attr(feature = "schema", serde(rename = "stopReasons"))]
        #[cfg_attr(feature = "schema", schemars(schema_with = "finish_reasons_schema"))]
        stop_reasons: Vec<FinishReason>,
    },
}

#[cfg(feature = "schema")]
fn finish_reasons_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let item = crate::model::continuation::schemas::finish_reason(g);
    schemars::json_schema!({ "type": "array", "items": item })
}

/// Options of `evaluateGuards` / `replayGuards` (`trigger` is `evaluateGuards` only).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", serde(rename_all = "camelCase"))]
pub struct GuardOptions {
    /// When the guards check (default: now): an ISO string or epoch milliseconds.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::continuation::schemas::instant")
    )]
    #[cfg_attr(feature = "schema", serde(skip_serializing_if = "Option::is_none"))]
    pub now: Option<crate::model::time::NowSpec>,
    /// Where the time guard measures from (default: the execution's start).
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::continuation::schemas::instant")
    )]
    #[cfg_attr(feature = "schema", serde(skip_serializing_if = "Option::is_none"))]
    pub execution_started_at: Option<crate::model::time::NowSpec>,
    /// Run only the guards of this trigger (default: every guard).
    #[cfg_attr(feature = "schema", serde(skip_serializing_if = "Option::is_none"))]
    pub trigger: Option<Trigger>,
}

/// The times a time guard compares: when the execution started as the hook
/// saw it (its `beforeExecution`) and now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// When the execution started, as the hook saw it.
    pub execution_started_at: Timestamp,
    /// The instant the guard checks at.
    pub now: Timestamp,
}

impl Guard {
    /// `UseGuards()` with its defaults: 20 steps, 32768 tokens, 300 s.
    pub fn use_guards_defaults() -> Vec<Guard> {
        vec![
            Guard::StepsLimit { max: 20 },
            Guard::TokenUsageLimit { max: 32768 },
            Guard::ExecutionTimeLimit { max_seconds: 300.0 },
        ]
    }

    /// When this guard runs: the finish-reason guard after a step, the limits before one.
    pub fn trigger(&self) -> Trigger {
        match self {
            Guard::FinishReason { .. } => Trigger::AfterStep,
            _ => Trigger::BeforeStep,
        }
    }

    /// The signal this guard adds for `state`, if it trips.
    ///
    /// ```
    /// use stepline::model::continuation::v2::guard::{Clock, Guard};
    /// use stepline::model::v2::AgentState;
    /// let now = chrono::DateTime::parse_from_rfc3339("2026-08-10T12:00:00Z").unwrap();
    /// let state = AgentState::from_value(&stepline::json::from_str("{\"execution\": {}}").unwrap(), &now).unwrap();
    /// let clock = Clock { execution_started_at: now, now };
    /// let signal = Guard::StepsLimit { max: 0 }.check(&state, &clock).unwrap();
    /// assert_eq!(signal.message, "Step limit reached: 0/0");
    /// ```
    pub fn check(&self, state: &AgentState, clock: &Clock) -> Option<StopSignal> {
        let signal = |reason, message: String, context: Value, source: &str| StopSignal {
            reason,
            message,
            context,
            source: Some(source.to_string()),
        };
        match self {
            Guard::StepsLimit { max } => {
                let steps = state.step_count() as i64;
                (steps >= *max).then(|| {
                    signal(
                        StopReason::StepsLimit,
                        format!("Step limit reached: {steps}/{max}"),
                        crate::json::obj([
                            ("currentSteps", Value::from(steps)),
                            ("maxSteps", Value::from(*max)),
                        ]),
                        STEPS,
                    )
                })
            }
            Guard::TokenUsageLimit { max } => {
                let total = state.usage().total();
                (total >= *max).then(|| {
                    signal(
                        StopReason::TokenLimit,
                        format!("Token limit reached: {total}/{max}"),
                        crate::json::obj([
                            ("totalTokens", Value::from(total)),
                            ("maxTotalTokens", Value::from(*max)),
                        ]),
                        TOKENS,
                    )
                })
            }
            Guard::ExecutionTimeLimit { max_seconds } => {
                let elapsed = seconds_between(&clock.execution_started_at, &clock.now);
                (elapsed >= *max_seconds).then(|| {
                    signal(
                        StopReason::TimeLimit,
                        format!(
                            "Execution time limit reached: {}s/{}s",
                            crate::model::continuation::format::two_decimals(elapsed),
                            crate::model::continuation::format::two_decimals(*max_seconds)
                        ),
                        crate::json::obj([
                            ("elapsedSeconds", Value::from(elapsed)),
                            ("maxSeconds", Value::from(*max_seconds)),
                        ]),
                        TIME,
                    )
                })
            }
            Guard::FinishReason { stop_reasons } => {
                let step = state.execution.as_ref()?.current_step.as_ref()?;
                let reason = step.inference_response.finish_reason();
                stop_reasons.contains(&reason).then(|| {
                    signal(
                        StopReason::FinishReason,
                        format!(
                            "Finish reason \"{}\" matched stop condition",
                            reason.as_str()
                        ),
                        crate::json::obj([
                            ("finishReason", Value::from(reason.as_str())),
                            (
                                "stopReasons",
                                Value::Array(
                                    stop_reasons
                                        .iter()
                                        .map(|r| Value::from(r.as_str()))
                                        .collect(),
                                ),
                            ),
                        ]),
                        FINISH,
                    )
                })
            }
        }
    }

    /// Reads one spec (`{"kind": …}`, see the module docs).
    pub fn from_value(v: &Value, path: &str) -> Result<Guard> {
        let m: &Map = read::object(v, path, "a guard")?;
        let kind = read::opt_str(m, "kind", path)?.ok_or_else(|| {
            SteplineError::at(
                ErrorCode::MissingField,
                &child(path, "kind"),
                "expected the guard's kind (steps_limit, token_usage_limit, execution_time_limit, finish_reason)",
            )
        })?;
        let require_max = || -> Result<&Value> {
            m.get("max").filter(|v| !v.is_null()).ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::MissingField,
                    &child(path, "max"),
                    format!("expected `max` for the {kind} guard"),
                )
            })
        };
        match kind {
            "steps_limit" | "token_usage_limit" => {
                read::only_keys(m, &["kind", "max"], path)?;
                require_max()?;
                let max = read::opt_i64(m, "max", path)?.unwrap_or_default();
                Ok(if kind == "steps_limit" {
                    Guard::StepsLimit { max }
                } else {
                    Guard::TokenUsageLimit { max }
                })
            }
            "execution_time_limit" => {
                read::only_keys(m, &["kind", "max"], path)?;
                match require_max()? {
                    Value::Number(n) => Ok(Guard::ExecutionTimeLimit {
                        max_seconds: n.as_f64().unwrap_or(0.0),
                    }),
                    other => Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        &child(path, "max"),
                        format!("expected `max` in seconds, found {}", type_name(other)),
                    )),
                }
            }
            "finish_reason" => {
                read::only_keys(m, &["kind", "stopReasons"], path)?;
                let at = child(path, "stopReasons");
                let list = match m.get("stopReasons") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(l) => read::entries(l, &at, "stopReasons")?,
                };
                let stop_reasons = list
                    .into_iter()
                    .map(|(k, r)| {
                        r.as_str()
                            .and_then(FinishReason::from_wire)
                            .ok_or_else(|| {
                                SteplineError::at(
                                    ErrorCode::InvalidValue,
                                    &child(&at, &k),
                                    "expected a finish reason (stop, length, tool_calls, content_filter, error, other)",
                                )
                            })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(Guard::FinishReason { stop_reasons })
            }
            other => Err(SteplineError::at(
                ErrorCode::InvalidValue,
                &child(path, "kind"),
                format!(
                    "expected a guard kind (steps_limit, token_usage_limit, execution_time_limit, finish_reason), found {}",
                    crate::json::quote(other)
                ),
            )),
        }
    }

    /// A list of specs.
    pub fn list_from_value(v: &Value, path: &str) -> Result<Vec<Guard>> {
        read::entries(v, path, "guards")?
            .into_iter()
            .map(|(k, g)| Guard::from_value(g, &child(path, &k)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        chrono::DateTime::parse_from_rfc3339(s).unwrap()
    }

    fn state() -> AgentState {
        let v = crate::json::from_str(r#"{"execution": {"status": "in_progress"}}"#).unwrap();
        AgentState::from_value(&v, &at("2026-08-10T12:00:00Z")).unwrap()
    }

    #[test]
    fn guard_specs_read_from_data_and_refuse_unknown_kinds_with_a_path() {
        let specs = crate::json::from_str(
            r#"[{"kind": "steps_limit", "max": 20}, {"kind": "token_usage_limit", "max": 32768},
                {"kind": "execution_time_limit", "max": 300}, {"kind": "finish_reason", "stopReasons": ["length"]}]"#,
        )
        .unwrap();
        let guards = Guard::list_from_value(&specs, "/guards").unwrap();
        assert_eq!(&guards[..3], &Guard::use_guards_defaults()[..]);
        assert_eq!(
            guards[3],
            Guard::FinishReason {
                stop_reasons: vec![FinishReason::Length]
            }
        );
        assert_eq!(guards[3].trigger(), Trigger::AfterStep);
        for (spec, code, path) in [
            (
                r#"[{"kind": "guard"}]"#,
                ErrorCode::InvalidValue,
                "/guards/0/kind",
            ),
            (r#"[{"max": 3}]"#, ErrorCode::MissingField, "/guards/0/kind"),
            (
                r#"[{"kind": "steps_limit"}]"#,
                ErrorCode::MissingField,
                "/guards/0/max",
            ),
            (
                r#"[{"kind": "steps_limit", "max": 1.5}]"#,
                ErrorCode::InvalidType,
                "/guards/0/max",
            ),
            (
                r#"[{"kind": "steps_limit", "max": 3, "min": 1}]"#,
                ErrorCode::InvalidValue,
                "/guards/0/min",
            ),
            (
                r#"[{"kind": "finish_reason", "stopReasons": ["end_turn"]}]"#,
                ErrorCode::InvalidValue,
                "/guards/0/stopReasons/0",
            ),
        ] {
            let err = Guard::list_from_value(&crate::json::from_str(spec).unwrap(), "/guards")
                .unwrap_err();
            assert_eq!(
                (err.code, err.path.as_deref()),
                (code, Some(path)),
                "{spec}"
            );
        }
    }

    #[test]
    fn the_time_guard_trips_at_its_limit_in_fractional_seconds() {
        let guard = Guard::ExecutionTimeLimit { max_seconds: 300.0 };
        let clock = |now: &str| Clock {
            execution_started_at: at("2026-08-10T12:00:00Z"),
            now: at(now),
        };
        assert_eq!(
            guard.check(&state(), &clock("2026-08-10T12:04:59.500Z")),
            None
        );
        let signal = guard
            .check(&state(), &clock("2026-08-10T12:05:00Z"))
            .unwrap();
        assert_eq!(signal.reason, StopReason::TimeLimit);
        assert_eq!(
            signal.message,
            "Execution time limit reached: 300.00s/300.00s"
        );
        assert_eq!(signal.source.as_deref(), Some(TIME));
    }
}
