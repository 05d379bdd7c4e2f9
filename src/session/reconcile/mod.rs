//! Reconciliation: a session's stream against the final state a producer
//! kept, in one place. The final state wins; the report says exactly where
//! the two disagree, and names the differences the producer itself causes
//! (from [`crate::session::causes`]).
//!
//! - [`Session::reconcile`]: the latest execution against a slim snapshot
//!   of either instructor-php state version (`snapshot.rs`), the versions'
//!   differences being the hooks of `formats.rs`; [`Report`] and the view it
//!   serializes to are in `report.rs`.
//! - [`Session::reconcile_messages`]: the executions against a foreign
//!   producer's final form (AG-UI messages, AI SDK `UIMessage[]`, laravel/ai
//!   rows), which its dialect's reader turns into a [`FinalRun`]
//!   (`messages.rs`).
//!
//! Both use one matcher for tool calls and text (`matcher.rs`), the same
//! [`Difference`] kinds, and the same lost-event check.

use crate::error::Result;
use crate::json::Value;
use crate::session::final_state::FinalState;
use crate::session::view::{Execution, TERMINAL};
use crate::session::Session;

use crate::dialects::final_form::{self, FinalDialect, FinalRun};

mod final_run;
mod formats;
mod matcher;
pub mod messages;
mod report;
mod snapshot;

pub use messages::{reconcile_run, MessagesReconcileReport, ReconcileMessagesOptions, TurnPairing};
pub use report::{
    ReconcileReport, ReconciledExecutionView, ReconciledExecutions, ReconciledStepView,
    ReconciledSteps, ReconciledView, Report,
};

/// One disagreement between the stream and the final snapshot.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Difference {
    /// What disagrees.
    #[cfg_attr(feature = "schema", schemars(schema_with = "kind_schema"))]
    pub kind: &'static str,
    /// JSON pointer into the snapshot, or `/stream/...` for stream-only facts. A snapshot's
    /// `/steps/<i>` is its i-th listed step, which is run step `window.first_step + i`.
    pub path: String,
    /// The run step it is about (the run's own number, whatever the snapshot's window), or `null`.
    pub step: Option<i64>,
    /// What the stream says.
    pub streamed: Value,
    /// What the snapshot says.
    #[serde(rename = "final")]
    pub final_value: Value,
    /// For a person.
    pub message: String,
    /// The name of the producer behaviour that causes it by design (one of
    /// `reconcileCauses()`, e.g. `"reference_exception_path"`), or `null`
    /// when nothing explains it.
    #[cfg_attr(feature = "schema", schemars(schema_with = "cause_schema"))]
    pub cause: Option<&'static str>,
    /// The execution it is about (`reconcile()`'s latest execution, or the
    /// run `reconcileMessages()` compared), so a UI finds its step without
    /// reading the message; `null` only for envelopes without an execution id.
    pub execution_id: Option<String>,
}

/// Every `kind` a difference can have.
pub const DIFFERENCE_KINDS: [&str; 10] = [
    "missing_step",
    "extra_step",
    "step_not_completed",
    "field_mismatch",
    "tool_call_missing",
    "tool_call_unexpected",
    "continuation_mismatch",
    "status_mismatch",
    "text_mismatch",
    "lost_event",
];

#[cfg(feature = "schema")]
fn kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": DIFFERENCE_KINDS })
}

#[cfg(feature = "schema")]
fn cause_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names = crate::session::causes::cause_name_schema(g);
    schemars::json_schema!({ "anyOf": [names, { "type": "null" }] })
}

impl Difference {
    /// The difference as a value (for tests).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }
}

/// The differences found so far (every source's comparisons add to them).
pub(crate) struct Diffs(pub(crate) Vec<Difference>);

impl Diffs {
    pub(crate) fn push(
        &mut self,
        kind: &'static str,
        path: String,
        step: Option<i64>,
        streamed: Value,
        fin: Value,
        message: String,
    ) {
        self.0.push(Difference {
            kind,
            path,
            step,
            streamed,
            final_value: fin,
            message,
            cause: None,
            execution_id: None,
        });
    }
}

