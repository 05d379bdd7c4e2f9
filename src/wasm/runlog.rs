//! `RunLog`: many sessions at once, with summaries and recordings. Full package only.

use wasm_bindgen::prelude::*;

use super::convert::{envelope_text, from_js, out, string_arg, to_js_of};
use super::errors::to_js_error;

/// Many sessions at once (parallel workers, many users): envelopes are
/// routed to their session by `session_id`; `summary()` is computed on each
/// call from the sessions' views.
///
/// @example
/// ```js
/// const log = RunLog.load(fs.readFileSync('day.jsonl', 'utf8'));
/// const { sessions, by_status, tool_calls, durations } = log.summary();
/// console.log(durations.step_ms.p95, tool_calls.search?.failed);
/// ```
#[wasm_bindgen]
pub struct RunLog {
    core: crate::session::runlog::RunLog,
}

#[wasm_bindgen]
impl RunLog {
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> RunLog {
        RunLog {
            core: crate::session::runlog::RunLog::new(),
        }
    }

    /// Routes one envelope (object or JSON string) to its session.
    #[wasm_bindgen(unchecked_return_type = "IngestResult")]
    pub fn ingest(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Envelope | object | string")] envelope: JsValue,
    ) -> Result<JsValue, JsValue> {
        out(envelope_text(&envelope).and_then(|t| self.core.ingest_text(&t)))
    }

    /// Ingests a JSONL recording (envelopes and snapshot lines); bad lines are
    /// reported with their number: `{ applied, duplicates, snapshots, errors }`.
    #[wasm_bindgen(js_name = ingestJsonl, unchecked_return_type = "RunLogBatchResult")]
    pub fn ingest_jsonl(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] jsonl: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = string_arg(&jsonl, "the JSONL text").map_err(to_js_error)?;
        to_js_of(&self.core.ingest_jsonl(&text).view())
    }

    /// Keeps a final snapshot of a session (saved with the log).
    #[wasm_bindgen(js_name = addSnapshot)]
    pub fn add_snapshot(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] session_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SlimSnapshot | string")] snapshot: JsValue,
    ) -> Result<(), JsValue> {
        let id = string_arg(&session_id, "the session id").map_err(to_js_error)?;
        let v = from_js(&snapshot, "the snapshot").map_err(to_js_error)?;
        self.core.add_snapshot(&id, v);
        Ok(())
    }

    /// Every session's view, in first-seen order.
    #[wasm_bindgen(unchecked_return_type = "SessionView[]")]
    pub fn sessions(&self) -> Result<JsValue, JsValue> {
        let views: Vec<_> = self.core.sessions().map(|(_, s)| s.shape()).collect();
        to_js_of(&views)
    }

    /// Sessions by status and stop reason, steps, tool calls by name with
    /// failures, tokens, step and tool durations (p50, p95, max), errors.
    #[wasm_bindgen(unchecked_return_type = "RunLogSummary")]
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        to_js_of(&self.core.summary())
    }

    /// The log as JSONL: a header, every envelope as received in arrival
    /// order, then the snapshots.
    pub fn save(&self) -> String {
        self.core.save()
    }

    /// Loads what `save()` wrote (or any recording); a bad line throws
    /// `SteplineError` with the path `/lines/<n>/...`.
    pub fn load(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<RunLog, JsValue> {
        let text = string_arg(&text, "the run log").map_err(to_js_error)?;
        crate::session::runlog::RunLog::load(&text)
            .map(|core| RunLog { core })
            .map_err(to_js_error)
    }
}
