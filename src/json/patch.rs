//! RFC 6902 JSON Patch, applied to the core's own [`Value`]: what AG-UI's
//! `STATE_DELTA.delta` and `ACTIVITY_DELTA.patch` carry.
//!
//! A patch applies as a whole or not at all (RFC 6902 section 5): the
//! operations run on a copy, and the copy replaces the document only when
//! every one succeeded. Pointers follow RFC 6901 (`~1` is `/`, `~0` is `~`,
//! any other `~` escape is refused); an array index is `0` or a digit string
//! without a leading zero, and `-` names the end of an array for `add` only.
//! `test` compares numbers by value (`1` equals `1.0`, RFC 6902 section 4.6)
//! and objects regardless of member order.
//!
//! Two kinds of failure, because a consumer treats them differently:
//! [`PatchFailure::Malformed`] is an operation that is not an operation (no
//! `op`, a `path` that is not a string, an unknown `op`, a missing `value`):
//! the event itself is bad input. [`PatchFailure::NotApplicable`] is a
//! well-formed operation that does not fit the document it is applied to (a
//! missing member, an index past the end, a failed `test`): the document a
//! consumer holds is not the one the producer patched, which is a gap in what
//! it has seen, not a broken event. Both carry a JSON pointer into the patch.
//!
//! Checked against the json-patch-tests suite (`tests/vectors/dialects/json-patch/`,
//! `tests/dialect_ag_ui.rs`).
//!
//! ```
//! use stepline::json::patch::apply;
//! let doc = stepline::json!({"todo": ["a"], "done": 0});
//! let patch = stepline::json!([
//!     {"op": "add", "path": "/todo/-", "value": "b"},
//!     {"op": "replace", "path": "/done", "value": 1},
//! ]);
//! let next = apply(&doc, &patch, "/delta").unwrap();
//! assert_eq!(next, stepline::json!({"todo": ["a", "b"], "done": 1}));
//! ```

use crate::error::{ErrorCode, SteplineError};
use crate::json::{type_name, Map, Value, MAX_NESTING};

/// Why a patch was not applied (the document is left as it was).
#[derive(Clone, Debug, PartialEq)]
pub enum PatchFailure {
    /// The patch is not a JSON Patch document: an operation lacks `op`,
    /// `path`, `value` or `from`, has one of the wrong type, names an unknown
    /// operation or writes a pointer that is not RFC 6901.
    Malformed(SteplineError),
    /// A well-formed operation does not fit the document: its target or
    /// source is missing, an index is out of range or not an index, a `test`
    /// failed, or the result would nest deeper than the core reads.
    NotApplicable(SteplineError),
    /// A well-formed operation would take the document past its size limit
    /// (`too_large`, see [`apply_in_place`]); it is refused before it
    /// allocates.
    LimitExceeded(SteplineError),
}

impl PatchFailure {
    /// The error, whichever kind of failure it is.
    pub fn error(&self) -> &SteplineError {
        match self {
            PatchFailure::Malformed(e)
            | PatchFailure::NotApplicable(e)
            | PatchFailure::LimitExceeded(e) => e,
        }
    }

    /// The error, whichever kind of failure it is.
    pub fn into_error(self) -> SteplineError {
        match self {
            PatchFailure::Malformed(e)
            | PatchFailure::NotApplicable(e)
            | PatchFailure::LimitExceeded(e) => e,
        }
    }
}

/// The size a patched document may reach under [`apply`]: a caller that
/// keeps a document across patches passes its own limit to
/// [`apply_in_place`]. Sizes are [`size`]s: `copy` of the whole document,
/// over and over, doubles it with every operation (twenty deltas of one
/// copy each reached 923 MB), so an operation that would take the document
/// past the limit is refused before it allocates.
pub const SIZE_LIMIT: usize = 8 << 20;

/// A document's size as patches count it: one per value, plus the bytes of
/// every string and object key in it (about its JSON text's length, and
/// never less than its number of values).
pub fn size(v: &Value) -> usize {
    match v {
        Value::String(s) => 1 + s.len(),
        Value::Array(a) => 1 + a.iter().map(size).sum::<usize>(),
        Value::Object(m) => 1 + m.iter().map(|(k, v)| k.len() + size(v)).sum::<usize>(),
        _ => 1,
    }
}

