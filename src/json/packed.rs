//! A JSON value kept for a long time, as its compact text when that text
//! reads back equal.
//!
//! A decoded array or object is a tree of members, keys and strings: a
//! step's continuation decision (`{should_continue, stop_reason,
//! resolved_by, evaluations}` with five `{criterion, decision, reason}`
//! objects) is about three times its 520 bytes of text as a tree, and a
//! session keeps one per step for its life (bench/findings.md, issue 27's
//! seventh pass). Values read back rarely (a step's view is written when
//! the step changes) are cheaper kept as text and read when needed.

use std::borrow::Cow;

use super::Value;

/// A value kept as its compact JSON text when reading that text back gives
/// an equal value (an array or object; checked when kept, so a value
/// deeper than the reader's nesting limit, or anything else that would not
/// come back the same, stays a tree), else as the value.
///
/// ```
/// use stepline::json::Packed;
/// let c = Packed::new(stepline::json!({"should_continue": true, "evaluations": [{"criterion": "StepsLimit", "decision": "allow"}]}));
/// assert_eq!(c.text(), Some(r#"{"should_continue":true,"evaluations":[{"criterion":"StepsLimit","decision":"allow"}]}"#));
/// assert_eq!(c.value()["evaluations"][0]["decision"], "allow");
/// assert_eq!(Packed::new(stepline::json!("done")).text(), None);
/// ```
#[derive(Clone, Debug)]
pub struct Packed(Repr);

#[derive(Clone, Debug)]
enum Repr {
    Value(Value),
    Text(Box<str>),
}

impl Packed {
    /// Keeps `v`: as its text when that reads back equal, else as the value
    /// without the decoder's spare room.
    pub fn new(mut v: Value) -> Packed {
        if matches!(v, Value::Array(_) | Value::Object(_)) {
            let t = super::to_string(&v);
            if super::from_str(&t).is_ok_and(|back| back == v) {
                return Packed(Repr::Text(t.into_boxed_str()));
            }
        }
        v.shrink_to_fit();
        Packed(Repr::Value(v))
    }

    /// The value (read from its text when kept as text).
    pub fn value(&self) -> Cow<'_, Value> {
        match &self.0 {
            Repr::Value(v) => Cow::Borrowed(v),
            Repr::Text(t) => Cow::Owned(read_back(t)),
        }
    }

    /// The value, owned.
    pub fn into_value(self) -> Value {
        match self.0 {
            Repr::Value(v) => v,
            Repr::Text(t) => read_back(&t),
        }
    }

    /// The compact JSON text, when the value is kept as text.
    pub fn text(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text(t) => Some(t),
            Repr::Value(_) => None,
        }
    }
}

/// The value of a text [`Packed::new`] kept: it read back when kept, and
/// the parser is deterministic, so the fallback never shows.
fn read_back(t: &str) -> Value {
    let v = super::from_str(t);
    debug_assert!(v.is_ok(), "kept JSON text that does not read back");
    v.unwrap_or_default()
}

impl From<Value> for Packed {
    fn from(v: Value) -> Packed {
        Packed::new(v)
    }
}

impl PartialEq for Packed {
    fn eq(&self, other: &Packed) -> bool {
        match (&self.0, &other.0) {
            (Repr::Text(a), Repr::Text(b)) => a == b,
            _ => self.value() == other.value(),
        }
    }
}

impl serde::Serialize for Packed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::Packed;
    use crate::json::{from_str, Value};

    #[test]
    fn packed_values_read_back_equal_and_keep_what_text_would_lose() {
        let c = from_str(r#"{"a":[1,2.5,-0.0,"é"],"b":{"c":null}}"#).unwrap();
        let p = Packed::new(c.clone());
        assert!(p.text().is_some());
        assert_eq!(*p.value(), c);
        assert_eq!(p.clone().into_value(), c);
        assert_eq!(p, Packed::new(c));
        // Deeper than the reader reads: kept as the tree, without the
        // spare room a decoder's doubling leaves.
        let mut deep = Value::Null;
        for _ in 0..=crate::json::MAX_NESTING {
            let mut items = Vec::with_capacity(4);
            items.push(deep);
            deep = Value::Array(items);
        }
        let p = Packed::new(deep.clone());
        assert_eq!(p.text(), None);
        assert_eq!(*p.value(), deep);
        assert!(p.value().reserved() < deep.reserved());
        assert_eq!(p.value().reserved(), p.value().into_owned().reserved());
        assert_eq!(Packed::new(Value::Bool(true)).text(), None);
    }
}
