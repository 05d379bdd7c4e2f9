//! One criterion's explained vote.

use crate::json::Value;

use crate::error::{ErrorCode, Result};
use crate::json::child;
use crate::model::continuation::decision::Decision;
use crate::model::read;

/// The reference's `StopReason` values, the only ones a stored evaluation may name.
pub const STOP_REASONS: [&str; 9] = [
    "completed",
    "steps_limit",
    "token_limit",
    "time_limit",
    "retry_limit",
    "error",
    "finish_reason",
    "guard",
    "user_requested",
];

/// The reference's `ContinuationEvaluation`: which criterion, its decision, why,
/// an optional stop reason, and context values (e.g. `{currentSteps, maxSteps}`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ContinuationEvaluation"))]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Full PHP class name, e.g. `Cognesy\Addons\StepByStep\Continuation\Criteria\StepsLimit`.
    pub criterion: String,
    /// Its vote.
    pub decision: Decision,
    /// Why, for a person.
    pub reason: String,
    /// The stop reason it gives when it stops the run (`steps_limit`, …).
    pub stop_reason: Option<String>,
    /// Values behind the vote (`{currentSteps, maxSteps}`); `[]` when none (PHP).
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::continuation::schemas::php_map")
    )]
    pub context: Value,
}

impl Evaluation {
    /// `fromArray`: criterion defaults to `unknown`, reason to `""`, context to `[]`.
    /// A missing decision is an error (the reference's default is not a valid value).
    pub fn from_value(v: &Value, path: &str) -> Result<Evaluation> {
        let m = read::object(v, path, "an evaluation")?;
        let decision_path = child(path, "decision");
        let decision = match read::opt_str(m, "decision", path)? {
            Some(d) => Decision::parse(d, &decision_path)?,
            None => Decision::parse("allow_continuation", &decision_path)?,
        };
        // The constructor's types are strict (`string`, `array`, `?StopReason`
        // under `strict_types`): another type is the reference's TypeError,
        // `invalid_type` here; a stop reason outside the enum is its ValueError.
        let text = |k: &str, default: &str| -> Result<String> {
            match crate::php::get(m, k) {
                None => Ok(default.to_string()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(read::wrong_type(path, k, "a string", other)),
            }
        };
        let stop_reason = match crate::php::get(m, "stopReason") {
            None => None,
            Some(Value::String(s)) if STOP_REASONS.contains(&s.as_str()) => Some(s.clone()),
            Some(Value::String(s)) => {
                return Err(read::invalid(
                    ErrorCode::InvalidValue,
                    &child(path, "stopReason"),
                    format!(
                        "expected a stop reason ({}), found {}",
                        STOP_REASONS.join(", "),
                        crate::json::quote(s)
                    ),
                ))
            }
            Some(other) => return Err(read::wrong_type(path, "stopReason", "a string", other)),
        };
        let context = match crate::php::get(m, "context") {
            None => Value::Array(Vec::new()),
            Some(v @ (Value::Object(_) | Value::Array(_))) => v.clone(),
            Some(other) => return Err(read::wrong_type(path, "context", "an array", other)),
        };
        Ok(Evaluation {
            criterion: text("criterion", "unknown")?,
            decision,
            reason: text("reason", "")?,
            stop_reason,
            context,
        })
    }

    /// The producer's `toArray()` as a value.
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    /// `ContinuationEvaluation::fromDecision`: the default reason for a bare decision
    /// ("StepsLimit forbade continuation", "… permits continuation", "… requested
    /// continuation", "… allows stop") and an empty context.
    pub fn from_decision(
        criterion: &str,
        decision: Decision,
        stop_reason: Option<String>,
    ) -> Evaluation {
        let name = crate::model::continuation::format::reason_class_name(criterion);
        let verb = match decision {
            Decision::ForbidContinuation => "forbade continuation",
            Decision::AllowContinuation => "permits continuation",
            Decision::RequestContinuation => "requested continuation",
            Decision::AllowStop => "allows stop",
        };
        Evaluation {
            criterion: criterion.to_string(),
            decision,
            reason: format!("{name} {verb}"),
            stop_reason,
            context: Value::Array(Vec::new()),
        }
    }

    /// The class name without its namespace (`StepsLimit`), as the broadcast trace shows it.
    pub fn short_criterion(&self) -> &str {
        self.criterion
            .rsplit('\\')
            .next()
            .unwrap_or(&self.criterion)
    }
}
