//! Every continuation criterion, evaluated exactly as the producer does:
//! same decisions, reason strings, context keys and number formatting.

use std::fmt;
use std::rc::Rc;

use crate::json::Value;

use crate::error::{ErrorCode, Result, SteplineError};
use crate::model::continuation::classes as class;
use crate::model::continuation::decision::Decision::{self, *};
use crate::model::continuation::error_policy::{apply, ErrorPolicy};
use crate::model::continuation::evaluation::Evaluation;
use crate::model::continuation::format::one_decimal;
use crate::model::continuation::observe::Observation;
use crate::model::continuation::outcome::Outcome;

/// A host-supplied response test; `Err` carries the failure message.
pub type ResponseCallback = Rc<dyn Fn(&str) -> std::result::Result<bool, String>>;

/// Decides whether a response asks for more work (ResponseContentCheck).
#[derive(Clone)]
pub enum ResponsePredicate {
    /// Always the same answer.
    Constant(bool),
    /// Continue when the response contains the text.
    Contains(String),
    /// Continue when the response does not contain the text.
    NotContains(String),
    /// Continue when the response is exactly the text.
    Equals(String),
    /// Continue when the response's blankness (empty or whitespace) equals the flag.
    IsBlank(bool),
    /// A host-supplied function (a JavaScript callback); an `Err` makes the whole
    /// evaluation fail as the producer's `fromEvaluationError` does.
    Callback(ResponseCallback),
}

impl fmt::Debug for ResponsePredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponsePredicate::Constant(b) => write!(f, "Constant({b})"),
            ResponsePredicate::Contains(s) => write!(f, "Contains({s:?})"),
            ResponsePredicate::NotContains(s) => write!(f, "NotContains({s:?})"),
            ResponsePredicate::Equals(s) => write!(f, "Equals({s:?})"),
            ResponsePredicate::IsBlank(b) => write!(f, "IsBlank({b})"),
            ResponsePredicate::Callback(_) => write!(f, "Callback(..)"),
        }
    }
}

impl ResponsePredicate {
    fn test(&self, response: &str) -> std::result::Result<bool, String> {
        Ok(match self {
            ResponsePredicate::Constant(b) => *b,
            ResponsePredicate::Contains(s) => response.contains(s.as_str()),
            ResponsePredicate::NotContains(s) => !response.contains(s.as_str()),
            ResponsePredicate::Equals(s) => response == s,
            ResponsePredicate::IsBlank(b) => response.trim().is_empty() == *b,
            ResponsePredicate::Callback(f) => return f(response),
        })
    }
}

/// One criterion. Limits are checked when built from a spec
/// ([`crate::model::continuation::spec`]); the variants themselves evaluate any value the
/// producer would.
#[derive(Clone, Debug)]
pub enum Criterion {
    /// Stops once the run has taken `max` steps.
    StepsLimit {
        /// The step limit.
        max: i64,
    },
    /// Stops once the accumulated token usage reaches `max`.
    TokenUsageLimit {
        /// The token limit.
        max: i64,
    },
    /// Stops once the execution has run `max_seconds` (whole seconds, as the producer counts).
    ExecutionTimeLimit {
        /// The limit in seconds (positive).
        max_seconds: i64,
    },
    /// Stops once the execution time summed across pauses reaches `max_seconds`.
    CumulativeExecutionTimeLimit {
        /// The limit in seconds (positive).
        max_seconds: i64,
    },
    /// Forbids continuing when the current step has errors.
    ErrorPresenceCheck,
    /// Stop reasons as configured (strings, numbers, or null which is dropped).
    FinishReasonCheck {
        /// The configured reasons, compared with the step's finish reason as strings.
        stop_reasons: Vec<Value>,
    },
    /// Stops after `max` consecutive failed steps.
    RetryLimit {
        /// How many consecutive failures are allowed.
        max: i64,
    },
    /// Requests more work, or allows a stop, depending on the response text.
    ResponseContentCheck {
        /// The test applied to the response.
        predicate: ResponsePredicate,
    },
    /// Applies an error policy to the current step's error context.
    ErrorPolicy {
        /// The policy.
        policy: ErrorPolicy,
    },
    /// Requests continuation while the current step called tools.
    ToolCallPresenceCheck,
    /// A criterion that always returns one decision (the producer's `CallableCriterion`).
    Fixed {
        /// The decision it always returns.
        decision: Decision,
    },
    /// A nested `ContinuationCriteria` collection, contributing one evaluation.
    All(Vec<Criterion>),
    /// Reports another class name in its evaluation (e.g. the ToolUse ToolCallPresenceCheck).
    Renamed {
        /// The class name the evaluation reports.
        class: String,
        /// The criterion that decides.
        inner: Box<Criterion>,
    },
}

