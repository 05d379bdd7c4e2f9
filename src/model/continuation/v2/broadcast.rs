//! How v2's broadcaster (`AgentEventBroadcaster`) maps stop reasons to the
//! `agent.status` it broadcasts (items 5–7). The state's own status is a
//! different thing (see [`super::status`]): a failing tool leaves the state
//! `failed` while the broadcast ends `completed → stopped`.

use crate::model::continuation::v2::StopReason;

/// The broadcast status after a continuation that stops: no signal or
/// `completed` → `completed`; `error` → `failed`; `user_requested` →
/// `cancelled`; any other reason → `stopped`.
///
/// ```
/// use stepline::model::continuation::v2::{broadcast::on_continuation_stop, StopReason};
/// assert_eq!(on_continuation_stop(None), "completed");
/// assert_eq!(on_continuation_stop(Some(StopReason::FinishReason)), "stopped");
/// ```
pub fn on_continuation_stop(reason: Option<StopReason>) -> &'static str {
    match reason {
        None | Some(StopReason::Completed) => "completed",
        Some(StopReason::Error) => "failed",
        Some(StopReason::UserRequested) => "cancelled",
        Some(_) => "stopped",
    }
}

/// The broadcast status on `AgentExecutionStopped`, which ends every
/// execution: `cancelled` for `user_requested`, else `stopped` (also after a
/// natural completion, so a normal run ends `completed → stopped`).
///
/// ```
/// use stepline::model::continuation::v2::{broadcast::on_execution_stopped, StopReason};
/// assert_eq!(on_execution_stopped(StopReason::Completed), "stopped");
/// assert_eq!(on_execution_stopped(StopReason::UserRequested), "cancelled");
/// ```
pub fn on_execution_stopped(reason: StopReason) -> &'static str {
    match reason {
        StopReason::UserRequested => "cancelled",
        _ => "stopped",
    }
}

/// The broadcast status on `AgentExecutionFailed` (a driver or inference exception).
pub const ON_EXECUTION_FAILED: &str = "failed";
