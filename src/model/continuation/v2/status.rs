//! The status an execution ends with (`withExecutionCompleted()`, item 19).

use crate::model::continuation::v2::StopSignal;
use crate::model::v2::ExecutionStatus;

/// `failed` if the execution failed or any step has errors (a failed tool
/// call counts, even if the model then answered); else `stopped` if the
/// winning signal forced the stop (every reason but `completed` and
/// `finish_reason`); else `completed`.
///
/// ```
/// use stepline::model::continuation::v2::{status::final_status, StopReason, StopSignal};
/// use stepline::model::v2::ExecutionStatus;
/// let limit = StopSignal::new(StopReason::StepsLimit, "Step limit reached: 3/3", None);
/// assert_eq!(final_status(ExecutionStatus::InProgress, false, Some(&limit)), ExecutionStatus::Stopped);
/// assert_eq!(final_status(ExecutionStatus::InProgress, true, Some(&limit)), ExecutionStatus::Failed);
/// assert_eq!(final_status(ExecutionStatus::InProgress, false, None), ExecutionStatus::Completed);
/// ```
pub fn final_status(
    current: ExecutionStatus,
    has_errors: bool,
    signal: Option<&StopSignal>,
) -> ExecutionStatus {
    if current == ExecutionStatus::Failed || has_errors {
        ExecutionStatus::Failed
    } else if signal.is_some_and(|s| s.reason.was_force_stopped()) {
        ExecutionStatus::Stopped
    } else {
        ExecutionStatus::Completed
    }
}
