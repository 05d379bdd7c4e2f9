//! Reconciliation against a v2 slim snapshot (`state_version: "v2"`): what
//! differs from v1.22 is how a broadcast ends maps to the state's status, the
//! stop signal in place of the continuation outcome, the step durations, and
//! which differences the v2 producer causes by design (named from
//! [`crate::session::causes`]).

use crate::json::{Map, Value};

use crate::session::causes::{
    ABORTED_STEP, GUARD_STARTED_STEP, STEP_ERRORS_FAIL_STATE, UNFORCED_STOP,
};
use crate::session::reconcile::{self, Diffs};
use crate::session::view::{Execution, StepView};
use crate::session::window::Window;

/// Whether `snap` is a v2 slim snapshot.
pub fn is_v2(snap: &Map) -> bool {
    snap.get("state_version").and_then(Value::as_str) == Some("v2")
}

/// The v2 state status the broadcast statuses of `e` lead to (items 5, 6,
/// 16, 19): a run ends `completed → stopped` (or `completed` alone on the
/// observer path) when it completed, `failed → stopped` (or `failed`) when
/// it failed, and `cancelled` when the user cancelled it, which the state
/// records as `stopped` (`user_requested` force-stops). A `stopped` alone
/// is a forced stop (a guard, a stop request) unless the last streamed
/// continuation says the winning reason was `finish_reason` or `completed`
/// (or that there was none): those do not force, and the state completes.
pub fn state_status_v2(e: &Execution) -> Option<&'static str> {
    let end = e.status()?;
    let came_from = |from: &str| {
        e.statuses
            .iter()
            .any(|(to, f)| to == end && f.as_deref() == Some(from))
    };
    Some(match end {
        "processing" | "in_progress" => "in_progress",
        "failed" => "failed",
        "stopped" if came_from("failed") => "failed",
        "cancelled" => "stopped",
        "completed" => "completed",
        "stopped" if came_from("completed") => "completed",
        "stopped" => match last_stop_reason(e) {
            Some(Value::Null) => "completed",
            Some(Value::String(r)) if r == "finish_reason" || r == "completed" => "completed",
            _ => "stopped",
        },
        _ => return None,
    })
}

/// The `stop_reason` of the last streamed continuation that stopped, if one
/// arrived (`Value::Null` when it named none).
fn last_stop_reason(e: &Execution) -> Option<&Value> {
    e.steps
        .values()
        .rev()
        .filter_map(|s| s.continuation.as_ref())
        .find(|c| c.get("should_continue").and_then(Value::as_bool) == Some(false))
        .map(|c| c.get("stop_reason").unwrap_or(&Value::Null))
}

/// The snapshot's status against the one the broadcast leads to.
pub(crate) fn compare_status(e: &Execution, snap: &Map, d: &mut Diffs) {
    let fin = snap.get("status").and_then(Value::as_str);
    let broadcast = e.status();
    let mapped = state_status_v2(e);
    reconcile::status_mismatch(broadcast, mapped, fin, d);
}

/// The last streamed continuation against the snapshot's winning stop
/// signal: its reason (null when there is none) and its source (`''` when
/// there is none); `should_continue` against the trace's `should_stop` when
/// the snapshot carries it.
pub(crate) fn compare_continuation(e: &Execution, snap: &Map, d: &mut Diffs) {
    let Some((n, streamed)) = e
        .steps
        .iter()
        .next_back()
        .and_then(|(n, s)| s.continuation.as_ref().map(|c| (*n, c)))
    else {
        return;
    };
    let mut expect: Vec<(&str, &str, Value)> = Vec::new();
    if let Some(signal) = snap.get("stop_signal") {
        let field = |k: &str| signal.get(k).cloned().unwrap_or(Value::Null);
        let source = match field("source") {
            Value::Null => Value::from(""),
            s => s,
        };
        expect.push(("stop_reason", "/stop_signal/reason", field("reason")));
        expect.push(("resolved_by", "/stop_signal/source", source));
    }
    if let Some(stop) = snap
        .get("continuation")
        .and_then(|c| c.get("should_stop"))
        .and_then(Value::as_bool)
    {
        expect.push((
            "should_continue",
            "/continuation/should_stop",
            Value::Bool(!stop),
        ));
    }
    for (k, path, fin) in expect {
        let got = streamed.get(k).cloned().unwrap_or(Value::Null);
        if got != fin {
            d.push(
                "continuation_mismatch",
                path.into(),
                Some(n),
                got,
                fin,
                format!("the continuation streamed for step {n} differs in `{k}`"),
            );
        }
    }
}

