//! One sentence saying why the loop went on or stopped after a streamed step,
//! from the continuation object as the producer sent it (`agent.continuation`'s
//! `{should_continue, stop_reason, resolved_by, evaluations}` in v1.22, or a v2
//! step completion's own `continuation`). The panel shows it under each step,
//! so the wording lives here and not in the UI.

use crate::json::Value;

/// The class name without its namespace (`…\StepsLimit` → `StepsLimit`).
pub(crate) fn short(name: &str) -> &str {
    name.rsplit('\\').next().unwrap_or(name)
}

/// A non-empty string field of `c`.
fn text<'a>(c: &'a Value, key: &str) -> Option<&'a str> {
    c.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The reason the deciding criterion gave, when its evaluation is in the trace.
fn decider_reason<'a>(c: &'a Value, resolved_by: &str) -> Option<&'a str> {
    c.get("evaluations")
        .and_then(Value::as_array)?
        .iter()
        .find(|e| text(e, "criterion").map(short) == Some(resolved_by))
        .and_then(|e| text(e, "reason"))
}

/// Why the loop went on or stopped after this streamed continuation, or
/// `None` when `c` is not an object.
///
/// ```
/// use stepline::json::{self, Limits};
/// use stepline::model::continuation::explain::streamed_explanation;
/// let c = json::parse(r#"{"should_continue": false, "stop_reason": "steps_limit",
///   "resolved_by": "Agent\\StepsLimit",
///   "evaluations": [{"criterion": "Agent\\StepsLimit", "decision": "forbid", "reason": "Step limit reached: 5/5"}]}"#,
///   &Limits::default()).unwrap();
/// assert_eq!(streamed_explanation(&c).as_deref(), Some("Stopped (steps_limit) by StepsLimit: Step limit reached: 5/5."));
/// ```
pub fn streamed_explanation(c: &Value) -> Option<String> {
    c.as_object()?;
    let goes_on = c
        .get("should_continue")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let resolved_by = text(c, "resolved_by");
    let reason = resolved_by.and_then(|r| decider_reason(c, short(r)));
    Some(explanation(
        goes_on,
        text(c, "stop_reason"),
        resolved_by,
        reason,
    ))
}

/// [`streamed_explanation`] from the object's parts (non-empty strings
/// only; `reason` is the one the evaluation of `resolved_by`'s [`short`]
/// name gave). A step's kept decision (src/session/kept_continuation.rs)
/// reads its own fields without building the object.
pub(crate) fn explanation(
    goes_on: bool,
    stop_reason: Option<&str>,
    resolved_by: Option<&str>,
    reason: Option<&str>,
) -> String {
    // Joined with `concat`, not `format!`: a replay's first read writes one
    // sentence per step, and the formatting machinery was a tenth of that
    // read (bench/findings.md).
    // v2.7 names no decider when no stop signal exists (its natural completion,
    // or a step that requested tools): `resolved_by` is '' and `stop_reason` null.
    let Some(resolved_by) = resolved_by else {
        return if goes_on {
            "Went on: no stop signal, so the loop took another step.".into()
        } else {
            [
                "Stopped (",
                stop_reason.unwrap_or("completed"),
                "): no stop signal and nothing more to do, so the run ended.",
            ]
            .concat()
        };
    };
    let decider = short(resolved_by);
    let because = if reason.is_some() { ": " } else { "" };
    let reason = reason.unwrap_or_default();
    if goes_on {
        [
            "Went on: ",
            decider,
            " requested another step",
            because,
            reason,
            ".",
        ]
        .concat()
    } else if resolved_by == "aggregate" {
        [
            "Stopped (",
            stop_reason.unwrap_or("completed"),
            "): nothing requested another step, so the run ended.",
        ]
        .concat()
    } else {
        [
            "Stopped (",
            stop_reason.unwrap_or("unknown"),
            ") by ",
            decider,
            because,
            reason,
            ".",
        ]
        .concat()
    }
}
