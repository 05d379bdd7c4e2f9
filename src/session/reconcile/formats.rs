//! The hooks by which the two instructor-php state versions differ when a
//! stream is compared with a slim snapshot: how a broadcast ending maps to the
//! state's status, the continuation outcome (v1.22) against the stop signal
//! (v2), the step durations (v2), and which differences the producer causes
//! by design (named from [`crate::session::causes`]). Everything else is
//! compared the same way for both (see `session/reconcile/snapshot.rs`).
//!
//! The hooks are one [`SnapshotHooks`] per state format, found by the name of
//! the format the state formats' registry (src/state_formats/registry.rs)
//! reads the snapshot's `state_version` as. They live here rather than in the
//! format's folder because they compare a session's own types (the
//! execution, its window, the differences), which sit above the formats in
//! the layers; a new format adds one impl and one line of [`HOOKS`].

use crate::json::{Map, Value};

use crate::session::causes::{
    ABORTED_STEP, GUARD_STARTED_STEP, REFERENCE_EXCEPTION_PATH, STEP_ERRORS_FAIL_STATE,
    UNFORCED_STOP,
};
use crate::session::reconcile::Diffs;
use crate::session::view::{state_status, Execution, StepView, TERMINAL};
use crate::session::window::Window;
use crate::state_formats::StateFormats;

/// One field of the streamed continuation and what the snapshot says of it.
pub(crate) struct Expect {
    /// The streamed continuation's key.
    key: &'static str,
    /// Where the snapshot says it.
    path: String,
    fin: Value,
    /// Whether a key the stream did not send reads as `null` (v2's signal
    /// fields are null when there is none) or always differs (v1.22).
    absent_is_null: bool,
}

/// What reconciling a slim snapshot does differently for one state format.
pub(crate) trait SnapshotHooks: Sync {
    /// The state status the broadcast statuses of `e` lead to.
    fn mapped_status(&self, e: &Execution) -> Option<&'static str>;

    /// Whether the stream shows the producer's exception path against
    /// `fin`, the snapshot's status (v1.22's; no such path by default).
    fn exception_path(&self, e: &Execution, fin: Option<&str>) -> bool {
        let _ = (e, fin);
        false
    }

    /// What the snapshot says of the last decision.
    fn expected_decision(&self, snap: &Map) -> Vec<Expect>;

    /// Whether the snapshot keeps the run's duration (v2's
    /// `execution.cumulative_seconds`).
    fn compares_duration(&self) -> bool {
        false
    }

    /// Names the differences the producer causes by design, each only where
    /// the stream shows the situation (see [`crate::session::causes`]).
    fn name_causes(
        &self,
        e: &Execution,
        snap: &Map,
        w: &Window,
        exception_path: bool,
        d: &mut Diffs,
    );
}

/// v1.22's hooks.
struct V1_22;

/// v2's hooks.
struct V2;

/// The hooks of each state format, by the format's name.
static HOOKS: &[(&str, &dyn SnapshotHooks)] = &[("v1.22", &V1_22), ("v2", &V2)];

impl SnapshotHooks for V1_22 {
    fn mapped_status(&self, e: &Execution) -> Option<&'static str> {
        e.status().and_then(state_status)
    }

    /// The reference's exception path leaves both the final status and the
    /// last step's completion unsent (a lost final status alone is not it).
    fn exception_path(&self, e: &Execution, fin: Option<&str>) -> bool {
        let never_final = !e.status().is_some_and(|s| TERMINAL.contains(&s));
        let last_unfinished = e
            .steps
            .values()
            .next_back()
            .is_some_and(|s| !s.seen_completed);
        never_final && last_unfinished && matches!(fin, Some("failed"))
    }

    /// `last_continuation`'s fields that it states.
    fn expected_decision(&self, snap: &Map) -> Vec<Expect> {
        let mut out = Vec::new();
        let Some(fin) = snap.get("last_continuation").and_then(Value::as_object) else {
            return out;
        };
        for key in ["should_continue", "stop_reason", "resolved_by"] {
            if let Some(v) = fin.get(key) {
                out.push(Expect {
                    key,
                    path: format!("/last_continuation/{key}"),
                    fin: v.clone(),
                    absent_is_null: false,
                });
            }
        }
        out
    }

    fn name_causes(&self, e: &Execution, _: &Map, _: &Window, exception_path: bool, d: &mut Diffs) {
        if exception_path {
            name_exception_path(e, d);
        }
    }
}

