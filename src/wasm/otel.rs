//! `Session.exportOtlp`: the OpenTelemetry export (src/otel/). `stepline/devtools` only (the `devtools` feature).

use wasm_bindgen::prelude::*;

use super::convert::{options, to_js_of};
use super::errors::to_js_error;
use super::session::Session;
use crate::model::read;
use crate::otel::{export, OtelOptions};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "{ serviceName?: string }")]
    pub type OtlpOptionsArg;
}

#[wasm_bindgen]
impl Session {
    /// The run as OpenTelemetry spans: an OTLP/HTTP JSON
    /// `ExportTraceServiceRequest` (GenAI semantic conventions 1.40.0) to
    /// POST to a collector's `/v1/traces`, for Langfuse, Phoenix or any OTLP
    /// backend. One trace per execution: `invoke_agent` for the run, `chat`
    /// per step (inference) under it, `execute_tool {tool}` per tool call
    /// under its step. Ids are hashes of the session, execution, step and
    /// call ids, so the same recording exports the same spans; times are the
    /// envelopes' (`"0"` where none is known). `serviceName` is the
    /// resource's `service.name` (default `stepline`). In `stepline/devtools` only.
    ///
    /// @example
    /// ```js
    /// const session = Session.fromRecording(text);
    /// const body = session.exportOtlp({ serviceName: 'support-agent' });
    /// await fetch('http://localhost:4318/v1/traces', {
    ///   method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    /// });
    /// ```
    #[wasm_bindgen(js_name = exportOtlp, unchecked_return_type = "OtlpTraceRequest")]
    pub fn export_otlp(&self, options_arg: Option<OtlpOptionsArg>) -> Result<JsValue, JsValue> {
        let opts =
            options(&options_arg.map(JsValue::from), &["serviceName"]).map_err(to_js_error)?;
        let mut o = OtelOptions::default();
        if let Some(name) = read::opt_str(&opts, "serviceName", "/options").map_err(to_js_error)? {
            o.service_name = name.to_string();
        }
        let inner = self.inner.borrow();
        to_js_of(&export(&inner.core, &o))
    }
}
