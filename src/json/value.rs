//! The JSON value every part of the core reads and writes.
//!
//! Objects keep their keys in the order they were written, as PHP arrays do, in a
//! plain vector: the objects the core meets are small (an envelope has six keys),
//! where a scan beats hashing, and no hash table or hasher has to ship in the wasm.
//! The API follows `serde_json::Value`'s, so the code reads as Rust readers expect.

use std::borrow::Cow;
use std::ops::Index;

/// An object's key. The names the core knows (envelope, payload and view
/// fields, listed in `src/json/names.rs`) are read as shared static strings,
/// so most keys cost no allocation; any other key is owned.
///
/// ```
/// use std::borrow::Cow;
/// let v = stepline::json::from_str(r#"{"session_id": "s1", "my_field": 1}"#).unwrap();
/// let keys: Vec<_> = v.as_object().unwrap().keys().collect();
/// assert!(matches!(keys[0], Cow::Borrowed("session_id")));
/// assert!(matches!(keys[1], Cow::Owned(k) if k == "my_field"));
/// ```
pub type Name = Cow<'static, str>;

/// A JSON value.
///
/// ```
/// use stepline::json::Value;
/// let v: Value = stepline::json::from_str(r#"{"a": [1, 2.5, "x"]}"#).unwrap();
/// assert_eq!(v["a"][1].as_f64(), Some(2.5));
/// assert_eq!(v.to_string(), r#"{"a":[1,2.5,"x"]}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number: an integer when written without fraction or exponent.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, in key order as written.
    Object(Map),
}

/// A JSON number, remembering whether it was written as an integer: `1` and `1.0`
/// differ (the reference's vectors keep `.0` on floats on purpose).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number(N);

#[derive(Clone, Copy, Debug, PartialEq)]
enum N {
    /// A non-negative integer.
    PosInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// A finite float (never NaN or infinite).
    Float(f64),
}

impl Number {
    /// The number as a float; `None` only for NaN and infinities, which JSON cannot write.
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then_some(Number(N::Float(f)))
    }

    pub(crate) fn from_u64(u: u64) -> Number {
        Number(N::PosInt(u))
    }

    pub(crate) fn from_i64(i: i64) -> Number {
        if i < 0 {
            Number(N::NegInt(i))
        } else {
            Number(N::PosInt(i as u64))
        }
    }

    /// Whether it is an integer that fits in a `u64`.
    pub fn is_u64(&self) -> bool {
        matches!(self.0, N::PosInt(_))
    }

    /// Whether it is an integer that fits in an `i64`.
    pub fn is_i64(&self) -> bool {
        match self.0 {
            N::PosInt(u) => u <= i64::MAX as u64,
            N::NegInt(_) => true,
            N::Float(_) => false,
        }
    }

    /// Whether it was written as a float (or is too large for an integer).
    pub fn is_f64(&self) -> bool {
        matches!(self.0, N::Float(_))
    }

    /// The integer, when it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(u) => Some(u),
            _ => None,
        }
    }

    /// The integer, when it is an integer in `i64` range.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(u) => i64::try_from(u).ok(),
            N::NegInt(i) => Some(i),
            N::Float(_) => None,
        }
    }

    /// The number as a float (integers beyond 2^53 round).
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(u) => u as f64,
            N::NegInt(i) => i as f64,
            N::Float(f) => f,
        })
    }

    /// Appends the number's JSON text: integers as digits, floats in their
    /// shortest round-tripping form with a `.0` or an exponent (`1.0`, `1e21`).
    pub(crate) fn write(&self, out: &mut String) {
        match self.0 {
            N::PosInt(u) => write_u64(out, u),
            N::NegInt(i) => {
                out.push('-');
                write_u64(out, i.unsigned_abs());
            }
            N::Float(f) => out.push_str(zmij::Buffer::new().format_finite(f)),
        }
    }
}

/// Digits of `u`, without core's formatting machinery.
pub(crate) fn write_u64(out: &mut String, mut u: u64) {
    // u64::MAX has 20 digits, written from the end.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (u % 10) as u8;
        at -= 1;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    let written = digits.get(at..).unwrap_or_default();
    out.reserve(written.len());
    // ASCII digits: pushed as chars, with no UTF-8 check of the slice.
    for &d in written {
        out.push(char::from(d));
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
    }
}

