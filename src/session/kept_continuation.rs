//! A step's continuation decision as the session keeps it.
//!
//! `agent.continuation` sends `{should_continue, stop_reason, resolved_by,
//! evaluations}`, the evaluations one `{criterion, decision, reason}` object
//! per criterion (five in the bench run), and a step keeps the latest for
//! the session's life. As the decoder's tree each evaluation was an object
//! of three members and three strings: about 1.5 KB a step natively, the
//! largest item after the texts at 500 steps (bench/findings.md, issue 27's
//! seventh pass). Kept typed, the evaluations are three words each, the
//! decision and the criteria's names shared static strings where the
//! vocabulary is known, and the view writes them without building a tree.
//! Any other shape (extra or missing members, other value types, a v2 step
//! completion's own decision) is kept as sent.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::json::{Map, Value};
use crate::model::continuation::classes;
use crate::model::continuation::explain::{explanation, short, streamed_explanation};

/// A word kept once where it is one of a known few.
type Word = Cow<'static, str>;

/// The decisions a criterion gives (the producer's wire words).
const DECISIONS: &[&str] = &["allow", "request", "forbid", "stop"];

/// The producer's criteria, by their short and their class names.
const CRITERIA: &[&str] = &[
    "StepsLimit",
    "TokenUsageLimit",
    "ExecutionTimeLimit",
    "CumulativeExecutionTimeLimit",
    "ErrorPresenceCheck",
    "FinishReasonCheck",
    "RetryLimit",
    "ResponseContentCheck",
    "ErrorPolicyCriterion",
    "ToolCallPresenceCheck",
    "CallableCriterion",
    classes::STEPS_LIMIT,
    classes::TOKEN_USAGE_LIMIT,
    classes::EXECUTION_TIME_LIMIT,
    classes::CUMULATIVE_EXECUTION_TIME_LIMIT,
    classes::ERROR_PRESENCE_CHECK,
    classes::FINISH_REASON_CHECK,
    classes::RETRY_LIMIT,
    classes::RESPONSE_CONTENT_CHECK,
    classes::ERROR_POLICY_CRITERION,
    classes::TOOL_CALL_PRESENCE_CHECK,
    classes::CALLABLE_CRITERION,
];

/// The four members of `agent.continuation`, in the order the session
/// keeps them (src/envelope/event.rs).
const FIELDS: [&str; 4] = [
    "should_continue",
    "stop_reason",
    "resolved_by",
    "evaluations",
];

/// The three members of an evaluation, in the producer's order.
const EVALUATION: [&str; 3] = ["criterion", "decision", "reason"];

/// A step's continuation decision: read it with [`value`](Self::value), or
/// write it with serde (the same JSON as the value).
///
/// ```
/// use stepline::session::kept_continuation::KeptContinuation;
/// let sent = stepline::json!({"should_continue": true, "stop_reason": "completed", "resolved_by": "ToolCallPresenceCheck",
///     "evaluations": [{"criterion": "StepsLimit", "decision": "allow", "reason": "Steps under limit: 1/10"}]});
/// let kept = KeptContinuation::new(sent.clone());
/// assert_eq!(*kept.value(), sent);
/// assert_eq!(stepline::json::to_text(&kept), sent.to_string());
/// assert_eq!(kept.explanation().as_deref(), Some("Went on: ToolCallPresenceCheck requested another step."));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KeptContinuation(Repr);

#[derive(Clone, Debug, PartialEq)]
enum Repr {
    Trace(Box<Trace>),
    Value(Value),
}

/// `{should_continue, stop_reason, resolved_by, evaluations}` whose
/// evaluations are all `{criterion, decision, reason}` strings.
#[derive(Clone, Debug, PartialEq)]
struct Trace {
    should_continue: Value,
    stop_reason: Value,
    resolved_by: Value,
    evaluations: Box<[Evaluation]>,
}

#[derive(Clone, Debug, PartialEq)]
struct Evaluation {
    criterion: Word,
    decision: Word,
    reason: Box<str>,
}

impl KeptContinuation {
    /// Keeps `c`: typed when it has the four members in order and its
    /// evaluations are `{criterion, decision, reason}` strings, else as sent
    /// (without the decoder's spare room).
    pub fn new(c: Value) -> KeptContinuation {
        match Trace::of(c) {
            Ok(t) => KeptContinuation(Repr::Trace(Box::new(t))),
            Err(mut c) => {
                c.shrink_to_fit();
                KeptContinuation(Repr::Value(c))
            }
        }
    }

