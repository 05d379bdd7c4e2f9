//! The differences between a stream and its final state that the reference
//! producers cause by design. This is the one list: reconciliation names a
//! difference with a `cause` only from here, and only when the stream shows
//! the situation the cause describes; every other difference stays
//! unexplained (`cause: null`).
//!
//! The items cited are the producers' vector READMEs: v1.22's quirks
//! (`tests/vectors/README.md`) and v2.7's behaviours
//! (`tests/vectors/instructor-php-v2.7/README.md`).
//!
//! v2 behaviours that leave no difference, because reconciliation reads them
//! as the producer means them rather than naming them afterwards:
//! - the trailing `stopped` after `completed`/`failed` (item 6), and its
//!   absence on the observer path (item 16): the status mapping reads
//!   `completed`, `completed → stopped`, `failed` and `failed → stopped`;
//! - `agent.step.started.available_tools` is always 0 (item 11): the state
//!   holds no tool list, so it is not compared;
//! - `agent.step.completed.duration_ms` covers only the after-step hooks
//!   (item 12): the streamed step durations are compared with the state's
//!   only one way, so a stream that took longer than the state says is a
//!   difference and a shorter one is not;
//! - `chunk_index` running across steps and restarting at each stop
//!   (item 15), and the raw provider frames among the chunks: the session
//!   keeps the text in order and clean of frames before it is compared.

/// One producer behaviour that makes the stream and the final state disagree
/// by design (`reconcileCauses()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ReconcileCause"))]
pub struct Cause {
    /// What a `Difference` carries in `cause`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "cause_name_schema"))]
    pub name: &'static str,
    /// The producer version that does it: `v1.22` or `v2`.
    #[cfg_attr(feature = "schema", schemars(schema_with = "producer_schema"))]
    pub producer: &'static str,
    /// The README items that describe the behaviour.
    pub items: &'static str,
    /// What the producer does, and which differences it leaves.
    pub description: &'static str,
}

/// The names of [`CAUSES`], as the schema's enum.
#[cfg(feature = "schema")]
pub(crate) fn cause_name_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = CAUSES.iter().map(|c| c.name).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}

#[cfg(feature = "schema")]
fn producer_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": ["v1.22", "v2"] })
}

/// v1.22: a throwing tool or driver sends no final status and no completion
/// of the step it was in.
pub const REFERENCE_EXCEPTION_PATH: &str = "reference_exception_path";
/// v2: a failing (throwing or unknown) tool or a step with errors makes the
/// state `failed` while the broadcast ends `completed → stopped`.
pub const STEP_ERRORS_FAIL_STATE: &str = "v2_step_errors_fail_state";
/// v2: a step aborted by a driver exception or an `AgentStopException` is
/// not recorded in the state, while the stream shows the attempt.
pub const ABORTED_STEP: &str = "v2_aborted_step";
/// v2: a guard or a cancellation stops the run in the before-step hook,
/// after `agent.step.started` of a step that never runs.
pub const GUARD_STARTED_STEP: &str = "v2_guard_started_step";

/// v2: a stop that does not force (no stop signal, the finish-reason guard)
/// is broadcast as `stopped` alone when no `completed` precedes it, while
/// the state completes.
pub const UNFORCED_STOP: &str = "v2_unforced_stop";

/// Every cause, in the order reconciliation checks them.
pub const CAUSES: [Cause; 5] = [
    Cause {
        name: REFERENCE_EXCEPTION_PATH,
        producer: "v1.22",
        items: "quirk 7",
        description:
            "A tool or the driver threw: no final agent.status and no agent.step.completed \
                      of the step it was in were sent, while the state ends failed. Leaves \
                      status_mismatch, step_not_completed and tool_call_unexpected.",
    },
    Cause {
        name: STEP_ERRORS_FAIL_STATE,
        producer: "v2",
        items: "19",
        description: "A step has errors (a throwing or unknown tool, a failed step): the state's \
                      status is failed, while the broadcast ends completed → stopped because the \
                      loop went on and answered. Leaves status_mismatch.",
    },
    Cause {
        name: UNFORCED_STOP,
        producer: "v2",
        items: "5, 6, 19",
        description: "The run stopped without force (no stop signal, or the finish-reason guard): \
                      the state is completed, but the broadcast says stopped alone (with \
                      autoStatusTracking off only AgentExecutionStopped's stopped is sent; a \
                      finish_reason stop maps to stopped), and without the debug preset's \
                      agent.continuation the stream cannot tell it from a forced stop. Leaves \
                      status_mismatch.",
    },
    Cause {
        name: ABORTED_STEP,
        producer: "v2",
        items: "9, 20, 21",
        description:
            "A driver exception or an AgentStopException aborted a step: the state records \
                      no step for it (and, for a driver exception, no error), while the stream \
                      shows the attempt: its agent.step.started, and an agent.step.completed with \
                      finish_reason null and zero usage that carries the number of recorded steps \
                      (read as the attempt, attempt_failed). Leaves extra_step, and lost_event for \
                      a tool the AgentStopException left without its agent.tool.completed.",
    },
    Cause {
        name: GUARD_STARTED_STEP,
        producer: "v2",
        items: "10",
        description: "A guard (steps, tokens, time) or a cancellation stopped the run in the \
                      before-step hook, after agent.step.started of the next step was sent: that \
                      step never ran and the state does not list it. Leaves extra_step.",
    },
];

/// The cause named `name`, if it is one.
pub fn cause(name: &str) -> Option<&'static Cause> {
    CAUSES.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for c in &CAUSES {
            assert_eq!(cause(c.name), Some(c));
            assert_eq!(CAUSES.iter().filter(|o| o.name == c.name).count(), 1);
        }
        assert_eq!(cause("nothing"), None);
    }
}