/// `From` each integer type, through the constructor for its sign.
macro_rules! from_integers {
    ($make:ident as $wide:ty: $($t:ty)*) => {$(
        impl From<$t> for Number {
            fn from(n: $t) -> Number { Number::$make(n as $wide) }
        }
        impl From<$t> for Value {
            fn from(n: $t) -> Value { Value::Number(Number::$make(n as $wide)) }
        }
    )*};
}
from_integers!(from_u64 as u64: u8 u16 u32 u64 usize);
from_integers!(from_i64 as i64: i8 i16 i32 i64 isize);

impl From<f64> for Value {
    /// NaN and infinities become `null`, as `JSON.stringify` writes them.
    fn from(f: f64) -> Value {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

impl From<f32> for Value {
    fn from(f: f32) -> Value {
        Value::from(f as f64)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::Number(n)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Object(m)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// Anything that converts by value converts by reference too, cloning.
impl<T: Clone + Into<Value>> From<&T> for Value {
    fn from(v: &T) -> Value {
        v.clone().into()
    }
}

impl Value {
    /// Gives back the room this value's strings, arrays and objects hold
    /// beyond their contents, all the way down. The decoder grows each by
    /// doubling, so a value kept for the session's life (a step's
    /// continuation decision: five objects of three members each in the
    /// 100k live loop) would otherwise hold a quarter to a half more than
    /// it uses, and the wasm memory never shrinks (bench/findings.md, issue
    /// 27's fifth pass).
    pub(crate) fn shrink_to_fit(&mut self) {
        match self {
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
            Value::String(s) => s.shrink_to_fit(),
            Value::Array(items) => {
                items.shrink_to_fit();
                items.iter_mut().for_each(Value::shrink_to_fit);
            }
            Value::Object(m) => {
                m.entries.shrink_to_fit();
                for (k, v) in &mut m.entries {
                    if let Cow::Owned(k) = k {
                        k.shrink_to_fit();
                    }
                    v.shrink_to_fit();
                }
            }
        }
    }

    /// Bytes this value's strings, arrays and objects have reserved (tests
    /// check what a kept value holds).
    #[cfg(test)]
    pub(crate) fn reserved(&self) -> usize {
        match self {
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
            Value::String(s) => s.capacity(),
            Value::Array(items) => {
                items.capacity() * std::mem::size_of::<Value>()
                    + items.iter().map(Value::reserved).sum::<usize>()
            }
            Value::Object(m) => {
                m.entries.capacity() * std::mem::size_of::<(Name, Value)>()
                    + m.entries
                        .iter()
                        .map(|(k, v)| {
                            let key = match k {
                                Cow::Owned(k) => k.capacity(),
                                Cow::Borrowed(_) => 0,
                            };
                            key + v.reserved()
                        })
                        .sum::<usize>()
            }
        }
    }

    /// The string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, when it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, when it is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// See [`Number::as_u64`].
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    /// See [`Number::as_i64`].
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// See [`Number::as_f64`].
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    /// Whether it is a non-negative integer.
    pub fn is_u64(&self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }

    /// Whether it is an integer in `i64` range.
    pub fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }

    /// Whether it is a number written as a float.
    pub fn is_f64(&self) -> bool {
        self.as_number().is_some_and(Number::is_f64)
    }

    /// The array, when it is one.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array, mutably, when it is one.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The object, when it is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The object, mutably, when it is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// Whether it is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether it is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// Whether it is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// Whether it is a boolean.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// Whether it is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// Whether it is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// A member by key (objects) or by index (arrays).
    pub fn get<I: Key>(&self, key: I) -> Option<&Value> {
        key.find(self)
    }

    /// A member by key (objects) or by index (arrays), mutably.
    pub fn get_mut<I: Key>(&mut self, key: I) -> Option<&mut Value> {
        key.find_mut(self)
    }

    /// The value at a JSON pointer (RFC 6901), e.g. `/steps/0/id`.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        tokens(pointer)?.try_fold(self, |at, token| match at {
            Value::Object(m) => m.get(&token),
            Value::Array(a) => array_index(&token).and_then(|i| a.get(i)),
            _ => None,
        })
    }

