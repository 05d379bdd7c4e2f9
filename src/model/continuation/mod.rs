//! Continuation: whether the agent loop goes on after a step, and why — the
//! producer's criteria and resolution, as data, with an explicit `now`.

pub mod classes;
pub mod criteria;
pub mod decision;
pub mod error_policy;
pub mod evaluate;
pub mod evaluation;
pub mod explain;
pub(crate) mod format;
#[cfg(feature = "schema")]
pub mod inputs;
pub mod observe;
pub mod outcome;
pub mod replay;
#[cfg(feature = "schema")]
pub(crate) mod schemas;
pub mod spec;
pub mod v2;

pub use criteria::{evaluate_all, Criterion};
pub use decision::Decision;
pub use evaluation::Evaluation;
pub use observe::Observation;
pub use outcome::Outcome;
