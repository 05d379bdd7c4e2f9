//! The credential check of `diagnose`: a snapshot or state that carries a
//! credential (found by [`crate::secrets`]) is a diagnostic.

use crate::json::Value;
use crate::secrets::{describe, find, SECRET_IN_STATE};

use super::{Diagnostic, Severity};

/// The diagnostics: a snapshot with a credential is an error (a slim
/// snapshot is meant to be stored and shared); a full v2 state's stored
/// `llmConfig` key is a warning, because the producer writes it there by
/// design (item 27), but it must not be persisted or shared as is.
pub fn check(snapshot: Option<&Value>, state: Option<&Value>, out: &mut Vec<Diagnostic>) {
    for (part, value, severity, what) in [
        ("/snapshot", snapshot, Severity::Error, "the snapshot"),
        ("/state", state, Severity::Warning, "the state"),
    ] {
        let Some(value) = value else { continue };
        for found in find(value, part) {
            out.push(Diagnostic {
                code: SECRET_IN_STATE,
                severity,
                message: describe(&found, what),
                evidence: crate::json::obj([
                    (
                        "name",
                        found.name.clone().map_or(Value::Null, Value::String),
                    ),
                    ("chars", Value::from(found.chars)),
                ]),
                path: found.path,
            });
        }
    }
}
