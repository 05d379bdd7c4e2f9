//! instructor-php v2.x's stored state (`Cognesy\Agents`, read by
//! src/model/v2/, slimmed and restored by src/snapshot/v2.rs) as a
//! [`StateFormat`]: its keys, its snapshots (`state_version: "v2"`), and its
//! limits, which are guards; it stores its model's prices.

#[cfg(feature = "full")]
use std::any::Any;

#[cfg(feature = "full")]
use crate::error::{ErrorCode, Result, SteplineError};
#[cfg(feature = "full")]
use crate::json::Value;
#[cfg(feature = "full")]
use crate::model::time::Timestamp;
#[cfg(feature = "full")]
use crate::model::v2::AgentState;
#[cfg(feature = "full")]
use crate::snapshot::budget::Fitted;
use crate::snapshot::v2::STATE_VERSION;
#[cfg(feature = "full")]
use crate::snapshot::v2::{restore_v2, slim_v2, slim_v2_within};
#[cfg(feature = "full")]
use crate::snapshot::SlimConfig;

#[cfg(feature = "full")]
use super::State;
use super::StateFormat;

/// instructor-php v2.x, as of v2.7.
#[derive(Debug)]
pub struct V2;

/// Top-level keys only a v2.x `AgentState::toArray()` writes.
#[cfg(feature = "full")]
const KEYS: &[&str] = &[
    "createdAt",
    "updatedAt",
    "context",
    "llmConfig",
    "executionCount",
    "execution",
];

impl StateFormat for V2 {
    fn name(&self) -> &'static str {
        "v2"
    }

    #[cfg(feature = "full")]
    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }

    #[cfg(feature = "full")]
    fn key_hint(&self) -> &'static str {
        "context, execution, executionCount, …"
    }

    fn snapshot_version(&self) -> Option<&'static str> {
        Some(STATE_VERSION)
    }

    /// `ExecutionStatus::from`'s five.
    fn snapshot_statuses(&self) -> &'static [&'static str] {
        crate::snapshot::rules::STATUSES
    }

    /// v2's steps are stored as the slim snapshot summarises them: `compat`
    /// changes nothing.
    #[cfg(feature = "full")]
    fn read(&self, state: &Value, now: &Timestamp, _compat: bool) -> Result<Box<dyn State>> {
        Ok(Box::new(AgentState::from_value(state, now)?))
    }

    #[cfg(feature = "full")]
    fn slim(
        &self,
        state: &Value,
        config: &SlimConfig,
        max_bytes: Option<usize>,
        now: &Timestamp,
    ) -> Result<Fitted> {
        slim_v2_within(&AgentState::from_value(state, now)?, config, max_bytes)
    }

    #[cfg(feature = "full")]
    fn restore(&self, snapshot: &Value, now: &Timestamp) -> Result<Box<dyn State>> {
        Ok(Box::new(restore_v2(snapshot, now)?))
    }

    #[cfg(feature = "full")]
    fn criteria(&self) -> Result<()> {
        Err(SteplineError::at(
            ErrorCode::InvalidValue,
            "",
            "expected a v1.22 agent state, found a v2 one: v2's limits are guards, evaluated by evaluateGuards / replayGuards",
        ))
    }

    #[cfg(feature = "full")]
    fn guards(&self) -> Result<()> {
        Ok(())
    }

    #[cfg(feature = "full")]
    fn prices(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(feature = "full")]
impl State for AgentState {
    fn format(&self) -> &'static dyn StateFormat {
        &V2
    }

    fn view_text(&self, now: &Timestamp) -> String {
        crate::json::to_string(&crate::model::v2::view::view(self, now))
    }

    fn slim(&self, config: &SlimConfig) -> Value {
        slim_v2(self, config)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
