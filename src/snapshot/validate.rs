//! Validation of untrusted snapshots: every problem, each with a JSON pointer,
//! a code and a message; unknown properties are warnings, not errors.

use crate::json::Value;

use crate::json::{type_name, At, Whole};
use crate::snapshot::rules::{Field, Kind, SNAPSHOT};

/// One validation finding.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SnapshotIssue"))]
pub struct Issue {
    /// JSON pointer of the problem.
    pub path: String,
    /// `missing_field`, `wrong_type`, `invalid_enum`, `invalid_timestamp`,
    /// `out_of_range`, `inconsistent` (errors) or `unknown_field` and
    /// `out_of_range` for a negative token count (warnings); a
    /// `SteplineErrorCode` when the input could not be read at all.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::snapshot::shape::issue_code")
    )]
    pub code: &'static str,
    /// What is wrong, for a person.
    pub message: String,
}

/// The verdict on one snapshot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Problems that make the snapshot invalid.
    pub errors: Vec<Issue>,
    /// Problems that leave it valid (unknown fields, negative token counts).
    pub warnings: Vec<Issue>,
}

impl Report {
    /// Whether there are no errors.
    pub fn valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// What `validateSnapshot` returns.
    pub fn view(&self) -> crate::snapshot::shape::SnapshotValidation<'_> {
        crate::snapshot::shape::SnapshotValidation {
            valid: self.valid(),
            errors: &self.errors,
            warnings: &self.warnings,
        }
    }

    fn warn(&mut self, at: &At, code: &'static str, message: String) {
        self.warnings.push(Issue {
            path: at.pointer(),
            code,
            message,
        });
    }

    fn error(&mut self, at: &At, code: &'static str, message: String) {
        self.errors.push(Issue {
            path: at.pointer(),
            code,
            message,
        });
    }
}

/// Checks a snapshot against the slim schema and its internal consistency,
/// then with `format_checks` (the rules of the snapshot's state format:
/// `validate_snapshot` in src/state_formats/entries.rs passes its format's), and
/// flags every credential it carries.
pub fn validate_with(snapshot: &Value, format_checks: impl FnOnce(&Value, &mut Report)) -> Report {
    let mut report = Report::default();
    check(
        snapshot,
        &Kind::Object(SNAPSHOT),
        &At::Root(""),
        &mut report,
    );
    if report
        .errors
        .iter()
        .all(|e| e.path != "/steps" && e.path != "/step_count")
    {
        consistency(snapshot, &mut report);
    }
    format_checks(snapshot, &mut report);
    crate::snapshot::v2::check_secrets(snapshot, &mut report);
    report
}

/// A number as [`crate::json::whole`] reads it; `None` for a non-number.
fn whole_number(v: &Value) -> Option<Whole> {
    v.as_number().map(crate::json::whole)
}

