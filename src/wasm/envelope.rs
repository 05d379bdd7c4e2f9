//! `decodeEnvelope`, `tryDecodeEnvelope`, `decodeEnvelopes`, `channelFor`,
//! `isAgentEventName`, `defaultEventName`.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::envelope::channel_for;
use crate::envelope::decode::{decode_lines, decode_text, Decoded};
use crate::envelope::{EventNames, DEFAULT_EVENT_NAME};
use crate::error::SteplineError;
use crate::json::obj;
use crate::model::read;

use super::convert::{envelope_text, options, out, string_arg, to_js};
use super::errors::to_js_error;

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
/// echo.channel(`agent.${sessionId}`).listen('.instructor.agent.event', (raw) => {
///   const e = decodeEnvelope(raw);
///   if (e.type === 'agent.stream.chunk') append(e.payload.content);
/// });
/// ```
#[wasm_bindgen(js_name = decodeEnvelope, unchecked_return_type = "Envelope")]
pub fn decode_envelope(
    // `unknown`: what arrives over the wire is untrusted; anything else throws `SteplineError`.
    #[wasm_bindgen(unchecked_param_type = "unknown")] input: JsValue,
) -> Result<JsValue, JsValue> {
    out(envelope_text(&input)
        .and_then(|t| decode_text(&t))
        .map(|d| d.envelope))
}

/// Like `decodeEnvelope`, but never throws: `{ ok: true, envelope, warnings,
/// dialect }` (`dialect`: `"v1.22"`, `"v2"`, `"seed-000"`, `"seed-003"`, or
/// `"instructor"` for a shape both instructor-php versions send) or
/// `{ ok: false, error: { code, path, message } }`.
///
/// @example
/// ```js
/// const r = tryDecodeEnvelope(raw);
/// if (!r.ok) console.warn(r.error.code, r.error.path);
/// ```
#[wasm_bindgen(js_name = tryDecodeEnvelope, unchecked_return_type = "TryDecodeResult")]
pub fn try_decode_envelope(
    // `unknown`: for untrusted input, which gets `{ ok: false, error }`.
    #[wasm_bindgen(unchecked_param_type = "unknown")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let result = match envelope_text(&input).and_then(|t| decode_text(&t)) {
        Ok(d) => obj([
            ("ok", Value::Bool(true)),
            ("envelope", d.envelope.clone()),
            ("warnings", warnings(&d)),
            ("dialect", Value::from(d.dialect.as_str())),
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
    let dialects = ok.iter().map(|d| Value::from(d.dialect.as_str())).collect();
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
        ("dialects", Value::Array(dialects)),
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

/// Whether an event that arrived on an `agent.{session_id}` channel under the
/// Pusher event name `name` carries an envelope: the transport's event name
/// (instructor-php v2's Laravel transport: `"instructor.agent.event"`, or the
/// `eventName` your app configured in `instructor.agents.broadcasting.event_name`),
/// or any `agent.*` name (v1.22 apps named events after the envelope type).
/// Pusher's own `pusher:` events, your app's `App\Events\…` and anything else:
/// `false`. Echo's leading dot (`.instructor.agent.event`) is ignored in both
/// names. An empty or `pusher:` `eventName` throws `invalid_value`.
///
/// @example
/// ```js
/// echo.channel(`agent.${sessionId}`).listenToAll((event, data) => {
///   if (isAgentEventName(event, { eventName })) session.ingest(data);
/// });
/// isAgentEventName('.instructor.agent.event'); // true
/// isAgentEventName('agent.step.started'); // true
/// isAgentEventName('App\\Events\\OrderShipped'); // false
/// ```
#[wasm_bindgen(js_name = isAgentEventName)]
pub fn is_agent_event_name(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ eventName?: string | null | undefined } | null"
    )]
    opts: Option<JsValue>,
) -> Result<bool, JsValue> {
    let name = string_arg(&name, "the event name").map_err(to_js_error)?;
    let names = options(&opts, &["eventName"])
        .and_then(|o| {
            let configured = read::opt_str(&o, "eventName", "/options")?;
            EventNames::new(configured, "/options/eventName")
        })
        .map_err(to_js_error)?;
    Ok(names.carries_envelope(&name))
}

/// The event name instructor-php v2's Laravel transport broadcasts every
/// envelope under unless the app configured another: `"instructor.agent.event"`.
/// With Laravel Echo, listen with a leading dot (no `App\Events` namespace).
///
/// @example
/// ```js
/// defaultEventName(); // "instructor.agent.event"
/// echo.channel(`agent.${sessionId}`).listen(`.${defaultEventName()}`, (e) => session.ingest(e));
/// ```
#[wasm_bindgen(js_name = defaultEventName)]
pub fn default_event_name() -> String {
    DEFAULT_EVENT_NAME.to_string()
}