    /// The decision as sent.
    pub fn value(&self) -> Cow<'_, Value> {
        match &self.0 {
            Repr::Value(v) => Cow::Borrowed(v),
            Repr::Trace(t) => Cow::Owned(t.value()),
        }
    }

    /// Why the loop went on or stopped after this decision, in one
    /// sentence (see [`streamed_explanation`]).
    pub fn explanation(&self) -> Option<String> {
        match &self.0 {
            Repr::Value(v) => streamed_explanation(v),
            Repr::Trace(t) => {
                let resolved_by = non_empty(&t.resolved_by);
                let reason = resolved_by.and_then(|r| {
                    let decider = short(r);
                    t.evaluations
                        .iter()
                        .find(|e| !e.criterion.is_empty() && short(&e.criterion) == decider)
                        .map(|e| &*e.reason)
                        .filter(|r| !r.is_empty())
                });
                Some(explanation(
                    t.should_continue.as_bool().unwrap_or(false),
                    non_empty(&t.stop_reason),
                    resolved_by,
                    reason,
                ))
            }
        }
    }
}

#[cfg(test)]
impl KeptContinuation {
    /// Whether it is kept typed (tests check which form a shape gets).
    pub(crate) fn is_typed(&self) -> bool {
        matches!(self.0, Repr::Trace(_))
    }
}

impl From<Value> for KeptContinuation {
    fn from(c: Value) -> KeptContinuation {
        KeptContinuation::new(c)
    }
}

/// `word` as a shared static string when it is one of `known`.
fn word(word: String, known: &[&'static str]) -> Word {
    match known.iter().find(|k| k.len() == word.len() && **k == word) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(word),
    }
}

impl Trace {
    /// The trace of `c`, or `c` back when it is not one.
    fn of(mut c: Value) -> Result<Trace, Value> {
        let typed = c.as_object().is_some_and(|m| {
            m.len() == FIELDS.len()
                && m.keys().zip(FIELDS).all(|(k, f)| k == f)
                && m.get("evaluations")
                    .and_then(Value::as_array)
                    .is_some_and(|list| list.iter().all(is_evaluation))
        });
        let Some(m) = c.as_object_mut().filter(|_| typed) else {
            return Err(c);
        };
        // The shape is checked: each member is taken out by its place.
        let mut take = |i: usize| m.take_at(i).unwrap_or_default();
        let (should_continue, stop_reason, resolved_by) =
            (shrunk(take(0)), shrunk(take(1)), shrunk(take(2)));
        let mut evaluations = Vec::new();
        if let Value::Array(list) = take(3) {
            evaluations.reserve_exact(list.len());
            for mut e in list {
                let mut text = |i: usize| match e.as_object_mut().and_then(|m| m.take_at(i)) {
                    Some(Value::String(s)) => s,
                    _ => String::new(),
                };
                evaluations.push(Evaluation {
                    criterion: word(text(0), CRITERIA),
                    decision: word(text(1), DECISIONS),
                    reason: text(2).into_boxed_str(),
                });
            }
        }
        Ok(Trace {
            should_continue,
            stop_reason,
            resolved_by,
            evaluations: evaluations.into_boxed_slice(),
        })
    }

    fn value(&self) -> Value {
        let mut list = Vec::with_capacity(self.evaluations.len());
        for e in &*self.evaluations {
            let mut o = Map::with_capacity(EVALUATION.len());
            o.push(EVALUATION[0], Value::from(&*e.criterion));
            o.push(EVALUATION[1], Value::from(&*e.decision));
            o.push(EVALUATION[2], Value::from(&*e.reason));
            list.push(Value::Object(o));
        }
        let mut m = Map::with_capacity(FIELDS.len());
        m.push(FIELDS[0], self.should_continue.clone());
        m.push(FIELDS[1], self.stop_reason.clone());
        m.push(FIELDS[2], self.resolved_by.clone());
        m.push(FIELDS[3], Value::Array(list));
        Value::Object(m)
    }
}

/// An object of exactly `criterion`, `decision` and `reason`, in that
/// order, each a string.
fn is_evaluation(e: &Value) -> bool {
    e.as_object().is_some_and(|m| {
        m.len() == EVALUATION.len()
            && m.iter()
                .zip(EVALUATION)
                .all(|((k, v), f)| k == f && v.is_string())
    })
}

/// A non-empty string value.
fn non_empty(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| !s.is_empty())
}

fn shrunk(mut v: Value) -> Value {
    v.shrink_to_fit();
    v
}

impl Serialize for KeptContinuation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Value(v) => v.serialize(s),
            Repr::Trace(t) => t.serialize(s),
        }
    }
}

