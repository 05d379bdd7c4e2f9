//! The JavaScript boundary: the only module that imports wasm-bindgen.
//! Every function here converts its arguments, calls the core, and converts
//! the result back; the logic lives in the core where it is tested natively.

//!
//! Three wasm modules are built from it (scripts/build.mjs), one per package
//! entry; the linker leaves out of each what its exports do not reach (the
//! size budgets in scripts/size-budget.json):
//! - `stepline/devtools`, every feature (the default): the whole API.
//! - `stepline`, the `full` feature without `devtools`: all but what only a
//!   devtools needs (the timeline and `envelopesOf`, `exportOtlp`,
//!   `Session.cost` and `pricesFromState`, `compareRuns`, `diagnose`,
//!   `Session.replayContinuation`).
//! - `stepline/live`, no feature: what a web UI needs to show a live run:
//!   decoding, `channelFor`, `Session` (all but `reconcile`) and the role
//!   tests.

pub mod convert;
pub mod envelope;
pub mod errors;
pub mod roles;
pub mod session;
pub mod text;
pub mod types;
pub mod walk;

#[cfg(feature = "devtools")]
pub mod compare;
#[cfg(feature = "full")]
pub mod continuation;
#[cfg(feature = "devtools")]
pub mod cost;
#[cfg(feature = "devtools")]
pub mod diagnose;
#[cfg(feature = "full")]
pub mod encoder;
#[cfg(feature = "full")]
pub mod inference;
#[cfg(feature = "devtools")]
pub mod otel;
#[cfg(feature = "full")]
pub mod reconcile;
#[cfg(feature = "full")]
pub mod runlog;
#[cfg(feature = "full")]
pub mod snapshot;
#[cfg(feature = "full")]
pub mod state;
#[cfg(feature = "full")]
pub mod stop;
#[cfg(feature = "devtools")]
pub mod timeline;

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
