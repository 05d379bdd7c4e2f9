//! The step and state model (seeds 001, 003 and 004): messages and roles, tool
//! calls and executions, usage, finish reasons, inference responses, steps,
//! step results and the agent state. No I/O and no JavaScript here.

pub mod annotations;
pub mod cached_context;
pub mod continuation;
pub mod finish_reason;
pub(crate) mod ids;
pub mod inference;
pub mod info;
pub(crate) mod leaked_args;
pub mod message;
pub mod message_store;
pub mod provider;
pub(crate) mod read;
pub mod role;
pub mod shape;
pub mod state;
pub mod step;
pub mod step_type;
pub mod time;
pub mod tool_call;
pub mod tool_execution;
pub mod usage;
pub mod v2;
pub mod view;

pub use finish_reason::FinishReason;
pub use inference::InferenceResponse;
pub use message::{Message, Messages};
pub use role::Role;
pub use state::{AgentState, AgentStatus, StepResult};
pub use step::AgentStep;
pub use step_type::StepType;
pub use time::Timestamp;
pub use tool_call::ToolCall;
pub use tool_execution::ToolExecution;
pub use usage::{Usage, UsageWithTotal};
