//! Crossing the boundary.
//!
//! Values go out as JSON text through `JSON.parse`: V8 builds the objects
//! natively (faster than one boundary call per field), written in ASCII
//! (`json::to_ascii_text`: V8 decodes ASCII several times faster than UTF-8
//! with any other character in it), maps are always plain
//! objects, and a `"__proto__"` key becomes an own data property instead of
//! replacing the object's prototype. Values come in as JSON text too (strings are
//! taken as is, objects go through `JSON.stringify`), so one bounded parser
//! checks everything untrusted.

use crate::json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::json::Limits;
use crate::model::read;
use crate::model::time::{self, NowSpec, Timestamp};

use super::errors::to_js_error;

/// Serializes a core value into a plain JavaScript value.
pub fn to_js(value: &Value) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(&crate::json::to_ascii_text(value))
}

/// Serializes any declared shape (`#[derive(Serialize)]`) into a plain
/// JavaScript value, through its JSON text.
pub fn to_js_of<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(&crate::json::to_ascii_text(value))
}

/// Reads `input` (a JSON string or a JSON-compatible object) as a bounded JSON value.
pub fn from_js(input: &JsValue, what: &str) -> Result<Value, SteplineError> {
    let text = input_text(input, what)?;
    crate::json::parse(&text, &Limits::default())
}

/// A parameter that must be a string (JSONL text, a recording, an id). A
/// non-string is a typed error here: left to the generated glue, a number or
/// an object reached memory as if it were text and broke the instance.
pub fn string_arg(input: &JsValue, what: &str) -> Result<String, SteplineError> {
    if !input.is_string() {
        return Err(SteplineError::new(
            ErrorCode::InvalidType,
            None,
            format!("expected {what} as a string, found {}", js_type_name(input)),
        ));
    }
    input_text(input, what)
}

/// `typeof`, with null and arrays named as JSON names them.
fn js_type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if super::walk::is_array(v, "").unwrap_or(false) {
        // (Through the catching import: a revoked Proxy throws here.)
        "an array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    }
}

/// [`input_text`] for one envelope: a string longer than the envelope limit
/// is `too_large` at once, before its characters are checked and copied
/// (a 50 MB message used to take seconds to refuse).
pub fn envelope_text(input: &JsValue) -> Result<String, SteplineError> {
    let max = crate::envelope::decode::ENVELOPE_LIMITS.max_bytes;
    if let Some(s) = input.dyn_ref::<js_sys::JsString>() {
        // UTF-8 never takes fewer bytes than UTF-16 has units.
        if s.length() as usize > max {
            return Err(SteplineError::new(
                ErrorCode::TooLarge,
                None,
                format!(
                    "expected an envelope of at most {max} bytes, found {} characters",
                    s.length()
                ),
            ));
        }
    }
    input_text(input, "the envelope")
}

/// JSON text of `input`: a string as is, anything else through `JSON.stringify`.
pub fn input_text(input: &JsValue, what: &str) -> Result<String, SteplineError> {
    if let Some(s) = input.dyn_ref::<js_sys::JsString>() {
        let text = super::text::utf8(s);
        // A lone surrogate cannot be UTF-8: the copy above turned it into U+FFFD.
        // Only then is the string checked (checking every string, with js-sys's
        // one boundary call per code unit, cost a fifth of a bulk replay).
        if crate::json::contains_replacement_char(&text)
            && !super::walk::well_formed(input.unchecked_ref())
        {
            return Err(SteplineError::new(
                ErrorCode::InvalidJson,
                None,
                format!("expected {what} as well-formed text, found a lone UTF-16 surrogate"),
            ));
        }
        return Ok(text);
    }
    if input.is_undefined() || input.is_null() {
        let found = if input.is_null() { "null" } else { "undefined" };
        return Err(SteplineError::new(
            ErrorCode::InvalidType,
            None,
            format!("expected {what} as a JSON string or an object, found {found}"),
        ));
    }
    match js_sys::JSON::stringify(input) {
        // `JSON.stringify` escapes lone surrogates (well-formed since ES2019),
        // so its text goes through `encodeInto` whole, without the check above
        // (wasm-bindgen's `as_string` copies leading ASCII a unit at a time).
        Ok(s) if s.is_string() => Ok(super::text::utf8(&s)),
        Ok(_) => Err(SteplineError::new(
            ErrorCode::InvalidType,
            None,
            format!("expected {what} as a JSON string or an object, found a value JSON cannot represent"),
        )),
        Err(_) => Err(SteplineError::new(
            ErrorCode::InvalidJson,
            None,
            format!("expected {what} to be JSON-serialisable (it is cyclic or contains a BigInt)"),
        )),
    }
}

/// Reads an options object (`undefined`/`null` give an empty one). Keys outside
/// `allowed` are an error so a misspelt option is never silently ignored.
pub fn options(input: &Option<JsValue>, allowed: &[&str]) -> Result<Map, SteplineError> {
    let map = options_map(input)?;
    read::only_keys(&map, allowed, "/options")?;
    Ok(map)
}

/// Reads an options object without checking its keys (the caller does).
pub fn options_map(input: &Option<JsValue>) -> Result<Map, SteplineError> {
    let Some(input) = input.as_ref().filter(|v| !v.is_undefined() && !v.is_null()) else {
        return Ok(Map::new());
    };
    let value = from_js(input, "options")?;
    Ok(read::object(&value, "/options", "options")?.clone())
}

/// The `now` option resolved against `Date.now()`.
pub fn now_option(opts: &Map) -> Result<Option<NowSpec>, SteplineError> {
    opts.get("now")
        .filter(|v| !v.is_null())
        .map(|v| NowSpec::from_value(v, "/options/now"))
        .transpose()
}

/// The `executionStartedAt` option (an instant or `'now'`) resolved against
/// `clock`; shared by v1.22's continuation and v2's guard exports.
pub fn started_at_option(opts: &Map, clock: Timestamp) -> Result<Option<Timestamp>, SteplineError> {
    opts.get("executionStartedAt")
        .filter(|v| !v.is_null())
        .map(|v| {
            let spec = NowSpec::from_value(v, "/options/executionStartedAt")?;
            time::resolve_now(Some(&spec), clock, "/options/executionStartedAt")
        })
        .transpose()
}

/// The current time from `Date.now()`.
pub fn clock() -> Timestamp {
    time::from_epoch_millis(js_sys::Date::now()).unwrap_or_default()
}

/// Maps a core result into what a wasm-bindgen export returns.
pub fn out<T: serde::Serialize>(result: Result<T, SteplineError>) -> Result<JsValue, JsValue> {
    result.map_err(to_js_error).and_then(|v| to_js_of(&v))
}

/// [`out`] for a result written through a borrowed view of it:
/// `out_with(result, |r| to_js_of(&r.view()))`.
pub fn out_with<T>(
    result: Result<T, SteplineError>,
    write: impl FnOnce(&T) -> Result<JsValue, JsValue>,
) -> Result<JsValue, JsValue> {
    write(&result.map_err(to_js_error)?)
}
