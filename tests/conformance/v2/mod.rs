//! Handlers for the instructor-php v2.7.0 corpus (`tests/vectors/instructor-php-v2.7`).
//! Same file names as v1.22's, different formats: nothing here is shared with
//! the v1.22 handlers but the comparison rules (`crate::compare`).

mod agent_runs;
mod broadcast;
mod continuation;
mod envelopes;
mod state_model;

use crate::Suite;

/// A v2.7 state-model.json case, checked as the suite checks one (for the
/// runner's self-checks).
pub fn check_state_model(case: &stepline::json::Value) -> Option<Result<(), String>> {
    state_model::check("", case)
}

/// A v2.7 envelopes.json case, checked as the suite checks one.
pub fn check_envelopes(case: &stepline::json::Value) -> Option<Result<(), String>> {
    envelopes::check("", case)
}

/// The v2.7 files this runner checks, each with its handler.
pub const SUITES: &[Suite] = &[
    Suite {
        file: "state-model.json",
        check: state_model::check,
    },
    Suite {
        file: "continuation.json",
        check: |n, c| crate::by_value(continuation::run, n, c),
    },
    Suite {
        file: "envelopes.json",
        check: envelopes::check,
    },
    Suite {
        file: "agent-runs.json",
        check: agent_runs::check,
    },
];
