//! What `reconcile()` returns: the differences, the snapshot's window, and
//! the session view after the snapshot won.

use crate::model::usage::UsageWithTotal;
use crate::session::reconcile::Difference;
use crate::session::view::{Counts, Execution, ExecutionHeader, StepShape};
use crate::session::window::{Place, SnapshotWindow, Window};
use crate::session::{Session, SessionWarning};

use crate::json::Value;

/// The report: `consistent` is true when there is no difference at all.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Where the stream and the snapshot disagree, in the order found.
    pub differences: Vec<Difference>,
    /// Which run steps the snapshot's step list covers; the streamed steps
    /// before it are outside it (not compared, not differences).
    pub window: Window,
    /// The latest execution after the snapshot won (`None` when the
    /// session has none).
    pub won: Option<Execution>,
    /// The snapshot's `status`, when it is a string.
    pub state_status: Option<String>,
}

impl Report {
    /// No difference at all.
    pub fn consistent(&self) -> bool {
        self.differences.is_empty()
    }

    /// What `reconcile()` returns, for `session`, the session it was made from.
    pub fn view<'a>(&'a self, session: &'a Session) -> ReconcileReport<'a> {
        let header = session.header();
        let earlier = session.executions();
        let earlier = earlier
            .get(..earlier.len().saturating_sub(1))
            .unwrap_or_default();
        ReconcileReport {
            consistent: self.consistent(),
            differences: &self.differences,
            window: self.window.view(),
            view: ReconciledView {
                session_id: header.session_id,
                status: self.won.as_ref().and_then(Execution::status),
                state_status: self.state_status.as_deref(),
                usage: header.usage,
                counts: header.counts,
                rejected_sessions: header.rejected_sessions,
                warning_count: header.warning_count,
                warnings: session.warnings(),
                executions: ReconciledExecutions {
                    earlier,
                    won: self.won.as_ref().map(|e| (e, &self.window)),
                },
            },
        }
    }

    /// [`Report::view`] as a value (for tests).
    pub fn to_value(&self, session: &Session) -> Value {
        crate::json::to_value_of(&self.view(session))
    }
}

/// `reconcile()`: the snapshot wins; `view` is the corrected view, in which
/// every step keeps its own data (the snapshot's fields go to the run steps
/// its window covers) and each step of the reconciled execution says where
/// it stands (`snapshot_window`).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReconcileReport<'a> {
    /// No difference at all.
    pub consistent: bool,
    /// Where the stream and the snapshot disagree.
    pub differences: &'a [Difference],
    /// Which run steps the snapshot's step list covers.
    pub window: SnapshotWindow<'a>,
    /// The session view after the snapshot won.
    pub view: ReconciledView<'a>,
}

/// `reconcile()`'s view: the session view after the snapshot won.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReconciledView<'a> {
    /// As in the session view.
    pub session_id: Option<&'a str>,
    /// The reconciled execution's broadcast status.
    pub status: Option<&'a str>,
    /// The snapshot's own `status` (an `AgentStatus`, or v2's
    /// `ExecutionStatusV2`), `null` when it states none: the snapshot wins.
    #[cfg_attr(feature = "schema", schemars(schema_with = "snapshot_status_schema"))]
    pub state_status: Option<&'a str>,
    /// As in the session view.
    pub usage: UsageWithTotal,
    /// As in the session view.
    pub counts: Counts,
    /// As in the session view.
    pub rejected_sessions: &'a std::collections::BTreeMap<String, u64>,
    /// As in the session view.
    pub warning_count: u64,
    /// As in the session view.
    #[cfg_attr(feature = "schema", schemars(extend("readOnly" = true)))]
    pub warnings: &'a [SessionWarning],
    /// The executions; the reconciled one (the last) has marked steps.
    #[cfg_attr(feature = "schema", schemars(extend("readOnly" = true)))]
    pub executions: ReconciledExecutions<'a>,
}

#[cfg(feature = "schema")]
fn snapshot_status_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "enum": ["in_progress", "completed", "failed", "pending", "stopped", null]
    })
}

/// The executions of a reconciled view: the earlier ones as streamed, then
/// the reconciled one.
#[derive(Clone, Copy, Debug)]
pub struct ReconciledExecutions<'a> {
    /// Every execution but the last, as the session view shows them.
    pub earlier: &'a [Execution],
    /// The last one after the snapshot won, with the window its steps are placed in.
    pub won: Option<(&'a Execution, &'a Window)>,
}

impl serde::Serialize for ReconciledExecutions<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let earlier = self.earlier.iter().map(|e| execution_view(e, None));
        let won = self.won.map(|(e, w)| execution_view(e, Some(w)));
        s.collect_seq(earlier.chain(won))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ReconciledExecutions<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReconciledExecutions".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<ReconciledExecutionView<'static>>>::json_schema(g)
    }
}

fn execution_view<'a>(e: &'a Execution, window: Option<&'a Window>) -> ReconciledExecutionView<'a> {
    let view = e.view();
    ReconciledExecutionView {
        header: view.header,
        steps: ReconciledSteps {
            steps: &e.steps,
            execution: e.id.as_deref(),
            window,
        },
        text: view.text,
    }
}

/// An execution of `reconcile()`'s view; the reconciled one (the last) has marked steps.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReconciledExecutionView<'a> {
    /// Everything but the steps and the text.
    #[serde(flatten)]
    pub header: ExecutionHeader<'a>,
    /// The steps in step order.
    #[cfg_attr(feature = "schema", schemars(extend("readOnly" = true)))]
    pub steps: ReconciledSteps<'a>,
    /// Streamed text in chunk-index order, at most `maxTextBytes` of it.
    pub text: std::borrow::Cow<'a, str>,
}

/// An execution's steps, each marked with its place in `window` when there is one.
#[derive(Clone, Copy, Debug)]
pub struct ReconciledSteps<'a> {
    /// The steps by number.
    pub steps: &'a crate::session::view::StepMap,
    /// The execution's id (for the steps' generated ids).
    pub execution: Option<&'a str>,
    /// The snapshot's window (the reconciled execution only).
    pub window: Option<&'a Window>,
}

impl serde::Serialize for ReconciledSteps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.steps.values().map(|step| ReconciledStepView {
            step: step.view(self.execution),
            snapshot_window: self.window.map(|w| w.place(step.number)),
        }))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ReconciledSteps<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReconciledSteps".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<ReconciledStepView<'static>>>::json_schema(g)
    }
}

/// A step of `reconcile()`'s view: the streamed step, marked with its place
/// in the window (on the reconciled execution's steps only).
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReconciledStepView<'a> {
    /// The step as the session view shows it.
    #[serde(flatten)]
    pub step: StepShape<'a>,
    /// Where it stands against the snapshot's window.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Place"))]
    pub snapshot_window: Option<Place>,
}
