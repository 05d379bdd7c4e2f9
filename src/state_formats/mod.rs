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

mod registry;
pub mod v1_22;
pub mod v2;

#[cfg(feature = "full")]
pub use registry::State;
pub use registry::{StateFormat, StateFormats, BUILT_IN};

// The entries below read, slim, restore and evaluate stored states: the full
// package's (the live entry reads no stored state).

#[cfg(feature = "full")]
use crate::error::Result;
#[cfg(feature = "full")]
use crate::json::Value;
#[cfg(feature = "full")]
use crate::model::continuation::criteria::Criterion;
#[cfg(feature = "full")]
use crate::model::continuation::observe::TimeOrigin;
#[cfg(feature = "full")]
use crate::model::continuation::outcome::Outcome;
#[cfg(feature = "full")]
use crate::model::continuation::replay::{Replay, ReplayOptions};
#[cfg(feature = "full")]
use crate::model::continuation::v2::guard::{Guard, Trigger};
#[cfg(feature = "full")]
use crate::model::continuation::v2::replay::{GuardCheck, GuardReplay, ReplayClock};
#[cfg(feature = "full")]
use crate::model::time::Timestamp;
#[cfg(feature = "full")]
use crate::snapshot::budget::Fitted;
#[cfg(feature = "full")]
use crate::snapshot::validate::Report;
#[cfg(feature = "full")]
use crate::snapshot::SlimConfig;

/// Reads a stored state of any built-in format ([`StateFormats::read`]).
#[cfg(feature = "full")]
pub fn read(state: &Value, now: &Timestamp, compat: bool) -> Result<Box<dyn State>> {
    StateFormats::built_in().read(state, now, compat)
}

/// Slims a stored state of any built-in format ([`StateFormats::slim`]):
/// the entry for native callers (the WebAssembly `slimSnapshot` reads v1.22
/// states selectively instead).
#[cfg(feature = "full")]
pub fn slim(
    state: &Value,
    config: &SlimConfig,
    max_bytes: Option<usize>,
    now: &Timestamp,
) -> Result<Fitted> {
    StateFormats::built_in().slim(state, config, max_bytes, now)
}

/// Restores a slim snapshot of any built-in format ([`StateFormats::restore`]).
#[cfg(feature = "full")]
pub fn restore(snapshot: &Value, now: &Timestamp) -> Result<Box<dyn State>> {
    StateFormats::built_in().restore(snapshot, now)
}

/// Checks a snapshot as `validateSnapshot` does ([`StateFormats::validate_snapshot`]).
///
/// ```
/// let snap = stepline::json::from_str(r#"{"status": null}"#).unwrap();
/// let report = stepline::state_formats::validate_snapshot(&snap);
/// assert!(report.errors.iter().any(|e| e.path == "/status"));
/// ```
#[cfg(feature = "full")]
pub fn validate_snapshot(snapshot: &Value) -> Report {
    StateFormats::built_in().validate_snapshot(snapshot)
}

/// Evaluates continuation `criteria` on a stored state whose format's limits
/// are criteria ([`StateFormat::criteria`]; the evaluation itself is
/// `evaluate_state` of src/model/continuation/evaluate.rs).
#[cfg(feature = "full")]
pub fn evaluate_state(
    input: &Value,
    criteria: &[Criterion],
    now: Timestamp,
    execution_started_at: Option<Timestamp>,
    compat: bool,
) -> Result<(Outcome, TimeOrigin)> {
    StateFormats::built_in().of(input)?.criteria()?;
    crate::model::continuation::evaluate::evaluate_state(
        input,
        criteria,
        now,
        execution_started_at,
        compat,
    )
}

/// Replays a recorded state step by step under `criteria`, once its format
/// says its limits are criteria.
#[cfg(feature = "full")]
pub fn replay_state(
    input: &Value,
    criteria: &[Criterion],
    options: ReplayOptions,
    now: Timestamp,
    compat: bool,
) -> Result<Replay> {
    StateFormats::built_in().of(input)?.criteria()?;
    crate::model::continuation::evaluate::replay_state(input, criteria, options, now, compat)
}

/// Runs `guards` (their JSON list, read first) on a stored state whose
/// format's limits are guards ([`StateFormat::guards`]).
#[cfg(feature = "full")]
pub fn evaluate_guards(
    state: &Value,
    guards: &Value,
    trigger: Option<Trigger>,
    now: Timestamp,
    started: Option<Timestamp>,
) -> Result<GuardCheck> {
    let guards = Guard::list_from_value(guards, "/guards")?;
    StateFormats::built_in().of(state)?.guards()?;
    crate::model::continuation::v2::data::evaluate_guards(state, &guards, trigger, now, started)
}

/// Replays a recorded run under `guards`, once its format says its limits
/// are guards.
#[cfg(feature = "full")]
pub fn replay_guards(
    state: &Value,
    guards: &Value,
    clock: ReplayClock,
    now: Timestamp,
) -> Result<GuardReplay> {
    let guards = Guard::list_from_value(guards, "/guards")?;
    StateFormats::built_in().of(state)?.guards()?;
    crate::model::continuation::v2::data::replay(state, &guards, clock, now)
}
