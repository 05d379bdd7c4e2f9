//! The serde side of the JSON writer: every shape the API returns is a Rust
//! type with `#[derive(Serialize)]`, written by this serializer as the same
//! compact text [`to_string`](super::to_string) writes for a [`Value`].
//! The derive is the one declaration of a shape: the TypeScript declarations
//! and JSON Schemas are generated from the same types (`src/schema.rs`).
//!
//! ```
//! #[derive(serde::Serialize)]
//! struct Step<'a> { number: i64, finish_reason: Option<&'a str>, tools: Vec<&'a str> }
//!
//! let step = Step { number: 2, finish_reason: None, tools: vec!["search"] };
//! assert_eq!(stepline::json::to_text(&step), r#"{"number":2,"finish_reason":null,"tools":["search"]}"#);
//! ```

use std::fmt;

use serde::ser::{self, Serialize};

use super::value::{Map, Number, Value};
use super::write::{write_str, write_str_ascii};

/// Compact JSON text of any serializable value.
///
/// Writing cannot fail for the API's own types; a map whose keys are not
/// strings (or numbers, written as strings), or a custom serializer that
/// reports an error, yields the error's text as a JSON string instead, so a
/// caller never gets half an object.
pub fn to_text<T: Serialize + ?Sized>(v: &T) -> String {
    let mut out = String::with_capacity(128);
    write_text(&mut out, v);
    out
}

/// Appends the compact JSON text of `v` to `out` (see [`to_text`]).
pub fn write_text<T: Serialize + ?Sized>(out: &mut String, v: &T) {
    write_text_with(out, v, false);
}

/// [`to_text`] in ASCII: every character past U+007F in a string is written
/// as `\uXXXX` (see [`write_str_ascii`]). For text handed to `JSON.parse`.
///
/// ```
/// assert_eq!(stepline::json::to_ascii_text(&["é", "a"]), r#"["\u00e9","a"]"#);
/// ```
pub fn to_ascii_text<T: Serialize + ?Sized>(v: &T) -> String {
    let mut out = String::with_capacity(128);
    write_ascii_text(&mut out, v);
    out
}

/// Appends [`to_ascii_text`] of `v` to `out`.
pub fn write_ascii_text<T: Serialize + ?Sized>(out: &mut String, v: &T) {
    write_text_with(out, v, true);
}

fn write_text_with<T: Serialize + ?Sized>(out: &mut String, v: &T, ascii: bool) {
    let start = out.len();
    if let Err(e) = v.serialize(Writer {
        out: &mut *out,
        ascii,
    }) {
        out.truncate(start);
        string(out, &e.0, ascii);
    }
}

/// A serialized value as a [`Value`] (for Rust callers and tests; the
/// boundary writes text directly).
///
/// ```
/// let v = stepline::json::to_value_of(&vec![Some(1), None]);
/// assert_eq!(v, stepline::json!([1, null]));
/// ```
pub fn to_value_of<T: Serialize + ?Sized>(v: &T) -> Value {
    // The text is ours and well formed, so parsing it back cannot fail.
    super::from_str(&to_text(v)).unwrap_or(Value::Null)
}

/// Why a value could not be written.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(text) => s.serialize_str(text),
            Value::Array(items) => s.collect_seq(items),
            Value::Object(m) => m.serialize(s),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl Serialize for Number {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(u) = self.as_u64() {
            s.serialize_u64(u)
        } else if let Some(i) = self.as_i64() {
            s.serialize_i64(i)
        } else {
            s.serialize_f64(self.as_f64().unwrap_or(0.0))
        }
    }
}

/// The serializer: appends to one string; `ascii` escapes every string's
/// characters past U+007F (see [`write_str_ascii`]).
struct Writer<'a> {
    out: &'a mut String,
    ascii: bool,
}

/// A string literal, escaped as the writer's `ascii` says.
fn string(out: &mut String, s: &str, ascii: bool) {
    if ascii {
        write_str_ascii(out, s);
    } else {
        write_str(out, s);
    }
}

/// A sequence or map being written: `first` until its first element;
/// `variant` when it is the body of an enum variant wrapped in `{"name":…}`.
struct Compound<'a> {
    out: &'a mut String,
    first: bool,
    close: char,
    variant: bool,
    ascii: bool,
}

impl Compound<'_> {
    fn comma(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.out.push(',');
        }
    }

    fn finish(self) -> Result<(), Error> {
        self.out.push(self.close);
        if self.variant {
            self.out.push('}');
        }
        Ok(())
    }
}

