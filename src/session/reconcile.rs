//! Reconciliation: the streamed view against the final slim snapshot. The
//! snapshot wins; the report says exactly where the two disagree, and names
//! the differences the reference producer itself causes.

use crate::json::{Map, Value};

use crate::json::{child, index};
use crate::model::usage::UsageWithTotal;
use crate::session::causes::REFERENCE_EXCEPTION_PATH;
use crate::session::final_state::FinalState;
use crate::session::reconcile_v2;
use crate::session::view::{
    state_status, Counts, Execution, ExecutionHeader, StepShape, StepView, ToolRun, TERMINAL,
};
use crate::session::window::{Place, SnapshotWindow, Window};
use crate::session::{Session, SessionWarning};

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
    pub steps: &'a std::collections::BTreeMap<i64, StepView>,
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

/// The differences found so far (v2's comparisons add to them too).
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
    /// (see [`Window`]); the steps before them are kept as streamed.
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
        let empty = Map::new();
        let snap = snapshot.as_object().unwrap_or(&empty);
        let mut streamed = self.executions().last().cloned().unwrap_or_default();
        streamed.settle();
        let window = Window::of(snap, &streamed);
        let mut d = Diffs(Vec::new());
        let v2 = reconcile_v2::is_v2(snap);
        let exception_path = if v2 {
            reconcile_v2::compare_status(&streamed, snap, &mut d);
            false
        } else {
            compare_status(&streamed, snap, &mut d)
        };
        compare_steps(&streamed, snap, &window, &mut d, exception_path);
        if v2 {
            reconcile_v2::compare_continuation(&streamed, snap, &mut d);
        } else {
            compare_continuation(&streamed, snap, &mut d);
        }
        compare_text(&streamed, snap, &mut d);
        lost_events(&streamed, &mut d);
        if v2 {
            reconcile_v2::compare_duration(&streamed, snap, &window, &mut d);
            reconcile_v2::name_causes(&streamed, snap, &window, &mut d);
        }
        // Every difference names its execution, as `reconcileMessages()`'s do.
        for diff in &mut d.0 {
            diff.execution_id.clone_from(&streamed.id);
        }
        let mut won = streamed;
        snapshot_wins(&mut won, snap, &window, error, exception_path);
        Report {
            differences: d.0,
            window,
            won: (!self.executions().is_empty()).then_some(won),
            state_status: snap.get("status").and_then(Value::as_str).map(String::from),
        }
    }
}

/// Status: the snapshot's state status against the mapped broadcast one.
/// Returns whether the stream shows the reference's exception path.
fn compare_status(e: &Execution, snap: &Map, d: &mut Diffs) -> bool {
    let fin = snap.get("status").and_then(Value::as_str);
    let broadcast = e.status();
    let mapped = broadcast.and_then(state_status);
    let never_final = !broadcast.is_some_and(|s| TERMINAL.contains(&s));
    // The reference's exception path leaves both the final status and the
    // last step's completion unsent; a lost final status alone is not it.
    let last_unfinished = e
        .steps
        .values()
        .next_back()
        .is_some_and(|s| !s.seen_completed);
    let exception_path = never_final && last_unfinished && matches!(fin, Some("failed"));
    if status_mismatch(broadcast, mapped, fin, d) && exception_path {
        if let Some(last) = d.0.last_mut() {
            last.cause = Some(REFERENCE_EXCEPTION_PATH);
            last.message
                .push_str("; no final status was broadcast (the reference's exception path)");
        }
    }
    exception_path
}

/// Pushes a `status_mismatch` when the state status the broadcast leads to
/// (`mapped`, by either producer's rule) is not the snapshot's; says whether it did.
pub(crate) fn status_mismatch(
    broadcast: Option<&str>,
    mapped: Option<&str>,
    fin: Option<&str>,
    d: &mut Diffs,
) -> bool {
    if fin.is_none() || mapped == fin {
        return false;
    }
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
    true
}