/// Time limits must be positive (the producer's constructors throw otherwise).
pub fn check_max_seconds(max_seconds: i64, path: &str) -> Result<i64> {
    if max_seconds <= 0 {
        return Err(SteplineError::at(
            ErrorCode::InvalidValue,
            path,
            "Max seconds must be greater than zero.",
        ));
    }
    Ok(max_seconds)
}

impl Criterion {
    /// Explains this criterion's vote on `obs`. `Err` carries a failing callback's message.
    pub fn evaluate(&self, obs: &Observation) -> std::result::Result<Evaluation, String> {
        Ok(match self {
            Criterion::StepsLimit { max } => steps_limit(*max, obs.step_count),
            Criterion::TokenUsageLimit { max } => token_usage_limit(*max, obs.usage_total),
            Criterion::ExecutionTimeLimit { max_seconds } => {
                execution_time_limit(*max_seconds, obs)
            }
            Criterion::CumulativeExecutionTimeLimit { max_seconds } => {
                cumulative_time_limit(*max_seconds, obs.cumulative_seconds)
            }
            Criterion::ErrorPresenceCheck => error_presence(obs.current_step_has_errors),
            Criterion::FinishReasonCheck { stop_reasons } => finish_reason_check(stop_reasons, obs),
            Criterion::RetryLimit { max } => retry_limit(*max, &obs.steps_have_errors),
            Criterion::ResponseContentCheck { predicate } => {
                response_content(predicate, obs.response.as_deref())?
            }
            Criterion::ErrorPolicy { policy } => error_policy(policy, obs),
            Criterion::ToolCallPresenceCheck => tool_call_presence(obs.has_tool_calls),
            Criterion::Fixed { decision } => {
                Evaluation::from_decision(class::CALLABLE_CRITERION, *decision, None)
            }
            Criterion::All(list) => nested(list, obs),
            Criterion::Renamed { class, inner } => {
                let mut e = inner.evaluate(obs)?;
                e.criterion = class.clone();
                e
            }
        })
    }
}

/// One criterion's vote; `stop` is the stop reason a forbidding vote carries.
fn vote(
    criterion: &str,
    decision: Decision,
    reason: String,
    context: Value,
    stop: Option<&str>,
) -> Evaluation {
    Evaluation {
        criterion: criterion.to_string(),
        decision,
        reason,
        stop_reason: stop.map(String::from),
        context,
    }
}

fn steps_limit(max: i64, n: i64) -> Evaluation {
    let ctx = crate::json::obj([
        ("currentSteps", Value::from(n)),
        ("maxSteps", Value::from(max)),
    ]);
    if n >= max {
        let reason = format!("Step limit reached: {n}/{max}");
        vote(
            class::STEPS_LIMIT,
            ForbidContinuation,
            reason,
            ctx,
            Some("steps_limit"),
        )
    } else {
        let reason = format!("Steps under limit: {n}/{max}");
        vote(class::STEPS_LIMIT, AllowContinuation, reason, ctx, None)
    }
}

fn token_usage_limit(max: i64, u: i64) -> Evaluation {
    let ctx = crate::json::obj([
        ("currentUsage", Value::from(u)),
        ("maxTokens", Value::from(max)),
    ]);
    if u >= max {
        let reason = format!("Token limit reached: {u}/{max}");
        vote(
            class::TOKEN_USAGE_LIMIT,
            ForbidContinuation,
            reason,
            ctx,
            Some("token_limit"),
        )
    } else {
        let reason = format!("Tokens under limit: {u}/{max}");
        vote(
            class::TOKEN_USAGE_LIMIT,
            AllowContinuation,
            reason,
            ctx,
            None,
        )
    }
}

