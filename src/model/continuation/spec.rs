//! Criteria as data: JSON specs and the producer's default agent list.
//!
//! A spec list is an array such as
//! `[{"kind": "steps_limit", "max": 20}, {"kind": "tool_call_presence_check"}]`,
//! or `{"defaults": {"maxSteps": 10}}` for the producer's default list with
//! some options changed. Kinds and their fields:
//!
//! | kind | fields |
//! |---|---|
//! | `steps_limit` | `max` (steps; any integer: 0 or less stops every time, as in the producer) |
//! | `token_usage_limit` | `max` (tokens; any integer, as `steps_limit`) |
//! | `execution_time_limit` | `max` (seconds, ≥ 1) |
//! | `cumulative_execution_time_limit` | `max` (seconds, ≥ 1) |
//! | `error_presence_check` | — |
//! | `finish_reason_check` | `stopReasons` (array of finish reasons) |
//! | `retry_limit` | `max` (consecutive failures; any integer: 0 or less stops once there is a step) |
//! | `response_content_check` | `continueWhen`: `{contains}`, `{notContains}`, `{equals}`, `{isBlank: bool}`, `{always: bool}` (or, from JavaScript, a function) |
//! | `error_policy` | `policy` (see [`parse_error_policy`]) |
//! | `tool_call_presence_check` | — |
//! | `fixed` | `decision` (`forbid`, `allow`, `request`, `stop`): the producer's `CallableCriterion` |
//! | `all` | `criteria` (nested list, one aggregate evaluation) |
//!
//! Every spec may also carry `criterion` (the class name its evaluation reports).

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, index, type_name};
use crate::model::continuation::criteria::{
    check_max_seconds, Criterion, ResponseCallback, ResponsePredicate,
};
use crate::model::continuation::decision::Decision;
use crate::model::continuation::error_policy::{ErrorPolicy, Handling};
use crate::model::read;

/// The producer's `AgentBuilder` options and their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Defaults {
    /// `maxSteps` (the StepsLimit).
    pub max_steps: i64,
    /// `maxTokens` (the TokenUsageLimit).
    pub max_tokens: i64,
    /// `maxExecutionTime` in seconds (the ExecutionTimeLimit).
    pub max_execution_time: i64,
    /// When set, the cumulative limit replaces the execution-time limit (seed 004).
    pub cumulative_timeout: Option<i64>,
    /// The error policy of the ErrorPolicyCriterion.
    pub error_policy: ErrorPolicy,
    /// Finish reasons that stop the run (the FinishReasonCheck).
    pub finish_reasons: Vec<Value>,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            max_steps: 20,
            max_tokens: 32768,
            max_execution_time: 300,
            cumulative_timeout: None,
            error_policy: ErrorPolicy::stop_on_any_error(),
            finish_reasons: Vec::new(),
        }
    }
}

/// The default agent list, in the producer's order: StepsLimit, TokenUsageLimit,
/// ExecutionTimeLimit (or CumulativeExecutionTimeLimit), ErrorPolicyCriterion,
/// FinishReasonCheck, ToolCallPresenceCheck.
pub fn default_criteria(d: &Defaults) -> Vec<Criterion> {
    let time_limit = match d.cumulative_timeout {
        Some(max_seconds) => Criterion::CumulativeExecutionTimeLimit { max_seconds },
        None => Criterion::ExecutionTimeLimit {
            max_seconds: d.max_execution_time,
        },
    };
    vec![
        Criterion::StepsLimit { max: d.max_steps },
        Criterion::TokenUsageLimit { max: d.max_tokens },
        time_limit,
        Criterion::ErrorPolicy {
            policy: d.error_policy,
        },
        Criterion::FinishReasonCheck {
            stop_reasons: d.finish_reasons.clone(),
        },
        Criterion::ToolCallPresenceCheck,
    ]
}

/// Reads `[spec, …]` or `{"defaults": {…}}`.
pub fn parse_criteria(v: &Value, path: &str) -> Result<Vec<Criterion>> {
    parse_criteria_with(v, path, &[])
}

