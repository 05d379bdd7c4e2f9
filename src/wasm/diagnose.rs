//! `diagnose`: the producer-bug detectors (src/lint/mod.rs). `stepline/devtools` only (the `devtools` feature).

use crate::json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, out};
use super::session::Session;

/// Looks for the producer bugs the design documents describe, each with a
/// `code`, `severity`, JSON-pointer `path`, `message` and `evidence`: tool
/// arguments in assistant content, inverted step timing, durations that
/// disagree with timestamps, a time limit measured from the session start,
/// a final status never broadcast, tool results in a snapshot taken
/// without them, and `secret_in_state`: an API key or another credential in
/// the snapshot (an error) or the state (a warning: v2 stores the resolved
/// `llmConfig` key), named by path and length, never shown. In
/// `stepline/devtools` only.
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
    out(from_js(&input, "the diagnose input").and_then(|v| crate::lint::diagnose_value(&v)))
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "SessionDiagnoseOptions | string")]
    pub type SessionDiagnoseArg;
}

#[wasm_bindgen]
impl Session {
    /// `diagnose` over the envelopes this session applied (its own log, in
    /// arrival order), with the final `snapshot`, the full `state` and
    /// `includeToolResults` as options. Lines a JSONL batch could not read
    /// never reach it, and the caller need not keep the stream a second
    /// time. Evidence paths `/envelopes/<i>` count the applied envelopes.
    /// In `stepline/devtools` only.
    ///
    /// @example
    /// ```js
    /// const session = new Session();
    /// session.ingestJsonl(text); // bad lines are reported there, not here
    /// for (const d of session.diagnose({ snapshot })) console.warn(d.code, d.path, d.message);
    /// ```
    #[wasm_bindgen(js_name = diagnose, unchecked_return_type = "Diagnostic[]")]
    pub fn diagnose_log(&self, options: Option<SessionDiagnoseArg>) -> Result<JsValue, JsValue> {
        let options = match options.map(JsValue::from) {
            Some(o) if !o.is_null() => from_js(&o, "the diagnose options"),
            _ => Ok(Value::Null),
        };
        out(options.and_then(|o| self.inner.borrow().core.diagnose(&o)))
    }
}
