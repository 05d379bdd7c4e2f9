//! `decodeEnvelope`, `tryDecodeEnvelope`, `decodeEnvelopes`, `EnvelopeEncoder`, `channelFor`.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::envelope::decode::{decode_lines, decode_text, Decoded};
use crate::envelope::{channel_for, BroadcastConfig, Encoder};
use crate::error::{ErrorCode, SteplineError};
use crate::json::obj;
use crate::model::read;

use super::convert::{clock, envelope_text, from_js, options_map, out, string_arg, to_js};
use super::errors::to_js_error;
use super::types::EncoderOptionsArg;

fn error_value(e: &SteplineError) -> Value {
    obj([
        ("code", Value::from(e.code.as_str())),
        ("path", Value::from(e.path.clone())),
        ("message", Value::from(e.message.as_str())),
    ])
}

fn warnings(d: &Decoded) -> Value {
    Value::Array(d.warnings.iter().map(|w| w.to_value()).collect())
}

/// Decodes one envelope (a JSON string or an object) from any producer — the
/// reference adapter, the seed-000 document, or seed 003's native events — into
/// one model. Known types are strict: a wrong type or missing field throws
/// `SteplineError` with a path. Unknown types and fields are kept (`extra`).
///
/// @example
/// ```js
/// echo.channel(`agent.${sessionId}`).listen('.agent', (raw) => {
///   const e = decodeEnvelope(raw);
///   if (e.type === 'agent.stream.chunk') append(e.payload.content);
/// });
/// ```
#[wasm_bindgen(js_name = decodeEnvelope, unchecked_return_type = "Envelope")]
pub fn decode_envelope(
    #[wasm_bindgen(unchecked_param_type = "string | object")] input: JsValue,
) -> Result<JsValue, JsValue> {
    out(envelope_text(&input)
        .and_then(|t| decode_text(&t))
        .map(|d| d.envelope))
}

/// Like `decodeEnvelope`, but never throws: `{ ok: true, envelope, warnings }`
/// or `{ ok: false, error: { code, path, message } }`.
///
/// @example
/// ```js
/// const r = tryDecodeEnvelope(raw);
/// if (!r.ok) console.warn(r.error.code, r.error.path);
/// ```
#[wasm_bindgen(js_name = tryDecodeEnvelope, unchecked_return_type = "TryDecodeResult")]
pub fn try_decode_envelope(
    #[wasm_bindgen(unchecked_param_type = "string | object")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let result = match envelope_text(&input).and_then(|t| decode_text(&t)) {
        Ok(d) => obj([
            ("ok", Value::Bool(true)),
            ("envelope", d.envelope.clone()),
            ("warnings", warnings(&d)),
        ]),
        Err(e) => obj([("ok", Value::Bool(false)), ("error", error_value(&e))]),
    };
    to_js(&result)
}

/// Decodes a JSONL batch (one envelope per line; blank lines skipped). Lines
/// that fail are reported with their 1-based line number instead of throwing.
///
/// @example
/// ```js
/// const { envelopes, errors } = decodeEnvelopes(fs.readFileSync('run.jsonl', 'utf8'));
/// ```
#[wasm_bindgen(js_name = decodeEnvelopes, unchecked_return_type = "DecodedBatch")]
pub fn decode_envelopes(
    #[wasm_bindgen(unchecked_param_type = "string")] jsonl: JsValue,
) -> Result<JsValue, JsValue> {
    let jsonl = string_arg(&jsonl, "the JSONL text").map_err(to_js_error)?;
    let (ok, errors) = decode_lines(&jsonl);
    let warnings: Vec<Value> = ok
        .iter()
        .enumerate()
        .flat_map(|(i, d)| {
            d.warnings
                .iter()
                .map(move |w| obj([("index", Value::from(i)), ("warning", w.to_value())]))
        })
        .collect();
    let result = obj([
        (
            "envelopes",
            Value::Array(ok.into_iter().map(|d| d.envelope).collect()),
        ),
        (
            "errors",
            Value::Array(
                errors
                    .listed
                    .iter()
                    .map(|(line, e)| obj([("line", Value::from(*line)), ("error", error_value(e))]))
                    .collect(),
            ),
        ),
        ("errorCount", Value::from(errors.count)),
        ("warnings", Value::Array(warnings)),
    ]);
    to_js(&result)
}