/// Written as the object it was sent as, without building it (the view
/// writes a step at each change of it): its members in order, in the map
/// form [`Map`]'s own writer uses, so every writer and fingerprint sees
/// what it sees for the value.
impl Serialize for Trace {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(FIELDS.len()))?;
        m.serialize_entry(FIELDS[0], &self.should_continue)?;
        m.serialize_entry(FIELDS[1], &self.stop_reason)?;
        m.serialize_entry(FIELDS[2], &self.resolved_by)?;
        m.serialize_entry(FIELDS[3], &*self.evaluations)?;
        m.end()
    }
}

impl Serialize for Evaluation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(EVALUATION.len()))?;
        m.serialize_entry(EVALUATION[0], &*self.criterion)?;
        m.serialize_entry(EVALUATION[1], &*self.decision)?;
        m.serialize_entry(EVALUATION[2], &*self.reason)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::KeptContinuation;
    use crate::json::{from_str, Value};
    use crate::model::continuation::explain::streamed_explanation;

    /// Kept either way, the decision reads back, writes and explains as the
    /// value it was sent as.
    fn same_as_sent(c: &Value) -> KeptContinuation {
        let kept = KeptContinuation::new(c.clone());
        assert_eq!(*kept.value(), *c);
        assert_eq!(crate::json::to_text(&kept), crate::json::to_text(c));
        assert_eq!(
            crate::json::to_ascii_text(&kept),
            crate::json::to_ascii_text(c)
        );
        assert_eq!(kept.explanation(), streamed_explanation(c));
        // Kept as sent, without the decoder's spare room (a clone reserves
        // exactly what it holds).
        if !kept.is_typed() {
            let v = kept.value();
            assert_eq!(v.reserved(), v.clone().into_owned().reserved());
        }
        kept
    }

    #[test]
    fn kept_continuations_read_write_and_explain_as_sent() {
        let typed = [
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck","evaluations":[{"criterion":"StepsLimit","decision":"allow","reason":"Steps under limit: 1/100000"},{"criterion":"ToolCallPresenceCheck","decision":"request","reason":"Tool calls present, requesting continuation"}]}"#,
            r#"{"should_continue":false,"stop_reason":"steps_limit","resolved_by":"Agent\\StepsLimit","evaluations":[{"criterion":"Agent\\StepsLimit","decision":"forbid","reason":"Step limit reached: 5/5"}]}"#,
            r#"{"should_continue":false,"stop_reason":null,"resolved_by":"","evaluations":[]}"#,
            r#"{"should_continue":false,"stop_reason":"x","resolved_by":"aggregate","evaluations":[{"criterion":"","decision":"weighed","reason":""}]}"#,
            r#"{"should_continue":false,"stop_reason":"x","resolved_by":"Mine","evaluations":[{"criterion":"Mine","decision":"stop","reason":"é ü \u0001"}]}"#,
        ];
        for c in typed {
            assert!(same_as_sent(&from_str(c).unwrap()).is_typed(), "{c}");
        }
        // Any other shape is kept as sent: members in another order, one
        // more or fewer, a value of another type, no evaluations, v2's.
        let as_sent = [
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X","evaluations":[{"decision":"allow","criterion":"StepsLimit","reason":"r"}]}"#,
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X","evaluations":[{"criterion":"StepsLimit","decision":"allow","reason":"r","context":{"a":1}}]}"#,
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X","evaluations":[{"criterion":"StepsLimit","decision":"allow"}]}"#,
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X","evaluations":[{"criterion":"StepsLimit","decision":"allow","reason":null}]}"#,
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X","evaluations":null}"#,
            r#"{"stop_reason":"completed","should_continue":true,"resolved_by":"X","evaluations":[]}"#,
            r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X"}"#,
            r#"{"should_stop":true,"stop_reason":"steps_limit","resolved_by":"StepsLimit"}"#,
            r#""not an object""#,
        ];
        for c in as_sent {
            assert!(!same_as_sent(&from_str(c).unwrap()).is_typed(), "{c}");
        }
    }

    #[test]
    fn kept_continuations_share_the_known_words() {
        let c = from_str(r#"{"should_continue":true,"stop_reason":"completed","resolved_by":"X","evaluations":[{"criterion":"StepsLimit","decision":"allow","reason":"r"},{"criterion":"Custom","decision":"maybe","reason":"r"}]}"#).unwrap();
        let KeptContinuation(super::Repr::Trace(t)) = KeptContinuation::new(c) else {
            panic!("typed");
        };
        use std::borrow::Cow;
        assert!(matches!(
            t.evaluations[0].criterion,
            Cow::Borrowed("StepsLimit")
        ));
        assert!(matches!(t.evaluations[0].decision, Cow::Borrowed("allow")));
        assert!(matches!(&t.evaluations[1].criterion, Cow::Owned(s) if s == "Custom"));
        assert!(matches!(&t.evaluations[1].decision, Cow::Owned(s) if s == "maybe"));
    }
}