/// As [`parse_criteria`], with host callbacks that `continueWhen: {"callback": n}` refers to.
pub fn parse_criteria_with(
    v: &Value,
    path: &str,
    callbacks: &[ResponseCallback],
) -> Result<Vec<Criterion>> {
    match v {
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, s)| parse_spec(s, &index(path, i), callbacks))
            .collect(),
        Value::Object(m) => {
            read::only_keys(m, &["defaults"], path)?;
            let defaults = match m.get("defaults") {
                Some(d) => parse_defaults(d, &child(path, "defaults"))?,
                None => Defaults::default(),
            };
            Ok(default_criteria(&defaults))
        }
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected criteria as an array of specs or {{\"defaults\": {{…}}}}, found {}",
                type_name(other)
            ),
        )),
    }
}

/// Reads the default-list options: `maxSteps`, `maxTokens`, `maxExecutionTime`
/// (seconds), `cumulativeTimeout` (seconds, replaces the execution-time limit),
/// `errorPolicy`, `finishReasons`.
pub fn parse_defaults(v: &Value, path: &str) -> Result<Defaults> {
    let m = read::object(v, path, "defaults")?;
    read::only_keys(
        m,
        &[
            "maxSteps",
            "maxTokens",
            "maxExecutionTime",
            "cumulativeTimeout",
            "errorPolicy",
            "finishReasons",
        ],
        path,
    )?;
    let mut d = Defaults::default();
    // The producer's `withMaxSteps(int)` and `withMaxTokens(int)` take any
    // integer; 0 or less makes the limit stop every evaluation. Only the
    // time limits refuse it (their constructors throw).
    if let Some(n) = read::opt_i64(m, "maxSteps", path)? {
        d.max_steps = n;
    }
    if let Some(n) = read::opt_i64(m, "maxTokens", path)? {
        d.max_tokens = n;
    }
    if let Some(n) = positive(m, "maxExecutionTime", path)? {
        d.max_execution_time = n;
    }
    d.cumulative_timeout = positive(m, "cumulativeTimeout", path)?;
    if let Some(p) = m.get("errorPolicy").filter(|v| !v.is_null()) {
        d.error_policy = parse_error_policy(p, &child(path, "errorPolicy"))?;
    }
    if let Some(list) = m.get("finishReasons").filter(|v| !v.is_null()) {
        d.finish_reasons = finish_reasons(list, &child(path, "finishReasons"))?;
    }
    Ok(d)
}

/// An error policy: a preset name (`stopOnAnyError`, `ignoreToolErrors`,
/// `retryToolErrors`, `retryAll`, optionally with the retry budget as
/// `retryToolErrors(3)`), or an object `{preset?, maxRetries?, onToolError?,
/// onModelError?, onValidationError?, onRateLimitError?, onTimeoutError?,
/// onUnknownError?}` whose fields override the preset (default `stopOnAnyError`).
pub fn parse_error_policy(v: &Value, path: &str) -> Result<ErrorPolicy> {
    match v {
        Value::String(s) => preset(s, None, path),
        Value::Object(m) => {
            read::only_keys(
                m,
                &[
                    "preset",
                    "maxRetries",
                    "onToolError",
                    "onModelError",
                    "onValidationError",
                    "onRateLimitError",
                    "onTimeoutError",
                    "onUnknownError",
                ],
                path,
            )?;
            let retries = non_negative(m, "maxRetries", path)?;
            let mut policy = match read::opt_str(m, "preset", path)? {
                Some(name) => preset(name, retries, &child(path, "preset"))?,
                None => ErrorPolicy::stop_on_any_error(),
            };
            if let Some(r) = retries {
                policy.max_retries = r;
            }
            let slots: [(&str, &mut Handling); 6] = [
                ("onToolError", &mut policy.on_tool_error),
                ("onModelError", &mut policy.on_model_error),
                ("onValidationError", &mut policy.on_validation_error),
                ("onRateLimitError", &mut policy.on_rate_limit_error),
                ("onTimeoutError", &mut policy.on_timeout_error),
                ("onUnknownError", &mut policy.on_unknown_error),
            ];
            for (key, slot) in slots {
                if let Some(h) = read::opt_str(m, key, path)? {
                    *slot = Handling::parse(h, &child(path, key))?;
                }
            }
            Ok(policy)
        }
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected an error policy name or object, found {}",
                type_name(other)
            ),
        )),
    }
}

