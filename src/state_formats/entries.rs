//! The entry points for native callers and the wasm boundary that read,
//! slim, restore, validate and evaluate stored states of any built-in
//! format: the full package's (the live entry reads no stored state).

use super::{State, StateFormats};
use crate::error::Result;
use crate::json::Value;
use crate::model::continuation::criteria::Criterion;
use crate::model::continuation::observe::TimeOrigin;
use crate::model::continuation::outcome::Outcome;
use crate::model::continuation::replay::{Replay, ReplayOptions};
use crate::model::continuation::v2::guard::{Guard, Trigger};
use crate::model::continuation::v2::replay::{GuardCheck, GuardReplay, ReplayClock};
use crate::model::time::Timestamp;
use crate::snapshot::budget::Fitted;
use crate::snapshot::validate::Report;
use crate::snapshot::SlimConfig;

/// Reads a stored state of any built-in format ([`StateFormats::read`]).
pub fn read(state: &Value, now: &Timestamp, compat: bool) -> Result<Box<dyn State>> {
    StateFormats::built_in().read(state, now, compat)
}

/// Slims a stored state of any built-in format ([`StateFormats::slim`]):
/// the entry for native callers (the WebAssembly `slimSnapshot` reads v1.22
/// states selectively instead).
pub fn slim(
    state: &Value,
    config: &SlimConfig,
    max_bytes: Option<usize>,
    now: &Timestamp,
) -> Result<Fitted> {
    StateFormats::built_in().slim(state, config, max_bytes, now)
}

/// Restores a slim snapshot of any built-in format ([`StateFormats::restore`]).
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
pub fn validate_snapshot(snapshot: &Value) -> Report {
    StateFormats::built_in().validate_snapshot(snapshot)
}

/// Evaluates continuation `criteria` on a stored state whose format's limits
/// are criteria ([`StateFormat::criteria`](super::StateFormat::criteria); the evaluation itself is
/// `evaluate_state` of src/model/continuation/evaluate.rs).
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
/// format's limits are guards ([`StateFormat::guards`](super::StateFormat::guards)).
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