/// The channel a session's envelopes are broadcast on: `agent.{sessionId}`.
///
/// @example
/// ```js
/// channelFor('sess-1'); // "agent.sess-1"
/// ```
#[wasm_bindgen(js_name = channelFor)]
pub fn channel_for_js(
    #[wasm_bindgen(unchecked_param_type = "string")] session_id: JsValue,
) -> Result<String, JsValue> {
    let id = string_arg(&session_id, "the session id").map_err(to_js_error)?;
    Ok(channel_for(&id))
}

/// Encodes agent events into envelopes exactly like the producer's broadcast
/// adapter (status machine, chunk indexes, argument summaries), with true UTC
/// timestamps and real step durations unless `config.compat` is set, and every
/// envelope within `config.maxMessageBytes` (default 10,000).
///
/// @example
/// ```js
/// const enc = new EnvelopeEncoder({ sessionId: 's1', executionId: 'e1', config: { preset: 'debug' } });
/// for (const { channel, envelope } of enc.push({ event: 'AgentStepStarted', args: { stepNumber: 1 } })) {
///   await pusher.trigger(channel, 'agent', envelope);
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
            let m = options_map(&Some(JsValue::from(options)))?;
            read::only_keys(
                &m,
                &["sessionId", "executionId", "config", "now"],
                "/options",
            )?;
            let now = super::convert::now_option(&m)?
                .map(|spec| crate::model::time::resolve_now(Some(&spec), clock(), "/options/now"))
                .transpose()?;
            let session = read::opt_str(&m, "sessionId", "/options")?.ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::MissingField,
                    "/options/sessionId",
                    "expected `sessionId`",
                )
            })?;
            let execution = read::opt_str(&m, "executionId", "/options")?.unwrap_or("");
            let config = match m.get("config") {
                Some(c) if !c.is_null() => BroadcastConfig::from_options(
                    read::object(c, "/options/config", "config")?,
                    "/options/config",
                )?,
                _ => BroadcastConfig::default(),
            };
            Ok(EnvelopeEncoder {
                inner: Encoder::new(session, execution, config),
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
            let v = from_js(&event, "the event")?;
            let m = read::object(&v, "", "an event")?;
            read::only_keys(m, &["event", "args", "at"], "")?;
            let name = read::opt_str(m, "event", "")?.ok_or_else(|| {
                SteplineError::at(ErrorCode::MissingField, "/event", "expected `event`")
            })?;
            let args = m.get("args").cloned().unwrap_or(Value::Array(Vec::new()));
            let clock_now = self.now.unwrap_or_else(clock);
            let at = match m.get("at").filter(|v| !v.is_null()) {
                Some(v) => crate::model::time::resolve_now(
                    Some(&crate::model::time::NowSpec::from_value(v, "/at")?),
                    clock_now,
                    "/at",
                )?,
                None => clock_now,
            };
            let sent = self.inner.push(name, &args, &at)?;
            Ok(Value::Array(sent.iter().map(|b| b.to_value()).collect()))
        })())
    }

    /// Emits a status change now (always sent, with the previous status).
    #[wasm_bindgen(unchecked_return_type = "Broadcast")]
    pub fn status(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] status: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ error?: string | null; lastResponse?: string | null } | undefined"
        )]
        details: JsValue,
    ) -> Result<JsValue, JsValue> {
        out((|| {
            let status = string_arg(&status, "the status")?;
            let status = status.as_str();
            let m = options_map(&Some(details))?;
            read::only_keys(&m, &["error", "lastResponse"], "/details")?;
            let error = read::opt_str(&m, "error", "/details")?;
            let last = read::opt_str(&m, "lastResponse", "/details")?;
            Ok(self
                .inner
                .set_status(status, error, last, &self.now.unwrap_or_else(clock))?
                .to_value())
        })())
    }

    /// Starts a new execution (chunk counter and status reset), optionally with a new id.
    pub fn reset(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] execution_id: JsValue,
    ) -> Result<(), JsValue> {
        let id = if execution_id.is_null() || execution_id.is_undefined() {
            None
        } else {
            Some(string_arg(&execution_id, "the execution id").map_err(to_js_error)?)
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
