//! JavaScript strings copied into the wasm as UTF-8.
//!
//! `JsValue::as_string` (and a `String` parameter) copy through wasm-bindgen's
//! glue, which moves the leading ASCII one `charCodeAt` at a time in JavaScript
//! before it hands the rest to `TextEncoder.encodeInto` (bench/findings.md,
//! snapshot validation). Here the whole string goes through `encodeInto`, which
//! the engine runs natively, straight into a buffer in wasm memory.

use js_sys::JsString;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    /// Writes `source` as UTF-8 into `destination` (a view of wasm memory, not
    /// a copy); a lone surrogate is written as U+FFFD, as `as_string` does.
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, source: &JsString, destination: &mut [u8]) -> EncodeInto;

    type EncodeInto;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeInto) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeInto) -> u32;
}

/// `s` as UTF-8, lone surrogates read as U+FFFD (the same text `as_string` gives).
pub fn utf8(s: &JsString) -> String {
    let units = s.length();
    // One byte a unit first (all of ASCII text); what did not fit, at most
    // three bytes a unit, after it. Three bytes a unit at once made every
    // large ASCII string take three times its size while it was copied.
    let mut buffer = vec![0u8; units as usize];
    let encoder = TextEncoder::new();
    let first = encoder.encode_into(s, &mut buffer);
    let (read, mut written) = (first.read(), first.written() as usize);
    if read < units {
        buffer.resize(written + (units - read) as usize * 3, 0);
        let rest = s.slice(read, units);
        if let Some(tail) = buffer.get_mut(written..) {
            written += encoder.encode_into(&rest, tail).written() as usize;
        }
    }
    buffer.truncate(written);
    buffer.shrink_to_fit();
    // SAFETY: `encodeInto` writes UTF-8, whole characters only (WHATWG Encoding),
    // and `written` counts exactly those bytes; the second call starts where the
    // first stopped reading, at a character (it never splits a surrogate pair).
    // wasm-bindgen's own `as_string` trusts the same call the same way
    // (`String::from_utf8_unchecked` on what its glue's `encodeInto` wrote); a
    // second check is a full pass over the text.
    unsafe { String::from_utf8_unchecked(buffer) }
}