impl Session {
    /// Compares the latest execution with its final slim snapshot (a
    /// snapshot covers the state after one turn). Unreadable snapshot parts
    /// are compared as absent. The snapshot's steps are the run's last N
    /// (see [`Window`](crate::session::window::Window)); the steps before
    /// them are kept as streamed.
    pub fn reconcile(&self, snapshot: &Value) -> Report {
        self.reconcile_with(snapshot, None)
    }

    /// [`reconcile`](Session::reconcile) with a final state read by
    /// [`FinalState::read`]: its error text, which a slim snapshot does not
    /// keep, says why a failed run failed when the stream never did.
    pub fn reconcile_final(&self, state: &FinalState) -> Report {
        self.reconcile_with(&state.snapshot, state.error.as_deref())
    }

    fn reconcile_with(&self, snapshot: &Value, error: Option<&str>) -> Report {
        let empty = crate::json::Map::new();
        let snap = snapshot.as_object().unwrap_or(&empty);
        let mut streamed = self.executions().last().cloned().unwrap_or_default();
        streamed.settle();
        snapshot::reconcile(streamed, snap, error, !self.executions().is_empty())
    }

    /// Compares the session's executions with a producer's final form (an
    /// AG-UI message array or `MESSAGES_SNAPSHOT`, an AI SDK `UIMessage[]`,
    /// laravel/ai's stored rows), read by [`final_form::parse`]. A form of no
    /// known shape is a typed error with the path that decided it.
    pub fn reconcile_messages(
        &self,
        form: &Value,
        options: &ReconcileMessagesOptions,
    ) -> Result<MessagesReconcileReport> {
        let dialects = self.dialects.dialects();
        let named = match options.dialect {
            Some(FinalDialect(name)) => Some(dialects.final_form_named(name, "/options/dialect")?),
            None => None,
        };
        let run: FinalRun = final_form::parse(form, dialects, named)?;
        Ok(reconcile_run(self.executions(), &run))
    }
}

/// Events the view shows were sent but never arrived.
pub(crate) fn lost_events(e: &Execution, d: &mut Diffs) {
    let mut lost = |what: String, path: String, step: Option<i64>| {
        d.push("lost_event", path, step, Value::Null, Value::Null, what);
    };
    for n in e.missing_steps() {
        lost(
            format!("no event of step {n} arrived"),
            format!("/stream/steps/{n}"),
            Some(n),
        );
    }
    let streams_decisions = e.steps.values().any(|s| s.continuation.is_some());
    for (n, s) in &e.steps {
        if streams_decisions && s.seen_completed && s.continuation.is_none() {
            lost(
                format!("agent.continuation of step {n} never arrived"),
                format!("/stream/steps/{n}"),
                Some(*n),
            );
        }
        if s.seen_completed && !s.seen_started {
            lost(
                format!("agent.step.started of step {n} never arrived"),
                format!("/stream/steps/{n}"),
                Some(*n),
            );
        }
        for (t, run) in s.tools.iter().enumerate() {
            let p = format!("/stream/steps/{n}/tools/{t}");
            if run.seen_completed && !run.seen_started {
                lost(
                    format!(
                        "agent.tool.started of {} in step {n} never arrived",
                        run.name
                    ),
                    p,
                    Some(*n),
                );
            } else if run.seen_started && !run.seen_completed && s.seen_completed {
                lost(
                    format!(
                        "agent.tool.completed of {} in step {n} never arrived",
                        run.name
                    ),
                    p,
                    Some(*n),
                );
            }
        }
    }
    for i in e.missing_chunks() {
        lost(
            format!("stream chunk {i} never arrived"),
            format!("/stream/chunks/{i}"),
            None,
        );
    }
    for (s, prev) in &e.statuses {
        let Some(prev) = prev.as_deref() else {
            continue;
        };
        // A turn opens from idle, or from the previous turn's end.
        let opens = prev == "idle" || (s == "processing" && TERMINAL.contains(&prev));
        let reached = opens || e.statuses.iter().any(|(to, _)| to == prev);
        if !reached {
            lost(
                format!("the status change to {prev} (before {s}) never arrived"),
                "/stream/status".into(),
                None,
            );
        }
    }
}