/// Applies the RFC 6902 patch `patch` (a JSON array of operations) to `doc`
/// and returns the patched document; `doc` is not changed. `path` is where
/// the patch sits in its event (`"/delta"`), the prefix of every error's path.
/// The result may be at most [`SIZE_LIMIT`] in [`size`] (or `doc`'s size,
/// when that is larger).
pub fn apply(doc: &Value, patch: &Value, path: &str) -> Result<Value, PatchFailure> {
    let mut out = doc.clone();
    let mut held = size(&out);
    let limit = SIZE_LIMIT.max(held);
    apply_in_place(&mut out, patch, path, &mut held, limit)?;
    Ok(out)
}

/// Applies `patch` to `doc` in place: each operation changes the document
/// where it stands (no copy of it, so a stream of small patches to a large
/// state costs what the patches hold), and when one fails the ones before
/// it are undone, in reverse, leaving `doc` as it was (RFC 6902 section 5).
/// `held` is `doc`'s [`size`], kept up to date; an operation that would take
/// it past `limit` fails with [`PatchFailure::LimitExceeded`] before it
/// allocates anything.
pub fn apply_in_place(
    doc: &mut Value,
    patch: &Value,
    path: &str,
    held: &mut usize,
    limit: usize,
) -> Result<(), PatchFailure> {
    let ops = patch.as_array().ok_or_else(|| {
        PatchFailure::Malformed(SteplineError::at(
            ErrorCode::InvalidType,
            path,
            format!(
                "expected a JSON Patch (an array of operations), found {}",
                type_name(patch)
            ),
        ))
    })?;
    let before = *held;
    let mut undo = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let at = crate::json::index(path, i);
        let mut doing = Doing {
            undo: &mut undo,
            held,
            limit,
        };
        if let Err(e) = apply_op(doc, op, &at, &mut doing) {
            while let Some(u) = undo.pop() {
                u.undo(doc);
            }
            *held = before;
            return Err(e);
        }
    }
    Ok(())
}

/// What one patch application keeps while it runs: how to undo the
/// operations done so far, and the document's size against its limit.
struct Doing<'a> {
    undo: &'a mut Vec<Undo>,
    held: &'a mut usize,
    limit: usize,
}

impl Doing<'_> {
    /// Refuses growth by `grow` (less `shrink`) past the limit.
    fn check(&self, grow: usize, shrink: usize, at: &str) -> Result<(), PatchFailure> {
        let next = self.held.saturating_sub(shrink).saturating_add(grow);
        if next > self.limit {
            return Err(PatchFailure::LimitExceeded(SteplineError::at(
                ErrorCode::TooLarge,
                at,
                format!(
                    "the patched document would reach size {next}, past its limit of {} (one per value plus the bytes of its strings and keys)",
                    self.limit
                ),
            )));
        }
        Ok(())
    }

    fn grew(&mut self, grow: usize, shrink: usize) {
        *self.held = self.held.saturating_sub(shrink).saturating_add(grow);
    }
}

/// How to take back one change an operation made.
enum Undo {
    /// The whole document was replaced by `add` at the root.
    Root(Value),
    /// The value at the pointer was replaced: put this one back.
    Put(Vec<String>, Value),
    /// A member or item was added at the pointer: take it out.
    Take(Vec<String>),
    /// A value was removed from this place: put it back.
    Restore(Place, Value),
    /// A value was moved from this place by the add this undo takes back.
    Move(Place, Box<Undo>),
}

/// Where a removed value was: its container's pointer and its place there.
enum Place {
    /// A member of an object, at this position in its key order.
    Member(Vec<String>, usize, crate::json::Name),
    /// An item of an array.
    Item(Vec<String>, usize),
}

impl Place {
    fn put_back(self, doc: &mut Value, v: Value) {
        match self {
            Place::Member(parent, i, k) => {
                if let Some(Value::Object(m)) = lookup_mut(doc, &parent) {
                    m.insert_at(i, k, v);
                }
            }
            Place::Item(parent, i) => {
                if let Some(Value::Array(a)) = lookup_mut(doc, &parent) {
                    a.insert(i.min(a.len()), v);
                }
            }
        }
    }

    /// The bytes of the member's key, which leave the document with it.
    fn key_len(&self) -> usize {
        match self {
            Place::Member(_, _, k) => k.len(),
            Place::Item(..) => 0,
        }
    }
}

