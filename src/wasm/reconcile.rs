//! `Session.reconcile`: the streamed view against the final slim snapshot.
//! Full package only: it needs the snapshot reader, which the live package
//! leaves out.

use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};

use super::convert::{from_js, out};
use super::session::Session;

#[wasm_bindgen]
impl Session {
    /// The streamed view against the final slim snapshot (the snapshot wins):
    /// `{ consistent, differences: [{ kind, path, step, streamed, final,
    /// message, cause }], window, view }`. Not in `stepline/live`.
    ///
    /// A slim snapshot lists only the run's last N steps (20 with the
    /// `standard` preset), numbered 1..N inside that window; `reconcile`
    /// places them at the end of the run (window step k is run step
    /// `step_count - N + k`). Streamed steps before the window are outside
    /// it: not compared, kept as streamed, counted in `window` and marked
    /// `snapshot_window: "outside"` in `view`, never differences. Each
    /// difference's `step` is the run's own step number.
    ///
    /// @example
    /// ```js
    /// const report = session.reconcile(await (await fetch(`/runs/${id}/snapshot`)).json());
    /// for (const d of report.differences) console.warn(d.kind, d.path, d.step, d.message, d.cause);
    /// // a 30-step run against a standard snapshot: consistent, steps 11..30 compared
    /// const { first_step, last_step, outside_step_count } = report.window; // 11, 30, 10
    /// const steps = report.view.executions.at(-1).steps;
    /// steps[0].snapshot_window; // "outside": step 1 as streamed
    /// ```
    #[wasm_bindgen(unchecked_return_type = "ReconcileReport")]
    pub fn reconcile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SlimSnapshot | string")] snapshot: JsValue,
    ) -> Result<JsValue, JsValue> {
        out(from_js(&snapshot, "the snapshot").and_then(|s| {
            if s.is_object() {
                Ok(self.inner.borrow().core.reconcile(&s).to_value())
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
        }))
    }
}
