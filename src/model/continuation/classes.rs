//! The producer's class names, as they appear in `criterion` and `resolvedBy`.

/// `StepsLimit`: stops after a number of steps.
pub const STEPS_LIMIT: &str = "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\StepsLimit";
/// `TokenUsageLimit`: stops once the run's token total reaches a limit.
pub const TOKEN_USAGE_LIMIT: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\TokenUsageLimit";
/// `ExecutionTimeLimit`: stops once an execution has run for a number of seconds.
pub const EXECUTION_TIME_LIMIT: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ExecutionTimeLimit";
/// `CumulativeExecutionTimeLimit`: the time limit summed across pauses and resumes (seed 004).
pub const CUMULATIVE_EXECUTION_TIME_LIMIT: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\CumulativeExecutionTimeLimit";
/// `ErrorPresenceCheck`: stops when the current step has errors.
pub const ERROR_PRESENCE_CHECK: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ErrorPresenceCheck";
/// `FinishReasonCheck`: stops on a configured model finish reason.
pub const FINISH_REASON_CHECK: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\FinishReasonCheck";
/// `RetryLimit`: stops after a number of consecutive failed steps.
pub const RETRY_LIMIT: &str = "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\RetryLimit";
/// `ResponseContentCheck`: asks for more work depending on the response text.
pub const RESPONSE_CONTENT_CHECK: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ResponseContentCheck";
/// `ErrorPolicyCriterion`: applies the [`ErrorPolicy`](crate::model::continuation::error_policy::ErrorPolicy).
pub const ERROR_POLICY_CRITERION: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ErrorPolicyCriterion";
/// `ToolCallPresenceCheck`: asks to continue while the model calls tools.
pub const TOOL_CALL_PRESENCE_CHECK: &str =
    "Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck";
/// `CallableCriterion`: a host-supplied criterion that returns one decision.
pub const CALLABLE_CRITERION: &str = "Cognesy\\Addons\\StepByStep\\Continuation\\CallableCriterion";
/// `ContinuationCriteria`: a nested collection of criteria.
pub const CONTINUATION_CRITERIA: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\ContinuationCriteria";

/// The exception classes the producer's error classifier recognises.
pub const PROVIDER_RATE_LIMIT_EXCEPTION: &str =
    "Cognesy\\Polyglot\\Inference\\Exceptions\\ProviderRateLimitException";
/// The exception class a timed-out HTTP request raises.
pub const TIMEOUT_EXCEPTION: &str = "Cognesy\\Http\\Exceptions\\TimeoutException";
