//! Conversions between JavaScript values and the core's JSON values.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::SteplineError;

/// The one serializer for values crossing into JavaScript: maps become plain
/// objects (never `Map`s) and missing values become `null`.
const SERIALIZER: serde_wasm_bindgen::Serializer =
    serde_wasm_bindgen::Serializer::json_compatible();

/// Serializes a core value into a plain JavaScript value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&SERIALIZER)
        .map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))
}

/// Accepts either a JSON string or a plain JavaScript value and returns JSON text
/// for the core to parse. Objects go through `JSON.stringify`, which is faster
/// than walking them field by field and drops `__proto__` tricks on the way.
pub fn input_text(input: &JsValue, what: &str) -> Result<String, SteplineError> {
    if let Some(text) = input.as_string() {
        return Ok(text);
    }
    if input.is_undefined() || input.is_null() {
        return Err(SteplineError::new(
            crate::ErrorCode::InvalidType,
            None,
            format!(
                "expected {what} as a JSON string or an object, found {}",
                if input.is_null() { "null" } else { "undefined" }
            ),
        ));
    }
    match js_sys::JSON::stringify(input) {
        Ok(s) => s.as_string().ok_or_else(|| {
            SteplineError::new(crate::ErrorCode::InvalidType, None, format!("expected {what} as a JSON string or an object, found a value JSON cannot represent"))
        }),
        Err(_) => Err(SteplineError::new(
            crate::ErrorCode::InvalidJson,
            None,
            format!("{what} could not be converted to JSON (cyclic or contains a BigInt)"),
        )),
    }
}