fn compare_steps(e: &Execution, snap: &Map, w: &Window, d: &mut Diffs, exception_path: bool) {
    let listed = snap
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (i, st) in listed.iter().enumerate() {
        let path = index("/steps", i);
        // Placed by position: `step_number` counts within the window (v1.22 quirk 2).
        let n = w.run_step(i);
        let Some(s) = e.steps.get(&n) else {
            d.push(
                "missing_step",
                path,
                Some(n),
                Value::Null,
                Value::from(n),
                format!("step {n} is in the final state but nothing of it was streamed"),
            );
            continue;
        };
        if !s.seen_completed && s.seen_started {
            d.push(
                "step_not_completed",
                child(&path, "step_number"),
                Some(n),
                Value::from(n),
                Value::from(n),
                format!("step {n} started but its completion was never streamed"),
            );
            if exception_path {
                if let Some(last) = d.0.last_mut() {
                    last.cause = Some(REFERENCE_EXCEPTION_PATH);
                }
            }
        }
        compare_fields(s, st, &path, d);
        let before = d.0.len();
        compare_tools(s, st, &path, d);
        // A throwing tool leaves a started run the final state does not list.
        if exception_path && !s.seen_completed {
            for diff in d.0.iter_mut().skip(before) {
                if diff.kind == "tool_call_unexpected" {
                    diff.cause = Some(REFERENCE_EXCEPTION_PATH);
                }
            }
        }
    }
    for (n, s) in e.steps.iter().filter(|(n, _)| **n > w.last) {
        d.push(
            "extra_step",
            format!("/stream/steps/{n}"),
            Some(*n),
            crate::json::to_value_of(&s.view(e.id.as_deref())),
            Value::Null,
            format!("step {n} was streamed but the final state does not list it"),
        );
    }
}

fn compare_fields(s: &StepView, st: &Value, path: &str, d: &mut Diffs) {
    if !s.seen_completed {
        return;
    }
    let mut field = |k: &str, streamed: Value, fin: Option<&Value>| {
        let Some(fin) = fin else { return };
        if streamed.is_null() || &streamed == fin {
            return;
        }
        d.push(
            "field_mismatch",
            child(path, k),
            Some(s.number),
            streamed,
            fin.clone(),
            format!(
                "step {}: `{k}` differs between stream and final state",
                s.number
            ),
        );
    };
    field(
        "has_tool_calls",
        s.has_tool_calls.map_or(Value::Null, Value::from),
        st.get("has_tool_calls"),
    );
    field(
        "finish_reason",
        s.finish_reason.as_deref().map_or(Value::Null, Value::from),
        st.get("finish_reason"),
    );
    field(
        "errors",
        s.errors.map_or(Value::Null, Value::from),
        st.get("errors"),
    );
    field(
        "type",
        s.step_type().map_or(Value::Null, Value::from),
        st.get("type"),
    );
    let total = st.get("usage").and_then(|u| u.get("total"));
    // The producer's own total where it sent one (seed 000's `usage.total`).
    let streamed_total = s.usage_total().map_or(Value::Null, Value::from);
    if let Some(total) = total {
        if !streamed_total.is_null() && &streamed_total != total {
            d.push(
                "field_mismatch",
                format!("{path}/usage/total"),
                Some(s.number),
                streamed_total,
                total.clone(),
                format!(
                    "step {}: usage differs between stream and final state",
                    s.number
                ),
            );
        }
    }
}

/// Tool calls compared by name (the v1.22 stream carries no call ids).
fn compare_tools(s: &StepView, st: &Value, path: &str, d: &mut Diffs) {
    let Some(calls) = st.get("tool_calls").and_then(Value::as_array) else {
        return;
    };
    let mut unmatched: Vec<usize> = (0..s.tools.len()).collect();
    for (j, call) in calls.iter().enumerate() {
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let id = call.get("id").and_then(Value::as_str);
        let hit = unmatched.iter().position(|&t| {
            s.tools.get(t).is_some_and(|run| {
                run.name == name && (run.call_id.is_none() || run.call_id.as_deref() == id)
            })
        });
        match hit {
            Some(k) => {
                unmatched.remove(k);
            }
            None => d.push(
                "tool_call_missing",
                index(&child(path, "tool_calls"), j),
                Some(s.number),
                Value::Null,
                call.clone(),
                format!("step {}: tool call {name} was never streamed", s.number),
            ),
        }
    }
    for (t, run) in unmatched
        .into_iter()
        .filter_map(|t| Some((t, s.tools.get(t)?)))
    {
        d.push(
            "tool_call_unexpected",
            format!("/stream/steps/{}/tools/{t}", s.number),
            Some(s.number),
            crate::json::to_value_of(&run.view()),
            Value::Null,
            format!(
                "step {}: streamed tool run {} is not in the final state",
                s.number, run.name
            ),
        );
    }
}