impl Undo {
    /// Reverses the change and returns the value the change had put in (the
    /// changes after it are undone first, so each pointer resolves).
    fn undo(self, doc: &mut Value) -> Option<Value> {
        match self {
            Undo::Root(v) => Some(std::mem::replace(doc, v)),
            Undo::Put(tokens, v) => lookup_mut(doc, &tokens).map(|slot| std::mem::replace(slot, v)),
            Undo::Take(tokens) => {
                let (last, parent) = tokens.split_last()?;
                match lookup_mut(doc, parent)? {
                    Value::Object(m) => m.remove(last),
                    Value::Array(a) => array_index(last)
                        .filter(|&i| i < a.len())
                        .map(|i| a.remove(i)),
                    _ => None,
                }
            }
            Undo::Restore(place, v) => {
                place.put_back(doc, v);
                None
            }
            Undo::Move(place, add) => {
                let v = add.undo(doc)?;
                place.put_back(doc, v);
                None
            }
        }
    }
}

fn lookup_mut<'a>(doc: &'a mut Value, tokens: &[String]) -> Option<&'a mut Value> {
    let mut here = doc;
    for t in tokens {
        here = child_mut(here, t)?;
    }
    Some(here)
}

/// One operation, read and applied.
fn apply_op(doc: &mut Value, op: &Value, at: &str, d: &mut Doing<'_>) -> Result<(), PatchFailure> {
    let m = op.as_object().ok_or_else(|| {
        malformed(
            ErrorCode::InvalidType,
            at,
            format!("expected an operation object, found {}", type_name(op)),
        )
    })?;
    let name = string_member(m, "op", at)?;
    // Every operation has a `path`; `from` and `value` only where the op needs them.
    let target = pointer_member(m, "path", at)?;
    let path_at = crate::json::child(at, "path");
    let from_at = crate::json::child(at, "from");
    match name {
        "add" => {
            let value = value_member(m, at)?;
            let (grow, shrink) = check_add(doc, &target, measure(value), &path_at, d)?;
            let undo = commit_add(doc, &target, value.clone());
            d.grew(grow, shrink);
            d.undo.push(undo);
            Ok(())
        }
        "remove" => {
            let (value, place) = remove(doc, &target, &path_at)?;
            d.grew(0, size(&value) + place.key_len());
            d.undo.push(Undo::Restore(place, value));
            Ok(())
        }
        "replace" => {
            let value = value_member(m, at)?;
            replace(doc, &target, value, &path_at, d)
        }
        "move" => {
            let from = pointer_member(m, "from", at)?;
            if from == target {
                // RFC 6902 4.4: the source must exist even when nothing moves.
                return get(doc, &from, &from_at).map(|_| ());
            }
            if target.len() > from.len() && target.starts_with(&from) {
                return Err(not_applicable(
                    &from_at,
                    "cannot move a value into one of its own children".to_string(),
                ));
            }
            let (value, place) = remove(doc, &from, &from_at)?;
            // The target is checked where the removal left the document.
            let freed = size(&value) + place.key_len();
            d.grew(0, freed);
            match check_add(doc, &target, measure(&value), &path_at, d) {
                Ok((grow, shrink)) => {
                    let undo = commit_add(doc, &target, value);
                    d.grew(grow, shrink);
                    d.undo.push(Undo::Move(place, Box::new(undo)));
                    Ok(())
                }
                Err(e) => {
                    d.grew(freed, 0);
                    place.put_back(doc, value);
                    Err(e)
                }
            }
        }
        "copy" => {
            let from = pointer_member(m, "from", at)?;
            // Checked (and sized) before it is cloned: the clone is what the
            // limit prevents.
            let measured = measure(get(doc, &from, &from_at)?);
            let (grow, shrink) = check_add(doc, &target, measured, &path_at, d)?;
            let value = get(doc, &from, &from_at)?.clone();
            let undo = commit_add(doc, &target, value);
            d.grew(grow, shrink);
            d.undo.push(undo);
            Ok(())
        }
        "test" => {
            let expected = value_member(m, at)?;
            let found = get(doc, &target, &path_at)?;
            if equal(found, expected) {
                Ok(())
            } else {
                Err(not_applicable(
                    &crate::json::child(at, "value"),
                    format!(
                        "test failed: the value at `{}` is not equal to the expected value",
                        pointer_text(&target)
                    ),
                ))
            }
        }
        other => Err(malformed(
            ErrorCode::InvalidValue,
            &crate::json::child(at, "op"),
            format!(
                "expected `op` to be add, remove, replace, move, copy or test, found `{other}`"
            ),
        )),
    }
}

fn malformed(code: ErrorCode, path: &str, message: String) -> PatchFailure {
    PatchFailure::Malformed(SteplineError::at(code, path, message))
}