impl SnapshotHooks for V2 {
    fn mapped_status(&self, e: &Execution) -> Option<&'static str> {
        state_status_v2(e)
    }

    /// The winning stop signal, its reason (null when there is none) and its
    /// source (`''` when there is none), and `should_continue` against the
    /// trace's `should_stop` when the snapshot carries it.
    fn expected_decision(&self, snap: &Map) -> Vec<Expect> {
        let mut out = Vec::new();
        let mut expect = |key, path: &str, fin| {
            out.push(Expect {
                key,
                path: path.into(),
                fin,
                absent_is_null: true,
            });
        };
        if let Some(signal) = snap.get("stop_signal") {
            let field = |k: &str| signal.get(k).cloned().unwrap_or(Value::Null);
            let source = match field("source") {
                Value::Null => Value::from(""),
                s => s,
            };
            expect("stop_reason", "/stop_signal/reason", field("reason"));
            expect("resolved_by", "/stop_signal/source", source);
        }
        if let Some(stop) = snap
            .get("continuation")
            .and_then(|c| c.get("should_stop"))
            .and_then(Value::as_bool)
        {
            expect(
                "should_continue",
                "/continuation/should_stop",
                Value::Bool(!stop),
            );
        }
        out
    }

    fn compares_duration(&self) -> bool {
        true
    }

    fn name_causes(&self, e: &Execution, snap: &Map, w: &Window, _: bool, d: &mut Diffs) {
        name_v2_causes(e, snap, w, d);
    }
}