fn execution_time_limit(max: i64, obs: &Observation) -> Evaluation {
    // Whole epoch seconds, fractions dropped before subtracting (v1.22 quirk 3:
    // 299.5 s of real time can count as 300).
    let elapsed = obs.now.timestamp() - obs.time_origin.timestamp();
    let ctx = crate::json::obj([
        ("elapsedSeconds", Value::from(elapsed)),
        ("maxSeconds", Value::from(max)),
    ]);
    if elapsed >= max {
        let reason = format!("Execution time limit reached: {elapsed}s/{max}s");
        vote(
            class::EXECUTION_TIME_LIMIT,
            ForbidContinuation,
            reason,
            ctx,
            Some("time_limit"),
        )
    } else {
        let reason = format!("Execution time under limit: {elapsed}s/{max}s");
        vote(
            class::EXECUTION_TIME_LIMIT,
            AllowContinuation,
            reason,
            ctx,
            None,
        )
    }
}

/// `secs` is the resolver's value as returned (int or float): the context
/// keeps its kind, the comparison and the message read it as a number.
fn cumulative_time_limit(max: i64, seconds: crate::json::Number) -> Evaluation {
    let secs = seconds.as_f64().unwrap_or(0.0);
    let ctx = crate::json::obj([
        ("cumulativeSeconds", Value::Number(seconds)),
        ("maxSeconds", Value::from(max)),
    ]);
    let shown = one_decimal(secs);
    if secs >= max as f64 {
        let reason = format!("Cumulative execution time {shown}s exceeded limit {max}s");
        let class = class::CUMULATIVE_EXECUTION_TIME_LIMIT;
        vote(class, ForbidContinuation, reason, ctx, Some("time_limit"))
    } else {
        let reason = format!("Cumulative execution time {shown}s under limit {max}s");
        vote(
            class::CUMULATIVE_EXECUTION_TIME_LIMIT,
            AllowContinuation,
            reason,
            ctx,
            None,
        )
    }
}

fn error_presence(has: bool) -> Evaluation {
    let ctx = crate::json::obj([("hasErrors", Value::from(has))]);
    if has {
        let reason = "Errors present, forbidding continuation".into();
        vote(
            class::ERROR_PRESENCE_CHECK,
            ForbidContinuation,
            reason,
            ctx,
            Some("error"),
        )
    } else {
        let reason = "No errors, allowing continuation".into();
        vote(
            class::ERROR_PRESENCE_CHECK,
            AllowContinuation,
            reason,
            ctx,
            None,
        )
    }
}

fn response_content(
    predicate: &ResponsePredicate,
    response: Option<&str>,
) -> std::result::Result<Evaluation, String> {
    let Some(response) = response else {
        let ctx = crate::json::obj([("hasResponse", Value::from(false))]);
        let reason = "No response yet, allowing bootstrap".into();
        return Ok(vote(
            class::RESPONSE_CONTENT_CHECK,
            AllowContinuation,
            reason,
            ctx,
            None,
        ));
    };
    let go_on = predicate.test(response)?;
    let ctx = crate::json::obj([
        ("hasResponse", Value::from(true)),
        ("shouldContinue", Value::from(go_on)),
    ]);
    Ok(if go_on {
        let reason = "Response content check requests continuation".into();
        vote(
            class::RESPONSE_CONTENT_CHECK,
            RequestContinuation,
            reason,
            ctx,
            None,
        )
    } else {
        let reason = "Response content check allows stop".into();
        vote(class::RESPONSE_CONTENT_CHECK, AllowStop, reason, ctx, None)
    })
}

fn error_policy(policy: &ErrorPolicy, obs: &Observation) -> Evaluation {
    let ctx = &obs.error_context;
    let verdict = apply(policy, ctx);
    let context = crate::json::obj([
        ("errorType", Value::from(ctx.error_type.as_str())),
        ("consecutiveFailures", Value::from(ctx.consecutive_failures)),
        ("totalFailures", Value::from(ctx.total_failures)),
        ("maxRetries", Value::from(policy.max_retries)),
        ("handling", Value::from(verdict.handling.as_str())),
        ("toolName", Value::from(ctx.tool_name.clone())),
    ]);
    let class = class::ERROR_POLICY_CRITERION;
    if verdict.continue_allowed {
        vote(class, AllowContinuation, verdict.reason, context, None)
    } else {
        vote(
            class,
            ForbidContinuation,
            verdict.reason,
            context,
            Some("error"),
        )
    }
}

