//! What the continuation functions read, declared for the schema and the
//! TypeScript declarations (native only, feature `schema`). The readers in
//! [`super::spec`] and [`super::evaluation`] parse these shapes by hand, to
//! keep their typed errors with JSON-pointer paths and JavaScript callbacks.

use schemars::JsonSchema;

use crate::json::Value;
use crate::model::continuation::decision::Decision;
use crate::model::continuation::error_policy::Handling;

/// The criteria of `evaluateContinuation` / `replayContinuation`: a list of
/// specs, or the producer's default agent list with options.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum CriteriaInput {
    /// Criteria as data, in order.
    List(Vec<CriterionSpec>),
    /// The producer's default agent list.
    Defaults(DefaultCriteria),
}

/// The producer's default agent criteria (StepsLimit, TokenUsageLimit,
/// ExecutionTimeLimit, ErrorPolicyCriterion, FinishReasonCheck,
/// ToolCallPresenceCheck), with options.
#[derive(JsonSchema)]
pub struct DefaultCriteria {
    /// The options; each left out keeps the producer's default.
    pub defaults: DefaultOptions,
}

/// The producer's `AgentBuilder` options.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DefaultOptions {
    /// Default 20; 0 or less stops every time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<i64>,
    /// Default 32768; 0 or less stops every time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<i64>,
    /// Seconds (default 300, at least 1); measured from `executionStartedAt` (or the session start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_execution_time: Option<i64>,
    /// Seconds of accumulated step time; replaces `maxExecutionTime` when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cumulative_timeout: Option<i64>,
    /// Default `stopOnAnyError`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_policy: Option<ErrorPolicySpec>,
    /// Finish reasons that stop the run (default none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "finish_reasons")]
    pub finish_reasons: Option<Vec<Value>>,
}

/// One criterion as data. `criterion` overrides the class name its evaluation reports.
#[derive(JsonSchema)]
pub struct CriterionSpec {
    /// The class name its evaluation reports (default: the producer's class).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub criterion: Option<String>,
    /// The criterion and its fields.
    #[serde(flatten)]
    pub kind: CriterionKind,
}

/// The kinds of criteria and their fields.
#[derive(JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CriterionKind {
    /// Stops after `max` steps (0 or less stops every time).
    StepsLimit {
        /// Steps.
        max: i64,
    },
    /// Stops once the run used `max` tokens.
    TokenUsageLimit {
        /// Tokens.
        max: i64,
    },
    /// Stops once the execution ran `max` seconds.
    ExecutionTimeLimit {
        /// Seconds, at least 1.
        max: i64,
    },
    /// Stops once the steps took `max` seconds in all.
    CumulativeExecutionTimeLimit {
        /// Seconds, at least 1.
        max: i64,
    },
    /// Stops after `max` consecutive failed steps.
    RetryLimit {
        /// Consecutive failures.
        max: i64,
    },
    /// Stops when the current step has errors.
    ErrorPresenceCheck {},
    /// Requests continuation when the current step asked for tools.
    ToolCallPresenceCheck {},
    /// Stops on one of these finish reasons.
    FinishReasonCheck {
        /// Finish reasons (strings, numbers, or null which is dropped).
        #[serde(rename = "stopReasons")]
        #[schemars(schema_with = "finish_reasons")]
        stop_reasons: Vec<Value>,
    },
    /// Requests continuation when the response text matches.
    ResponseContentCheck {
        /// A predicate on the current response text.
        #[serde(rename = "continueWhen")]
        #[schemars(extend("tsType" = "ResponsePredicate | ((response: string) => boolean)"))]
        continue_when: ResponsePredicate,
    },
    /// Applies an error policy to the run's errors.
    ErrorPolicy {
        /// Default `stopOnAnyError`.
        #[serde(skip_serializing_if = "Option::is_none")]
        policy: Option<ErrorPolicySpec>,
    },
    /// Always the same decision (the producer's `CallableCriterion`).
    Fixed {
        /// The decision.
        decision: Decision,
    },
    /// A nested list contributing one aggregate evaluation.
    All {
        /// The nested criteria.
        criteria: Vec<CriterionSpec>,
    },
}

/// Decides from the current response text whether to ask for another step
/// (from JavaScript, a function `(response) => boolean` may stand instead).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ResponsePredicate {
    /// The text contains this.
    Contains(String),
    /// The text does not contain this.
    NotContains(String),
    /// The text is exactly this.
    Equals(String),
    /// The text is blank (`true`) or not (`false`).
    IsBlank(bool),
    /// Always this answer.
    Always(bool),
}

/// An error policy: a preset name (optionally with its retry budget, as
/// `"retryToolErrors(3)"`) or explicit handling over a preset.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ErrorPolicySpec {
    /// A preset, optionally with its retry budget.
    Preset(#[schemars(schema_with = "preset_name")] String),
    /// Handling per error type; fields override the preset (default `stopOnAnyError`).
    Explicit(ErrorPolicyObject),
}

/// Handling per error type over a preset.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorPolicyObject {
    /// The preset the fields override (default `stopOnAnyError`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<ErrorPolicyPreset>,
    /// Retries before `retry` stops (at least 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<i64>,
    /// Tool errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_tool_error: Option<Handling>,
    /// Model errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_model_error: Option<Handling>,
    /// Validation errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_validation_error: Option<Handling>,
    /// Rate-limit errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_rate_limit_error: Option<Handling>,
    /// Timeouts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_timeout_error: Option<Handling>,
    /// Any other error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_unknown_error: Option<Handling>,
}

/// The producer's error policy presets.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ErrorPolicyPreset {
    /// Every error stops the run.
    StopOnAnyError,
    /// Tool errors are ignored; others stop.
    IgnoreToolErrors,
    /// Tool errors are retried; others stop.
    RetryToolErrors,
    /// Every error is retried.
    RetryAll,
}

/// Options of the continuation functions: ISO strings or epoch milliseconds.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateOptions {
    /// When to evaluate (default: now; `replayContinuation`: each step's own time).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::model::continuation::schemas::instant")]
    pub now: Option<Value>,
    /// Where execution-time limits measure from (default: the state's own,
    /// else the start of the latest execution's first step, seed 004).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::model::continuation::schemas::instant")]
    pub execution_started_at: Option<Value>,
    /// `true` measures a state without `executionStartedAt` from the
    /// session's start, as the producer does (v1.22 quirk 3); the result's
    /// `timeOrigin` says which start was used. No effect on
    /// `Session.replayContinuation`, whose steps carry their own times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compat: Option<bool>,
}

/// An evaluation for `resolveOutcome`; missing fields take the producer's defaults.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContinuationEvaluationInput {
    /// Default `unknown`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub criterion: Option<String>,
    /// The vote.
    pub decision: Decision,
    /// Default empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// One of the producer's stop reasons.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "stop_reason")]
    pub stop_reason: Option<String>,
    /// Default `[]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::model::continuation::schemas::php_map")]
    pub context: Option<Value>,
}

fn finish_reasons(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "array", "items": { "type": ["string", "number", "null"] } })
}

fn preset_name(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "pattern": "^(stopOnAnyError|ignoreToolErrors|retryToolErrors|retryAll)(\\([0-9]+\\))?$",
        "tsType": "ErrorPolicyPreset | `retryToolErrors(${number})` | `retryAll(${number})`",
    })
}

fn stop_reason(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names = crate::model::continuation::evaluation::STOP_REASONS;
    schemars::json_schema!({ "anyOf": [{ "type": "string", "enum": names }, { "type": "null" }] })
}