/// The hooks of the state format a slim snapshot is of.
#[derive(Clone, Copy)]
pub(crate) struct StateFormat(&'static dyn SnapshotHooks);

impl StateFormat {
    /// The format of `snap`: a `state_version` no format carries is v1.22's,
    /// as it always was here.
    pub(crate) fn of(snap: &Map) -> StateFormat {
        let format = StateFormats::built_in().of_snapshot_or_first(snap.get("state_version"));
        let hooks = HOOKS
            .iter()
            .find(|(name, _)| *name == format.name())
            .map_or(&V1_22 as &dyn SnapshotHooks, |(_, hooks)| *hooks);
        StateFormat(hooks)
    }

    /// Whether the stream shows the format's exception path against `fin`,
    /// the snapshot's status.
    pub(crate) fn exception_path(self, e: &Execution, fin: Option<&str>) -> bool {
        self.0.exception_path(e, fin)
    }

    /// Pushes a `status_mismatch` when the state status the broadcast leads
    /// to is not `fin`, the snapshot's.
    pub(crate) fn compare_status(self, e: &Execution, fin: Option<&str>, d: &mut Diffs) {
        let mapped = self.0.mapped_status(e);
        if fin.is_none() || mapped == fin {
            return;
        }
        let broadcast = e.status();
        d.push(
            "status_mismatch",
            "/status".into(),
            None,
            broadcast.map_or(Value::Null, Value::from),
            fin.map_or(Value::Null, Value::from),
            format!(
                "streamed status {} maps to {}, the final state is {}",
                broadcast.unwrap_or("(none)"),
                mapped.unwrap_or("(none)"),
                fin.unwrap_or("(none)")
            ),
        );
    }

    /// The last step's streamed continuation against the snapshot's last
    /// decision. Only the last step's own decision is comparable; when it was
    /// lost, `lost_events` says so.
    pub(crate) fn compare_continuation(self, e: &Execution, snap: &Map, d: &mut Diffs) {
        let Some((n, streamed)) = e
            .steps
            .iter()
            .next_back()
            .and_then(|(n, s)| s.continuation.as_ref().map(|c| (*n, c.value())))
        else {
            return;
        };
        for x in self.0.expected_decision(snap) {
            let got = match streamed.get(x.key) {
                Some(v) => v,
                None if x.absent_is_null => &Value::Null,
                None => {
                    push_decision(d, n, x.key, x.path, Value::Null, x.fin);
                    continue;
                }
            };
            if *got != x.fin {
                push_decision(d, n, x.key, x.path, got.clone(), x.fin);
            }
        }
    }

    /// The streamed step durations (ms) summed against v2's
    /// `cumulative_seconds`, when every step of the run is both streamed and
    /// completed (otherwise the sums cover different steps). A streamed
    /// `duration_ms` covers only the after-step hooks (item 12), so it may be
    /// any part of the step's time, but never more: only streamed durations
    /// longer than the state's are a difference. v2 stores step times as ATOM
    /// dates in whole seconds, so each step's stored duration is off by less
    /// than a second: the streamed sum must pass the stored one by more than a
    /// second per step. A v1.22 snapshot keeps no run duration.
    pub(crate) fn compare_duration(self, e: &Execution, snap: &Map, w: &Window, d: &mut Diffs) {
        if !self.0.compares_duration() {
            return;
        }
        let Some(fin) = snap
            .get("execution")
            .and_then(|x| x.get("cumulative_seconds"))
            .and_then(Value::as_f64)
        else {
            return;
        };
        let steps: Vec<&StepView> = e
            .steps
            .values()
            .map(|s| &**s)
            .filter(|s| s.number >= 1)
            .collect();
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

    /// Names the differences the producer causes by design.
    pub(crate) fn name_causes(
        self,
        e: &Execution,
        snap: &Map,
        w: &Window,
        exception_path: bool,
        d: &mut Diffs,
    ) {
        self.0.name_causes(e, snap, w, exception_path, d);
    }
}

fn push_decision(d: &mut Diffs, n: i64, key: &str, path: String, streamed: Value, fin: Value) {
    d.push(
        "continuation_mismatch",
        path,
        Some(n),
        streamed,
        fin,
        format!("the continuation streamed for step {n} differs in `{key}`"),
    );
}

/// v1.22 quirk 7: a throwing tool or driver sends no final status and no
/// completion of the step it was in, and the final state does not list the
/// run of the tool that threw.
fn name_exception_path(e: &Execution, d: &mut Diffs) {
    let unfinished = |n: Option<i64>| {
        n.and_then(|n| e.steps.get(&n))
            .is_some_and(|s| !s.seen_completed)
    };
    for diff in &mut d.0 {
        let named = match diff.kind {
            "status_mismatch" => {
                diff.message
                    .push_str("; no final status was broadcast (the reference's exception path)");
                true
            }
            "step_not_completed" => true,
            "tool_call_unexpected" => unfinished(diff.step),
            _ => false,
        };
        if named {
            diff.cause = Some(REFERENCE_EXCEPTION_PATH);
        }
    }
}

/// The v2 state status the broadcast statuses of `e` lead to (items 5, 6,
/// 16, 19): a run ends `completed → stopped` (or `completed` alone on the
/// observer path) when it completed, `failed → stopped` (or `failed`) when
/// it failed, and `cancelled` when the user cancelled it, which the state
/// records as `stopped` (`user_requested` force-stops). A `stopped` alone
/// is a forced stop (a guard, a stop request) unless the last streamed
/// continuation says the winning reason was `finish_reason` or `completed`
/// (or that there was none): those do not force, and the state completes.
pub(crate) fn state_status_v2(e: &Execution) -> Option<&'static str> {
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
fn last_stop_reason(e: &Execution) -> Option<Value> {
    e.steps
        .values()
        .rev()
        .filter_map(|s| {
            s.continuation
                .as_ref()
                .map(crate::session::kept_continuation::KeptContinuation::value)
        })
        .find(|c| c.get("should_continue").and_then(Value::as_bool) == Some(false))
        .map(|c| c.get("stop_reason").cloned().unwrap_or(Value::Null))
}

/// The differences the v2 producer causes by design.
fn name_v2_causes(e: &Execution, snap: &Map, w: &Window, d: &mut Diffs) {
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
