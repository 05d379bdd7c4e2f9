//! `Session`: the live view in JavaScript. The core keeps the view and hands
//! over only what changed since the last read (`__takeViewPatch`); the
//! package's entry files turn that change list into a new immutable snapshot
//! that shares every unchanged part with the previous one
//! (`pkg-template/view.js`, which defines `getSnapshot`), so `getSnapshot()`
//! fits React's `useSyncExternalStore`.

use std::cell::RefCell;

use crate::json::Value;
use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::session::{IngestOutcome, Rejection, Session as Core, SessionOptions};

use crate::envelope::EventNames;
use crate::model::read;

use super::convert::{envelope_text, options, options_map, string_arg, to_js, to_js_of};
use super::errors::to_js_error;
use super::types::SessionOptionsArg;

/// One session's live view, fed by its `agent.*` envelopes in any order,
/// any number of times: redeliveries change nothing, another session's
/// envelopes are rejected, gaps show as missing.
///
/// @example
/// ```js
/// const session = new Session({ sessionId: 'sess-1' });
/// echo.channel('agent.sess-1').listen('.instructor.agent.event', (e) => session.ingest(e));
/// // React: const view = useSyncExternalStore(session.subscribe, session.getSnapshot);
/// // on completion (full package only): const report = session.reconcile(await fetchSnapshot());
/// ```
#[wasm_bindgen]
pub struct Session {
    /// Borrowed only for the moment a method works on it, never while
    /// listeners run: a listener may read the snapshot (or ingest) again.
    /// Every method takes `&self`, so wasm-bindgen never holds a lock on the
    /// object across a call back into JS.
    pub(super) inner: RefCell<Inner>,
    listeners: RefCell<Vec<(u32, Function)>>,
}

pub(super) struct Inner {
    pub(super) core: Core,
    /// The core has changes the last patch did not carry yet.
    stale: bool,
}

impl Session {
    fn with_core(core: Core) -> Session {
        Session {
            inner: RefCell::new(Inner { core, stale: true }),
            listeners: RefCell::new(Vec::new()),
        }
    }
}

// `getSnapshot` is JavaScript (pkg-template/view.js); its declaration merges
// into the generated `class Session`.
#[wasm_bindgen(typescript_custom_section)]
const GET_SNAPSHOT: &'static str = r#"
export interface Session {
    /**
     * The current view as an immutable object. Consecutive calls without an
     * ingest in between return the same object; after an ingest, parts that
     * did not change (executions, steps) are the same objects as before.
     * Safe to call from a `subscribe` listener.
     *
     * @example
     * ```js
     * const session = new Session();
     * session.ingest({ type: 'agent.status', session_id: 's', execution_id: 'e', payload: { status: 'processing' } });
     * const view = session.getSnapshot();
     * view.executions[0].status; // 'processing'
     * session.getSnapshot() === view; // true: nothing changed since
     * ```
     */
    getSnapshot(): SessionView;
}
"#;

#[wasm_bindgen]
impl Session {
    /// `{ sessionId?, maxTextBytes?, staleAfterMs?, record?, eventPrefixes? }`: without a session id,
    /// the first envelope's session is adopted; `maxTextBytes` is the
    /// streamed text kept per execution (default 8 MiB); `staleAfterMs`
    /// marks silent executions without a final status `stale` (see
    /// `SessionOptions` and `setNow`).
    ///
    /// @example
    /// ```js
    /// const session = new Session({ sessionId: 'sess-1', maxTextBytes: 1024 * 1024 });
    /// ```
    #[wasm_bindgen(constructor)]
    pub fn new(options_arg: Option<SessionOptionsArg>) -> Result<Session, JsValue> {
        let opts = options_map(&options_arg.map(JsValue::from))
            .and_then(|m| SessionOptions::from_map(&m, "/options"))
            .map_err(to_js_error)?;
        Ok(Session::with_core(Core::with_options(&opts)))
    }

