//! Envelopes: the `{type, session_id, execution_id, timestamp, payload}`
//! messages broadcast on `agent.{session_id}`: decoding every producer's
//! dialect into one model, and encoding exactly like the reference adapter.

pub mod cap;
pub mod config;
pub mod decode;
pub mod dialect;
pub mod encoder;
pub mod event;
pub(crate) mod fast_chunk;
pub(crate) mod fast_line;
pub(crate) mod frames;
pub mod results;
pub mod schema;
pub mod summary;
pub mod transport;

pub use config::BroadcastConfig;
pub use encoder::{channel_for, Broadcast, Encoder};
pub use transport::{EventNames, DEFAULT_EVENT_NAME};
