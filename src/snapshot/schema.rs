//! The published JSON Schema (draft 2020-12) of a slim snapshot, generated from
//! the same rules the validator uses.

use crate::json::{Map, Value};

use crate::json::obj;
use crate::snapshot::rules::{Field, Kind, SNAPSHOT, V1_STATUSES};

/// RFC 3339 date-time, as a pattern so validators assert it without format plugins.
pub const DATE_TIME_PATTERN: &str =
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$";

/// The schema document.
pub fn snapshot_schema() -> Value {
    let mut root = match object(SNAPSHOT) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut head = Map::new();
    head.insert(
        "$schema",
        Value::from("https://json-schema.org/draft/2020-12/schema"),
    );
    head.insert(
        "$id",
        Value::from("https://stepline.dev/schemas/snapshot.schema.json"),
    );
    head.insert("title", Value::from("stepline slim agent-state snapshot"));
    head.insert(
        "description",
        Value::from("The bounded form of an instructor-php AgentState (SlimAgentStateSerializer, seed 000). Unknown properties are allowed."),
    );
    head.append(&mut root);
    // A v1.22 snapshot (no state_version) has one of v1.22's statuses, never null.
    head.insert(
        "if",
        obj([(
            "not",
            obj([("required", Value::Array(vec![Value::from("state_version")]))]),
        )]),
    );
    head.insert(
        "then",
        obj([(
            "properties",
            obj([(
                "status",
                obj([(
                    "enum",
                    Value::Array(V1_STATUSES.iter().map(|s| Value::from(*s)).collect()),
                )]),
            )]),
        )]),
    );
    Value::Object(head)
}

fn object(fields: &[Field]) -> Value {
    let mut properties = Map::new();
    for f in fields {
        let mut s = match kind(&f.kind) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        s.insert("description", Value::from(f.description));
        let s = if f.nullable {
            obj([(
                "anyOf",
                Value::Array(vec![Value::Object(s), obj([("type", Value::from("null"))])]),
            )])
        } else {
            Value::Object(s)
        };
        properties.insert(f.name, s);
    }
    let required: Vec<Value> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| Value::from(f.name))
        .collect();
    obj([
        ("type", Value::from("object")),
        ("properties", Value::Object(properties)),
        ("required", Value::Array(required)),
    ])
}

fn kind(k: &Kind) -> Value {
    match k {
        Kind::String => obj([("type", Value::from("string"))]),
        Kind::Boolean => obj([("type", Value::from("boolean"))]),
        Kind::Integer { min } => obj([
            ("type", Value::from("integer")),
            ("minimum", Value::from(*min)),
        ]),
        // No minimum: negative counts are valid (the validator only warns).
        Kind::Tokens => obj([("type", Value::from("integer"))]),
        Kind::Number { min } => obj([
            ("type", Value::from("number")),
            ("minimum", Value::from(*min)),
        ]),
        Kind::Enum(values) => obj([(
            "enum",
            Value::Array(values.iter().map(|v| Value::from(*v)).collect()),
        )]),
        Kind::Timestamp => obj([
            ("type", Value::from("string")),
            ("format", Value::from("date-time")),
            ("pattern", Value::from(DATE_TIME_PATTERN)),
        ]),
        Kind::Map => obj([(
            "anyOf",
            Value::Array(vec![
                obj([("type", Value::from("object"))]),
                obj([("type", Value::from("array")), ("maxItems", Value::from(0))]),
            ]),
        )]),
        Kind::Content => obj([(
            "anyOf",
            Value::Array(vec![
                obj([("type", Value::from("string"))]),
                obj([
                    ("type", Value::from("array")),
                    ("items", obj([("type", Value::from("object"))])),
                ]),
            ]),
        )]),
        Kind::Object(fields) => object(fields),
        Kind::Array(item) => obj([("type", Value::from("array")), ("items", kind(item))]),
    }
}
