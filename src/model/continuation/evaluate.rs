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

/// Criteria are v1.22's: a v2 state is refused (v2's limits are guards, see
/// `crate::model::continuation::v2::data`), never read as an empty v1.22 state.
fn v1_only(input: &Value) -> Result<()> {
    match crate::model::version::StateVersion::of(input)? {
        crate::model::version::StateVersion::V1_22 => Ok(()),
        crate::model::version::StateVersion::V2 => Err(crate::error::SteplineError::at(
            crate::error::ErrorCode::InvalidValue,
            "",
            "expected a v1.22 agent state, found a v2 one: v2's limits are guards, evaluated by evaluateGuards / replayGuards",
        )),
    }
}

/// Evaluates `criteria` on a state in the producer's full format at `now`;
/// returns the outcome and where time limits measured from
/// ([`TimeOrigin::of`]: `compat` keeps the producer's session-start fallback).
pub fn evaluate_state(
    input: &Value,
    criteria: &[Criterion],
    now: Timestamp,
    execution_started_at: Option<Timestamp>,
    compat: bool,
) -> Result<(Outcome, TimeOrigin)> {
    v1_only(input)?;
    let state = AgentState::from_value(input, &now)?;
    let given = execution_start(input, "", &now, execution_started_at)?;
    let origin = TimeOrigin::of(&state, given, compat);
    let outcome = evaluate_all(
        criteria,
        &Observation::from_state(&state, now, Some(origin.at)),
    );
    Ok((outcome, origin))
}

/// Re-evaluates a recorded state step by step under `criteria`.
pub fn replay_state(
    input: &Value,
    criteria: &[Criterion],
    options: ReplayOptions,
    now: Timestamp,
    compat: bool,
) -> Result<Replay> {
    v1_only(input)?;
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