fn compare_continuation(e: &Execution, snap: &Map, d: &mut Diffs) {
    let Some(fin) = snap.get("last_continuation").and_then(Value::as_object) else {
        return;
    };
    // Only the last step's own decision is comparable; when it was lost,
    // `lost_events` says so.
    let Some((n, streamed)) = e
        .steps
        .iter()
        .next_back()
        .and_then(|(n, s)| s.continuation.as_ref().map(|c| (n, c)))
    else {
        return;
    };
    for k in ["should_continue", "stop_reason", "resolved_by"] {
        let (a, b) = (streamed.get(k), fin.get(k));
        if b.is_some() && a != b {
            d.push(
                "continuation_mismatch",
                format!("/last_continuation/{k}"),
                Some(*n),
                a.cloned().unwrap_or(Value::Null),
                b.cloned().unwrap_or(Value::Null),
                format!("the continuation streamed for step {n} differs in `{k}`"),
            );
        }
    }
}

/// The streamed text against the last assistant message, which a slim
/// snapshot may have cut to its content limit (`...` suffix).
///
/// v1.22 chunks carry no step number, so an execution's text runs on across
/// steps: a model that says "Let me check the logs." before a tool call and
/// answers two steps later streams both, while the final message holds only
/// the answer. The final message therefore has to be the end of the streamed
/// text (or, cut, appear in it followed by more).
///
/// When the session's text limit dropped the end of the stream, only what
/// was kept is compared: the final message, placed at the end of the whole
/// stream (its length is known), must agree with the kept text where the
/// two overlap. A truncated stream is not a difference in itself.
fn compare_text(e: &Execution, snap: &Map, d: &mut Diffs) {
    if e.stream.is_empty() && e.steps.values().all(|s| s.text.is_empty()) {
        return;
    }
    let Some(messages) = snap.get("messages").and_then(Value::as_array) else {
        return;
    };
    let Some((i, content)) = messages.iter().enumerate().rev().find_map(|(i, m)| {
        (m.get("role").and_then(Value::as_str) == Some("assistant"))
            .then(|| m.get("content").and_then(Value::as_str).map(|c| (i, c)))
            .flatten()
    }) else {
        return;
    };
    let streamed = e.text.as_str();
    let dropped = e.text_dropped_bytes();
    let same = if dropped > 0 {
        agrees_within_kept(streamed, dropped, content)
    } else {
        streamed == content
            || (!content.is_empty() && streamed.ends_with(content))
            || content.strip_suffix("...").is_some_and(|cut| {
                streamed
                    .rfind(cut)
                    .is_some_and(|at| streamed.len() > at + cut.len())
            })
    };
    if !same {
        d.push(
            "text_mismatch",
            format!("/messages/{i}/content"),
            None,
            Value::from(streamed),
            Value::from(content),
            "the streamed text differs from the final assistant message".into(),
        );
    }
}

