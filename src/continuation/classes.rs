//! The producer's class names, as they appear in `criterion` and `resolvedBy`.

pub const STEPS_LIMIT: &str = "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\StepsLimit";
pub const TOKEN_USAGE_LIMIT: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\TokenUsageLimit";
pub const EXECUTION_TIME_LIMIT: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ExecutionTimeLimit";
pub const CUMULATIVE_EXECUTION_TIME_LIMIT: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\CumulativeExecutionTimeLimit";
pub const ERROR_PRESENCE_CHECK: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ErrorPresenceCheck";
pub const FINISH_REASON_CHECK: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\FinishReasonCheck";
pub const RETRY_LIMIT: &str = "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\RetryLimit";
pub const RESPONSE_CONTENT_CHECK: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ResponseContentCheck";
pub const ERROR_POLICY_CRITERION: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ErrorPolicyCriterion";
pub const TOOL_CALL_PRESENCE_CHECK: &str =
    "Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck";
pub const CALLABLE_CRITERION: &str = "Cognesy\\Addons\\StepByStep\\Continuation\\CallableCriterion";
pub const CONTINUATION_CRITERIA: &str =
    "Cognesy\\Addons\\StepByStep\\Continuation\\ContinuationCriteria";

/// The exception classes the producer's error classifier recognises.
pub const PROVIDER_RATE_LIMIT_EXCEPTION: &str =
    "Cognesy\\Polyglot\\Inference\\Exceptions\\ProviderRateLimitException";
pub const TIMEOUT_EXCEPTION: &str = "Cognesy\\Http\\Exceptions\\TimeoutException";
