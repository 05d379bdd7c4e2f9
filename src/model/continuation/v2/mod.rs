//! The stop logic of instructor-php v2.x (`Cognesy\Agents\Continuation`):
//! stop signals with ten prioritised reasons instead of v1.22's criteria and
//! decisions. See `tests/vectors/instructor-php-v2.7/README.md`, items 29–32.
//!
//! v2 has no criteria list: a guard hook adds a [`StopSignal`] to the
//! execution's [`ExecutionContinuation`], and the loop stops when a signal
//! exists and nobody asked to continue.

pub mod broadcast;
pub mod data;
pub mod guard;
pub mod replay;
pub mod signal;
pub mod status;

pub use signal::{ExecutionContinuation, StopReason, StopSignal, StopSignals};
