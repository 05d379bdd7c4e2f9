//! stepline: one Rust core for an AI agent's `agent.*` events and persisted
//! state, shared by browsers, Node backends and devtools through WebAssembly.
//!
//! The core is plain Rust and testable natively; `src/wasm/` is the only module
//! that knows about JavaScript (it is not part of the Rust API).
//!
//! # The public API, by task
//!
//! | you have | you want | use |
//! |---|---|---|
//! | a stream of envelopes (live, or a JSONL recording) | one consistent view of the run, whatever the order or repetition of delivery | [`session::Session`] (`ingest_text`, `ingest_jsonl`, `view`), [`session::recording::Recording`], [`session::runlog::RunLog`] for many sessions |
//! | the stream and the state stored at its end | what the two disagree on | [`session::Session::reconcile`] → [`session::reconcile::Report`] |
//! | one envelope | it checked and normalised, whichever producer wrote it | [`envelope::decode::decode_text`], [`envelope::decode::decode_value`] |
//! | producer events | the envelopes the reference adapter broadcasts | [`envelope::Encoder`], [`envelope::BroadcastConfig`] |
//! | an agent state (v1.22 or v2.x) | it read, typed | [`model::AgentState`], [`state_formats::read`], [`model::v2`] |
//! | an agent state | its bounded slim snapshot, restored, fitted to a byte budget, validated | [`snapshot::serialize::slim_state`], [`snapshot::restore::restore`], [`snapshot::budget::slim_within`], [`state_formats::validate_snapshot`], [`snapshot::schema::snapshot_schema`] |
//! | a state and continuation criteria | whether the loop goes on, and why | [`model::continuation::evaluate_all`], [`model::continuation::Criterion`], [`model::continuation::spec`], [`model::continuation::v2`] for v2.x's stop signals and guards |
//! | envelopes, a snapshot, maybe the state | the producer bugs they show | [`lint::diagnose_value`], [`lint::Diagnostic`] |
//! | JSON text | a value, with size and depth limits | [`json::parse`], [`json::Value`], [`json::Map`], [`json::to_string`], [`json!`] |
//!
//! Every fallible operation returns [`SteplineError`]: a stable [`ErrorCode`], a
//! JSON-pointer `path` into the input and a message. Bad input is an error, never a
//! panic (the crate denies `unwrap`, `panic!` and unchecked indexing).
//!
//! ```
//! use stepline::session::Session;
//!
//! let mut s = Session::new(Some("sess-1".into()));
//! let line = r#"{"type":"agent.step.started","session_id":"sess-1","execution_id":"e1",
//!   "timestamp":"2026-01-20T12:00:00.250Z","payload":{"step_number":1}}"#;
//! assert!(s.ingest_text(line)?.applied);
//! assert!(s.ingest_text(line)?.duplicate);
//! assert_eq!(s.view()["executions"][0]["steps"][0]["number"], 1);
//! # Ok::<(), stepline::SteplineError>(())
//! ```

#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)
)]

/// What a run cost: token usage priced with a price table.
#[cfg(feature = "full")]
pub mod cost;
pub mod dialects;
pub mod envelope;
pub mod error;
pub mod event;
#[cfg(target_arch = "wasm32")]
pub(crate) mod host;
pub mod json;
pub mod lint;
pub mod model;
/// OpenTelemetry GenAI export of a run (OTLP/HTTP JSON).
#[cfg(feature = "full")]
pub mod otel;
pub mod php;
#[cfg(feature = "schema")]
pub mod schema;
pub mod secrets;
pub mod session;
pub mod snapshot;
pub(crate) mod sort;
pub mod state_formats;

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
