//! OTLP `KeyValue`s in the proto3 JSON mapping: `{key, value: {stringValue
//! | intValue | boolValue | doubleValue | arrayValue}}`; 64-bit integers are
//! strings, as proto3 JSON writes int64.

use crate::json::{Map, Value};

/// A list of attributes being built, in insertion order.
#[derive(Default)]
pub struct Attrs(Vec<Value>);

fn kv(key: &str, value: Map) -> Value {
    let mut m = Map::new();
    m.insert("key", Value::from(key));
    m.insert("value", Value::from(value));
    Value::from(m)
}

fn any(kind: &'static str, v: Value) -> Map {
    let mut m = Map::new();
    m.insert(kind, v);
    m
}

impl Attrs {
    /// Adds a string attribute.
    pub fn string(&mut self, key: &str, v: &str) -> &mut Attrs {
        self.0.push(kv(key, any("stringValue", Value::from(v))));
        self
    }

    /// Adds an int attribute (written as a decimal string, proto3's int64).
    pub fn int(&mut self, key: &str, v: i64) -> &mut Attrs {
        self.0.push(kv(key, any("intValue", Value::from(v.to_string()))));
        self
    }

    /// Adds a string-array attribute.
    pub fn strings(&mut self, key: &str, vs: &[&str]) -> &mut Attrs {
        let values: Vec<Value> = vs
            .iter()
            .map(|s| Value::from(any("stringValue", Value::from(*s))))
            .collect();
        let array = any("values", Value::Array(values));
        self.0.push(kv(key, any("arrayValue", Value::from(array))));
        self
    }

    /// The attributes as a JSON array.
    pub fn into_value(self) -> Value {
        Value::Array(self.0)
    }
}
