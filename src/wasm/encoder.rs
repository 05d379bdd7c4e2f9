//! `EnvelopeEncoder`: the producer's broadcast adapter, for JavaScript producers
//! and replays. Full package only.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::envelope::config::{AgentEventInput, EncoderOptions};
use crate::envelope::{BroadcastConfig, Encoder};
use crate::model::read;

use super::convert::{clock, from_js, options_map, out, string_arg};
use super::errors::to_js_error;
use super::types::EncoderOptionsArg;

/// Encodes agent events into envelopes exactly like the producer's broadcast
/// adapter (status machine, chunk indexes, argument summaries), with true UTC
/// timestamps and real step durations unless `config.compat` is set, and every
/// envelope within `config.maxMessageBytes` (default 10,000). `config.dialect:
/// "v2"` reproduces instructor-php v2's `AgentEventBroadcaster` instead of the
/// v1.22 adapter.
///
/// @example
/// ```js
/// const enc = new EnvelopeEncoder({ sessionId: 's1', executionId: 'e1', config: { preset: 'debug' } });
/// for (const { channel, envelope } of enc.push({ event: 'AgentStepStarted', args: { stepNumber: 1 } })) {
///   await pusher.trigger(channel, 'instructor.agent.event', envelope);
/// }
/// ```
#[wasm_bindgen]
pub struct EnvelopeEncoder {
    inner: Encoder,
    /// A fixed clock (replays, tests); `None` reads `Date.now()` per event.
    now: Option<crate::model::time::Timestamp>,
}

#[wasm_bindgen]
impl EnvelopeEncoder {
    /// `{ sessionId, executionId?, config?, now? }` — `now` (ISO string or epoch
    /// ms) fixes the clock for replays and tests.
    #[wasm_bindgen(constructor)]
    pub fn new(options: EncoderOptionsArg) -> Result<EnvelopeEncoder, JsValue> {
        (|| {
            let o = EncoderOptions::read(&options_map(&Some(JsValue::from(options)))?)?;
            let now = o
                .now
                .map(|t| t.resolve(clock(), "/options/now"))
                .transpose()?;
            let config = match &o.config {
                Some(c) => c.resolve("/options/config")?,
                None => BroadcastConfig::default(),
            };
            let execution = o.execution_id.as_deref().unwrap_or("");
            Ok(EnvelopeEncoder {
                inner: Encoder::new(&o.session_id, execution, config),
                now,
            })
        })()
        .map_err(to_js_error)
    }

    /// Encodes `{ event, args, at? }` (the producer's event class name and
    /// fields) into zero or more `{ channel, envelope }`. `at` (ISO string or
    /// epoch ms) is when the event happened, for replaying recorded events with
    /// their own times; it overrides the encoder's clock for this event only.
    #[wasm_bindgen(unchecked_return_type = "Broadcast[]")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "AgentEventInput | string")] event: JsValue,
    ) -> Result<JsValue, JsValue> {
        out((|| {
            let e = AgentEventInput::read(&from_js(&event, "the event")?)?;
            let args = e.args.unwrap_or(Value::Array(Vec::new()));
            let clock_now = self.now.unwrap_or_else(clock);
            let at = match &e.at {
                Some(t) => t.resolve(clock_now, "/at")?,
                None => clock_now,
            };
            self.inner.push(&e.event, &args, &at)
        })())
    }

    /// Emits a status change now (always sent, with the previous status);
    /// `details` may be left out.
    ///
    /// @example
    /// ```js
    /// enc.status('completed');
    /// enc.status('failed', { error: 'Tool search failed' });
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Broadcast")]
    pub fn status(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] status: JsValue,
        // `unchecked_optional_param_type`: declared `details?:`, so it may be left out.
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ error?: string | null; lastResponse?: string | null } | null"
        )]
        details: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        out((|| {
            let status = string_arg(&status, "the status")?;
            let status = status.as_str();
            let m = options_map(&details)?;
            read::only_keys(&m, &["error", "lastResponse"], "/details")?;
            let error = read::opt_str(&m, "error", "/details")?;
            let last = read::opt_str(&m, "lastResponse", "/details")?;
            self.inner
                .set_status(status, error, last, &self.now.unwrap_or_else(clock))
        })())
    }

    /// Starts a new execution (chunk counter and status reset), optionally with a new id.
    ///
    /// @example
    /// ```js
    /// enc.reset('exec-2'); // or enc.reset() to keep the id
    /// ```
    pub fn reset(
        &mut self,
        // `unchecked_optional_param_type`: declared `execution_id?:`, so it may be left out.
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] execution_id: Option<
            JsValue,
        >,
    ) -> Result<(), JsValue> {
        let id = match execution_id.filter(|v| !v.is_null() && !v.is_undefined()) {
            None => None,
            Some(v) => Some(string_arg(&v, "the execution id").map_err(to_js_error)?),
        };
        self.inner.reset(id.as_deref());
        Ok(())
    }

    /// The current broadcast status (`idle`, `processing`, `completed`, …).
    #[wasm_bindgen(getter, js_name = currentStatus)]
    pub fn current_status(&self) -> String {
        self.inner.status().to_string()
    }
}
