//! One-shot operations on whole states, as the JavaScript API offers them.

use crate::json::Value;

use crate::continuation::criteria::{evaluate_all, Criterion};
use crate::continuation::evaluation::Evaluation;
use crate::continuation::observe::Observation;
use crate::continuation::outcome::Outcome;
use crate::continuation::replay::{replay, Replay, ReplayOptions};
use crate::error::Result;
use crate::json::child;
use crate::model::read;
use crate::model::state::AgentState;
use crate::model::time::{self, Timestamp};

/// When the current execution started: the caller's value, else the state's own
/// `executionStartedAt` as written in the input (a live state carries it; only
/// *restoring* for resume drops it, seed 004), else `None` (session start).
fn execution_start(
    input: &Value,
    state_path: &str,
    now: &Timestamp,
    given: Option<Timestamp>,
) -> Result<Option<Timestamp>> {
    if given.is_some() {
        return Ok(given);
    }
    match input.get("executionStartedAt").filter(|v| !v.is_null()) {
        Some(v) => Ok(Some(time::read(
            v,
            now,
            &child(state_path, "executionStartedAt"),
        )?)),
        None => Ok(None),
    }
}

/// Evaluates `criteria` on a state in the producer's full format at `now`.
pub fn evaluate_state(
    input: &Value,
    criteria: &[Criterion],
    now: Timestamp,
    execution_started_at: Option<Timestamp>,
) -> Result<Outcome> {
    let state = AgentState::from_value(input, &now)?;
    let started = execution_start(input, "", &now, execution_started_at)?;
    Ok(evaluate_all(
        criteria,
        &Observation::from_state(&state, now, started),
    ))
}

/// Re-evaluates a recorded state step by step under `criteria`.
pub fn replay_state(
    input: &Value,
    criteria: &[Criterion],
    options: ReplayOptions,
    now: Timestamp,
) -> Result<Replay> {
    let state = AgentState::from_value(input, &now)?;
    let started = execution_start(input, "", &now, options.execution_started_at)?;
    Ok(replay(
        &state,
        criteria,
        &ReplayOptions {
            execution_started_at: started,
            ..options
        },
    ))
}

/// Resolves a list of evaluations in the producer's array form.
pub fn resolve_evaluations(input: &Value, path: &str) -> Result<Outcome> {
    let list = read::entries(input, path, "evaluations")?
        .into_iter()
        .map(|(k, v)| Evaluation::from_value(v, &child(path, &k)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Outcome::resolve(list))
}
