//! instructor-php's stored agent states as plug-ins: each release's
//! `AgentState::toArray()` is one [`StateFormat`] in its own folder (v1_22/,
//! v2/) and one line of the registry ([`BUILT_IN`],
//! src/state_formats/registry.rs). The models stay where they are (src/model/
//! for v1.22, src/model/v2/, src/snapshot/v2.rs); a format is the glue that
//! says which state is its own and what it does with one.
//!
//! [`StateFormats`] is the one version check: reading (`parseAgentState`),
//! slimming, restoring and validating snapshots, the continuation and guard
//! evaluators and `pricesFromState` ask it which format a state or snapshot
//! is in, and nothing else branches on a version. Reconciliation's hooks
//! (src/session/reconcile/formats.rs) are looked up by the format's name:
//! they compare a session's types, which live above this module.

#[cfg(feature = "full")]
mod entries;
mod registry;
pub mod v1_22;
pub mod v2;

#[cfg(feature = "full")]
pub use entries::{
    evaluate_guards, evaluate_state, read, replay_guards, replay_state, restore, slim,
    validate_snapshot,
};
#[cfg(feature = "full")]
pub use registry::State;
pub use registry::{StateFormat, StateFormats, BUILT_IN};
