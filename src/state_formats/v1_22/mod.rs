//! instructor-php v1.22's stored state (`Cognesy\Addons\Agent`, read by
//! src/model/) as a [`StateFormat`]: its keys, its slim snapshots (no
//! `state_version`, read selectively by `slimSnapshot`), its restore, its
//! snapshot's status rule, and its limits, which are continuation criteria.

#[cfg(feature = "full")]
use std::any::Any;

#[cfg(feature = "full")]
use crate::error::{ErrorCode, Result, SteplineError};
#[cfg(feature = "full")]
use crate::json::Value;
#[cfg(feature = "full")]
use crate::model::time::Timestamp;
#[cfg(feature = "full")]
use crate::model::AgentState;
#[cfg(feature = "full")]
use crate::snapshot::budget::{slim_within, Fitted};
#[cfg(feature = "full")]
use crate::snapshot::source::SlimSource;
#[cfg(feature = "full")]
use crate::snapshot::validate::{Issue, Report};
#[cfg(feature = "full")]
use crate::snapshot::SlimConfig;

#[cfg(feature = "full")]
use super::State;
use super::StateFormat;

/// instructor-php v1.22.
#[derive(Debug)]
pub struct V1_22;

/// Top-level keys only a v1.22 `AgentState::toArray()` writes.
#[cfg(feature = "full")]
const KEYS: &[&str] = &[
    "currentStepStartedAt",
    "executionStartedAt",
    "metadata",
    "cachedContext",
    "usage",
    "messageStore",
    "stateInfo",
    "currentStep",
    "status",
    "steps",
    "stepResults",
];

impl StateFormat for V1_22 {
    fn name(&self) -> &'static str {
        "v1.22"
    }

    #[cfg(feature = "full")]
    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }

    #[cfg(feature = "full")]
    fn key_hint(&self) -> &'static str {
        "messageStore, steps, status, …"
    }

    fn snapshot_version(&self) -> Option<&'static str> {
        None
    }

    /// `AgentStatus::from` throws on any other name (and on v2's
    /// `pending` and `stopped`).
    fn snapshot_statuses(&self) -> &'static [&'static str] {
        crate::snapshot::rules::V1_STATUSES
    }

    #[cfg(feature = "full")]
    fn read(&self, state: &Value, now: &Timestamp, compat: bool) -> Result<Box<dyn State>> {
        let mut state = AgentState::from_value(state, now)?;
        if !compat {
            state.apply_seed_001();
        }
        Ok(Box::new(state))
    }

    /// Read whole, as `parseAgentState` reads it (stepline's own callers
    /// read v1.22 states selectively: [`StateFormat::slims_selectively`]).
    #[cfg(feature = "full")]
    fn slim(
        &self,
        state: &Value,
        config: &SlimConfig,
        max_bytes: Option<usize>,
        now: &Timestamp,
    ) -> Result<Fitted> {
        let state = AgentState::from_value(state, now)?;
        slim_within(&SlimSource::from_state(&state, config), config, max_bytes)
    }

    #[cfg(feature = "full")]
    fn slims_selectively(&self) -> bool {
        true
    }

    #[cfg(feature = "full")]
    fn restore(&self, snapshot: &Value, now: &Timestamp) -> Result<Box<dyn State>> {
        Ok(Box::new(crate::snapshot::restore::restore(snapshot, now)?))
    }

    /// A v1.22 snapshot (no `state_version`) carries one of v1.22's
    /// statuses, never null.
    #[cfg(feature = "full")]
    fn check_snapshot(&self, snapshot: &Value, report: &mut Report) {
        let issue = |code: &'static str, message: String| Issue {
            path: "/status".into(),
            code,
            message,
        };
        use crate::snapshot::rules::STATUSES;
        let own = self.snapshot_statuses();
        match snapshot.get("status") {
            Some(Value::Null) => report.errors.push(issue(
                "wrong_type",
                "expected a v1.22 snapshot's status to be set, found null (only a v2 snapshot, with state_version \"v2\", has none)".into(),
            )),
            Some(Value::String(s))
                if !own.contains(&s.as_str()) && STATUSES.contains(&s.as_str()) =>
            {
                report.errors.push(issue(
                    "invalid_enum",
                    format!(
                        "expected one of {} in a v1.22 snapshot, found {} (a v2 status: add state_version \"v2\")",
                        own.join(", "),
                        crate::json::quote(s)
                    ),
                ))
            }
            _ => {}
        }
    }

    #[cfg(feature = "full")]
    fn criteria(&self) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "full")]
    fn guards(&self) -> Result<()> {
        Err(SteplineError::at(
            ErrorCode::InvalidValue,
            "",
            "expected an instructor-php v2 agent state (context, execution, …); a v1.22 state's limits are continuation criteria: use evaluateContinuation / replayContinuation",
        ))
    }

    #[cfg(feature = "full")]
    fn prices(&self) -> Result<()> {
        Err(SteplineError::at(
            ErrorCode::UnknownStateVersion,
            "",
            "expected an instructor-php v2 state (with llmConfig.pricing); \
             this is a v1.22 state, which stores no prices",
        ))
    }
}

#[cfg(feature = "full")]
impl State for AgentState {
    fn format(&self) -> &'static dyn StateFormat {
        &V1_22
    }

    fn view_text(&self, _now: &Timestamp) -> String {
        crate::json::to_text(&crate::model::view::agent_state_view(self))
    }

    fn slim(&self, config: &SlimConfig) -> Value {
        crate::snapshot::serialize::slim_state(self, config)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
