//! Schemas of the continuation and reconcile fields whose Rust type says
//! less than their wire form (a PHP map, a time given two ways, a string
//! from a fixed set). Native only (feature `schema`).

use schemars::{json_schema, Schema, SchemaGenerator};

/// A PHP array written as a map: a JSON object, or `[]` (PHP's empty array,
/// and a list when the producer stored one).
pub fn php_map(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "anyOf": [{ "type": "object", "additionalProperties": true }, { "type": "array" }] })
}

/// An instant given as an ISO string or as epoch milliseconds.
pub fn instant(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": ["string", "number"] })
}

/// One of the six normalised finish reasons (`FinishReason` of the model).
pub fn finish_reason(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["stop", "length", "tool_calls", "content_filter", "error", "other"] })
}

/// A broadcast `agent.status` value v2 sends when a run stops.
pub fn broadcast_status(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["completed", "failed", "cancelled", "stopped"] })
}
