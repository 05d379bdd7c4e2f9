//! Which producer release wrote a stored agent state. v1.22 (`packages/addons`)
//! and v2.x (`packages/agents`) share no format: each is read by its own
//! module, and a state is never read as the other's empty default (a v2 state
//! read by the v1.22 reader used to come out as 0 steps, `in_progress`, no usage).

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::Value;
use crate::model::time::Timestamp;

/// Top-level keys only a v1.22 `AgentState::toArray()` writes.
const V1_KEYS: [&str; 11] = [
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

/// Top-level keys only a v2.x `AgentState::toArray()` writes.
const V2_KEYS: [&str; 6] = [
    "createdAt",
    "updatedAt",
    "context",
    "llmConfig",
    "executionCount",
    "execution",
];

/// Keys both write.
const COMMON_KEYS: [&str; 2] = ["agentId", "parentAgentId"];

/// The format of a stored state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateVersion {
    /// instructor-php v1.22 (`Cognesy\Addons\Agent`).
    V1_22,
    /// instructor-php v2.x (`Cognesy\Agents`), as of v2.7.
    V2,
}

impl StateVersion {
    /// `"v1.22"` or `"v2"`.
    pub fn as_str(self) -> &'static str {
        match self {
            StateVersion::V1_22 => "v1.22",
            StateVersion::V2 => "v2",
        }
    }

    /// Recognises the format by its top-level keys.
    ///
    /// A state with keys of one format only is that format. One with keys of
    /// both, or with keys of neither beyond `agentId`/`parentAgentId`, is
    /// `unknown_state_version`. `{}` (and a bare `agentId`) holds nothing
    /// either format would read differently in substance, and reads as v1.22,
    /// as it always has. A value that is not an object is left to the v1.22
    /// reader, which refuses it with its own error.
    ///
    /// ```
    /// use stepline::model::version::StateVersion;
    /// let v2 = stepline::json::from_str(r#"{"agentId": "a", "execution": null, "executionCount": 0}"#).unwrap();
    /// assert_eq!(StateVersion::of(&v2).unwrap(), StateVersion::V2);
    /// let mixed = stepline::json::from_str(r#"{"execution": null, "steps": []}"#).unwrap();
    /// assert_eq!(StateVersion::of(&mixed).unwrap_err().code.as_str(), "unknown_state_version");
    /// ```
    pub fn of(v: &Value) -> Result<StateVersion> {
        let Value::Object(m) = v else {
            return Ok(StateVersion::V1_22);
        };
        let found = |keys: &[&str]| -> Vec<String> {
            m.keys()
                .filter(|k| keys.contains(&&***k))
                .map(|k| k.to_string())
                .collect()
        };
        let (v1, v2) = (found(&V1_KEYS), found(&V2_KEYS));
        match (v1.is_empty(), v2.is_empty()) {
            (false, false) => Err(SteplineError::at(
                ErrorCode::UnknownStateVersion,
                "",
                format!(
                    "expected a v1.22 or a v2 agent state, found keys of both: v1.22 {} and v2 {}",
                    v1.join(", "),
                    v2.join(", ")
                ),
            )),
            (false, true) => Ok(StateVersion::V1_22),
            (true, false) => Ok(StateVersion::V2),
            (true, true) => match m.keys().find(|k| !COMMON_KEYS.contains(&&***k)) {
                None => Ok(StateVersion::V1_22),
                Some(k) => Err(SteplineError::at(
                    ErrorCode::UnknownStateVersion,
                    "",
                    format!(
                        "expected a v1.22 agent state (messageStore, steps, status, …) or a v2 one (context, execution, executionCount, …), found neither (first unknown key {})",
                        crate::json::quote(k)
                    ),
                )),
            },
        }
    }
}

/// A stored state of either format.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyAgentState {
    /// An instructor-php v1.22 state.
    V1_22(Box<crate::model::AgentState>),
    /// An instructor-php v2.x state.
    V2(Box<crate::model::v2::AgentState>),
}

impl AnyAgentState {
    /// Recognises the format ([`StateVersion::of`]) and reads the state with
    /// that format's reader.
    pub fn from_value(v: &Value, now: &Timestamp) -> Result<AnyAgentState> {
        Ok(match StateVersion::of(v)? {
            StateVersion::V1_22 => {
                AnyAgentState::V1_22(Box::new(crate::model::AgentState::from_value(v, now)?))
            }
            StateVersion::V2 => {
                AnyAgentState::V2(Box::new(crate::model::v2::AgentState::from_value(v, now)?))
            }
        })
    }

    /// [`Self::from_value`] as `parseAgentState` reads: unless `compat`, each
    /// v1.22 step as seed 001 derives it ([`crate::model::AgentState::apply_seed_001`]),
    /// which is how the slim snapshot summarises it. v2 steps already are.
    pub fn read(v: &Value, now: &Timestamp, compat: bool) -> Result<AnyAgentState> {
        let mut state = AnyAgentState::from_value(v, now)?;
        if let (AnyAgentState::V1_22(s), false) = (&mut state, compat) {
            s.apply_seed_001();
        }
        Ok(state)
    }

    /// Which format it is.
    pub fn version(&self) -> StateVersion {
        match self {
            AnyAgentState::V1_22(_) => StateVersion::V1_22,
            AnyAgentState::V2(_) => StateVersion::V2,
        }
    }
}
