//! The resolved continuation decision for a step.

use crate::json::Value;

use crate::error::Result;
use crate::json::child;
use crate::model::continuation::classes::CONTINUATION_CRITERIA;
use crate::model::continuation::decision::Decision;
use crate::model::continuation::evaluation::Evaluation;
use crate::model::read;

/// The reference's `ContinuationOutcome`. Only `should_continue` and the
/// evaluations are stored facts; `decision`, `resolved_by` and `stop_reason` are
/// derived from them (so a stored outcome is *trusted*, not recomputed: a stored
/// `shouldContinue: true` wins even over a forbid, as the reference does).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Whether the agent loop goes on.
    pub should_continue: bool,
    /// Every criterion's vote, in order.
    pub evaluations: Vec<Evaluation>,
}

impl Outcome {
    /// Resolves evaluations with the reference's rule.
    pub fn resolve(evaluations: Vec<Evaluation>) -> Outcome {
        let decisions: Vec<Decision> = evaluations.iter().map(|e| e.decision).collect();
        Outcome {
            should_continue: Decision::can_continue_with(&decisions),
            evaluations,
        }
    }

    /// The outcome the producer records when evaluating the criteria itself failed
    /// (`fromEvaluationError`): a forbid by the criteria collection, stop reason `error`.
    pub fn from_evaluation_error(exception_class: &str, message: &str) -> Outcome {
        let shown = if message.is_empty() {
            exception_class
        } else {
            message
        };
        let evaluation = Evaluation {
            criterion: CONTINUATION_CRITERIA.to_string(),
            decision: Decision::ForbidContinuation,
            reason: format!("Continuation evaluation failed: {shown}"),
            stop_reason: Some("error".into()),
            context: crate::json::obj([
                ("exception", Value::from(exception_class)),
                ("message", Value::from(message)),
            ]),
        };
        Outcome {
            should_continue: false,
            evaluations: vec![evaluation],
        }
    }

    /// One sentence naming the deciding criterion and its reason, for UIs.
    pub fn explanation(&self) -> String {
        let short = |e: &Evaluation| e.short_criterion().to_string();
        match self.decision() {
            Decision::ForbidContinuation => match self.first(Decision::ForbidContinuation) {
                Some(e) => format!(
                    "Stopped ({}) by {}: {}.",
                    self.stop_reason(),
                    short(e),
                    e.reason
                ),
                None => "Stopped.".into(),
            },
            Decision::RequestContinuation => match self.first(Decision::RequestContinuation) {
                Some(e) => format!("Continues because {} requested it: {}.", short(e), e.reason),
                None if self.first(Decision::ForbidContinuation).is_some() => {
                    "Continues: the stored outcome says so although a criterion forbade it.".into()
                }
                None if self
                    .evaluations
                    .iter()
                    .any(|e| e.decision == Decision::AllowStop) =>
                {
                    "Continues: the stored outcome says so although no criterion requested it."
                        .into()
                }
                None if self.evaluations.is_empty() => {
                    "Continues: the stored outcome says so.".into()
                }
                None => "Continues: every criterion allowed continuation.".into(),
            },
            _ => match self.first(Decision::AllowStop) {
                Some(e) => format!(
                    "Stopped ({}): nothing requested continuation and {} allows stop: {}.",
                    self.stop_reason(),
                    short(e),
                    e.reason
                ),
                None => format!(
                    "Stopped ({}): no criterion requested continuation.",
                    self.stop_reason()
                ),
            },
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    pub fn from_value(v: &Value, path: &str) -> Result<Outcome> {
        let m = read::object(v, path, "a continuation outcome")?;
        let mut evaluations = Vec::new();
        if let Some(list) = crate::php::get(m, "evaluations") {
            let p = child(path, "evaluations");
            for (key, item) in read::entries(list, &p, "evaluations")? {
                evaluations.push(Evaluation::from_value(item, &child(&p, &key))?);
            }
        }
        // `bool $shouldContinue` under `strict_types`: only a boolean (or
        // nothing) reads; the stored value is trusted, not recomputed.
        let should_continue = match crate::php::get(m, "shouldContinue") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(read::wrong_type(path, "shouldContinue", "a boolean", other))
            }
        };
        Ok(Outcome {
            should_continue,
            evaluations,
        })
    }

