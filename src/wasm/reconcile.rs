//! `Session.reconcile`: the streamed view against the final slim snapshot.
//! Full package only: it needs the snapshot reader, which the live package
//! leaves out.

use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::session::causes::CAUSES;

use super::convert::{from_js, out_with, to_js_of};
use super::session::Session;

#[wasm_bindgen]
impl Session {
    /// The streamed view against the final slim snapshot (the snapshot wins):
    /// `{ consistent, differences: [{ kind, path, step, streamed, final,
    /// message, cause }], window, view }`. Not in `stepline/live`.
    ///
    /// Steps before the snapshot's window (it lists the run's last N) are
    /// outside it, never differences: see `SnapshotWindow`.
    ///
    /// @example
    /// ```js
    /// const report = session.reconcile(await (await fetch(`/runs/${id}/snapshot`)).json());
    /// for (const d of report.differences) console.warn(d.kind, d.path, d.step, d.message, d.cause);
    /// // 30 steps, standard snapshot: { first_step: 11, last_step: 30, outside_step_count: 10, … }
    /// console.log(report.window, report.view.executions.at(-1).steps[0].snapshot_window); // "outside"
    /// ```
    #[wasm_bindgen(unchecked_return_type = "ReconcileReport")]
    pub fn reconcile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SlimSnapshot | string")] snapshot: JsValue,
    ) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let report = from_js(&snapshot, "the snapshot").and_then(|s| {
            if s.is_object() {
                Ok(inner.core.reconcile(&s))
            } else {
                Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    "",
                    format!(
                        "expected a snapshot object, found {}",
                        crate::json::type_name(&s)
                    ),
                ))
            }
        });
        out_with(report, |r| to_js_of(&r.view(&inner.core)))
    }
}

/// The producer behaviours a reconciliation names in `Difference.cause`:
/// `[{ name, producer, items, description }]`, the one list (the v1.22
/// exception path, and v2's failed state after a failing tool, aborted steps,
/// guard-stopped steps and unforced stops). Not in `stepline/live`.
///
/// @example
/// ```js
/// const why = new Map(reconcileCauses().map((c) => [c.name, c.description]));
/// for (const d of session.reconcile(snapshot).differences) {
///   console.log(d.kind, d.cause ? `by design: ${why.get(d.cause)}` : 'unexplained');
/// }
/// ```
#[wasm_bindgen(js_name = reconcileCauses, unchecked_return_type = "ReconcileCause[]")]
pub fn reconcile_causes() -> Result<JsValue, JsValue> {
    to_js_of(&CAUSES)
}