    /// Tells the session the time, as Unix epoch milliseconds (`Date.now()`)
    /// or an RFC 3339 string: with `staleAfterMs` set, executions that have
    /// not ended and have been silent that long become `stale: true`
    /// (their status is left as broadcast). The session never reads a clock
    /// itself; without `setNow` only envelope timestamps move its clock,
    /// which never goes back. Notifies subscribers and returns `true` when
    /// a `stale` flag changed.
    ///
    /// @example
    /// ```js
    /// const session = new Session({ staleAfterMs: 120_000 });
    /// setInterval(() => session.setNow(Date.now()), 10_000);
    /// ```
    #[wasm_bindgen(js_name = setNow)]
    pub fn set_now(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number | string")] now: JsValue,
    ) -> Result<bool, JsValue> {
        // A string is the timestamp itself, not JSON text.
        let value = match now.as_string() {
            Some(s) => Value::String(s),
            None => super::convert::from_js(&now, "now").map_err(to_js_error)?,
        };
        let ms = crate::session::stale::now_ms(&value, "/now").map_err(to_js_error)?;
        let changed = {
            let mut inner = self.inner.borrow_mut();
            let changed = inner.core.set_now(ms);
            inner.stale |= changed;
            changed
        };
        if changed {
            self.notify();
        }
        Ok(changed)
    }

    /// Ingests one envelope (object or JSON string, any dialect) and notifies
    /// subscribers when the view changed. Returns `{ applied, duplicate,
    /// rejected, warnings }`; a malformed envelope throws `SteplineError`.
    #[wasm_bindgen(unchecked_return_type = "IngestResult")]
    pub fn ingest(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Envelope | object | string")] envelope: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = envelope_text(&envelope).map_err(to_js_error)?;
        let outcome = {
            let mut inner = self.inner.borrow_mut();
            // Settled in getSnapshot: chunks in reverse order rebuild the text once per read.
            let outcome = inner
                .core
                .ingest_text_deferred(&text)
                .map_err(to_js_error)?;
            inner.stale = true;
            outcome
        };
        self.notify();
        outcome_js(&outcome)
    }