    /// The value at a JSON pointer, mutably.
    pub fn pointer_mut(&mut self, pointer: &str) -> Option<&mut Value> {
        tokens(pointer)?.try_fold(self, |at, token| match at {
            Value::Object(m) => m.get_mut(&token),
            Value::Array(a) => array_index(&token).and_then(move |i| a.get_mut(i)),
            _ => None,
        })
    }

    /// The value at a JSON pointer, mutably, creating what is missing on the
    /// way: a missing object member is inserted as `null`, and a `null` becomes
    /// an object first (what `value["a"]["b"] = …` does in `serde_json`).
    /// `None` when the path runs through a string, number or boolean, or past
    /// an array's end (arrays are never extended).
    ///
    /// ```
    /// let mut v = stepline::json!({"payload": null});
    /// *v.pointer_entry("/payload/duration_ms").unwrap() = 12.into();
    /// assert_eq!(v.to_string(), r#"{"payload":{"duration_ms":12}}"#);
    /// ```
    pub fn pointer_entry(&mut self, pointer: &str) -> Option<&mut Value> {
        tokens(pointer)?.try_fold(self, |at, token| {
            if at.is_null() {
                *at = Value::Object(Map::new());
            }
            match at {
                Value::Object(m) => Some(m.entry(token).or_insert(Value::Null)),
                Value::Array(a) => array_index(&token).and_then(move |i| a.get_mut(i)),
                _ => None,
            }
        })
    }

    /// Moves the value out, leaving `null`.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

/// A pointer's reference tokens, unescaped; none for `""` (the whole value),
/// `None` for text that is not a pointer.
fn tokens(pointer: &str) -> Option<impl Iterator<Item = String> + '_> {
    let rest = match pointer {
        "" => None,
        p => Some(p.strip_prefix('/')?),
    };
    Some(
        rest.into_iter()
            .flat_map(|r| r.split('/'))
            .map(|token| token.replace("~1", "/").replace("~0", "~")),
    )
}

/// An array index token: digits without a leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// What indexes a [`Value`]: a key for objects, a position for arrays.
pub trait Key {
    #[doc(hidden)]
    fn find(self, v: &Value) -> Option<&Value>;
    #[doc(hidden)]
    fn find_mut(self, v: &mut Value) -> Option<&mut Value>;
}

impl Key for &str {
    fn find(self, v: &Value) -> Option<&Value> {
        v.as_object()?.get(self)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        v.as_object_mut()?.get_mut(self)
    }
}

impl Key for &String {
    fn find(self, v: &Value) -> Option<&Value> {
        Key::find(self.as_str(), v)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        Key::find_mut(self.as_str(), v)
    }
}

impl Key for String {
    fn find(self, v: &Value) -> Option<&Value> {
        Key::find(self.as_str(), v)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        Key::find_mut(self.as_str(), v)
    }
}

impl Key for usize {
    fn find(self, v: &Value) -> Option<&Value> {
        v.as_array()?.get(self)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        v.as_array_mut()?.get_mut(self)
    }
}

static NULL: Value = Value::Null;

impl<I: Key> Index<I> for Value {
    type Output = Value;
    /// The member, or `null` when there is none (as `serde_json` does).
    fn index(&self, key: I) -> &Value {
        key.find(self).unwrap_or(&NULL)
    }
}

/// A JSON object: keys in the order written, each key once.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Name, Value)>,
}

/// Whether two member names are equal. Lengths first, then eight bytes at a
/// time: names are short and mostly differ in length, and the wasm's
/// `memcmp`, which `==` on strings calls, compares one byte per step (it
/// was a fourteenth of a foreign-dialect replay, bench/findings.md).
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut a8 = a.chunks_exact(8);
    let mut b8 = b.chunks_exact(8);
    let words = |x: &[u8]| <[u8; 8]>::try_from(x).map(u64::from_ne_bytes).ok();
    if !a8
        .by_ref()
        .zip(b8.by_ref())
        .all(|(x, y)| words(x) == words(y))
    {
        return false;
    }
    a8.remainder()
        .iter()
        .zip(b8.remainder())
        .all(|(x, y)| x == y)
}