// The pointer is an `At`, written out only for a finding: most snapshots have none.
fn check(v: &Value, kind: &Kind, path: &At, r: &mut Report) {
    let wrong = |r: &mut Report, expected: &str| {
        r.error(
            path,
            "wrong_type",
            format!("expected {expected}, found {}", type_name(v)),
        )
    };
    match kind {
        Kind::String => {
            if !v.is_string() {
                wrong(r, "a string");
            }
        }
        Kind::Boolean => {
            if !v.is_boolean() {
                wrong(r, "a boolean");
            }
        }
        Kind::Integer { min } => match whole_number(v) {
            Some(Whole::Int(n)) if n < *min => r.error(path, "out_of_range", format!("expected an integer of at least {min}, found {n}")),
            Some(Whole::Int(_)) => {}
            Some(Whole::OutOfRange) if v.is_u64() => {}
            Some(Whole::OutOfRange) => r.error(path, "out_of_range", "expected an integer from -2^63 to 2^63-1".into()),
            Some(Whole::NotWhole) | None => wrong(r, "an integer"),
        },
        Kind::Tokens => match whole_number(v) {
            Some(Whole::Int(n)) if n < 0 => r.warn(path, "out_of_range", format!("expected a token count of zero or more, found {n} (kept: the reference producer keeps negative counts)")),
            Some(Whole::Int(_)) => {}
            Some(Whole::OutOfRange) if v.is_u64() => {}
            Some(Whole::OutOfRange) => r.error(path, "out_of_range", "expected an integer from -2^63 to 2^63-1".into()),
            Some(Whole::NotWhole) | None => wrong(r, "an integer"),
        },
        Kind::Duration => match v.as_f64() {
            Some(n) if n < 0.0 => r.warn(path, "out_of_range", format!("expected a duration of zero or more, found {} (kept: the producer computes it from dates that may be out of order)", crate::php::format_php_float(n))),
            Some(_) => {}
            None => wrong(r, "a number"),
        },
        Kind::Number { min } => match v.as_f64() {
            Some(n) if n < *min => r.error(path, "out_of_range", format!("expected a number of at least {}, found {}", crate::php::format_php_float(*min), crate::php::format_php_float(n))),
            Some(_) => {}
            None => wrong(r, "a number"),
        },
        Kind::Enum(values) => match v.as_str() {
            Some(s) if values.contains(&s) => {}
            Some(s) => r.error(path, "invalid_enum", format!("expected one of {}, found {}", values.join(", "), crate::json::quote(s))),
            None => wrong(r, &format!("one of {}", values.join(", "))),
        },
        Kind::Timestamp => match v.as_str() {
            Some(s) if crate::model::time::is_rfc3339(s) => {}
            Some(s) => r.error(path, "invalid_timestamp", format!("expected an RFC 3339 date-time such as \"2026-01-20T12:00:00+00:00\", found {}", crate::json::quote(s))),
            None => wrong(r, "a date-time string"),
        },
        Kind::Map => {
            if !(v.is_object() || matches!(v, Value::Array(a) if a.is_empty())) {
                wrong(r, "an object");
            }
        }
        Kind::PhpArray => {
            if !(v.is_object() || v.is_array()) {
                wrong(r, "an object or a list");
            }
        }
        Kind::Content => match v {
            Value::String(_) => {}
            Value::Array(parts) => {
                for (i, p) in parts.iter().enumerate() {
                    if !p.is_object() {
                        r.error(&path.item(i), "wrong_type", format!("expected a content part object, found {}", type_name(p)));
                    }
                }
            }
            _ => wrong(r, "a string or a list of content parts"),
        },
        Kind::Object(fields) => match v.as_object() {
            Some(m) => {
                for f in fields.iter() {
                    field(m.get(f.name), f, &path.key(f.name), r);
                }
                for key in m.keys().filter(|k| !fields.iter().any(|f| f.name == &***k)) {
                    r.warnings.push(Issue {
                        path: path.key(key).pointer(),
                        code: "unknown_field",
                        message: format!("unknown property {} (kept, not validated)", crate::json::quote(key)),
                    });
                }
            }
            None => wrong(r, "an object"),
        },
        Kind::Array(item) => match v.as_array() {
            Some(list) => {
                for (i, x) in list.iter().enumerate() {
                    check(x, item, &path.item(i), r);
                }
            }
            None => wrong(r, "an array"),
        },
    }
}

fn field(v: Option<&Value>, f: &Field, path: &At, r: &mut Report) {
    match v {
        None if f.required => r.error(path, "missing_field", format!("expected `{}`", f.name)),
        None => {}
        Some(Value::Null) if f.nullable => {}
        Some(Value::Null) if f.required => r.error(
            path,
            "wrong_type",
            format!("expected `{}` to be set, found null", f.name),
        ),
        Some(Value::Null) => {}
        Some(v) => check(v, &f.kind, path, r),
    }
}

/// Cross-field checks the schema cannot express.
fn consistency(snapshot: &Value, r: &mut Report) {
    let steps = snapshot.get("steps").and_then(Value::as_array);
    if let (Some(count), Some(steps)) = (snapshot.get("step_count").and_then(Value::as_u64), steps)
    {
        if (count as usize) < steps.len() {
            r.error(
                &At::Root("/step_count"),
                "inconsistent",
                format!(
                    "expected step_count of at least the {} steps listed, found {count}",
                    steps.len()
                ),
            );
        }
    }
    if let Some(steps) = steps {
        for (i, s) in steps.iter().enumerate() {
            if let Some(n) = s.get("step_number").and_then(Value::as_u64) {
                if n != i as u64 + 1 {
                    r.error(
                        &At::Root("/steps").item(i).key("step_number"),
                        "inconsistent",
                        format!(
                            "expected step numbers 1..N within the kept steps (here {}), found {n}",
                            i + 1
                        ),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::time::is_rfc3339;

    #[test]
    fn rfc3339_needs_a_t_a_real_date_and_an_offset() {
        assert!(is_rfc3339("2026-01-20T12:00:00+00:00"));
        assert!(is_rfc3339("2026-01-20T12:00:00.250Z"));
        assert!(!is_rfc3339("2026-01-20 12:00:00+00:00"));
        assert!(!is_rfc3339("2026-13-20T12:00:00+00:00"));
        assert!(!is_rfc3339("2026-01-20T12:00:00"));
        assert!(!is_rfc3339("yesterday"));
    }
}
