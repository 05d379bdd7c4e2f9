//! stepline core.
pub mod error;

pub use error::{ErrorCode, SteplineError};

#[cfg(target_arch = "wasm32")]
mod wasm;

/// Crate version plus the build id (git commit, or `dev`) baked in at build time.
pub fn version() -> &'static str {
    concat!(env!("CARGO_PKG_VERSION"), "+", env!("STEPLINE_BUILD_ID"))
}