fn not_applicable(path: &str, message: String) -> PatchFailure {
    PatchFailure::NotApplicable(SteplineError::at(ErrorCode::InvalidValue, path, message))
}

fn string_member<'a>(m: &'a Map, key: &str, at: &str) -> Result<&'a str, PatchFailure> {
    match m.get(key) {
        Some(Value::String(s)) => Ok(s),
        None => Err(malformed(
            ErrorCode::MissingField,
            &crate::json::child(at, key),
            format!("expected the operation to have `{key}`"),
        )),
        Some(other) => Err(malformed(
            ErrorCode::InvalidType,
            &crate::json::child(at, key),
            format!(
                "expected `{key}` to be a string, found {}",
                type_name(other)
            ),
        )),
    }
}

/// `value` of add, replace and test: required, and any JSON value (null too).
fn value_member<'a>(m: &'a Map, at: &str) -> Result<&'a Value, PatchFailure> {
    m.get("value").ok_or_else(|| {
        malformed(
            ErrorCode::MissingField,
            &crate::json::child(at, "value"),
            "expected the operation to have `value`".to_string(),
        )
    })
}

/// `path` or `from`, parsed into its reference tokens.
fn pointer_member(m: &Map, key: &str, at: &str) -> Result<Vec<String>, PatchFailure> {
    let text = string_member(m, key, at)?;
    parse_pointer(text).ok_or_else(|| {
        malformed(
            ErrorCode::InvalidValue,
            &crate::json::child(at, key),
            format!(
                "expected `{key}` to be a JSON pointer (empty, or starting with `/`, with `~` only as `~0` or `~1`), found `{text}`"
            ),
        )
    })
}

/// RFC 6901: `""` is the whole document; otherwise `/`-separated tokens.
fn parse_pointer(text: &str) -> Option<Vec<String>> {
    if text.is_empty() {
        return Some(vec![]);
    }
    let rest = text.strip_prefix('/')?;
    rest.split('/').map(unescape).collect()
}

fn unescape(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn pointer_text(tokens: &[String]) -> String {
    let mut out = String::new();
    for t in tokens {
        crate::json::push_token(&mut out, t);
    }
    out
}

/// An array index token: `0`, or digits without a leading zero (RFC 6901 section 4).
fn array_index(token: &str) -> Option<usize> {
    let digits = token.bytes().all(|b| b.is_ascii_digit());
    if token.is_empty() || !digits || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    token.parse().ok()
}

/// The value `tokens` points at.
fn get<'a>(doc: &'a Value, tokens: &[String], at: &str) -> Result<&'a Value, PatchFailure> {
    let mut here = doc;
    for (depth, token) in tokens.iter().enumerate() {
        here = child(here, token).ok_or_else(|| missing(tokens, depth, at))?;
    }
    Ok(here)
}

fn child<'a>(v: &'a Value, token: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) => m.get(token),
        Value::Array(a) => array_index(token).and_then(|i| a.get(i)),
        _ => None,
    }
}

fn child_mut<'a>(v: &'a mut Value, token: &str) -> Option<&'a mut Value> {
    match v {
        Value::Object(m) => m.get_mut(token),
        Value::Array(a) => array_index(token).and_then(|i| a.get_mut(i)),
        _ => None,
    }
}

/// The container that holds the last token of `tokens` (`tokens` is not empty).
fn parent_mut<'a>(
    doc: &'a mut Value,
    tokens: &[String],
    at: &str,
) -> Result<&'a mut Value, PatchFailure> {
    let parents = tokens.len().saturating_sub(1);
    let mut here = doc;
    for (depth, token) in tokens.iter().take(parents).enumerate() {
        here = child_mut(here, token).ok_or_else(|| missing(tokens, depth, at))?;
    }
    Ok(here)
}

fn missing(tokens: &[String], depth: usize, at: &str) -> PatchFailure {
    let upto = tokens.get(..=depth).unwrap_or(tokens);
    not_applicable(
        at,
        format!("`{}` does not exist in the document", pointer_text(upto)),
    )
}

