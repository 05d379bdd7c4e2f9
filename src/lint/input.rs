//! Reading a diagnosis request from JSON (what the wasm boundary passes).

use crate::json::Value;

use super::{run, Diagnostic};
use crate::dialects::decode_envelope;
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
    let listed: Option<&[Value]> = match m.get("envelopes") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => Some(list),
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
    };
    let mut envelopes = Vec::new();
    for (i, e) in listed.unwrap_or_default().iter().enumerate() {
        let decoded = decode_envelope(e.clone()).map_err(|err| {
            let at = index("/envelopes", i) + err.path.as_deref().unwrap_or("");
            SteplineError::new(err.code, Some(at), err.message)
        })?;
        envelopes.push(decoded.envelope);
    }
    let request = DiagnoseRequest {
        envelopes: listed,
        options: DiagnoseOptions::from_map(m)?,
    };
    Ok(request.options.run(&envelopes, &[]))
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
    diagnose_sized(envelopes, &[], options)
}

/// [`diagnose_decoded`] with each envelope's size as received (bytes of its
/// JSON line, by index), for the size-limit detectors; an envelope without
/// one is measured by its compact encoding.
pub(crate) fn diagnose_sized(
    envelopes: &[Value],
    sizes: &[usize],
    options: &Value,
) -> Result<Vec<Diagnostic>> {
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
    Ok(DiagnoseOptions::from_map(m)?.run(envelopes, sizes))
}

/// What `diagnose` reads: envelopes, a slim snapshot, a full state, and
/// whether the snapshot was taken with tool results.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "DiagnoseInput"))]
pub struct DiagnoseRequest<'a> {
    /// Envelopes in arrival order (any dialect; each is decoded first).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "envelopes_schema"))]
    pub envelopes: Option<&'a [Value]>,
    /// The snapshot, the state and the snapshot's options.
    #[serde(flatten)]
    pub options: DiagnoseOptions<'a>,
}

/// What `Session.diagnose` reads besides the session's own envelopes.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SessionDiagnoseOptions"))]
#[serde(rename_all = "camelCase")]
pub struct DiagnoseOptions<'a> {
    /// The slim snapshot stored at the end of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "snapshot_schema"))]
    pub snapshot: Option<&'a Value>,
    /// The full reference state (`AgentState::toArray()` form).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "state_schema"))]
    pub state: Option<&'a Value>,
    /// The snapshot was taken with tool results included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_tool_results: Option<bool>,
}

impl<'a> DiagnoseOptions<'a> {
    /// Reads `snapshot`, `state` (objects or `null`) and `includeToolResults` of `m`.
    fn from_map(m: &'a crate::json::Map) -> Result<DiagnoseOptions<'a>> {
        let part = |key: &str| -> Result<Option<&'a Value>> {
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
        Ok(DiagnoseOptions {
            snapshot: part("snapshot")?,
            state: part("state")?,
            include_tool_results: read::opt_bool(m, "includeToolResults", "")?,
        })
    }

    /// Every detector over `envelopes` (decoded) and these parts.
    fn run(&self, envelopes: &[Value], sizes: &[usize]) -> Vec<Diagnostic> {
        let config = self.include_tool_results.map(|b| SlimConfig {
            include_tool_results: b,
            ..SlimConfig::default()
        });
        run(envelopes, sizes, self.snapshot, self.state, config.as_ref())
    }
}

/// Envelopes of any dialect, as objects.
#[cfg(feature = "schema")]
fn envelopes_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": { "type": "object" },
        "tsType": "(Envelope | object)[]"
    })
}

/// A slim snapshot, or `null`.
#[cfg(feature = "schema")]
fn snapshot_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["object", "null"], "tsType": "SlimSnapshot | null" })
}

/// A full reference state, or `null`.
#[cfg(feature = "schema")]
fn state_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["object", "null"], "tsType": "object | null" })
}
