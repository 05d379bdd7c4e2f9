//! The host's number reader, for [`crate::json::parse_f64`]: `Number(text)`
//! rounds decimal text to the nearest double, as Rust's reader does, without
//! shipping Rust's table of powers of ten in the wasm.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = Number)]
    fn number(text: &str) -> f64;
}

/// `Number(text)` for decimal number text (checked by the caller).
pub fn read(text: &str) -> f64 {
    number(text)
}
