//! The producer's error policy: how each kind of error is handled (stop, retry
//! up to a limit, ignore), and the error context it is applied to.

use crate::json::Value;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::model::continuation::classes::{PROVIDER_RATE_LIMIT_EXCEPTION, TIMEOUT_EXCEPTION};
use crate::model::continuation::format::ucfirst;
use crate::model::state::AgentState;
use crate::model::step::AgentStep;

/// The kinds of error the producer distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// A tool call failed.
    Tool,
    /// The model (inference) failed.
    Model,
    /// A response failed validation.
    Validation,
    /// The provider refused for rate limiting.
    RateLimit,
    /// A request timed out.
    Timeout,
    /// Anything else.
    Unknown,
}

impl ErrorType {
    /// The wire value (`tool`, `model`, `validation`, `rate_limit`, `timeout`, `unknown`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Tool => "tool",
            ErrorType::Model => "model",
            ErrorType::Validation => "validation",
            ErrorType::RateLimit => "rate_limit",
            ErrorType::Timeout => "timeout",
            ErrorType::Unknown => "unknown",
        }
    }

    /// Reads a wire value; `None` for anything else.
    pub fn parse(s: &str) -> Option<ErrorType> {
        [
            ErrorType::Tool,
            ErrorType::Model,
            ErrorType::Validation,
            ErrorType::RateLimit,
            ErrorType::Timeout,
            ErrorType::Unknown,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }
}

/// What to do about an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", serde(rename_all = "lowercase"))]
pub enum Handling {
    /// Stop the run.
    Stop,
    /// Go on, within the retry budget.
    Retry,
    /// Go on.
    Ignore,
}

impl Handling {
    /// The wire value: `stop`, `retry` or `ignore`.
    pub fn as_str(self) -> &'static str {
        match self {
            Handling::Stop => "stop",
            Handling::Retry => "retry",
            Handling::Ignore => "ignore",
        }
    }

    /// Reads a wire value; anything else is `invalid_value` at `path`.
    pub fn parse(s: &str, path: &str) -> Result<Handling> {
        match s {
            "stop" => Ok(Handling::Stop),
            "retry" => Ok(Handling::Retry),
            "ignore" => Ok(Handling::Ignore),
            other => Err(SteplineError::at(
                ErrorCode::InvalidValue,
                path,
                format!(
                    "expected \"stop\", \"retry\" or \"ignore\", found {}",
                    crate::json::quote(other)
                ),
            )),
        }
    }
}

/// Handling per error type plus the retry budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorPolicy {
    /// On a tool error (`onToolError`).
    pub on_tool_error: Handling,
    /// On a model error (`onModelError`).
    pub on_model_error: Handling,
    /// On a validation error (`onValidationError`).
    pub on_validation_error: Handling,
    /// On a rate-limit error (`onRateLimitError`).
    pub on_rate_limit_error: Handling,
    /// On a timeout (`onTimeoutError`).
    pub on_timeout_error: Handling,
    /// On any other error (`onUnknownError`).
    pub on_unknown_error: Handling,
    /// Consecutive failures tolerated before `retry` becomes a stop (`maxRetries`).
    pub max_retries: i64,
}

impl ErrorPolicy {
    /// Stop on any error (the producer's default).
    pub fn stop_on_any_error() -> ErrorPolicy {
        ErrorPolicy {
            on_tool_error: Handling::Stop,
            on_model_error: Handling::Stop,
            on_validation_error: Handling::Stop,
            on_rate_limit_error: Handling::Stop,
            on_timeout_error: Handling::Stop,
            on_unknown_error: Handling::Stop,
            max_retries: 0,
        }
    }

    /// Retry tool, validation, rate-limit and timeout errors up to `max_retries`; stop on model/unknown errors.
    pub fn retry_tool_errors(max_retries: i64) -> ErrorPolicy {
        ErrorPolicy {
            on_tool_error: Handling::Retry,
            on_validation_error: Handling::Retry,
            on_rate_limit_error: Handling::Retry,
            on_timeout_error: Handling::Retry,
            max_retries,
            ..ErrorPolicy::stop_on_any_error()
        }
    }

    /// Ignore tool, validation and unknown errors; retry rate limits and timeouts; stop on model errors.
    pub fn ignore_tool_errors() -> ErrorPolicy {
        ErrorPolicy {
            on_tool_error: Handling::Ignore,
            on_model_error: Handling::Stop,
            on_validation_error: Handling::Ignore,
            on_rate_limit_error: Handling::Retry,
            on_timeout_error: Handling::Retry,
            on_unknown_error: Handling::Ignore,
            max_retries: 0,
        }
    }

    /// Retry every kind of error up to `max_retries`.
    pub fn retry_all(max_retries: i64) -> ErrorPolicy {
        ErrorPolicy {
            on_tool_error: Handling::Retry,
            on_model_error: Handling::Retry,
            on_validation_error: Handling::Retry,
            on_rate_limit_error: Handling::Retry,
            on_timeout_error: Handling::Retry,
            on_unknown_error: Handling::Retry,
            max_retries,
        }
    }