/// Whether `content`, the end of a stream of which `kept` is the start and
/// `dropped` bytes followed, agrees with `kept` where they overlap. A
/// message the snapshot cut (`...`) could sit anywhere, so it always can.
fn agrees_within_kept(kept: &str, dropped: u64, content: &str) -> bool {
    if content.ends_with("...") {
        return true;
    }
    let whole = kept.len() as u64 + dropped;
    let Some(start) = whole.checked_sub(content.len() as u64) else {
        return false;
    };
    match usize::try_from(start).ok().and_then(|s| kept.get(s..)) {
        Some(overlap) => content.starts_with(overlap),
        // It starts past the kept text (or inside a character: no match).
        None => start >= kept.len() as u64,
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

/// The execution corrected by the snapshot: its status, and per listed
/// step (placed in the run by the window) the final fields; steps that never
/// streamed are added. Steps outside the window keep what was streamed.
fn snapshot_wins(
    e: &mut Execution,
    snap: &Map,
    w: &Window,
    error: Option<&str>,
    exception_path: bool,
) {
    let listed = snap
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (i, st) in listed.iter().enumerate() {
        let n = w.run_step(i);
        if !e.steps.contains_key(&n) {
            e.step_gaps.arrived(n, 1);
        }
        let s = e.steps.entry(n).or_insert_with(|| StepView::new(n));
        if let Some(b) = st.get("has_tool_calls").and_then(Value::as_bool) {
            s.has_tool_calls = Some(b);
        }
        if let Some(f) = st.get("finish_reason").and_then(Value::as_str) {
            s.finish_reason = Some(f.to_string());
        }
        if let Some(n) = st.get("errors").and_then(Value::as_i64) {
            s.errors = Some(n);
        }
        // Seed 000: the snapshot's duration from the stored step timing
        // (docs/seeds/000-slim-serialization-and-adapter.md); null keeps the streamed one.
        if let Some(ms) = st.get("duration_ms").filter(|v| v.is_number()) {
            s.duration_ms = Some(ms.clone());
        }
        if let Some(calls) = st.get("tool_calls").and_then(Value::as_array) {
            let clean = st.get("errors").and_then(Value::as_i64) == Some(0);
            // The reference's exception path leaves the throwing tool out of
            // the final state (see `compare_steps`): that run is real.
            let keep_unlisted = exception_path && !s.seen_completed;
            s.tools = final_tools(std::mem::take(&mut s.tools), calls, clean, keep_unlisted);
            s.tool_index = Default::default();
        }
    }
    let broadcast = match snap.get("status").and_then(Value::as_str) {
        Some("failed") => Some("failed"),
        Some("completed") if !e.status().is_some_and(|s| TERMINAL.contains(&s)) => {
            Some("completed")
        }
        _ => None,
    };
    if let Some(b) = broadcast {
        if e.status() != Some(b) {
            let prev = e.status().map(str::to_string);
            e.push_status(b.to_string(), prev);
        }
    }
    // A run whose driver threw broadcasts no error (v1.22 quirk 7): the
    // final state's own words say why it failed, else what it counts.
    let failed = snap.get("status").and_then(Value::as_str) == Some("failed");
    if failed && e.run_error.is_none() && e.status_detail.error_message().is_none() {
        e.run_error = Some(error.map_or_else(|| unworded_failure(snap, w), str::to_string));
    }
    // An answer the stream never carried (no chunk, no `agent.run.completed`)
    // is the final state's last assistant message: the panel shows it as the
    // run's answer instead of an empty text.
    if e.final_answer.is_none() && e.text.is_empty() {
        e.final_answer = last_assistant_content(snap).map(String::from);
    }
    // The turn's user message is the final state's last one (each turn
    // starts from the previous state with the user's message added);
    // seed 002's turns carry it (docs/seeds/002-event-serialization-system-design.md §4.1).
    if e.user_message.is_none() {
        let messages = snap.get("messages").and_then(Value::as_array);
        e.user_message = messages
            .and_then(|m| crate::session::view::last_user_content(m))
            .map(String::from);
    }
}

/// A step's tool runs once the final state won: its calls in its order
/// (the model's; runs without call ids streamed in arrival order), each
/// the streamed run it matches as `compare_tools` matches them (by name,
/// and by id when both have one), with what the stream told of it, or,
/// when nothing of it was streamed, a run made from the call. Streamed runs
/// the final state does not list are not in it: seed 002's final response
/// is canonical, interim completions are replaced, not merged
/// (docs/seeds/002-event-serialization-system-design.md). A call known
/// only from the final state of a step without errors succeeded. With
/// `keep_unlisted` (a step the reference's exception path cut short, whose
/// throwing tool its final state never lists) the unlisted runs stay, after
/// the listed ones.
fn final_tools(
    mut streamed: Vec<ToolRun>,
    calls: &[Value],
    clean: bool,
    keep_unlisted: bool,
) -> Vec<ToolRun> {
    let mut out = Vec::with_capacity(calls.len());
    for call in calls {
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let id = call.get("id").and_then(Value::as_str);
        let hit = streamed.iter().position(|run| {
            run.name == name && (run.call_id.is_none() || run.call_id.as_deref() == id)
        });
        out.push(match hit {
            Some(k) => streamed.remove(k),
            None => ToolRun {
                name: name.to_string(),
                call_id: id.map(str::to_string),
                args: call.get("args").filter(|v| !v.is_null()).cloned(),
                success: clean.then_some(true),
                ..ToolRun::default()
            },
        });
    }
    if keep_unlisted {
        out.append(&mut streamed);
    }
    out
}

/// The content of the snapshot's last assistant message (`None` when it has none, or it is empty).
fn last_assistant_content(snap: &Map) -> Option<&str> {
    snap.get("messages")
        .and_then(Value::as_array)?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .and_then(|m| m.get("content").and_then(Value::as_str))
        .filter(|c| !c.is_empty())
}

/// Why a run failed when the final state keeps no error text (a slim
/// snapshot counts a step's errors, it does not keep them): its last step
/// with errors and how many, said as such.
fn unworded_failure(snap: &Map, w: &Window) -> String {
    let listed = snap
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let with_errors = listed.iter().enumerate().rev().find_map(|(i, st)| {
        let n = st
            .get("errors")
            .and_then(Value::as_i64)
            .filter(|n| *n > 0)?;
        Some((w.run_step(i), n))
    });
    match with_errors {
        Some((step, 1)) => format!(
            "failed with 1 error in step {step}; the final snapshot keeps no error text (a stored agent state does)"
        ),
        Some((step, n)) => format!(
            "failed with {n} errors in step {step}; the final snapshot keeps no error text (a stored agent state does)"
        ),
        None => "failed; the final snapshot keeps no error text (a stored agent state does)".into(),
    }
}