fn preset(name: &str, retries: Option<i64>, path: &str) -> Result<ErrorPolicy> {
    let (base, arg) = match name.split_once('(') {
        Some((b, rest)) => {
            let n = rest
                .strip_suffix(')')
                .and_then(|n| n.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0);
            match n {
                Some(n) => (b, Some(n)),
                None => return Err(bad_policy(name, path)),
            }
        }
        None => (name, None),
    };
    let budget = retries.or(arg).unwrap_or(3);
    match base {
        "stopOnAnyError" if arg.is_none() => Ok(ErrorPolicy::stop_on_any_error()),
        "ignoreToolErrors" if arg.is_none() => Ok(ErrorPolicy::ignore_tool_errors()),
        "retryToolErrors" => Ok(ErrorPolicy::retry_tool_errors(budget)),
        "retryAll" => Ok(ErrorPolicy::retry_all(budget)),
        _ => Err(bad_policy(name, path)),
    }
}

fn bad_policy(name: &str, path: &str) -> SteplineError {
    SteplineError::at(
        ErrorCode::InvalidValue,
        path,
        format!("expected stopOnAnyError, ignoreToolErrors, retryToolErrors(n) or retryAll(n), found {}", crate::json::quote(name)),
    )
}

/// Reads one criterion spec.
pub fn parse_spec(v: &Value, path: &str, callbacks: &[ResponseCallback]) -> Result<Criterion> {
    let m = read::object(v, path, "a criterion spec")?;
    let kind = read::opt_str(m, "kind", path)?
        .ok_or_else(|| missing(path, "kind", "expected the criterion's `kind`"))?;
    read::only_keys(m, allowed_keys(kind, path)?, path)?;
    let criterion = criterion_of(kind, m, path, callbacks)?;
    Ok(match read::opt_str(m, "criterion", path)? {
        Some(class) => Criterion::Renamed {
            class: class.to_string(),
            inner: Box::new(criterion),
        },
        None => criterion,
    })
}

/// The keys a spec of `kind` may have; an unknown kind is `invalid_value`.
fn allowed_keys(kind: &str, path: &str) -> Result<&'static [&'static str]> {
    Ok(match kind {
        "steps_limit"
        | "token_usage_limit"
        | "execution_time_limit"
        | "cumulative_execution_time_limit"
        | "retry_limit" => &["kind", "criterion", "max"],
        "error_presence_check" | "tool_call_presence_check" => &["kind", "criterion"],
        "finish_reason_check" => &["kind", "criterion", "stopReasons"],
        "response_content_check" => &["kind", "criterion", "continueWhen"],
        "error_policy" => &["kind", "criterion", "policy"],
        "fixed" => &["kind", "criterion", "decision"],
        "all" => &["kind", "criterion", "criteria"],
        other => {
            return Err(SteplineError::at(
                ErrorCode::InvalidValue,
                &child(path, "kind"),
                format!("unknown criterion kind {}", crate::json::quote(other)),
            ))
        }
    })
}

/// A required member that is absent: `missing_field` at its path.
fn missing(path: &str, key: &str, message: &str) -> SteplineError {
    SteplineError::at(ErrorCode::MissingField, &child(path, key), message)
}

/// The criterion a spec of a known `kind` describes (its keys already checked).
fn criterion_of(
    kind: &str,
    m: &Map,
    path: &str,
    callbacks: &[ResponseCallback],
) -> Result<Criterion> {
    // Any integer, as the producer's constructors take it: the time limits
    // then refuse 0 or less as theirs do (`check_max_seconds`).
    let max = || -> Result<i64> {
        read::opt_i64(m, "max", path)?.ok_or_else(|| missing(path, "max", "expected `max`"))
    };
    let seconds = || check_max_seconds(max()?, &child(path, "max"));
    Ok(match kind {
        "steps_limit" => Criterion::StepsLimit { max: max()? },
        "token_usage_limit" => Criterion::TokenUsageLimit { max: max()? },
        "execution_time_limit" => Criterion::ExecutionTimeLimit {
            max_seconds: seconds()?,
        },
        "cumulative_execution_time_limit" => Criterion::CumulativeExecutionTimeLimit {
            max_seconds: seconds()?,
        },
        "retry_limit" => Criterion::RetryLimit { max: max()? },
        "error_presence_check" => Criterion::ErrorPresenceCheck,
        "tool_call_presence_check" => Criterion::ToolCallPresenceCheck,
        "finish_reason_check" => Criterion::FinishReasonCheck {
            stop_reasons: match m.get("stopReasons") {
                Some(list) => finish_reasons(list, &child(path, "stopReasons"))?,
                None => Vec::new(),
            },
        },
        "response_content_check" => Criterion::ResponseContentCheck {
            predicate: predicate(
                m.get("continueWhen"),
                &child(path, "continueWhen"),
                callbacks,
            )?,
        },
        "error_policy" => Criterion::ErrorPolicy {
            policy: match m.get("policy") {
                Some(p) => parse_error_policy(p, &child(path, "policy"))?,
                None => ErrorPolicy::stop_on_any_error(),
            },
        },
        "fixed" => {
            let d = read::opt_str(m, "decision", path)?
                .ok_or_else(|| missing(path, "decision", "expected `decision`"))?;
            Criterion::Fixed {
                decision: Decision::parse(d, &child(path, "decision"))?,
            }
        }
        _ => {
            let list = m
                .get("criteria")
                .ok_or_else(|| missing(path, "criteria", "expected nested `criteria`"))?;
            Criterion::All(parse_criteria_with(
                list,
                &child(path, "criteria"),
                callbacks,
            )?)
        }
    })
}

