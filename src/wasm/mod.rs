//! The JavaScript boundary: the only module that imports wasm-bindgen.
//! Everything here converts, delegates to the core, and converts back.

mod convert;
mod errors;

use wasm_bindgen::prelude::*;

/// Installs the panic hook once, when the module is instantiated.
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version and the build that produced this module, e.g. `"0.1.0+3f2c1ab"`.
///
/// @example
/// ```js
/// import { version } from 'stepline';
/// console.log(version()); // "0.1.0+3f2c1ab"
/// ```
#[wasm_bindgen]
pub fn version() -> String {
    crate::version().to_string()
}
