//! The fingerprint of a scalar that a `Serialize` value would write,
//! without writing it: a serde serializer that feeds the value into a
//! [`Fingerprinter`] instead of formatting its number or escaping its string.
//!
//! Two scalars that would write different JSON text get different
//! fingerprints (but for the hash's collisions): each is tagged by its kind
//! and strings are length-prefixed. Containers are refused (`None`): a
//! serializer of its own for every struct and list of the view would be
//! kilobytes of wasm, and the caller fingerprints their text instead. The
//! view's patch (src/session/patch.rs) compares header fields this way and
//! writes only those whose fingerprint changed.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};

use super::fingerprint::{Fingerprint, Fingerprinter};

/// The fingerprint of `v` when it is a scalar (a string, number, boolean,
/// `null`, or an option or newtype of one); `None` for a list, map, struct
/// or enum variant with contents.
///
/// ```
/// use stepline::json::scalar_fingerprint;
/// assert_eq!(scalar_fingerprint(&Some("a")), scalar_fingerprint(&"a"));
/// assert_ne!(scalar_fingerprint(&12), scalar_fingerprint(&"12"));
/// assert_eq!(scalar_fingerprint(&vec![1, 2]), None);
/// ```
pub fn scalar_fingerprint<T: Serialize + ?Sized>(v: &T) -> Option<Fingerprint> {
    let mut f = Fingerprinter::new();
    v.serialize(Hashing(&mut f)).ok()?;
    Some(f.finish())
}

/// The serializer: every scalar feeds the fingerprinter.
struct Hashing<'a>(&'a mut Fingerprinter);

/// A container was met: the value is not a scalar.
#[derive(Debug)]
pub struct NotScalar;

impl fmt::Display for NotScalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a scalar")
    }
}

impl std::error::Error for NotScalar {}

impl ser::Error for NotScalar {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotScalar
    }
}

impl Hashing<'_> {
    fn feed(self, tag: u8, bytes: &[u8]) -> Result<(), NotScalar> {
        self.0.bytes(tag, bytes);
        Ok(())
    }
}

impl ser::Serializer for Hashing<'_> {
    type Ok = ();
    type Error = NotScalar;
    type SerializeSeq = Impossible<(), NotScalar>;
    type SerializeTuple = Impossible<(), NotScalar>;
    type SerializeTupleStruct = Impossible<(), NotScalar>;
    type SerializeTupleVariant = Impossible<(), NotScalar>;
    type SerializeMap = Impossible<(), NotScalar>;
    type SerializeStruct = Impossible<(), NotScalar>;
    type SerializeStructVariant = Impossible<(), NotScalar>;

    fn serialize_bool(self, v: bool) -> Result<(), NotScalar> {
        self.feed(b'b', &[u8::from(v)])
    }
    fn serialize_i8(self, v: i8) -> Result<(), NotScalar> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), NotScalar> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), NotScalar> {
        self.serialize_i64(i64::from(v))
    }
    /// A non-negative integer writes the same text as that `u64`.
    fn serialize_i64(self, v: i64) -> Result<(), NotScalar> {
        match u64::try_from(v) {
            Ok(u) => self.serialize_u64(u),
            Err(_) => self.feed(b'i', &v.to_le_bytes()),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), NotScalar> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), NotScalar> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), NotScalar> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), NotScalar> {
        self.feed(b'u', &v.to_le_bytes())
    }
    fn serialize_f32(self, v: f32) -> Result<(), NotScalar> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), NotScalar> {
        self.feed(b'f', &v.to_bits().to_le_bytes())
    }
    fn serialize_char(self, v: char) -> Result<(), NotScalar> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), NotScalar> {
        self.feed(b's', v.as_bytes())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_none(self) -> Result<(), NotScalar> {
        self.feed(b'n', &[])
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), NotScalar> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), NotScalar> {
        self.feed(b'n', &[])
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), NotScalar> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), NotScalar> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), NotScalar> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _v: &T,
    ) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, NotScalar> {
        Err(NotScalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{to_text, Value};

    /// Scalars whose JSON text differs get different fingerprints, and
    /// containers get none.
    #[test]
    fn scalars_whose_text_differs_get_different_fingerprints() {
        let parse =
            |t: &str| crate::json::parse(t, &crate::json::Limits::default()).expect("valid JSON");
        let values: Vec<Value> = [
            "null", "0", "-1", "1", "1.5", "true", "false", "\"\"", "\"a\"", "\"ab\"", "\"1\"",
            "\"null\"",
        ]
        .iter()
        .map(|t| parse(t))
        .collect();
        for (i, a) in values.iter().enumerate() {
            for b in &values[i + 1..] {
                assert_ne!(to_text(a), to_text(b));
                assert_ne!(
                    scalar_fingerprint(a),
                    scalar_fingerprint(b),
                    "{a:?} and {b:?}"
                );
            }
        }
        for container in ["[]", "{}", "[1]", "{\"a\":1}"] {
            assert_eq!(scalar_fingerprint(&parse(container)), None, "{container}");
        }
    }

    #[test]
    fn a_scalar_has_the_fingerprint_of_its_value_however_it_is_typed() {
        assert_eq!(scalar_fingerprint(&Some(3u32)), scalar_fingerprint(&3i64));
        assert_eq!(scalar_fingerprint(&None::<&str>), scalar_fingerprint(&()));
        assert_ne!(scalar_fingerprint(&-3i64), scalar_fingerprint(&3i64));
    }
}
