//! What the host lends the core from below every layer: in the wasm, the
//! JavaScript engine's number reader, for [`crate::json::parse_f64`].
//! `Number(text)` rounds decimal text to the nearest double, as Rust's reader
//! does, without shipping Rust's table of powers of ten in the wasm. The JSON
//! layer needs it, so it cannot live in src/wasm/ (which imports everything);
//! it is the one module outside src/wasm/ that imports wasm-bindgen.

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
