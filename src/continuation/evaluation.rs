//! One criterion's explained vote.

use crate::json::Value;

use crate::continuation::decision::Decision;
use crate::error::Result;
use crate::json::child;
use crate::model::read;

/// The reference's `ContinuationEvaluation`: which criterion, its decision, why,
/// an optional stop reason, and context values (e.g. `{currentSteps, maxSteps}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Full PHP class name, e.g. `Cognesy\Addons\StepByStep\Continuation\Criteria\StepsLimit`.
    pub criterion: String,
    pub decision: Decision,
    pub reason: String,
    pub stop_reason: Option<String>,
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
        Ok(Evaluation {
            criterion: read::opt_scalar_string(m, "criterion", path)?
                .unwrap_or_else(|| "unknown".into()),
            decision,
            reason: read::opt_scalar_string(m, "reason", path)?.unwrap_or_default(),
            stop_reason: read::opt_scalar_string(m, "stopReason", path)?,
            context: crate::php::get(m, "context")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
        })
    }

    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("criterion", Value::from(self.criterion.clone())),
            ("decision", Value::from(self.decision.as_str())),
            ("reason", Value::from(self.reason.clone())),
            ("stopReason", Value::from(self.stop_reason.clone())),
            ("context", self.context.clone()),
        ])
    }

    /// `ContinuationEvaluation::fromDecision`: the default reason for a bare decision
    /// ("StepsLimit forbade continuation", "… permits continuation", "… requested
    /// continuation", "… allows stop") and an empty context.
    pub fn from_decision(
        criterion: &str,
        decision: Decision,
        stop_reason: Option<String>,
    ) -> Evaluation {
        let name = crate::continuation::format::reason_class_name(criterion);
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
