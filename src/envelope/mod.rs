//! Envelopes: the `{type, session_id, execution_id, timestamp, payload}`
//! messages broadcast on `agent.{session_id}`. This module has the encoder
//! (the reference adapter reproduced); decoding lands with issue 5's decoder.

pub mod config;
pub mod encoder;
pub mod summary;

pub use config::BroadcastConfig;
pub use encoder::{channel_for, Broadcast, Encoder};