/// The streamed step durations (ms) summed against the state's
/// `cumulative_seconds`, when every step of the run is both streamed and
/// completed (otherwise the sums cover different steps). A streamed
/// `duration_ms` covers only the after-step hooks (item 12), so it may be
/// any part of the step's time, but never more: only streamed durations
/// longer than the state's are a difference. v2 stores step times as ATOM
/// dates in whole seconds, so each step's stored duration is off by less
/// than a second: the streamed sum must pass the stored one by more than a
/// second per step.
pub(crate) fn compare_duration(e: &Execution, snap: &Map, w: &Window, d: &mut Diffs) {
    let Some(fin) = snap
        .get("execution")
        .and_then(|x| x.get("cumulative_seconds"))
        .and_then(Value::as_f64)
    else {
        return;
    };
    let steps: Vec<&StepView> = e.steps.values().filter(|s| s.number >= 1).collect();
    let whole = !steps.is_empty()
        && i64::try_from(steps.len()).ok() == Some(w.last)
        && steps.iter().all(|s| s.seen_completed);
    if !whole {
        return;
    }
    let mut streamed_ms = 0.0;
    for s in &steps {
        match s.duration_ms.as_ref().and_then(Value::as_f64) {
            Some(ms) => streamed_ms += ms,
            None => return,
        }
    }
    let streamed = streamed_ms / 1000.0;
    let precision = steps.len() as f64;
    if streamed - fin > precision {
        d.push(
            "field_mismatch",
            "/execution/cumulative_seconds".into(),
            None,
            Value::from(streamed),
            Value::from(fin),
            // Whole milliseconds: formatting an f64 would pull core's float
            // printing into the package.
            format!(
                "the streamed step durations add up to {} ms, more than the final state's {} ms",
                streamed_ms.round() as i64,
                (fin * 1000.0).round() as i64
            ),
        );
    }
}

/// Names the differences the v2 producer causes by design, each only where
/// the stream shows the situation (see [`crate::session::causes`]).
pub(crate) fn name_causes(e: &Execution, snap: &Map, w: &Window, d: &mut Diffs) {
    let fin = snap.get("status").and_then(Value::as_str);
    let mapped = state_status_v2(e);
    let step_errors = e
        .steps
        .values()
        .any(|s| s.errors.unwrap_or(0) > 0 || s.tools.iter().any(|t| t.success == Some(false)));
    // The session's never-run step (only its start arrived, then the run
    // stopped or was cancelled), one past the state's steps: the step a
    // before-step hook stopped (item 10).
    let never_ran = e.never_ran_step().filter(|n| *n == w.last + 1);
    // An aborted step's completion (no finish reason, zero usage, item 9)
    // carries the number of recorded steps; the decoder renumbers it to the
    // attempt (`recorded_steps`), which the session marks `attempt_failed`.
    let aborted: Vec<i64> = e
        .steps
        .values()
        .filter(|s| s.attempt_failed)
        .map(|s| s.number)
        .collect();
    let on_aborted = |n: Option<i64>| n.is_some_and(|n| aborted.contains(&n));
    let stop_unknown = last_stop_reason(e).is_none();
    for diff in &mut d.0 {
        if diff.cause.is_some() {
            continue;
        }
        diff.cause = match diff.kind {
            "status_mismatch"
                if fin == Some("failed") && step_errors && mapped == Some("completed") =>
            {
                Some(STEP_ERRORS_FAIL_STATE)
            }
            "status_mismatch"
                if fin == Some("completed") && mapped == Some("stopped") && stop_unknown =>
            {
                Some(UNFORCED_STOP)
            }
            "extra_step" | "lost_event" | "field_mismatch" | "continuation_mismatch"
                if on_aborted(diff.step) =>
            {
                Some(ABORTED_STEP)
            }
            "extra_step" if never_ran.is_some() && diff.step == never_ran => {
                Some(GUARD_STARTED_STEP)
            }
            _ => None,
        };
    }
}
