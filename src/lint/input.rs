//! Reading a diagnosis request from JSON (what the wasm boundary passes).

use crate::json::Value;

use super::{run, Diagnostic};
use crate::envelope::decode::decode_value;
use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{index, type_name};
use crate::model::read;
use crate::snapshot::SlimConfig;

/// Diagnoses `{envelopes?, snapshot?, state?, includeToolResults?}`: raw
/// envelopes in arrival order (any dialect; each is decoded first), the slim
/// snapshot stored at the end of the run, the full reference state, and whether
/// the snapshot was taken with tool results included. Unknown keys are rejected.
///
/// Errors: a key that is not one of these (`invalid_value`), a part of the
/// wrong type, or an envelope that does not decode (its error, with the path
/// under `/envelopes/<i>`).
///
/// @example
/// ```
/// use stepline::json;
/// let found = stepline::lint::diagnose_value(&json!({
///     "envelopes": [
///         {"type": "agent.step.started", "session_id": "s", "execution_id": "e",
///          "timestamp": "2026-01-20T12:00:00Z", "payload": {"step_number": 1}}
///     ]
/// }))
/// .unwrap();
/// assert_eq!(found[0].code, "final_status_missing");
/// ```
pub fn diagnose_value(input: &Value) -> Result<Vec<Diagnostic>> {
    let m = input.as_object().ok_or_else(|| {
        SteplineError::at(
            ErrorCode::InvalidType,
            "",
            format!(
                "expected the diagnosis input as an object, found {}",
                type_name(input)
            ),
        )
    })?;
    read::only_keys(
        m,
        &["envelopes", "snapshot", "state", "includeToolResults"],
        "",
    )?;
    let mut envelopes = Vec::new();
    match m.get("envelopes") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            for (i, e) in list.iter().enumerate() {
                let decoded = decode_value(e).map_err(|err| {
                    let at = index("/envelopes", i) + err.path.as_deref().unwrap_or("");
                    SteplineError::new(err.code, Some(at), err.message)
                })?;
                envelopes.push(decoded.envelope);
            }
        }
        Some(other) => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "/envelopes",
                format!(
                    "expected `envelopes` as an array, found {}",
                    type_name(other)
                ),
            ))
        }
    }
    let (snapshot, state, options) = parts(m)?;
    Ok(run(&envelopes, snapshot, state, options.as_ref()))
}

/// Diagnoses envelopes already decoded (a session's log, see
/// `Session::diagnose`) with `{snapshot?, state?, includeToolResults?}`
/// (`null` for none). Unknown keys are rejected, `envelopes` too: the
/// envelopes are the given ones.
///
/// @example
/// ```
/// use stepline::json;
/// let found = stepline::lint::diagnose_decoded(&[], &json!({"snapshot": null})).unwrap();
/// assert!(found.is_empty());
/// ```
pub fn diagnose_decoded(envelopes: &[Value], options: &Value) -> Result<Vec<Diagnostic>> {
    let empty = crate::json::Map::new();
    let m = match options {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => {
            return Err(SteplineError::at(
                ErrorCode::InvalidType,
                "",
                format!(
                    "expected the diagnosis options as an object, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    read::only_keys(m, &["snapshot", "state", "includeToolResults"], "")?;
    let (snapshot, state, options) = parts(m)?;
    Ok(run(envelopes, snapshot, state, options.as_ref()))
}

/// The snapshot, the state and the snapshot's options of a diagnosis request.
type Parts<'a> = (Option<&'a Value>, Option<&'a Value>, Option<SlimConfig>);

fn parts(m: &crate::json::Map) -> Result<Parts<'_>> {
    let part = |key: &str| -> Result<Option<&Value>> {
        match m.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v @ Value::Object(_)) => Ok(Some(v)),
            Some(other) => Err(SteplineError::at(
                ErrorCode::InvalidType,
                &crate::json::child("", key),
                format!("expected `{key}` as an object, found {}", type_name(other)),
            )),
        }
    };
    let options = read::opt_bool(m, "includeToolResults", "")?.map(|b| SlimConfig {
        include_tool_results: b,
        ..SlimConfig::default()
    });
    Ok((part("snapshot")?, part("state")?, options))
}
