//! One criterion's vote.

use crate::error::{ErrorCode, Result};
use crate::model::read;

/// `forbid`, `allow`, `request` or `stop` (the reference's `ContinuationDecision`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ContinuationDecision"))]
pub enum Decision {
    /// Stop, whatever the others say.
    #[serde(rename = "forbid")]
    ForbidContinuation,
    /// Go on if nothing else decides.
    #[serde(rename = "allow")]
    AllowContinuation,
    /// Go on unless something forbids it.
    #[serde(rename = "request")]
    RequestContinuation,
    /// Stop unless something requests continuation.
    #[serde(rename = "stop")]
    AllowStop,
}

impl Decision {
    /// The wire value: `forbid`, `allow`, `request` or `stop`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::ForbidContinuation => "forbid",
            Decision::AllowContinuation => "allow",
            Decision::RequestContinuation => "request",
            Decision::AllowStop => "stop",
        }
    }

    /// Reads a wire value; anything else is `invalid_value` at `path`.
    pub fn parse(s: &str, path: &str) -> Result<Decision> {
        match s {
            "forbid" => Ok(Decision::ForbidContinuation),
            "allow" => Ok(Decision::AllowContinuation),
            "request" => Ok(Decision::RequestContinuation),
            "stop" => Ok(Decision::AllowStop),
            other => Err(read::invalid(
                ErrorCode::InvalidValue,
                path,
                format!("expected a decision (\"forbid\", \"allow\", \"request\" or \"stop\"), found {}", crate::json::quote(other)),
            )),
        }
    }

    /// The resolution rule: any forbid → stop; else any request → continue;
    /// else any stop → stop; else any allow → continue; none → stop.
    pub fn can_continue_with(decisions: &[Decision]) -> bool {
        if decisions.contains(&Decision::ForbidContinuation) {
            return false;
        }
        if decisions.contains(&Decision::RequestContinuation) {
            return true;
        }
        if decisions.contains(&Decision::AllowStop) {
            return false;
        }
        decisions.contains(&Decision::AllowContinuation)
    }
}
