//! The derived kind of a step.

use crate::error::{ErrorCode, Result};
use crate::model::read;

/// `error`, `tool_execution` or `final_response` (the reference's `AgentStepType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepType {
    /// The step recorded errors.
    Error,
    /// The step called tools.
    ToolExecution,
    /// The step answered without calling tools.
    FinalResponse,
}

impl StepType {
    pub fn as_str(self) -> &'static str {
        match self {
            StepType::Error => "error",
            StepType::ToolExecution => "tool_execution",
            StepType::FinalResponse => "final_response",
        }
    }

    /// Parses the wire value; anything else is an error (`AgentStepType::from`).
    pub fn parse(s: &str, path: &str) -> Result<StepType> {
        match s {
            "error" => Ok(StepType::Error),
            "tool_execution" => Ok(StepType::ToolExecution),
            "final_response" => Ok(StepType::FinalResponse),
            other => Err(read::invalid(
                ErrorCode::InvalidValue,
                path,
                format!("expected a step type (\"error\", \"tool_execution\" or \"final_response\"), found {}", crate::json::quote(other)),
            )),
        }
    }
}