fn tool_call_presence(has: bool) -> Evaluation {
    let ctx = crate::json::obj([("hasToolCalls", Value::from(has))]);
    if has {
        let reason = "Tool calls present, requesting continuation".into();
        vote(
            class::TOOL_CALL_PRESENCE_CHECK,
            RequestContinuation,
            reason,
            ctx,
            None,
        )
    } else {
        let reason = "No tool calls, allowing stop".into();
        vote(
            class::TOOL_CALL_PRESENCE_CHECK,
            AllowStop,
            reason,
            ctx,
            None,
        )
    }
}

/// A nested collection votes once, with its own resolved outcome.
fn nested(list: &[Criterion], obs: &Observation) -> Evaluation {
    let outcome = evaluate_all(list, obs);
    vote(
        class::CONTINUATION_CRITERIA,
        outcome.decision(),
        format!("Aggregate of {} criteria", list.len()),
        crate::json::obj([("criteriaCount", Value::from(list.len()))]),
        Some(outcome.stop_reason()),
    )
}

/// Evaluates every criterion in order and resolves the outcome; a failing
/// callback turns the whole evaluation into the producer's error outcome.
pub fn evaluate_all(criteria: &[Criterion], obs: &Observation) -> Outcome {
    let mut evaluations = Vec::with_capacity(criteria.len());
    for c in criteria {
        match c.evaluate(obs) {
            Ok(e) => evaluations.push(e),
            Err(message) => return Outcome::from_evaluation_error("Error", &message),
        }
    }
    Outcome::resolve(evaluations)
}

fn finish_reason_check(stop_reasons: &[Value], obs: &Observation) -> Evaluation {
    // Stop reasons are normalised with (string) casts and nulls dropped; the
    // comparison is strict, so an integer finish reason never matches.
    let normalized: Vec<String> = stop_reasons
        .iter()
        .filter_map(|v| match v {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            Value::Bool(b) => Some(if *b { "1".into() } else { String::new() }),
            Value::Number(n) => Some(crate::json::number_text(n)),
            other => Some(other.to_string()),
        })
        .collect();
    let e = |decision, reason: String, finish: Value, stop: Option<&str>| Evaluation {
        criterion: class::FINISH_REASON_CHECK.into(),
        decision,
        reason,
        stop_reason: stop.map(String::from),
        context: crate::json::obj([
            ("finishReason", finish),
            ("stopReasons", Value::from(normalized.clone())),
        ]),
    };
    if normalized.is_empty() {
        return e(
            Decision::AllowContinuation,
            "No stop reasons configured".into(),
            Value::Null,
            None,
        );
    }
    let Some(reason) = obs.finish_reason.as_ref().filter(|v| !v.is_null()) else {
        return e(
            Decision::AllowContinuation,
            "No finish reason available".into(),
            Value::Null,
            None,
        );
    };
    let shown = match reason {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let matched = matches!(reason, Value::String(s) if normalized.contains(s));
    if matched {
        e(
            Decision::ForbidContinuation,
            format!("Finish reason \"{shown}\" matched stop condition"),
            reason.clone(),
            Some("finish_reason"),
        )
    } else {
        e(
            Decision::AllowContinuation,
            format!("Finish reason \"{shown}\" does not match stop conditions"),
            reason.clone(),
            None,
        )
    }
}

fn retry_limit(max: i64, steps_have_errors: &[bool]) -> Evaluation {
    let e = |decision, reason: String, failures: i64, stop: Option<&str>| Evaluation {
        criterion: class::RETRY_LIMIT.into(),
        decision,
        reason,
        stop_reason: stop.map(String::from),
        context: crate::json::obj([
            ("consecutiveFailures", Value::from(failures)),
            ("maxConsecutiveFailures", Value::from(max)),
        ]),
    };
    if steps_have_errors.is_empty() {
        return e(
            Decision::AllowContinuation,
            "No steps yet, allowing continuation".into(),
            0,
            None,
        );
    }
    // Counted from the end; the producer stops counting once it exceeds the limit.
    let mut failures = 0i64;
    for has_error in steps_have_errors.iter().rev() {
        if !has_error || failures > max {
            break;
        }
        failures += 1;
    }
    if failures >= max {
        e(
            Decision::ForbidContinuation,
            format!("Retry limit reached: {failures}/{max} consecutive failures"),
            failures,
            Some("retry_limit"),
        )
    } else {
        e(
            Decision::AllowContinuation,
            format!("Consecutive failures under limit: {failures}/{max}"),
            failures,
            None,
        )
    }
}
