//! stepline: one Rust core for an AI agent's `agent.*` events and persisted
//! state, shared by browsers, Node backends and devtools through WebAssembly.
//!
//! The core is plain Rust and testable natively; `src/wasm/` is the only module
//! that knows about JavaScript.

pub mod continuation;
pub mod envelope;
pub mod error;
pub mod json;
pub mod lint;
pub mod model;
pub mod php;
#[cfg(feature = "schema")]
pub mod schema;
pub mod session;
pub mod snapshot;
pub mod sort;

pub use error::{ErrorCode, SteplineError};

/// The JavaScript boundary (public only so the wasm-bindgen tests can call it).
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

/// Crate version plus the build id (git commit, or `dev`) baked in at build time.
pub fn version() -> &'static str {
    concat!(env!("CARGO_PKG_VERSION"), "+", env!("STEPLINE_BUILD_ID"))
}

/// The wasm heap: talc instead of Rust's default dlmalloc, for speed and size
/// (bulk ingestJsonl allocates and frees every parsed string). Single-threaded
/// wasm only, which is what the package is built for.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
