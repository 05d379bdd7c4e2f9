//! The resolved continuation decision for a step.

use serde_json::{json, Value};

use crate::continuation::decision::Decision;
use crate::continuation::evaluation::Evaluation;
use crate::error::Result;
use crate::json::child;
use crate::model::read;

/// The reference's `ContinuationOutcome`. Only `should_continue` and the
/// evaluations are stored facts; `decision`, `resolved_by` and `stop_reason` are
/// derived from them (so a stored outcome is *trusted*, not recomputed: a stored
/// `shouldContinue: true` wins even over a forbid, as the reference does).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub should_continue: bool,
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

    pub fn from_value(v: &Value, path: &str) -> Result<Outcome> {
        let m = read::object(v, path, "a continuation outcome")?;
        let mut evaluations = Vec::new();
        if let Some(list) = crate::php::get(m, "evaluations") {
            let p = child(path, "evaluations");
            for (key, item) in read::entries(list, &p, "evaluations")? {
                evaluations.push(Evaluation::from_value(item, &child(&p, &key))?);
            }
        }
        Ok(Outcome {
            should_continue: read::bool_or(m, "shouldContinue", false),
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

    pub fn to_value(&self) -> Value {
        json!({
            "decision": self.decision().as_str(),
            "shouldContinue": self.should_continue,
            "resolvedBy": self.resolved_by(),
            "stopReason": self.stop_reason(),
            "evaluations": self.evaluations.iter().map(Evaluation::to_value).collect::<Vec<_>>(),
        })
    }
}
