//! The caps on what one execution accumulates, and the one warning each
//! raises when first reached: streamed text (the session's `maxTextBytes`,
//! src/session/text.rs), reasoning (the same limit per step), and
//! `agent.data` values (src/session/data.rs; an AG-UI state is capped by its
//! translator, src/dialects/ag_ui/data.rs). Past a cap what arrives is
//! counted or dropped as each module says, and the view says so where it
//! has a field for it (`text_truncated`); the `limit_exceeded` warning says
//! it once per execution and cap, however many events arrive past it.

use crate::envelope::decode::Warning;

/// One of an execution's caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cap {
    Text,
    Reasoning,
    Data,
}

/// Which caps an execution reached, and the warnings not yet handed out.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Limits {
    reached: [bool; 3],
    pending: Vec<Warning>,
}

impl Limits {
    /// Notes that `cap` was reached: a warning the first time.
    pub(crate) fn reached(&mut self, cap: Cap) {
        let (i, what) = match cap {
            Cap::Text => (
                0,
                "the execution's streamed text reached the session's text limit (maxTextBytes): text past it is counted in text_dropped_bytes, not kept",
            ),
            Cap::Reasoning => (
                1,
                "a step's reasoning reached the session's text limit (maxTextBytes): reasoning past it is not kept",
            ),
            Cap::Data => (
                2,
                "the execution's agent.data values reached their limit (16 Mi, src/session/data.rs): values past it are not kept, and a name keeps the value it had",
            ),
        };
        if let Some(seen) = self.reached.get_mut(i) {
            if !*seen {
                *seen = true;
                self.pending.push(Warning {
                    path: String::new(),
                    code: "limit_exceeded",
                    message: what.to_string(),
                });
            }
        }
    }

    /// The warnings raised since the last call.
    pub(crate) fn take(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.pending)
    }
}
