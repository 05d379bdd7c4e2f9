//! `compareRuns`: two sessions side by side (src/session/compare.rs). Full
//! package only: the Compare view opens recordings, not a live run.

use wasm_bindgen::prelude::*;

use super::convert::to_js_of;
use super::session::Session;
use crate::session::compare::compare_runs as compare;

/// Two runs compared: execution `i` of `a` against execution `i` of `b`,
/// their steps paired by step number (`steps`, each with `a` and `b` — `null`
/// where a run has no such step — the token and duration deltas `b − a`, and
/// what differs: `missing`, `tools`, `finish_reason`, `status`,
/// `continuation`), the run `totals` with their deltas, and the
/// `divergence`: the first step that differs (`null` when the runs agree).
/// Tools are compared as `name:status`, so a tool that fails in one run only
/// is where they part. In `stepline/devtools` only.
///
/// @example
/// ```js
/// const a = Session.fromRecording(recordedRun);
/// const b = Session.fromRecording(recordedRun);
/// const c = compareRuns(a, b);
/// assert.equal(c.divergence, null);
/// assert.equal(c.totals.usage_delta, 0);
/// ```
#[wasm_bindgen(js_name = compareRuns, unchecked_return_type = "RunComparison")]
pub fn compare_runs(a: &Session, b: &Session) -> Result<JsValue, JsValue> {
    let (a, b) = (a.inner.borrow(), b.inner.borrow());
    to_js_of(&compare(a.core.executions(), b.core.executions()))
}