impl<'a> Writer<'a> {
    fn open(self, open: char, close: char) -> Compound<'a> {
        self.out.push(open);
        Compound {
            out: self.out,
            first: true,
            close,
            variant: false,
            ascii: self.ascii,
        }
    }

    /// `{"variant":` then the body's opening bracket.
    fn open_variant(self, variant: &str, open: char, close: char) -> Compound<'a> {
        self.out.push('{');
        string(self.out, variant, self.ascii);
        self.out.push(':');
        Compound {
            variant: true,
            ..self.open(open, close)
        }
    }

    fn number(self, n: Number) -> Result<(), Error> {
        n.write(self.out);
        Ok(())
    }
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.number(Number::from(v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.number(Number::from(v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.serialize_f64(f64::from(v))
    }
    /// Non-finite floats have no JSON form: written as `null`, as
    /// `JSON.stringify` and serde_json write them.
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        match Number::from_f64(v) {
            Some(n) => self.number(n),
            None => self.serialize_unit(),
        }
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        string(self.out, v, self.ascii);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        ser::Serializer::collect_seq(self, v)
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.out.push('{');
        string(self.out, variant, self.ascii);
        self.out.push(':');
        v.serialize(Writer {
            out: &mut *self.out,
            ascii: self.ascii,
        })?;
        self.out.push('}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open('[', ']'))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open('[', ']'))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.open('[', ']'))
    }
    /// `{"variant":[...]}`, as serde_json writes it.
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.open_variant(variant, '[', ']'))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open('{', '}'))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open('{', '}'))
    }
    /// `{"variant":{...}}`, as serde_json writes it.
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(self.open_variant(variant, '{', '}'))
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.comma();
        v.serialize(Writer {
            out: &mut *self.out,
            ascii: self.ascii,
        })
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(KeyWriter {
            out: &mut *self.out,
            ascii: self.ascii,
        })?;
        self.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(Writer {
            out: &mut *self.out,
            ascii: self.ascii,
        })
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.comma();
        field_name(self.out, key);
        v.serialize(Writer {
            out: &mut *self.out,
            ascii: self.ascii,
        })
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// `"key":` for a struct's field: its name is a Rust identifier or a
/// serde rename of one in this crate, so nothing in it needs escaping (the
/// escaping scan was most of the cost of writing a small number field).
fn field_name(out: &mut String, key: &str) {
    debug_assert!(
        !key.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20),
        "a field name that needs escaping: {key}"
    );
    out.reserve(key.len() + 3);
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// Writes a map key: strings as they are, integers and booleans as their
/// text (as serde_json does); anything else is an error.
struct KeyWriter<'a> {
    out: &'a mut String,
    ascii: bool,
}

fn key_error() -> Error {
    Error("a JSON object key must be a string".into())
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        string(self.out, v, self.ascii);
        Ok(())
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.serialize_str(if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.serialize_str(&v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.serialize_str(&v.to_string())
    }
    fn serialize_f32(self, _v: f32) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_f64(self, _v: f64) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _v: &T) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _v: &T,
    ) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Shape<'a> {
        step_number: i64,
        name: &'a str,
        ratio: f64,
        missing: Option<u32>,
        tags: Vec<&'a str>,
        raw: Value,
        kind: Kind,
        #[serde(skip_serializing_if = "Option::is_none")]
        absent: Option<bool>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        ToolExecution,
    }

    #[test]
    fn derived_shapes_are_written_as_compact_json_with_renamed_fields() {
        let raw = crate::json!({"a": [1, 1.5, null], "é": "x\ny"});
        let s = Shape {
            step_number: -3,
            name: "q\"\u{1}",
            ratio: 0.1,
            missing: None,
            tags: vec!["a", "b"],
            raw,
            kind: Kind::ToolExecution,
            absent: None,
        };
        assert_eq!(
            to_text(&s),
            r#"{"stepNumber":-3,"name":"q\"\u0001","ratio":0.1,"missing":null,"tags":["a","b"],"raw":{"a":[1,1.5,null],"é":"x\ny"},"kind":"tool_execution"}"#
        );
    }

    #[test]
    fn a_value_is_written_exactly_as_the_value_writer_writes_it() {
        let v: Value =
            crate::json::from_str(r#"{"x":[1.0,-0,1e300,"\u2028"],"y":{}}"#).unwrap_or_default();
        assert_eq!(to_text(&v), super::super::to_string(&v));
    }

    #[test]
    fn non_finite_floats_are_null_and_integer_map_keys_are_strings() {
        let mut m = std::collections::BTreeMap::new();
        m.insert(2u32, f64::NAN);
        assert_eq!(to_text(&m), r#"{"2":null}"#);
    }

    #[test]
    fn a_key_that_is_not_a_string_yields_an_error_string_not_half_an_object() {
        let mut m = std::collections::BTreeMap::new();
        m.insert(vec![1], 1);
        assert_eq!(to_text(&m), r#""a JSON object key must be a string""#);
    }

    #[test]
    fn enum_variants_with_data_are_wrapped_as_serde_json_wraps_them() {
        #[derive(Serialize)]
        enum E {
            T(i32, i32),
            S { a: i32 },
            N(i32),
        }
        assert_eq!(to_text(&E::T(1, 2)), r#"{"T":[1,2]}"#);
        assert_eq!(to_text(&E::S { a: 1 }), r#"{"S":{"a":1}}"#);
        assert_eq!(to_text(&E::N(1)), r#"{"N":1}"#);
    }
}
