//! Reading user-supplied JavaScript values without letting their code escape.
//!
//! A getter, a Proxy trap, a revoked Proxy or a `toJSON` method runs user code
//! in the middle of a property read. An exception thrown there must never cross
//! the wasm frames: the release build aborts on panic and does not unwind, so a
//! foreign exception leaves the shadow stack pointer where it was and a few
//! hundred such calls break the instance for good. Every read here goes through
//! an import marked `catch`, and what was thrown comes back as a typed
//! [`SteplineError`] (with the JSON pointer of the value being read) that
//! unwinds through Rust normally.

use crate::json::Value;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::json::{child, Limits};

use super::convert::from_js;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn array_is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_namespace = Object, js_name = hasOwn, catch)]
    fn object_has_own(value: &JsValue, key: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn json_stringify(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn json_stringify_with(
        value: &JsValue,
        replacer: &js_sys::Function,
    ) -> Result<JsValue, JsValue>;
    /// `String.prototype.isWellFormed.call(s)` (caught: an engine without it throws).
    #[wasm_bindgen(js_namespace = ["String", "prototype", "isWellFormed"], js_name = call, catch)]
    fn is_well_formed(s: &js_sys::JsString) -> Result<bool, JsValue>;
}

/// Whether a string has no lone surrogate, without copying it into the wasm:
/// the engine's `isWellFormed` where it has one, else a unit-by-unit scan.
pub fn well_formed(s: &js_sys::JsString) -> bool {
    is_well_formed(s).unwrap_or_else(|_| s.is_valid_utf16())
}

/// The `invalid_json` error for a lone surrogate at `path`, as the core
/// parser reports it for the same JSON text.
pub fn lone_surrogate(path: &str, what: &str) -> SteplineError {
    error_at(
        ErrorCode::InvalidJson,
        path,
        format!("expected {what} as well-formed text, found a lone UTF-16 surrogate"),
    )
}

/// Longest description of a thrown value kept in an error message.
const MAX_THROWN_CHARS: usize = 200;

/// A thrown value described for a message: `"Error: boom"`, a string as is, ….
/// Reads only through `catch` imports: a thrown Proxy cannot throw again from here.
pub fn thrown(e: &JsValue) -> String {
    let text = if let Some(s) = e.as_string() {
        return crate::json::quote(&shorten(s));
    } else if let Some(n) = e.as_f64() {
        format!("the number {}", crate::json::js_number_text(n))
    } else if let Some(b) = e.as_bool() {
        format!("the value {b}")
    } else if e.is_null() || e.is_undefined() {
        if e.is_null() { "null" } else { "undefined" }.to_string()
    } else if e.is_object() || e.is_function() {
        match (string_field(e, "name"), string_field(e, "message")) {
            (Some(name), Some(message)) if !message.is_empty() => format!("{name}: {message}"),
            (Some(name), _) => name,
            (None, Some(message)) => message,
            (None, None) => "an object that is not an Error".to_string(),
        }
    } else {
        // A symbol or a BigInt.
        format!("a {}", e.js_typeof().as_string().unwrap_or_default())
    };
    shorten(text)
}

/// The `message` of a thrown Error-like value, or the thrown string itself.
pub fn thrown_message(e: &JsValue) -> Option<String> {
    let text = if let Some(s) = e.as_string() {
        s
    } else if e.is_object() || e.is_function() {
        string_field(e, "message")?
    } else {
        return None;
    };
    Some(shorten(text))
}

fn string_field(e: &JsValue, key: &str) -> Option<String> {
    Reflect::get(e, &JsValue::from_str(key))
        .ok()
        .and_then(|v| v.as_string())
}

fn shorten(text: String) -> String {
    match text.char_indices().nth(MAX_THROWN_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// An error at the JSON pointer `path`; the empty pointer (the whole input) is
/// `None`, as the rest of the crate reports it.
fn error_at(code: ErrorCode, path: &str, message: String) -> SteplineError {
    SteplineError::new(code, (!path.is_empty()).then(|| path.to_string()), message)
}

/// The error for a read at `path` that threw `e`.
pub fn read_failed(path: &str, e: &JsValue) -> SteplineError {
    error_at(
        ErrorCode::InvalidValue,
        path,
        format!(
            "expected a readable value, but reading it threw {}",
            thrown(e)
        ),
    )
}

/// `Array.isArray(value)` (which throws for a revoked Proxy).
pub fn is_array(value: &JsValue, path: &str) -> Result<bool, SteplineError> {
    if !value.is_object() {
        return Ok(false);
    }
    array_is_array(value).map_err(|e| read_failed(path, &e))
}

/// An object that is not an array.
pub fn is_plain_object(value: &JsValue, path: &str) -> Result<bool, SteplineError> {
    Ok(value.is_object() && !is_array(value, path)?)
}

/// `value[key]`, own or inherited; `value` must be an object.
pub fn get(value: &JsValue, key: &str, path: &str) -> Result<JsValue, SteplineError> {
    Reflect::get(value, &JsValue::from_str(key)).map_err(|e| read_failed(&child(path, key), &e))
}

/// `value[i]`; `value` must be an object.
pub fn get_index(value: &JsValue, i: u32, path: &str) -> Result<JsValue, SteplineError> {
    Reflect::get_u32(value, i).map_err(|e| read_failed(&child(path, &i.to_string()), &e))
}

/// `Object.hasOwn(value, key)`; `value` must be an object.
pub fn has_own(value: &JsValue, key: &str, path: &str) -> Result<bool, SteplineError> {
    object_has_own(value, &JsValue::from_str(key)).map_err(|e| read_failed(&child(path, key), &e))
}

/// `Object.keys(value)`: own enumerable string keys, in order; `value` must be an object.
pub fn keys(value: &JsValue, path: &str) -> Result<Vec<String>, SteplineError> {
    let keys = object_keys(value).map_err(|e| read_failed(path, &e))?;
    // A real array of strings made by the engine: reading it runs no user code.
    Ok(keys.iter().filter_map(|k| k.as_string()).collect())
}

/// [`keys`], with a key holding a lone surrogate refused as `invalid_json` (it
/// would read as U+FFFD and no longer name its member).
pub fn well_formed_keys(value: &JsValue, path: &str) -> Result<Vec<String>, SteplineError> {
    let keys = object_keys(value).map_err(|e| read_failed(path, &e))?;
    let mut out = Vec::with_capacity(keys.length() as usize);
    for key in keys.iter() {
        let Some(text) = key.as_string() else {
            continue;
        };
        // Only a key that reads with U+FFFD can hold a lone surrogate.
        if crate::json::contains_replacement_char(&text) && !well_formed(key.unchecked_ref()) {
            return Err(lone_surrogate(&child(path, &text), "a key"));
        }
        out.push(text);
    }
    Ok(out)
}

/// The `length` of an array (or of a Proxy of one, which may report anything).
/// An array longer than half the JSON byte limit could not be written as JSON
/// within it, so it is `too_large` rather than walked.
pub fn length(value: &JsValue, path: &str) -> Result<u32, SteplineError> {
    let raw =
        Reflect::get(value, &JsValue::from_str("length")).map_err(|e| read_failed(path, &e))?;
    let n = raw.as_f64().unwrap_or(f64::NAN);
    if !(n >= 0.0 && n <= f64::from(u32::MAX) && n.fract() == 0.0) {
        return Err(error_at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected an array with a whole-number length, found length {}",
                raw.as_f64()
                    .map_or_else(|| thrown(&raw), crate::json::js_number_text)
            ),
        ));
    }
    let max = Limits::default().max_bytes / 2;
    if n > max as f64 {
        return Err(error_at(
            ErrorCode::TooLarge,
            path,
            format!(
                "expected an array of at most {max} items, found {}",
                crate::json::js_number_text(n)
            ),
        ));
    }
    Ok(n as u32)
}

/// The `too_deep` error for an array or object at `path`, nested deeper than `limit`.
pub fn too_deep(path: &str, limit: usize) -> SteplineError {
    error_at(
        ErrorCode::TooDeep,
        path,
        format!("expected JSON nested at most {limit} levels deep, found deeper nesting"),
    )
}

/// `input` (a JSON string or a JSON-compatible value) read as a bounded JSON
/// value, as `convert::from_js` does, except that what `JSON.stringify` throws
/// (a getter, a Proxy trap, `toJSON`) is described in the error. `path` is the
/// input's place (`None` for a whole argument).
pub fn json_value(input: &JsValue, path: Option<&str>, what: &str) -> Result<Value, SteplineError> {
    if input.is_string() || input.is_undefined() || input.is_null() {
        return from_js(input, what);
    }
    let text = json_stringify(input).map_err(|e| stringify_failed(&e, path, what))?;
    let Some(text) = text.as_string() else {
        return Err(SteplineError::new(
            ErrorCode::InvalidType,
            path.map(str::to_string),
            format!("expected {what} as a JSON string or an object, found a value JSON cannot represent"),
        ));
    };
    crate::json::parse(&text, &Limits::default())
}

/// [`json_value`] for a value made by `JSON.parse` from text: a number token
/// beyond `f64` (`1e999`), which `JSON.parse` reads as Infinity and
/// `JSON.stringify` writes as `null`, is `invalid_json`, as the core parser
/// (and so `parseAgentState`) reports the same text. A replacer sees every
/// number before it is written; it only notes what it sees.
pub fn parsed_json_value(input: &JsValue, path: &str, what: &str) -> Result<Value, SteplineError> {
    if let Some(n) = input.as_f64() {
        return if n.is_finite() {
            Ok(Value::from(n))
        } else {
            Err(number_out_of_range(path))
        };
    }
    let overflow = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = overflow.clone();
    let replacer = Closure::<dyn FnMut(JsValue, JsValue) -> JsValue>::new(
        move |_key: JsValue, value: JsValue| {
            if value.as_f64().is_some_and(|n| !n.is_finite()) {
                seen.set(true);
            }
            value
        },
    );
    let at = (!path.is_empty()).then_some(path);
    let text = json_stringify_with(input, replacer.as_ref().unchecked_ref())
        .map_err(|e| stringify_failed(&e, at, what))?;
    if overflow.get() {
        return Err(number_out_of_range(path));
    }
    let Some(text) = text.as_string() else {
        return Err(error_at(
            ErrorCode::InvalidType,
            path,
            format!("expected {what} as a JSON string or an object, found a value JSON cannot represent"),
        ));
    };
    crate::json::parse(&text, &Limits::default())
}

fn number_out_of_range(path: &str) -> SteplineError {
    error_at(
        ErrorCode::InvalidJson,
        path,
        "expected valid JSON: number out of range".to_string(),
    )
}

fn stringify_failed(e: &JsValue, path: Option<&str>, what: &str) -> SteplineError {
    let described = thrown(e);
    let code = if e.is_instance_of::<js_sys::RangeError>() {
        // The engine ran out of stack: nesting far beyond any limit.
        ErrorCode::TooDeep
    } else if e.is_instance_of::<js_sys::TypeError>()
        && ["circular", "cyclic", "BigInt"]
            .iter()
            .any(|w| described.contains(w))
    {
        // What JSON cannot hold, as `convert::from_js` reports it.
        ErrorCode::InvalidJson
    } else {
        ErrorCode::InvalidValue
    };
    SteplineError::new(
        code,
        path.map(str::to_string),
        format!("expected {what} to be JSON-serialisable, but JSON.stringify threw {described}"),
    )
}

/// A fresh object with no prototype holding `value`'s own enumerable string-keyed
/// properties, read one by one (so a throwing getter is named by its path). No
/// prototype: a `__proto__` key stays an own property of the copy.
pub fn copy_own(value: &JsValue, path: &str) -> Result<Object, SteplineError> {
    let copy = Object::create(JsValue::NULL.unchecked_ref());
    for key in keys(value, path)? {
        let item = get(value, &key, path)?;
        Reflect::set(&copy, &JsValue::from_str(&key), &item)
            .map_err(|e| read_failed(&child(path, &key), &e))?;
    }
    Ok(copy)
}