    /// The handling configured for an error type.
    pub fn handling_for(&self, t: ErrorType) -> Handling {
        match t {
            ErrorType::Tool => self.on_tool_error,
            ErrorType::Model => self.on_model_error,
            ErrorType::Validation => self.on_validation_error,
            ErrorType::RateLimit => self.on_rate_limit_error,
            ErrorType::Timeout => self.on_timeout_error,
            ErrorType::Unknown => self.on_unknown_error,
        }
    }

    /// The `{onToolError, …, maxRetries}` form.
    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("onToolError", Value::from(self.on_tool_error.as_str())),
            ("onModelError", Value::from(self.on_model_error.as_str())),
            (
                "onValidationError",
                Value::from(self.on_validation_error.as_str()),
            ),
            (
                "onRateLimitError",
                Value::from(self.on_rate_limit_error.as_str()),
            ),
            (
                "onTimeoutError",
                Value::from(self.on_timeout_error.as_str()),
            ),
            (
                "onUnknownError",
                Value::from(self.on_unknown_error.as_str()),
            ),
            ("maxRetries", Value::from(self.max_retries)),
        ])
    }
}

/// What went wrong in the current step, as the producer's resolver sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorContext {
    /// The kind of the step's error.
    pub error_type: ErrorType,
    /// Failed steps in a row, ending with the current one.
    pub consecutive_failures: i64,
    /// Failed steps in the whole run.
    pub total_failures: i64,
    /// The error's message, when there is one.
    pub message: Option<String>,
    /// The failing tool, for tool errors.
    pub tool_name: Option<String>,
}

impl ErrorContext {
    /// No error: the context of a step that did not fail.
    pub fn none() -> ErrorContext {
        ErrorContext {
            error_type: ErrorType::Unknown,
            consecutive_failures: 0,
            total_failures: 0,
            message: None,
            tool_name: None,
        }
    }

    /// The producer's `AgentErrorContextResolver`: the current step's first error
    /// (a failed tool execution first), classified by exception class; failures
    /// counted over the recorded steps (consecutive from the end, and in total).
    pub fn from_state(state: &AgentState) -> ErrorContext {
        ErrorContext::from_steps(&state.steps, state.current_step.as_ref())
    }

    /// As [`ErrorContext::from_state`], for a run given as its recorded steps and current step.
    pub fn from_steps(steps: &[AgentStep], current: Option<&AgentStep>) -> ErrorContext {
        let Some(current) = current.filter(|s| s.has_errors()) else {
            return ErrorContext::none();
        };
        let failed_execution = current.tool_executions.0.iter().find(|e| e.has_error());
        let (class, message) = match failed_execution {
            Some(e) => (
                crate::model::step::TOOL_EXECUTION_EXCEPTION,
                e.error.clone(),
            ),
            None => match current.errors.first() {
                Some(err) => (err.class.as_str(), Some(err.message.clone())),
                None => ("", None),
            },
        };
        let error_type = if is_class(class, PROVIDER_RATE_LIMIT_EXCEPTION) {
            ErrorType::RateLimit
        } else if is_class(class, TIMEOUT_EXCEPTION) {
            ErrorType::Timeout
        } else if current.tool_executions.has_errors() {
            ErrorType::Tool
        } else if current.has_errors() {
            ErrorType::Model
        } else {
            ErrorType::Unknown
        };
        let consecutive = steps.iter().rev().take_while(|s| s.has_errors()).count();
        let total = steps.iter().filter(|s| s.has_errors()).count();
        ErrorContext {
            error_type,
            consecutive_failures: consecutive as i64,
            total_failures: total as i64,
            message,
            tool_name: failed_execution.map(|e| e.tool_call.name.clone()),
        }
    }
}

fn is_class(class: &str, expected: &str) -> bool {
    class.trim_start_matches('\\') == expected
}

/// The decision an error policy takes on an error context, with its explanation.
pub struct PolicyVerdict {
    /// The handling the policy chose.
    pub handling: Handling,
    /// Whether the run may continue.
    pub continue_allowed: bool,
    /// The producer's explanation, word for word.
    pub reason: String,
}

/// The producer's `ErrorPolicy::evaluate`.
pub fn apply(policy: &ErrorPolicy, ctx: &ErrorContext) -> PolicyVerdict {
    if ctx.consecutive_failures == 0 {
        return PolicyVerdict {
            handling: Handling::Ignore,
            continue_allowed: true,
            reason: "No errors present".into(),
        };
    }
    let kind = ucfirst(ctx.error_type.as_str());
    let stop = || PolicyVerdict {
        handling: Handling::Stop,
        continue_allowed: false,
        reason: format!(
            "{kind} error after {} consecutive failures (max: {})",
            ctx.consecutive_failures, policy.max_retries
        ),
    };
    match policy.handling_for(ctx.error_type) {
        Handling::Stop => stop(),
        Handling::Retry if ctx.consecutive_failures >= policy.max_retries => stop(),
        Handling::Retry => PolicyVerdict {
            handling: Handling::Retry,
            continue_allowed: true,
            reason: format!(
                "{kind} error, retrying ({}/{})",
                ctx.consecutive_failures, policy.max_retries
            ),
        },
        Handling::Ignore => PolicyVerdict {
            handling: Handling::Ignore,
            continue_allowed: true,
            reason: format!("{kind} error ignored by policy"),
        },
    }
}
