//! The published JSON Schema (draft 2020-12) of a slim snapshot, generated from
//! the declared snapshot type ([`crate::snapshot::shape`]) and the validator's
//! rules by `npm run gen` (see `stepline::schema::snapshot`, feature `schema`).

use crate::json::Value;

#[cfg(feature = "schema")]
use crate::json::{obj, Map};
#[cfg(feature = "schema")]
use crate::snapshot::rules::{Field, Kind};

/// RFC 3339 date-time, as a pattern so validators assert it without format plugins.
pub const DATE_TIME_PATTERN: &str =
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$";

/// The schema document: `schemas/snapshot.schema.json`, generated from the
/// declared [`crate::snapshot::shape::SlimSnapshot`] by `npm run gen`
/// (`stepline::schema::snapshot`, feature `schema`).
pub fn snapshot_schema() -> Value {
    crate::json::from_str(include_str!("../../schemas/snapshot.schema.json")).unwrap_or(Value::Null)
}

/// The schema of one of the validator's fields (for the members the writer's
/// type does not declare: the older spellings the validator reads).
#[cfg(feature = "schema")]
pub fn field_schema(f: &Field) -> Value {
    let mut s = match kind(&f.kind) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    s.insert("description", Value::from(f.description));
    if f.nullable {
        obj([(
            "anyOf",
            Value::Array(vec![Value::Object(s), obj([("type", Value::from("null"))])]),
        )])
    } else {
        Value::Object(s)
    }
}

#[cfg(feature = "schema")]
fn object(fields: &[Field]) -> Value {
    let mut properties = Map::new();
    for f in fields {
        properties.insert(f.name, field_schema(f));
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

#[cfg(feature = "schema")]
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
        Kind::Duration => obj([("type", Value::from("number"))]),
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
        Kind::PhpArray => obj([(
            "anyOf",
            Value::Array(vec![
                obj([("type", Value::from("object"))]),
                obj([("type", Value::from("array"))]),
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
