//! Continuation: whether the agent loop goes on after a step, and why.

pub mod decision;
pub mod evaluation;
pub mod outcome;

pub use decision::Decision;
pub use evaluation::Evaluation;
pub use outcome::Outcome;
