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
}

impl PatchFailure {
    /// The error, whichever kind of failure it is.
    pub fn error(&self) -> &SteplineError {
        match self {
            PatchFailure::Malformed(e) | PatchFailure::NotApplicable(e) => e,
        }
    }

    /// The error, whichever kind of failure it is.
    pub fn into_error(self) -> SteplineError {
        match self {
            PatchFailure::Malformed(e) | PatchFailure::NotApplicable(e) => e,
        }
    }
}

/// How many values one patch may copy in all (`copy` of a large subtree, over
/// and over, would otherwise double the document with every operation).
const COPY_BUDGET: usize = 1 << 22;

/// Applies the RFC 6902 patch `patch` (a JSON array of operations) to `doc`
/// and returns the patched document; `doc` is not changed. `path` is where
/// the patch sits in its event (`"/delta"`), the prefix of every error's path.
pub fn apply(doc: &Value, patch: &Value, path: &str) -> Result<Value, PatchFailure> {
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
    let mut out = doc.clone();
    let mut budget = COPY_BUDGET;
    for (i, op) in ops.iter().enumerate() {
        let at = crate::json::index(path, i);
        apply_op(&mut out, op, &at, &mut budget)?;
    }
    Ok(out)
}

/// One operation, read and applied.
fn apply_op(doc: &mut Value, op: &Value, at: &str, budget: &mut usize) -> Result<(), PatchFailure> {
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
            add(doc, &target, value.clone(), &path_at)
        }
        "remove" => remove(doc, &target, &path_at).map(|_| ()),
        "replace" => {
            let value = value_member(m, at)?;
            replace(doc, &target, value.clone(), &path_at)
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
            let value = remove(doc, &from, &from_at)?;
            add(doc, &target, value, &path_at)
        }
        "copy" => {
            let from = pointer_member(m, "from", at)?;
            let value = get(doc, &from, &from_at)?;
            let size = node_count(value);
            if size > *budget {
                return Err(not_applicable(
                    at,
                    format!(
                        "a patch may copy at most {COPY_BUDGET} values in all; this copy would exceed it"
                    ),
                ));
            }
            *budget -= size;
            let value = value.clone();
            add(doc, &target, value, &path_at)
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

/// `at` is the pointer of the operation's `path` (or `from`), where errors point.
fn add(doc: &mut Value, tokens: &[String], value: Value, at: &str) -> Result<(), PatchFailure> {
    check_depth(tokens.len(), &value, at)?;
    let Some(last) = tokens.last() else {
        *doc = value;
        return Ok(());
    };
    let path = at;
    match parent_mut(doc, tokens, path)? {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" {
                a.push(value);
                return Ok(());
            }
            match array_index(last) {
                Some(i) if i <= a.len() => {
                    a.insert(i, value);
                    Ok(())
                }
                Some(i) => Err(not_applicable(
                    path,
                    format!(
                        "index {i} is past the end of the array at `{}` ({} items)",
                        pointer_text(tokens.get(..tokens.len() - 1).unwrap_or(&[])),
                        a.len()
                    ),
                )),
                None => Err(not_an_index(last, path)),
            }
        }
        other => Err(not_applicable(
            path,
            format!(
                "cannot add a member to {} at `{}`",
                type_name(other),
                pointer_text(tokens.get(..tokens.len() - 1).unwrap_or(&[]))
            ),
        )),
    }
}

fn remove(doc: &mut Value, tokens: &[String], at_path: &str) -> Result<Value, PatchFailure> {
    let Some(last) = tokens.last() else {
        return Err(not_applicable(
            at_path,
            "cannot remove the whole document".to_string(),
        ));
    };
    let removed = match parent_mut(doc, tokens, at_path)? {
        Value::Object(m) => m.remove(last),
        Value::Array(a) => match array_index(last) {
            Some(i) if i < a.len() => Some(a.remove(i)),
            Some(_) => None,
            None => return Err(not_an_index(last, at_path)),
        },
        _ => None,
    };
    removed.ok_or_else(|| missing(tokens, tokens.len() - 1, at_path))
}

fn replace(doc: &mut Value, tokens: &[String], value: Value, at: &str) -> Result<(), PatchFailure> {
    check_depth(tokens.len(), &value, at)?;
    let mut here = doc;
    for (depth, token) in tokens.iter().enumerate() {
        here = child_mut(here, token).ok_or_else(|| missing(tokens, depth, at))?;
    }
    *here = value;
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
fn check_depth(at_depth: usize, value: &Value, at: &str) -> Result<(), PatchFailure> {
    if at_depth + depth(value) > MAX_NESTING {
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

fn node_count(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(node_count).sum::<usize>(),
        Value::Object(m) => 1 + m.values().map(node_count).sum::<usize>(),
        _ => 1,
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
        assert!(matches!(e, PatchFailure::NotApplicable(_)));
        doc = apply(
            &doc,
            &json!([{"op": "copy", "from": "/a", "path": "/b"}]),
            "",
        )
        .unwrap();
        assert_eq!(doc["b"], json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    }
}
