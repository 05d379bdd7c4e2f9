//! Placeholder until the ai_sdk translator lands: claims no event.

use crate::dialects::Out;
use crate::error::Result;
use crate::json::Map;

/// Whether `event` is this dialect's.
pub(crate) fn claims(_event: &Map) -> bool {
    false
}

/// The run an event starts (`start`'s `messageId`), if it starts one.
pub(crate) fn run_start(_event: &Map) -> Option<&str> {
    None
}

/// Per-session translation state.
#[derive(Clone, Debug, Default)]
pub(crate) struct State {}

impl State {
    /// Translates one event.
    pub(crate) fn translate(&mut self, _event: Map, _out: &mut Out) -> Result<()> {
        Ok(())
    }
}
