//! Slim snapshots (seed 000): the bounded, stable form of an agent state —
//! serialize, restore, fit into a byte budget, validate, and describe as a schema.

pub mod budget;
pub mod config;
pub mod restore;
pub(crate) mod rules;
pub mod schema;
pub mod serialize;
pub mod shape;
pub mod source;
pub mod truncate;
pub mod v2;
pub mod validate;

pub use config::SlimConfig;
