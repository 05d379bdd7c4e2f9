//! `diagnose`: the producer-bug detectors (DESIGN.md section 8). Full package only.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, out};

/// Looks for the producer bugs the design documents describe, each with a
/// `code`, `severity`, JSON-pointer `path`, `message` and `evidence`: tool
/// arguments in assistant content, inverted step timing, durations that
/// disagree with timestamps, a time limit measured from the session start,
/// a final status never broadcast, tool results in a snapshot taken
/// without them, and `secret_in_state`: an API key or another credential in
/// the snapshot (an error) or the state (a warning: v2 stores the resolved
/// `llmConfig` key), named by path and length, never shown.
///
/// @example
/// ```js
/// for (const d of diagnose({ envelopes, snapshot, includeToolResults: false })) {
///   console.warn(`${d.severity} ${d.code} at ${d.path}: ${d.message}`);
/// }
/// ```
#[wasm_bindgen(unchecked_return_type = "Diagnostic[]")]
pub fn diagnose(
    #[wasm_bindgen(unchecked_param_type = "DiagnoseInput | string")] input: JsValue,
) -> Result<JsValue, JsValue> {
    out(from_js(&input, "the diagnose input").and_then(|v| {
        crate::lint::diagnose_value(&v)
            .map(|found| Value::Array(found.iter().map(|d| d.to_value()).collect()))
    }))
}
