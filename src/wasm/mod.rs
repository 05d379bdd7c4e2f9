//! The JavaScript boundary: the only module that imports wasm-bindgen.
//! Every function here converts its arguments, calls the core, and converts
//! the result back; the logic lives in the core where it is tested natively.

pub mod continuation;
pub mod convert;
pub mod envelope;
pub mod errors;
pub mod inference;
pub mod roles;
pub mod session;
pub mod snapshot;
pub mod state;
pub mod types;
pub mod walk;

use wasm_bindgen::prelude::*;

/// The crate version and the build that produced this module.
///
/// @example
/// ```js
/// import { version } from 'stepline';
/// version(); // "0.1.0+3f2c1ab"
/// ```
#[wasm_bindgen]
pub fn version() -> String {
    crate::version().to_string()
}
