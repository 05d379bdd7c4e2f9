//! `Session`: the live view in JavaScript. The core keeps the view and hands
//! over only what changed since the last read; this file turns that change
//! list into a new immutable snapshot that shares every unchanged part with
//! the previous one, so `getSnapshot()` fits React's `useSyncExternalStore`.

use std::cell::RefCell;

use crate::json::Value;
use js_sys::{Array, Function, Object};
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
    /// The snapshot last handed out; replaced, never mutated.
    snapshot: JsValue,
    /// The core has changes the snapshot does not show yet.
    stale: bool,
    /// Unfrozen working copies of what the snapshot publishes.
    mirrors: Mirrors,
}

/// Unfrozen working copies of the snapshot's objects and arrays. A change
/// is applied to its working copy and the published object or array is a
/// frozen copy of it. Copying the published (frozen) one instead takes V8's
/// slow paths: a frozen array is copied element by element, and an object
/// copied with `Object.assign` onto `{}` from a frozen copy of a copy ends up
/// in dictionary mode, which made every later copy of an execution (29
/// fields) about ten times slower than copying a working copy.
#[derive(Default)]
struct Mirrors {
    /// The view's top-level fields.
    view: Option<Object>,
    /// Per execution, its fields (`steps` and `text` included).
    execs: Vec<Object>,
    /// Per execution, its `steps` array.
    step_lists: Vec<Array>,
    /// The `executions` array.
    exec_list: Array,
    /// Per execution, pieces appended to its `text` since it was last flat.
    appended: Vec<u32>,
}

/// Pieces appended to a text before it is flattened. `a + b` makes a rope
/// node in V8, so a text streamed in 100,000 chunks is a rope of 100,000
/// nodes, each piece its own string: about four times the flat text's
/// bytes (bench/findings.md). Reading a character flattens it; every 4,096
/// pieces keeps the rope short at a cost linear in the text overall.
const FLATTEN_EVERY: u32 = 4096;