    fn first(&self, decision: Decision) -> Option<&Evaluation> {
        self.evaluations.iter().find(|e| e.decision == decision)
    }

    /// `request` when continuing; else `forbid` if anything forbade; else `stop`. Never `allow`.
    pub fn decision(&self) -> Decision {
        if self.should_continue {
            Decision::RequestContinuation
        } else if self.first(Decision::ForbidContinuation).is_some() {
            Decision::ForbidContinuation
        } else {
            Decision::AllowStop
        }
    }

    /// The first forbidding criterion, else the first requesting one, else `aggregate`.
    pub fn resolved_by(&self) -> &str {
        let by = match self.decision() {
            Decision::ForbidContinuation => self.first(Decision::ForbidContinuation),
            Decision::RequestContinuation => self.first(Decision::RequestContinuation),
            _ => None,
        };
        by.map_or("aggregate", |e| e.criterion.as_str())
    }

    /// The forbidding criterion's own stop reason (or `guard`), else `completed`.
    pub fn stop_reason(&self) -> &str {
        match self.decision() {
            Decision::ForbidContinuation => self
                .first(Decision::ForbidContinuation)
                .and_then(|e| e.stop_reason.as_deref())
                .unwrap_or("guard"),
            _ => "completed",
        }
    }

    /// The producer's `toArray()`.
    pub fn view(&self) -> OutcomeView<'_> {
        OutcomeView {
            decision: self.decision(),
            should_continue: self.should_continue,
            resolved_by: self.resolved_by(),
            stop_reason: self.stop_reason(),
            evaluations: &self.evaluations,
        }
    }

    /// `toArray()` plus the human `explanation`.
    pub fn explained(&self) -> ExplainedOutcome<'_> {
        ExplainedOutcome {
            outcome: self.view(),
            explanation: self.explanation(),
            time_origin: None,
        }
    }

    /// [`explained`](Outcome::explained), saying where time limits measured from.
    pub fn explained_from(
        &self,
        origin: &crate::model::continuation::observe::TimeOrigin,
    ) -> ExplainedOutcome<'_> {
        ExplainedOutcome {
            time_origin: Some(origin.view()),
            ..self.explained()
        }
    }

    /// The producer's `toArray()` as a value (for the state writers).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(&self.view())
    }
}

/// A resolved continuation decision, as the producer's `ContinuationOutcome::toArray()`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ContinuationOutcome"))]
#[serde(rename_all = "camelCase")]
pub struct OutcomeView<'a> {
    /// What decided: `forbid`, `request` (the run goes on) or `stop`; never `allow`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "resolved_decision_schema"))]
    pub decision: Decision,
    /// The run goes on.
    pub should_continue: bool,
    /// The deciding criterion's class name, or `aggregate`.
    pub resolved_by: &'a str,
    /// The forbidding criterion's stop reason (or `guard`), else `completed`.
    pub stop_reason: &'a str,
    /// Every criterion's vote, in order.
    pub evaluations: &'a [Evaluation],
}

#[cfg(feature = "schema")]
fn resolved_decision_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "enum": ["forbid", "request", "stop"] })
}

/// A continuation outcome plus one human sentence naming the deciding criterion.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExplainedOutcome<'a> {
    /// The outcome.
    #[serde(flatten)]
    pub outcome: OutcomeView<'a>,
    /// `Stopped (steps_limit) by StepsLimit: Step limit reached: 5/5.`
    pub explanation: String,
    /// Where execution-time limits measured from (`evaluateContinuation`).
    #[serde(rename = "timeOrigin", skip_serializing_if = "Option::is_none")]
    pub time_origin: Option<crate::model::continuation::observe::TimeOriginView>,
}
