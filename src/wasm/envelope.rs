//! `decodeEnvelope`, `tryDecodeEnvelope`, `decodeEnvelopes`, `channelFor`,
//! `isAgentEventName`, `defaultEventName`.

use wasm_bindgen::prelude::*;

use crate::dialects::{carries_event, decode_envelope_lines, decode_envelope_text};
use crate::envelope::channel_for;
use crate::envelope::results::{DecodedBatch, TryDecodeResult};
use crate::envelope::{EventNames, DEFAULT_EVENT_NAME};
use crate::model::read;

use super::convert::{envelope_text, options, out, string_arg, to_js_of};
use super::errors::to_js_error;

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
        .and_then(|t| decode_envelope_text(&t))
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
    let result = envelope_text(&input).and_then(|t| decode_envelope_text(&t));
    to_js_of(&TryDecodeResult::of(&result))
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
    let (ok, errors) = decode_envelope_lines(&jsonl);
    to_js_of(&DecodedBatch::of(&ok, &errors))
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
/// With the event's `data`, also a name equal to the `type` of an event of a
/// dialect stepline reads: laravel/ai broadcasts each stream event under its
/// type (`stream_start`, `text_delta`, … `stream_end`) on a channel the app
/// chose. Pusher's own `pusher:` events, your app's `App\Events\…` and
/// anything else: `false`. Echo's leading dot (`.instructor.agent.event`) is
/// ignored in both names. An empty or `pusher:` `eventName` throws `invalid_value`.
///
/// @example
/// ```js
/// echo.channel(`agent.${sessionId}`).listenToAll((event, data) => {
///   if (isAgentEventName(event, { eventName, data })) session.ingest(data);
/// });
/// isAgentEventName('.text_delta', { data: { type: 'text_delta', id: 'e1', invocation_id: 'i1', message_id: 'm1', delta: 'Hi', timestamp: 1 } }); // true (laravel/ai)
/// isAgentEventName('.instructor.agent.event'); // true
/// isAgentEventName('agent.step.started'); // true
/// isAgentEventName('App\\Events\\OrderShipped'); // false
/// ```
#[wasm_bindgen(js_name = isAgentEventName)]
pub fn is_agent_event_name(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ eventName?: string | null | undefined; data?: unknown } | null"
    )]
    opts: Option<JsValue>,
) -> Result<bool, JsValue> {
    let name = string_arg(&name, "the event name").map_err(to_js_error)?;
    let o = options(&opts, &["eventName", "data"]).map_err(to_js_error)?;
    let names = read::opt_str(&o, "eventName", "/options")
        .and_then(|configured| EventNames::new(configured, "/options/eventName"))
        .map_err(to_js_error)?;
    Ok(match o.get("data") {
        Some(data) => carries_event(&names, &name, data),
        None => names.carries_envelope(&name),
    })
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
