//! Building a span's attributes in the order they are added.

use super::shape::{AnyValue, ArrayValue, KeyValue};

/// A list of attributes being built.
#[derive(Default)]
pub struct Attrs(pub Vec<KeyValue>);

fn string(v: &str) -> AnyValue {
    AnyValue {
        string_value: Some(v.to_string()),
        ..AnyValue::default()
    }
}

impl Attrs {
    /// Adds a string attribute.
    pub fn string(&mut self, key: &'static str, v: &str) {
        self.0.push(KeyValue {
            key,
            value: string(v),
        });
    }

    /// Adds an int attribute (a decimal string, as proto3 JSON writes int64).
    pub fn int(&mut self, key: &'static str, v: i64) {
        let value = AnyValue {
            int_value: Some(v.to_string()),
            ..AnyValue::default()
        };
        self.0.push(KeyValue { key, value });
    }

    /// Adds a string-array attribute.
    pub fn strings(&mut self, key: &'static str, vs: &[&str]) {
        let value = AnyValue {
            array_value: Some(ArrayValue {
                values: vs.iter().map(|s| string(s)).collect(),
            }),
            ..AnyValue::default()
        };
        self.0.push(KeyValue { key, value });
    }
}
