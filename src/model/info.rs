//! `StateInfo` (session identity and timing) and `StepInfo` (step id and time).

use crate::json::Value;

use crate::error::Result;
use crate::json::child;
use crate::model::ids::new_id;
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::php;

/// Session identity and timing. `cumulative_execution_seconds` survives storage
/// (seed 004, issue 3); `started_at` is the *session* start, not the execution's.
#[derive(Clone, Debug, PartialEq)]
pub struct StateInfo {
    /// The agent session's id.
    pub id: String,
    /// When the session started (`startedAt`).
    pub started_at: Timestamp,
    /// When the state last changed (`updatedAt`).
    pub updated_at: Timestamp,
    /// Execution seconds summed across pauses and resumes (`cumulativeExecutionSeconds`).
    pub cumulative_execution_seconds: f64,
}

impl StateInfo {
    /// A new session's info: a generated id, started and updated `now`.
    pub fn new(now: &Timestamp) -> StateInfo {
        StateInfo {
            id: new_id(),
            started_at: *now,
            updated_at: *now,
            cumulative_execution_seconds: 0.0,
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<StateInfo> {
        let m = read::object(v, path, "stateInfo")?;
        Ok(StateInfo {
            id: read::opt_scalar_string(m, "id", path)?.unwrap_or_else(new_id),
            started_at: time::read_or_now(m.get("startedAt"), now, &child(path, "startedAt"))?,
            updated_at: time::read_or_now(m.get("updatedAt"), now, &child(path, "updatedAt"))?,
            cumulative_execution_seconds: m
                .get("cumulativeExecutionSeconds")
                .map(php::float_cast)
                .unwrap_or(0.0),
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("id", Value::from(self.id.clone())),
            ("startedAt", Value::from(format_atom(&self.started_at))),
            ("updatedAt", Value::from(format_atom(&self.updated_at))),
            (
                "cumulativeExecutionSeconds",
                Value::from(self.cumulative_execution_seconds),
            ),
        ])
    }

    /// Adds one step's execution time (plain IEEE-754 addition, as the reference).
    pub fn add_execution_time(&self, seconds: f64, now: &Timestamp) -> StateInfo {
        StateInfo {
            updated_at: *now,
            cumulative_execution_seconds: self.cumulative_execution_seconds + seconds,
            ..self.clone()
        }
    }
}

/// A step's id and creation time (seed 003's `step_id` and `timestamp`).
#[derive(Clone, Debug, PartialEq)]
pub struct StepInfo {
    /// The step's id.
    pub id: String,
    /// When the step object was created (`createdAt`), not when the step began.
    pub created_at: Timestamp,
}

impl StepInfo {
    /// A new step's info: a generated id, created `now`.
    pub fn new(now: &Timestamp) -> StepInfo {
        StepInfo {
            id: new_id(),
            created_at: *now,
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<StepInfo> {
        let m = read::object(v, path, "stepInfo")?;
        Ok(StepInfo {
            id: read::opt_scalar_string(m, "id", path)?.unwrap_or_else(new_id),
            created_at: time::read_or_now(m.get("createdAt"), now, &child(path, "createdAt"))?,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("id", Value::from(self.id.clone())),
            ("createdAt", Value::from(format_atom(&self.created_at))),
        ])
    }
}
