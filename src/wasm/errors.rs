//! Turns core errors into instances of the package's `SteplineError` class.
//!
//! The class itself is plain JavaScript (an `Error` subclass defined by the
//! package entry files) because a Rust struct exported by wasm-bindgen cannot
//! extend `Error`. The entry files hand the class over once, right after the
//! module is loaded, through the hidden `__registerErrorClass`.

use std::cell::RefCell;

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use crate::SteplineError;

thread_local! {
    static ERROR_CLASS: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Internal: called by the package entry files with the `SteplineError` class.
#[wasm_bindgen(js_name = "__registerErrorClass", skip_typescript)]
pub fn register_error_class(class: Function) {
    // Also the moment to install the panic hook: the entry files call this once on
    // load, and a `start` function would show up as a public export.
    console_error_panic_hook::set_once();
    ERROR_CLASS.with(|slot| *slot.borrow_mut() = Some(class));
}

/// Builds the JavaScript error value for a core error.
pub fn to_js_error(err: SteplineError) -> JsValue {
    let code = JsValue::from_str(err.code.as_str());
    let path = err
        .path
        .as_deref()
        .map(JsValue::from_str)
        .unwrap_or(JsValue::NULL);
    let message = JsValue::from_str(&err.message);
    let registered = ERROR_CLASS.with(|slot| slot.borrow().clone());
    if let Some(class) = registered {
        let args = Array::of3(&code, &path, &message);
        if let Ok(value) = Reflect::construct(&class, &args) {
            return value;
        }
    }
    // Not registered (raw glue used directly): a plain Error carrying the same fields.
    let error = js_sys::Error::new(&err.message);
    error.set_name("SteplineError");
    let _ = Reflect::set(&error, &"code".into(), &code);
    let _ = Reflect::set(&error, &"path".into(), &path);
    error.into()
}

#[wasm_bindgen(typescript_custom_section)]
const STEPLINE_ERROR_TS: &'static str = r#"
/**
 * Every failure in stepline is thrown as a `SteplineError`.
 *
 * @example
 * ```ts
 * try { parseAgentState('{"status": "idle"}'); }
 * catch (e) {
 *   if (e instanceof SteplineError) console.log(e.code, e.path); // "invalid_value" "/status"
 * }
 * ```
 */
export class SteplineError extends Error {
  /** What kind of problem this is. */
  readonly code: SteplineErrorCode;
  /** JSON pointer to the offending value in the input, or `null` for the input as a whole. */
  readonly path: string | null;
}
"#;