/// Whether a value of `size` and `depth` can be added at `tokens` (`at` is
/// the pointer of the operation's `path`, where errors point): every check
/// an `add` makes, before anything changes. Returns how much the document
/// grows and shrinks.
fn check_add(
    doc: &mut Value,
    tokens: &[String],
    (grow, depth): (usize, usize),
    at: &str,
    d: &Doing<'_>,
) -> Result<(usize, usize), PatchFailure> {
    check_depth(tokens.len(), depth, at)?;
    let Some((last, parents)) = tokens.split_last() else {
        d.check(grow, *d.held, at)?;
        return Ok((grow, *d.held));
    };
    let (grow, shrink) = match parent_mut(doc, tokens, at)? {
        Value::Object(m) => match m.get(last) {
            Some(old) => (grow, size(old)),
            None => (grow + last.len(), 0),
        },
        Value::Array(a) => {
            if last != "-" {
                match array_index(last) {
                    Some(i) if i <= a.len() => {}
                    Some(i) => {
                        return Err(not_applicable(
                            at,
                            format!(
                                "index {i} is past the end of the array at `{}` ({} items)",
                                pointer_text(parents),
                                a.len()
                            ),
                        ))
                    }
                    None => return Err(not_an_index(last, at)),
                }
            }
            (grow, 0)
        }
        other => {
            return Err(not_applicable(
                at,
                format!(
                    "cannot add a member to {} at `{}`",
                    type_name(other),
                    pointer_text(parents)
                ),
            ))
        }
    };
    d.check(grow, shrink, at)?;
    Ok((grow, shrink))
}

/// The size and depth of a value to add.
fn measure(v: &Value) -> (usize, usize) {
    (size(v), depth(v))
}

/// Adds `value` at `tokens`, which [`check_add`] accepted; returns its undo.
fn commit_add(doc: &mut Value, tokens: &[String], value: Value) -> Undo {
    let Some((last, parents)) = tokens.split_last() else {
        return Undo::Root(std::mem::replace(doc, value));
    };
    match lookup_mut(doc, parents) {
        Some(Value::Object(m)) => match m.insert(last.clone(), value) {
            Some(old) => Undo::Put(tokens.to_vec(), old),
            None => Undo::Take(tokens.to_vec()),
        },
        Some(Value::Array(a)) => {
            let i = array_index(last).unwrap_or(a.len()).min(a.len());
            a.insert(i, value);
            let mut taken = parents.to_vec();
            taken.push(i.to_string());
            Undo::Take(taken)
        }
        // check_add found the container; nothing was added to undo.
        _ => Undo::Take(Vec::new()),
    }
}

/// Takes the value at `tokens` out, with the place it had.
fn remove(
    doc: &mut Value,
    tokens: &[String],
    at_path: &str,
) -> Result<(Value, Place), PatchFailure> {
    let Some((last, parents)) = tokens.split_last() else {
        return Err(not_applicable(
            at_path,
            "cannot remove the whole document".to_string(),
        ));
    };
    let removed = match parent_mut(doc, tokens, at_path)? {
        Value::Object(m) => m
            .remove_at(last)
            .map(|(i, k, v)| (v, Place::Member(parents.to_vec(), i, k))),
        Value::Array(a) => match array_index(last) {
            Some(i) if i < a.len() => Some((a.remove(i), Place::Item(parents.to_vec(), i))),
            Some(_) => None,
            None => return Err(not_an_index(last, at_path)),
        },
        _ => None,
    };
    removed.ok_or_else(|| missing(tokens, tokens.len() - 1, at_path))
}

fn replace(
    doc: &mut Value,
    tokens: &[String],
    value: &Value,
    at: &str,
    d: &mut Doing<'_>,
) -> Result<(), PatchFailure> {
    check_depth(tokens.len(), depth(value), at)?;
    let mut here = &mut *doc;
    for (depth, token) in tokens.iter().enumerate() {
        here = child_mut(here, token).ok_or_else(|| missing(tokens, depth, at))?;
    }
    let (grow, shrink) = (size(value), size(here));
    d.check(grow, shrink, at)?;
    let old = std::mem::replace(here, value.clone());
    d.undo.push(Undo::Put(tokens.to_vec(), old));
    d.grew(grow, shrink);
    Ok(())
}

fn not_an_index(token: &str, path: &str) -> PatchFailure {
    not_applicable(
        path,
        format!("expected an array index (0, or digits without a leading zero), found `{token}`"),
    )
}