fn predicate(
    v: Option<&Value>,
    path: &str,
    callbacks: &[ResponseCallback],
) -> Result<ResponsePredicate> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Err(SteplineError::at(
            ErrorCode::MissingField,
            path,
            "expected `continueWhen`",
        ));
    };
    let m = read::object(v, path, "a response predicate")?;
    if m.len() != 1 {
        return Err(SteplineError::at(
            ErrorCode::InvalidValue,
            path,
            "expected exactly one of contains, notContains, equals, isBlank, always",
        ));
    }
    let text = |k: &str| -> Result<String> {
        read::opt_str(m, k, path)?.map(String::from).ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidType,
                &child(path, k),
                format!("expected `{k}` to be a string"),
            )
        })
    };
    let flag = |k: &str| -> Result<bool> {
        m.get(k).and_then(Value::as_bool).ok_or_else(|| {
            SteplineError::at(
                ErrorCode::InvalidType,
                &child(path, k),
                format!("expected `{k}` to be a boolean"),
            )
        })
    };
    match m.keys().next().map(|k| &**k) {
        Some("contains") => Ok(ResponsePredicate::Contains(text("contains")?)),
        Some("notContains") => Ok(ResponsePredicate::NotContains(text("notContains")?)),
        Some("equals") => Ok(ResponsePredicate::Equals(text("equals")?)),
        Some("isBlank") => Ok(ResponsePredicate::IsBlank(flag("isBlank")?)),
        Some("callback") => {
            let n = m
                .get("callback")
                .and_then(Value::as_u64)
                .and_then(|n| callbacks.get(n as usize));
            n.cloned().map(ResponsePredicate::Callback).ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "callback"),
                    "expected a callback supplied by the host",
                )
            })
        }
        Some("always") => Ok(ResponsePredicate::Constant(flag("always")?)),
        Some(other) => Err(SteplineError::at(
            ErrorCode::InvalidValue,
            &child(path, other),
            format!(
                "unknown predicate {}, expected contains, notContains, equals, isBlank or always",
                crate::json::quote(other)
            ),
        )),
        None => Err(SteplineError::at(
            ErrorCode::MissingField,
            path,
            "expected a predicate",
        )),
    }
}

fn finish_reasons(v: &Value, path: &str) -> Result<Vec<Value>> {
    match v {
        Value::Array(list) => {
            for (i, item) in list.iter().enumerate() {
                if !matches!(item, Value::String(_) | Value::Number(_) | Value::Null) {
                    return Err(SteplineError::at(
                        ErrorCode::InvalidType,
                        &index(path, i),
                        format!("expected a finish reason string, found {}", type_name(item)),
                    ));
                }
            }
            Ok(list.clone())
        }
        other => Err(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected an array of finish reasons, found {}",
                type_name(other)
            ),
        )),
    }
}

fn positive(m: &Map, key: &str, path: &str) -> Result<Option<i64>> {
    let n = read::opt_i64(m, key, path)?;
    if let Some(n) = n.filter(|n| *n <= 0) {
        return Err(SteplineError::at(
            ErrorCode::InvalidValue,
            &child(path, key),
            format!("expected `{key}` greater than zero, found {n}"),
        ));
    }
    Ok(n)
}

fn non_negative(m: &Map, key: &str, path: &str) -> Result<Option<i64>> {
    let n = read::opt_i64(m, key, path)?;
    if let Some(n) = n.filter(|n| *n < 0) {
        return Err(SteplineError::at(
            ErrorCode::InvalidValue,
            &child(path, key),
            format!("expected `{key}` of zero or more, found {n}"),
        ));
    }
    Ok(n)
}