impl Session {
    fn with_core(core: Core) -> Session {
        Session {
            inner: RefCell::new(Inner {
                core,
                snapshot: JsValue::UNDEFINED,
                stale: true,
                mirrors: Mirrors::default(),
            }),
            listeners: RefCell::new(Vec::new()),
        }
    }
}

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

    /// The current view as an immutable object. Consecutive calls without an
    /// ingest in between return the same object; after an ingest, parts that
    /// did not change (executions, steps) are the same objects as before.
    /// Safe to call from a `subscribe` listener.
    #[wasm_bindgen(js_name = getSnapshot, unchecked_return_type = "SessionView")]
    pub fn get_snapshot(&self) -> Result<JsValue, JsValue> {
        let mut inner = self.inner.borrow_mut();
        if inner.stale {
            inner.core.settle();
            let patch: Array = js_sys::JSON::parse(&inner.core.take_patch())?.unchecked_into();
            let Inner {
                snapshot, mirrors, ..
            } = &mut *inner;
            *snapshot = apply_patch(snapshot, &patch, mirrors);
            inner.stale = false;
        }
        Ok(inner.snapshot.clone())
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

#[wasm_bindgen]
extern "C" {
    /// `Reflect.get` without js-sys's try/catch wrapper: used only on the
    /// parsed patch and the snapshot's own plain objects (no getters, no
    /// proxies), never on `undefined`.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get)]
    fn field(target: &JsValue, key: &JsValue) -> JsValue;
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn set_field(target: &JsValue, key: &JsValue, value: &JsValue) -> bool;
    /// `Object.assign(target, a, b)`; `undefined` sources are skipped.
    #[wasm_bindgen(js_namespace = Object, js_name = assign)]
    fn assign2(target: &Object, a: &JsValue, b: &JsValue) -> Object;
    /// `JSON.parse` of a string already in JS (no copy out of wasm memory).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
    fn parse_js(text: &JsValue) -> JsValue;
}

/// An ingest outcome as a new JS object. The usual ones (no warnings) are
/// parsed from JSON text kept in JS: one boundary call instead of
/// serialising a value and copying its text out of wasm memory per ingest.
fn outcome_js(o: &IngestOutcome) -> Result<JsValue, JsValue> {
    match COMMON_OUTCOMES.iter().position(|common| common == o) {
        Some(i) => Ok(OUTCOMES
            .with(|texts| texts.get(i).map(parse_js))
            .unwrap_or_default()),
        None => to_js_of(o),
    }
}

/// The usual outcomes (no warnings), whose text [`OUTCOMES`] keeps in JS.
const COMMON_OUTCOMES: [IngestOutcome; 3] = [
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

thread_local! {
    /// The JSON text of [`COMMON_OUTCOMES`], written once.
    static OUTCOMES: [JsValue; 3] =
        COMMON_OUTCOMES.each_ref().map(|o| JsValue::from_str(&crate::json::to_text(o)));
}

/// The property names the snapshot uses, made into JS strings once:
/// creating one from Rust decodes it from wasm memory every time.
struct Keys {
    warnings: JsValue,
    executions: JsValue,
    steps: JsValue,
    text: JsValue,
    number: JsValue,
}

thread_local! {
    static KEYS: Keys = {
        let k = JsValue::from_str;
        Keys {
            warnings: k("warnings"),
            executions: k("executions"),
            steps: k("steps"),
            text: k("text"),
            number: k("number"),
        }
    };
}

/// The next snapshot: `prev` with the patch (see [`Core::take_patch`] for
/// its layout) applied, sharing what it did not touch; `prev` itself when
/// nothing changed. `step_lists` holds the unfrozen working copy of each
/// execution's steps (see [`Session::step_lists`]), `exec_list` that of the
/// executions.
fn apply_patch(prev: &JsValue, patch: &Array, mirrors: &mut Mirrors) -> JsValue {
    KEYS.with(|k| {
        let session = patch.get(0);
        let added = patch.get(1);
        let changes = patch.length();
        let first = !prev.is_object();
        let changed = |v: &JsValue| v.is_object();
        if !first && !changed(&session) && !changed(&added) && changes <= 2 {
            return prev.clone();
        }
        if first {
            *mirrors = Mirrors::default();
        }
        let view = mirrors.view.get_or_insert_with(Object::new).clone();
        assign2(&view, &session, &JsValue::UNDEFINED);
        if first || changed(&added) {
            let old = if first {
                JsValue::UNDEFINED
            } else {
                field(prev, &k.warnings)
            };
            // Frozen like the rest of the snapshot; warnings are rare and at
            // most 1,000, so this runs seldom and stays small.
            if let Some(new) = added.dyn_ref::<Array>() {
                for i in 0..new.length() {
                    Object::freeze(new.get(i).unchecked_ref::<Object>());
                }
            }
            let warnings = match (old.dyn_ref::<Array>(), added.dyn_ref::<Array>()) {
                (Some(old), Some(new)) => old.concat(new),
                (None, Some(new)) => new.clone(),
                (_, None) => Array::new(),
            };
            set_field(&view, &k.warnings, &Object::freeze(&warnings));
        }
        if first || changes > 2 {
            for i in 2..changes {
                let change: Array = patch.get(i).unchecked_into();
                let index = number(&change.get(0)) as u32;
                let exec = apply_exec(k, &change, index as usize, mirrors);
                mirrors.exec_list.set(index, exec);
            }
            let execs = mirrors.exec_list.slice(0, u32::MAX);
            set_field(&view, &k.executions, &Object::freeze(&execs));
        }
        Object::freeze(&assign2(&Object::new(), &view, &JsValue::UNDEFINED)).into()
    })
}

/// One execution's change `[index, header, steps, text, replaced]` applied
/// to its working copy (made when the execution is new); returns the
/// published, frozen copy.
fn apply_exec(k: &Keys, change: &Array, slot: usize, mirrors: &mut Mirrors) -> JsValue {
    if mirrors.step_lists.len() <= slot {
        mirrors.step_lists.resize_with(slot + 1, Array::new);
    }
    let header = change.get(1);
    let new = mirrors.execs.len() <= slot;
    if new {
        mirrors.execs.resize_with(slot + 1, Object::new);
        // A new execution's header holds every field, `steps` and `text`
        // included (src/session/patch.rs): as parsed, it is a fast object
        // whose fields later changes only overwrite.
        if let (Some(own), true) = (mirrors.execs.get_mut(slot), header.is_object()) {
            *own = header.clone().unchecked_into();
        }
    }
    // Both lists were extended above to hold `slot`.
    let (Some(work), Some(exec)) = (mirrors.step_lists.get(slot), mirrors.execs.get(slot)) else {
        return JsValue::UNDEFINED;
    };
    if !new {
        assign2(exec, &header, &JsValue::UNDEFINED);
    }
    let steps = change.get(2);
    if let Some(steps) = steps.dyn_ref::<Array>() {
        for step in steps.iter() {
            Object::freeze(step.unchecked_ref::<Object>());
            place_step(k, work, step);
        }
    }
    if new || steps.is_object() {
        set_field(exec, &k.steps, &Object::freeze(&work.slice(0, u32::MAX)));
    }
    let text = change.get(3);
    if text.is_string() {
        let replaced = change.get(4).as_bool() == Some(true);
        // Appended as JS strings: the text so far never crosses into wasm
        // (that copy would make streaming quadratic).
        let head = if replaced || new {
            JsValue::UNDEFINED
        } else {
            field(exec, &k.text)
        };
        if mirrors.appended.len() <= slot {
            mirrors.appended.resize(slot + 1, 0);
        }
        let value = match head.dyn_ref::<js_sys::JsString>() {
            Some(head) => {
                let joined = head.concat(&text);
                if let Some(n) = mirrors.appended.get_mut(slot) {
                    *n += 1;
                    if *n >= FLATTEN_EVERY {
                        *n = 0;
                        joined.char_code_at(0);
                    }
                }
                joined.into()
            }
            None => {
                if let Some(n) = mirrors.appended.get_mut(slot) {
                    *n = 0;
                }
                text
            }
        };
        set_field(exec, &k.text, &value);
    }
    Object::freeze(&assign2(&Object::new(), exec, &JsValue::UNDEFINED)).into()
}

/// A number the patch holds (an index or a step number). `Number#valueOf`
/// returns it directly; `as_f64` goes through wasm memory and a DataView.
fn number(v: &JsValue) -> f64 {
    v.unchecked_ref::<js_sys::Number>().value_of()
}

/// Puts a changed step in its place (steps are kept in number order; a
/// changed step is usually the last one, so the search starts there).
fn place_step(k: &Keys, list: &Array, step: JsValue) {
    let number = self::number(&field(&step, &k.number));
    let mut i = list.length();
    while i > 0 {
        let n = self::number(&field(&list.get(i - 1), &k.number));
        if n == number {
            list.set(i - 1, step);
            return;
        }
        if n < number {
            break;
        }
        i -= 1;
    }
    list.splice(i, 0, &step);
}
