//! The time slider's view (`SessionTimeline`) and a step's raw envelopes
//! (`Session.envelopesOf`). `stepline/devtools` only (the `devtools` feature).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::session::timeline::Timeline;

use super::convert::{options, to_js_of};
use super::errors::to_js_error;
use super::session::Session;
use super::walk;
use crate::error::ErrorCode;
use crate::model::read;
use crate::SteplineError;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "{ before?: number | null }")]
    pub type EnvelopesOfOptionsArg;
}

/// `options.before` of `envelopesOf`: a whole number of envelopes, 0 or more
/// (past the end is the end); absent or null is the whole run.
fn before_option(arg: Option<EnvelopesOfOptionsArg>) -> Result<Option<usize>, SteplineError> {
    let arg = arg.map(JsValue::from);
    // Options are read as JSON, which writes NaN and ±Infinity as null (the
    // whole run): a position that is no number is refused instead.
    if let Some(value) = arg.as_ref().filter(|v| v.is_object()) {
        let raw = walk::get(value, "before", "/options")?.as_f64();
        if let Some(n) = raw.filter(|n| !n.is_finite()) {
            let (code, found) = if n.is_nan() {
                (ErrorCode::InvalidType, "NaN")
            } else {
                (ErrorCode::OutOfRange, "an infinity")
            };
            return Err(read::invalid(
                code,
                "/options/before",
                format!("expected `before` to be an envelope count, 0 or more, found {found}"),
            ));
        }
    }
    let opts = options(&arg, &["before"])?;
    match read::opt_i64(&opts, "before", "/options")? {
        None => Ok(None),
        Some(n) if n < 0 => Err(read::invalid(
            ErrorCode::OutOfRange,
            "/options/before",
            format!("expected `before` to be an envelope count, 0 or more, found {n}"),
        )),
        // Beyond this platform's usize is past any log's end.
        Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
    }
}

/// The session as it stood after its first `i` envelopes, in arrival order:
/// what a time slider shows. Moving forward applies only the envelopes in
/// between; moving back replays from the start. `update(session)` reads what
/// a live session received since. In `stepline/devtools` only.
///
/// @example
/// ```js
/// const timeline = session.timeline();
/// slider.max = timeline.length;
/// slider.oninput = () => render(timeline.viewAt(Number(slider.value)));
/// session.subscribe(() => { timeline.update(session); slider.max = timeline.length; });
/// ```
#[wasm_bindgen]
pub struct SessionTimeline {
    inner: RefCell<Timeline>,
}

#[wasm_bindgen]
impl SessionTimeline {
    /// Reads the envelopes `session` applied since the last read; returns how many.
    ///
    /// @example
    /// ```js
    /// session.ingest(envelope);
    /// timeline.update(session); // 1
    /// ```
    pub fn update(&self, session: &Session) -> usize {
        self.inner.borrow_mut().update(&session.inner.borrow().core)
    }

    /// How many envelopes the timeline holds (the session's log length when last read).
    ///
    /// @example
    /// ```js
    /// timeline.viewAt(timeline.length); // the view after every envelope
    /// ```
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inner.borrow().len()
    }

    /// The view after the first `i` envelopes (`getSnapshot()`'s shape; `0`
    /// is an empty view, `length` the whole run). Its `counts` count what the
    /// replay applied: the log keeps each envelope once, so no duplicates.
    ///
    /// @example
    /// ```js
    /// const half = timeline.viewAt(Math.floor(timeline.length / 2));
    /// half.executions[0]?.steps.length; // the steps that had arrived by then
    /// ```
    #[wasm_bindgen(js_name = viewAt, unchecked_return_type = "SessionView")]
    pub fn view_at(&self, i: usize) -> Result<JsValue, JsValue> {
        to_js_of(&self.inner.borrow_mut().at(i).shape())
    }
}

#[wasm_bindgen]
impl Session {
    /// The timeline of this session's envelopes so far (see `SessionTimeline`).
    /// In `stepline/devtools` only.
    ///
    /// @example
    /// ```js
    /// const timeline = session.timeline();
    /// timeline.viewAt(0).executions; // []
    /// ```
    /// A session created with `{ record: false }` keeps no envelopes to
    /// replay: this throws a `SteplineError` at `/options/record`.
    pub fn timeline(&self) -> Result<SessionTimeline, JsValue> {
        let inner = self.inner.borrow();
        inner
            .core
            .require_recording("timeline()")
            .map_err(to_js_error)?;
        Ok(SessionTimeline {
            inner: RefCell::new(Timeline::new(&inner.core)),
        })
    }

    /// The envelopes that built step `stepNumber` of the execution at
    /// `executionIndex` (its position in `getSnapshot().executions`), as
    /// received, in arrival order, with the step's output as `messages`
    /// (reasoning, text, tool calls and results); `null` when there is no
    /// such step. The streams carry a step's input messages as a count only
    /// (`input_message_count`), not their text. In `stepline/devtools` only.
    ///
    /// `options.before` bounds it to the session's first `before` envelopes,
    /// the position `timeline().viewAt(i)` takes: the step's envelopes and
    /// messages as they had arrived by then, `null` when the step had not
    /// started. Absent or `null`: the whole run; past the end: the end. A
    /// `before` that is not a whole number, 0 or more (NaN, -1, 1.5, "3"),
    /// throws a `SteplineError` at `/options/before`.
    ///
    /// @example
    /// ```js
    /// const raw = session.envelopesOf(0, 3);
    /// await navigator.clipboard.writeText(JSON.stringify(raw.envelopes, null, 2));
    /// raw.messages.map((m) => `${m.role}: ${m.content}`);
    /// // The same step with the time slider at envelope 40:
    /// const then = session.envelopesOf(0, 3, { before: 40 }); // null if step 3 had not started
    /// ```
    #[wasm_bindgen(js_name = envelopesOf, unchecked_return_type = "StepEnvelopes | null")]
    pub fn envelopes_of(
        &self,
        execution_index: usize,
        step_number: f64,
        options: Option<EnvelopesOfOptionsArg>,
    ) -> Result<JsValue, JsValue> {
        let before = before_option(options).map_err(to_js_error)?;
        if step_number.fract() != 0.0 || !step_number.is_finite() {
            return Ok(JsValue::NULL);
        }
        let inner = self.inner.borrow();
        inner
            .core
            .require_recording("envelopesOf()")
            .map_err(to_js_error)?;
        match inner
            .core
            .envelopes_of(execution_index, step_number as i64, before)
        {
            Some(found) => to_js_of(&found),
            None => Ok(JsValue::NULL),
        }
    }
}