    /// Ingests an event as Laravel Echo hands it over (`listenToAll`'s event
    /// name and data): the envelope when the name carries one (the transport's
    /// `instructor.agent.event`, or the `eventName` your app configured, or any
    /// `agent.*` name), a laravel/ai stream event broadcast under its own type
    /// (full package), and `null`, reading nothing, for any other event
    /// (Pusher's own, your app's). The same decision as `isAgentEventName`;
    /// an envelope that cannot be read throws `SteplineError` as `ingest` does.
    ///
    /// @example
    /// ```js
    /// const session = new Session({ sessionId: 'sess-1' });
    /// echo.channel('agent.sess-1').listenToAll((event, data) => session.ingestEvent(event, data));
    /// session.ingestEvent('App\\Events\\OrderShipped', { id: 7 }); // null
    /// ```
    #[wasm_bindgen(js_name = ingestEvent, unchecked_return_type = "IngestResult | null")]
    pub fn ingest_event(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "unknown")] data: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ eventName?: string | null | undefined } | null"
        )]
        opts: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let name = string_arg(&name, "the event name").map_err(to_js_error)?;
        let o = options(&opts, &["eventName"]).map_err(to_js_error)?;
        let names = read::opt_str(&o, "eventName", "/options")
            .and_then(|configured| EventNames::new(configured, "/options/eventName"))
            .map_err(to_js_error)?;
        let text = match envelope_text(&data) {
            Ok(text) => text,
            Err(e) if names.carries_envelope(&name) => return Err(to_js_error(e)),
            // Data that is no JSON (a cyclic object) under another name is no agent event.
            Err(_) => return Ok(JsValue::NULL),
        };
        let outcome = {
            let mut inner = self.inner.borrow_mut();
            let Some(outcome) = inner.core.ingest_event_deferred(&names, &name, &text) else {
                return Ok(JsValue::NULL);
            };
            let outcome = outcome.map_err(to_js_error)?;
            inner.stale = true;
            outcome
        };
        self.notify();
        outcome_js(&outcome)
    }

    /// Ingests a JSONL batch; lines that fail are reported, not thrown:
    /// `{ applied, duplicates, rejected, errors: [{ line, error }],
    /// errorCount }` (the first 1,000 failing lines are listed). A JSON
    /// array of events (text starting with `[`, as `JSON.stringify(events)`
    /// writes it) is read element by element; `line` is then the element's
    /// 1-based position.
    ///
    /// @example
    /// ```js
    /// session.ingestJsonl(fs.readFileSync('run.jsonl', 'utf8'));
    /// session.ingestJsonl(JSON.stringify(events)); // a JSON array works too
    /// ```
    #[wasm_bindgen(js_name = ingestJsonl, unchecked_return_type = "IngestBatchResult")]
    pub fn ingest_jsonl(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] jsonl: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = string_arg(&jsonl, "the JSONL text").map_err(to_js_error)?;
        let outcome = {
            let mut inner = self.inner.borrow_mut();
            let outcome = inner.core.ingest_jsonl(&text);
            inner.stale = true;
            outcome
        };
        self.notify();
        to_js_of(&outcome.view())
    }

    /// The changes to the view since the last call, as the JSON text
    /// `Session::take_patch` writes (src/session/patch.rs), or `undefined`
    /// when there are none. Internal: `getSnapshot()` (pkg-template/view.js)
    /// applies it.
    #[wasm_bindgen(js_name = __takeViewPatch, skip_typescript)]
    pub fn take_view_patch(&self) -> Option<String> {
        let mut inner = self.inner.borrow_mut();
        if !inner.stale {
            return None;
        }
        inner.core.settle();
        inner.stale = false;
        Some(inner.core.take_patch())
    }

    /// [`take_view_patch`](Session::take_view_patch) as the bytes of the
    /// text, for a read that may be megabytes (the first one, or one after
    /// `ingestJsonl`): the text is ASCII, which Node reads into a string
    /// several times faster as Latin-1 than wasm-bindgen's `TextDecoder`
    /// decodes it as UTF-8 (bench/findings.md). Internal: `getSnapshot()`
    /// (pkg-template/view.js) decodes and applies it.
    #[wasm_bindgen(js_name = __takeViewPatchBytes, skip_typescript)]
    pub fn take_view_patch_bytes(&self) -> Option<Vec<u8>> {
        self.take_view_patch().map(String::into_bytes)
    }

    /// Calls `listener()` after every ingest; returns the function that
    /// unsubscribes it (calling it again does nothing). A listener may call
    /// `getSnapshot()`, and even `ingest()`, on this session. `subscribe` and
    /// `getSnapshot` are bound to their session by the package's entry files,
    /// so both can be passed as they are (`useSyncExternalStore(session.subscribe,
    /// session.getSnapshot)`).
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn subscribe(
        &self,
        #[wasm_bindgen(unchecked_param_type = "() => void")] listener: Function,
    ) -> JsValue {
        let id = NEXT_LISTENER.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            id
        });
        self.listeners.borrow_mut().push((id, listener));
        // The closure only records the id (it cannot hold the session); the
        // session drops the listener before it next notifies.
        Closure::<dyn FnMut()>::new(move || UNSUBSCRIBED.with(|u| u.borrow_mut().push(id)))
            .into_js_value()
    }

    /// Registers an event type prefix of the producer's own (seed 003's
    /// `agent.planner.*`): events whose type starts with it are kept in their
    /// execution's `custom_events`, without an `unknown_type` warning. The
    /// prefix starts with `agent.`, ends with `.` and covers no known type;
    /// anything else throws a `SteplineError` (`invalid_value` at `/prefix`).
    /// `new Session({ eventPrefixes: [...] })` registers them up front.
    ///
    /// @example
    /// ```js
    /// const session = new Session();
    /// session.registerEventPrefix('agent.planner.');
    /// session.ingest({ type: 'agent.planner.plan', session_id: 's', payload: { steps: ['a'] } });
    /// session.getSnapshot().executions[0].custom_events[0].type; // 'agent.planner.plan'
    /// ```
    #[wasm_bindgen(js_name = registerEventPrefix)]
    pub fn register_event_prefix(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] prefix: JsValue,
    ) -> Result<(), JsValue> {
        let Some(prefix) = prefix.as_string() else {
            return Err(to_js_error(crate::error::SteplineError::at(
                crate::error::ErrorCode::InvalidType,
                "/prefix",
                "expected the prefix as a string",
            )));
        };
        self.inner
            .borrow_mut()
            .core
            .register_event_prefix(&prefix)
            .map_err(to_js_error)
    }

    /// The seed-003 response `{ turns, final_output }` from what was streamed.
    #[wasm_bindgen(unchecked_return_type = "CollectedResponse")]
    pub fn collect(&self) -> Result<JsValue, JsValue> {
        to_js_of(&self.inner.borrow().core.collect())
    }

    /// The session as a JSONL recording: a header line, then every applied
    /// envelope as received (timestamps as sent), and each final state given
    /// to `ingestFinalState` as a snapshot line where it arrived, so the
    /// replayed recording is reconciled the same way.
    ///
    /// @example
    /// ```js
    /// fs.writeFileSync('run.jsonl', session.toRecording());
    /// const again = Session.fromRecording(fs.readFileSync('run.jsonl', 'utf8'));
    /// ```
    /// A session created with `{ record: false }` keeps no envelopes: this
    /// throws a `SteplineError` at `/options/record`.
    #[wasm_bindgen(js_name = toRecording)]
    pub fn to_recording(&self) -> Result<String, JsValue> {
        let inner = self.inner.borrow();
        inner
            .core
            .require_recording("toRecording()")
            .map_err(to_js_error)?;
        Ok(inner.core.to_recording())
    }

    /// Replays a recording into a new session; snapshot lines in it are kept
    /// where they stand (for `recordedSnapshots()`, and written back by
    /// `toRecording()`). A bad line throws `SteplineError` with the
    /// path `/lines/<n>/...`.
    #[wasm_bindgen(js_name = fromRecording)]
    pub fn from_recording(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<Session, JsValue> {
        let text = string_arg(&text, "the recording").map_err(to_js_error)?;
        let (core, _) = Core::from_recording(&text).map_err(to_js_error)?;
        Ok(Session::with_core(core))
    }

    /// The final states the session holds, as slim snapshots in the order
    /// they arrived: a recording's snapshot lines, and what
    /// `ingestFinalState` kept (empty for a live session).
    #[wasm_bindgen(js_name = recordedSnapshots, unchecked_return_type = "SlimSnapshot[]")]
    pub fn recorded_snapshots(&self) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let kept = inner.core.final_states().map(|f| f.snapshot.clone());
        to_js(&Value::Array(kept.collect()))
    }

    /// The session id (given, or adopted from the first envelope).
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.borrow().core.session_id().map(str::to_string)
    }
}