/// A patched state is read, cloned and written recursively like any parsed
/// value, so it may nest no deeper than the parser allows.
fn check_depth(at_depth: usize, depth: usize, at: &str) -> Result<(), PatchFailure> {
    if at_depth + depth > MAX_NESTING {
        return Err(PatchFailure::NotApplicable(SteplineError::at(
            ErrorCode::TooDeep,
            at,
            format!("the patched document would nest deeper than {MAX_NESTING} levels"),
        )));
    }
    Ok(())
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// JSON equality as RFC 6902 section 4.6 defines it for `test`: numbers by
/// value, objects by members whatever their order, arrays item by item.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y
                || match (x.as_i64(), y.as_i64()) {
                    (Some(i), Some(j)) => i == j,
                    _ => match (x.as_u64(), y.as_u64()) {
                        (Some(i), Some(j)) => i == j,
                        _ => x.as_f64() == y.as_f64(),
                    },
                }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn a_failed_operation_leaves_the_document_unchanged() {
        let doc = json!({"a": 1});
        let patch =
            json!([{"op": "add", "path": "/b", "value": 2}, {"op": "remove", "path": "/zz"}]);
        let e = apply(&doc, &patch, "/delta").unwrap_err();
        assert!(matches!(e, PatchFailure::NotApplicable(_)));
        assert_eq!(e.error().path.as_deref(), Some("/delta/1/path"));
    }

    #[test]
    fn a_patch_failing_part_way_is_undone_in_place_members_in_their_order() {
        let mut doc = json!({"a": 1, "b": [1, 2, 3], "c": {"d": "x"}, "e": null});
        let before = doc.clone();
        let mut held = size(&doc);
        let patch = json!([
            {"op": "remove", "path": "/a"},
            {"op": "move", "from": "/b/0", "path": "/c/moved"},
            {"op": "replace", "path": "/e", "value": "y"},
            {"op": "copy", "from": "/c", "path": "/b/-"},
            {"op": "add", "path": "/c/d", "value": [1]},
            {"op": "add", "path": "", "value": {"root": true}},
            {"op": "add", "path": "/z", "value": 1},
            {"op": "test", "path": "/z", "value": 2},
        ]);
        let e = apply_in_place(&mut doc, &patch, "/delta", &mut held, SIZE_LIMIT).unwrap_err();
        assert_eq!(e.error().path.as_deref(), Some("/delta/7/value"));
        assert_eq!(
            crate::json::to_string(&doc),
            crate::json::to_string(&before)
        );
        assert_eq!(held, size(&before));
    }

    #[test]
    fn the_size_kept_in_place_is_the_documents_size() {
        let mut doc = json!({"list": []});
        let mut held = size(&doc);
        let patch = json!([
            {"op": "add", "path": "/list/-", "value": "abc"},
            {"op": "add", "path": "/k", "value": {"x": [1, 2]}},
            {"op": "move", "from": "/k", "path": "/list/0"},
            {"op": "copy", "from": "/list", "path": "/copy"},
            {"op": "replace", "path": "/copy/1", "value": "longer text"},
            {"op": "remove", "path": "/list/1"},
        ]);
        apply_in_place(&mut doc, &patch, "", &mut held, SIZE_LIMIT).unwrap();
        assert_eq!(held, size(&doc));
    }

    #[test]
    fn a_growth_past_the_limit_is_refused_before_it_changes_anything() {
        let mut doc = json!({"a": "x"});
        let mut held = size(&doc);
        let patch = json!([{"op": "add", "path": "/b", "value": "0123456789"}]);
        let e = apply_in_place(&mut doc, &patch, "/delta", &mut held, 12).unwrap_err();
        assert!(matches!(e, PatchFailure::LimitExceeded(_)));
        assert_eq!(doc, json!({"a": "x"}));
        assert_eq!(held, size(&doc));
    }

    #[test]
    fn a_missing_op_is_malformed_with_its_path() {
        let e = apply(&json!({}), &json!([{"path": "/a", "value": 1}]), "/delta").unwrap_err();
        assert!(matches!(e, PatchFailure::Malformed(_)));
        assert_eq!(e.error().code, ErrorCode::MissingField);
        assert_eq!(e.error().path.as_deref(), Some("/delta/0/op"));
    }

    #[test]
    fn numbers_test_equal_by_value() {
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(!equal(&json!(1), &json!("1")));
    }

    #[test]
    fn copying_a_growing_document_is_bounded() {
        let mut doc = json!({"a": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]});
        let ops: Vec<Value> = (0..40)
            .map(|_| json!({"op": "copy", "from": "", "path": "/a/0"}))
            .collect();
        let e = apply(&doc, &Value::Array(ops), "/delta").unwrap_err();
        assert!(matches!(e, PatchFailure::LimitExceeded(_)));
        assert_eq!(e.error().code, ErrorCode::TooLarge);
        doc = apply(
            &doc,
            &json!([{"op": "copy", "from": "/a", "path": "/b"}]),
            "",
        )
        .unwrap();
        assert_eq!(doc["b"], json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    }
}