impl Map {
    /// An empty object.
    pub const fn new() -> Map {
        Map {
            entries: Vec::new(),
        }
    }

    /// An empty object with room for `n` members.
    pub fn with_capacity(n: usize) -> Map {
        Map {
            entries: Vec::with_capacity(n),
        }
    }

    /// An object from members that may repeat a key: the last value wins, at
    /// the key's first place (as `JSON.parse` and PHP's `json_decode` do).
    pub(crate) fn from_entries(mut entries: Vec<(Name, Value)>) -> Map {
        dedup(&mut entries);
        Map { entries }
    }

    /// An object from members whose keys the caller knows are unique (the
    /// parser, when no two keys hash alike), skipping the check.
    pub(crate) fn from_unique(entries: Vec<(Name, Value)>) -> Map {
        debug_assert!({
            let mut all = entries.clone();
            dedup(&mut all);
            all.len() == entries.len()
        });
        Map { entries }
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has no members.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The place of `key` among the members.
    pub(crate) fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| same_key(k, key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| v)
    }

    /// The value of `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries
            .iter_mut()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`: in place when present (returning the old value), else at the end.
    /// It scans the members, so build a large object with `collect` instead,
    /// which checks all keys at once (n log n).
    pub fn insert(&mut self, key: impl Into<Name>, value: Value) -> Option<Value> {
        self.insert_name(key.into(), value)
    }

    /// [`Map::insert`] after the key's conversion: one copy of the code for
    /// every kind of key callers pass.
    fn insert_name(&mut self, key: Name, value: Value) -> Option<Value> {
        match self.entries.iter_mut().find(|(k, _)| same_key(k, &key)) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Appends a member whose key the caller knows is not present (the
    /// decoders building normalised objects), skipping `insert`'s search.
    pub(crate) fn push(&mut self, key: impl Into<Name>, value: Value) {
        self.push_name(key.into(), value);
    }

    fn push_name(&mut self, key: Name, value: Value) {
        debug_assert!(!self.contains_key(&key), "duplicate key {key}");
        self.entries.push((key, value));
    }

    /// The value of the member at place `i`, taken (`null` left there).
    pub(crate) fn take_at(&mut self, i: usize) -> Option<Value> {
        self.entries.get_mut(i).map(|(_, v)| std::mem::take(v))
    }

    /// Removes `key`, keeping the other members' order.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        Some(self.entries.remove(i).1)
    }

    /// Removes `key` and returns it with its value, keeping the others' order.
    pub fn remove_entry(&mut self, key: &str) -> Option<(Name, Value)> {
        let i = self.position(key)?;
        Some(self.entries.remove(i))
    }

    /// Removes `key` and returns its place with it, keeping the others'
    /// order: [`Map::insert_at`] puts it back where it was (a JSON Patch
    /// that fails part way is undone so, src/json/patch.rs).
    pub(crate) fn remove_at(&mut self, key: &str) -> Option<(usize, Name, Value)> {
        let i = self.position(key)?;
        let (k, v) = self.entries.remove(i);
        Some((i, k, v))
    }

    /// Inserts a member whose key is not present at place `i` (at the end
    /// when `i` is past it).
    pub(crate) fn insert_at(&mut self, i: usize, key: Name, value: Value) {
        debug_assert!(!self.contains_key(&key), "duplicate key {key}");
        let i = i.min(self.entries.len());
        self.entries.insert(i, (key, value));
    }

    /// Appends a member whose key the caller's own index of the keys says
    /// is not present: [`Map::push`] without its (debug-build) scan, which
    /// made filling a large indexed object quadratic in tests.
    pub(crate) fn push_indexed(&mut self, key: impl Into<Name>, value: Value) {
        self.entries.push((key.into(), value));
    }

    /// Renames member `from` to `to` and moves it last: what [`Map::remove`]
    /// then [`Map::insert`] do, without the shift when `from` is last
    /// already (a translated envelope's `step_number`, src/dialects/mod.rs).
    /// Whether `from` was present.
    pub(crate) fn rename_last(&mut self, from: &str, to: &'static str) -> bool {
        let Some(i) = self.position(from) else {
            return false;
        };
        if self.contains_key(to) {
            // `insert` replaces the value `to` has, where it is.
            let (_, v) = self.entries.remove(i);
            self.insert(to, v);
            return true;
        }
        if i + 1 != self.entries.len() {
            let member = self.entries.remove(i);
            self.entries.push(member);
        }
        if let Some((k, _)) = self.entries.last_mut() {
            *k = Name::Borrowed(to);
        }
        true
    }

    /// The value at place `i`, mutably (a caller that indexes a large
    /// object by its keys, src/session/data.rs, finds members without a scan).
    pub(crate) fn value_at_mut(&mut self, i: usize) -> Option<&mut Value> {
        self.entries.get_mut(i).map(|(_, v)| v)
    }

    /// The member of `key`, for inserting when missing.
    pub fn entry(&mut self, key: impl Into<Name> + AsRef<str>) -> Entry<'_> {
        match self.position(key.as_ref()) {
            Some(i) => Entry {
                map: self,
                at: Ok(i),
            },
            None => Entry {
                map: self,
                at: Err(key.into()),
            },
        }
    }

    /// Keeps the members for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Name, &mut Value) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Moves every member of `other` in (replacing same keys), leaving it empty.
    pub fn append(&mut self, other: &mut Map) {
        self.extend(std::mem::take(&mut other.entries));
    }

    /// The members in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    /// The members in order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries.iter_mut())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Name> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in order, mutably.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

/// One member of a [`Map`], present or not: see [`Map::entry`].
pub struct Entry<'a> {
    map: &'a mut Map,
    at: Result<usize, Name>,
}

impl<'a> Entry<'a> {
    /// The value, inserting `default` when missing.
    pub fn or_insert(self, default: Value) -> &'a mut Value {
        self.or_insert_with(|| default)
    }

    /// The value, inserting `default()` when missing.
    #[expect(
        clippy::indexing_slicing,
        reason = "`at` was found in, or just pushed to, these entries"
    )]
    pub fn or_insert_with(self, default: impl FnOnce() -> Value) -> &'a mut Value {
        let i = match self.at {
            Ok(i) => i,
            Err(key) => {
                self.map.entries.push((key, default()));
                self.map.entries.len() - 1
            }
        };
        &mut self.map.entries[i].1
    }
}

impl PartialEq for Map {
    /// Same members with equal values, in any order (as `serde_json`'s maps compare).
    fn eq(&self, other: &Map) -> bool {
        if self.len() != other.len() {
            return false;
        }
        // Usually the same order: compare in step, and look up only from the first difference.
        let same = self
            .entries
            .iter()
            .zip(&other.entries)
            .take_while(|((a, _), (b, _))| a == b)
            .count();
        let (head, tail) = self.entries.split_at(same);
        let (other_head, other_tail) = other.entries.split_at(same);
        let rest = (tail, other_tail);
        head.iter().zip(other_head).all(|((_, a), (_, b))| a == b)
            && if rest.0.len() <= 16 {
                rest.0.iter().all(|(k, v)| other.get(k) == Some(v))
            } else {
                // Large and reordered: compare sorted, n log n rather than n².
                by_key(rest.0) == by_key(rest.1)
            }
    }
}

/// Members in key order (keys are unique within a map).
fn by_key(entries: &[(Name, Value)]) -> Vec<&(Name, Value)> {
    let mut refs: Vec<&(Name, Value)> = entries.iter().collect();
    crate::sort::sort_by_key(&mut refs, |e| &*e.0);
    refs
}

/// Keeps each key once: the last value, at the first place. Small objects are
/// checked pairwise; larger ones through a sort of positions by key, so that a
/// hostile object of a million keys costs n·log n, not n².
fn dedup(entries: &mut Vec<(Name, Value)>) {
    let n = entries.len();
    if n < 2 {
        return;
    }
    // (first place, later place) of every repeated key.
    let mut dropped = vec![];
    if n <= 16 {
        for (j, (key, _)) in entries.iter().enumerate().skip(1) {
            if let Some(i) = entries.iter().take(j).position(|(k, _)| k == key) {
                dropped.push((i, j));
            }
        }
    } else {
        let mut order: Vec<(&str, usize)> = entries
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (&**k, i))
            .collect();
        crate::sort::sort_by_key(&mut order, |&pair| pair);
        // Runs of one key are in position order: pair every later one with the run's first.
        let mut first: Option<(&str, usize)> = None;
        for &(key, i) in &order {
            match first {
                Some((run, at)) if run == key => dropped.push((at, i)),
                _ => first = Some((key, i)),
            }
        }
    }
    if dropped.is_empty() {
        return;
    }
    // Later duplicates carry their value to the first place, in position order so the last wins.
    crate::sort::sort_by_key(&mut dropped, |&(_, j)| j);
    let mut gone = vec![false; n];
    for &(i, j) in &dropped {
        let v = entries.get_mut(j).map(|e| e.1.take()).unwrap_or_default();
        if let Some(e) = entries.get_mut(i) {
            e.1 = v;
        }
        if let Some(g) = gone.get_mut(j) {
            *g = true;
        }
    }
    let mut gone = gone.into_iter();
    entries.retain(|_| !gone.next().unwrap_or(false));
}

impl<K: Into<Name>> FromIterator<(K, Value)> for Map {
    fn from_iter<T: IntoIterator<Item = (K, Value)>>(iter: T) -> Map {
        Map::from_entries(iter.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

impl<K: Into<Name>> Extend<(K, Value)> for Map {
    fn extend<T: IntoIterator<Item = (K, Value)>>(&mut self, iter: T) {
        self.entries
            .extend(iter.into_iter().map(|(k, v)| (k.into(), v)));
        dedup(&mut self.entries);
    }
}

impl IntoIterator for Map {
    type Item = (Name, Value);
    type IntoIter = std::vec::IntoIter<(Name, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// Borrowed members of a [`Map`], in order.
pub struct Iter<'a>(std::slice::Iter<'a, (Name, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Name, &'a Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Members of a [`Map`] with mutable values, in order.
pub struct IterMut<'a>(std::slice::IterMut<'a, (Name, Value)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a Name, &'a mut Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Name, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a Name, &'a mut Value);
    type IntoIter = IterMut<'a>;
    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

impl Index<&str> for Map {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::fmt::Display for Value {
    /// Compact JSON text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::to_string(self))
    }
}

// Comparisons with Rust literals, as `serde_json` has them: `v["n"] == 3`,
// `v["type"] == "agent.status"`. Integers compare by value whatever the number's
// kind; floats compare as floats.
impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

/// `==` with each integer type, read through the accessor for its sign.
macro_rules! eq_integers {
    ($read:ident as $wide:ty: $($t:ty)*) => {$(
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                self.$read() == Some(*other as $wide)
            }
        }
    )*};
}
eq_integers!(as_i64 as i64: i8 i16 i32 i64 isize);
eq_integers!(as_u64 as u64: u8 u16 u32 u64 usize);

impl PartialEq<f64> for Value {
    fn eq(&self, other: &f64) -> bool {
        self.as_f64() == Some(*other)
    }
}

#[cfg(test)]
mod rename_tests {
    use super::{Map, Value};

    fn map(keys: &[&'static str]) -> Map {
        let mut m = Map::new();
        for (i, k) in keys.iter().enumerate() {
            m.push(*k, Value::from(i as f64));
        }
        m
    }

    #[test]
    fn rename_last_leaves_the_members_as_remove_then_insert_does() {
        let shapes: &[&[&'static str]] = &[
            &["text_delta", "step_number"],
            &["step_number", "text_delta"],
            &["a", "step_number", "b"],
            &["a", "b"],
            &["step_number"],
            &["step_index", "step_number", "a"],
            &["step_number", "a", "step_index"],
        ];
        for keys in shapes {
            let mut renamed = map(keys);
            let mut moved = map(keys);
            let present = renamed.rename_last("step_number", "step_index");
            if let Some(n) = moved.remove("step_number") {
                moved.insert("step_index", n);
            }
            assert_eq!(present, keys.contains(&"step_number"), "{keys:?}");
            let members = |m: &Map| {
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(members(&renamed), members(&moved), "{keys:?}");
        }
    }
}