impl Session {
    /// Calls the listeners with no borrow held, so they may use the session.
    fn notify(&self) {
        // No listeners (the usual case when the view is polled): none of
        // the unsubscribed ids can be ours either.
        if self.listeners.borrow().is_empty() {
            return;
        }
        self.drop_unsubscribed();
        let listeners = self.listeners.borrow().clone();
        for (id, f) in &listeners {
            // Unsubscribed by an earlier listener of this round.
            if UNSUBSCRIBED.with(|u| u.borrow().contains(id)) {
                continue;
            }
            // A throwing listener must not stop the others (nor the ingest).
            let _ = f.call0(&JsValue::UNDEFINED);
        }
        self.drop_unsubscribed();
    }

    fn drop_unsubscribed(&self) {
        let mut listeners = self.listeners.borrow_mut();
        let ours: Vec<u32> = UNSUBSCRIBED.with(|u| {
            let mut u = u.borrow_mut();
            let (ours, others) = u
                .drain(..)
                .partition(|id| listeners.iter().any(|(l, _)| l == id));
            *u = others;
            ours
        });
        if !ours.is_empty() {
            listeners.retain(|(id, _)| !ours.contains(id));
        }
    }
}

thread_local! {
    /// Listener ids are unique across sessions.
    static NEXT_LISTENER: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Ids whose unsubscribe function was called, until their session drops them.
    static UNSUBSCRIBED: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An ingest outcome for JavaScript: the usual ones (no warnings) as their
/// index in [`COMMON_OUTCOMES`], which pkg-template/view.js's `ingest` turns
/// into a new object (one number across the boundary instead of an object
/// built per ingest); any other as the object itself.
fn outcome_js(o: &IngestOutcome) -> Result<JsValue, JsValue> {
    match COMMON_OUTCOMES.iter().position(|common| common == o) {
        Some(i) => Ok(JsValue::from(i as u32)),
        None => to_js_of(o),
    }
}

/// The usual outcomes (no warnings), in the order of `OUTCOMES` in
/// pkg-template/view.js (tests/js/session-view.test.mjs compares them).
pub(super) const COMMON_OUTCOMES: [IngestOutcome; 3] = [
    IngestOutcome {
        applied: true,
        duplicate: false,
        rejected: None,
        warnings: Vec::new(),
    },
    IngestOutcome {
        applied: false,
        duplicate: true,
        rejected: None,
        warnings: Vec::new(),
    },
    IngestOutcome {
        applied: false,
        duplicate: false,
        rejected: Some(Rejection::ForeignSession),
        warnings: Vec::new(),
    },
];
