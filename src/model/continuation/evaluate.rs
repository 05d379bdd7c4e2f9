//! One-shot operations on whole states, as the JavaScript API offers them.

use crate::json::Value;

use crate::error::Result;
use crate::json::child;
use crate::model::continuation::criteria::{evaluate_all, Criterion};
use crate::model::continuation::evaluation::Evaluation;
use crate::model::continuation::observe::{Observation, OriginSource, TimeOrigin};
use crate::model::continuation::outcome::Outcome;
use crate::model::continuation::replay::{replay, Replay, ReplayOptions};
use crate::model::read;
use crate::model::state::AgentState;
use crate::model::time::{self, Timestamp};

/// When the current execution started, when something says so: the
/// caller's value, else the state's own `executionStartedAt` as written in
/// the input (a live state carries it; only *restoring* for resume drops it,
/// seed 004).
fn execution_start(
    input: &Value,
    state_path: &str,
    now: &Timestamp,
    given: Option<Timestamp>,
) -> Result<Option<(Timestamp, OriginSource)>> {
    if let Some(at) = given {
        return Ok(Some((at, OriginSource::Option)));
    }
    match input.get("executionStartedAt").filter(|v| !v.is_null()) {
        Some(v) => Ok(Some((
            time::read(v, now, &child(state_path, "executionStartedAt"))?,
            OriginSource::ExecutionStartedAt,
        ))),
        None => Ok(None),
    }
}

/// Evaluates `criteria` on a v1.22 state in the producer's full format at
/// `now` (telling it from a v2 one, whose limits are guards, is the caller's:
/// `evaluate_state` in src/state_formats/entries.rs asks the state's format);
/// returns the outcome and where time limits measured from
/// ([`TimeOrigin::of`]: `compat` keeps the producer's session-start fallback).
pub fn evaluate_state(
    input: &Value,
    criteria: &[Criterion],
    now: Timestamp,
    execution_started_at: Option<Timestamp>,
    compat: bool,
) -> Result<(Outcome, TimeOrigin)> {
    let state = AgentState::from_value(input, &now)?;
    let given = execution_start(input, "", &now, execution_started_at)?;
    let origin = TimeOrigin::of(&state, given, compat);
    let outcome = evaluate_all(
        criteria,
        &Observation::from_state(&state, now, Some(origin.at)),
    );
    Ok((outcome, origin))
}

/// Re-evaluates a recorded v1.22 state step by step under `criteria` (the
/// state's format is the caller's to check, as for [`evaluate_state`]).
pub fn replay_state(
    input: &Value,
    criteria: &[Criterion],
    options: ReplayOptions,
    now: Timestamp,
    compat: bool,
) -> Result<Replay> {
    let state = AgentState::from_value(input, &now)?;
    let given = execution_start(input, "", &now, options.execution_started_at)?;
    let origin = TimeOrigin::of(&state, given, compat);
    let mut out = replay(
        &state,
        criteria,
        &ReplayOptions {
            execution_started_at: Some(origin.at),
            ..options
        },
    );
    out.time_origin = Some(origin);
    Ok(out)
}

/// Resolves a list of evaluations in the producer's array form.
pub fn resolve_evaluations(input: &Value, path: &str) -> Result<Outcome> {
    let list = read::entries(input, path, "evaluations")?
        .into_iter()
        .map(|(k, v)| Evaluation::from_value(v, &child(path, &k)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Outcome::resolve(list))
}
