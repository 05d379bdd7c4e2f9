//! What the decoding functions return to JavaScript, declared once: the
//! TypeScript `TryDecodeResult` and `DecodedBatch` are generated from these.

use crate::envelope::decode::{Decoded, Warning};
use crate::envelope::dialect::WireDialect;
use crate::error::{LineError, LineErrors, SteplineError};
use crate::json::Value;

/// `tryDecodeEnvelope`: the decoded envelope, or why it was refused.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum TryDecodeResult<'a> {
    /// Decoded.
    Decoded(DecodedOne<'a>),
    /// Refused.
    Refused(RefusedOne<'a>),
}

impl<'a> TryDecodeResult<'a> {
    /// The result of decoding one envelope.
    pub fn of(result: &'a Result<Decoded, SteplineError>) -> TryDecodeResult<'a> {
        match result {
            Ok(d) => TryDecodeResult::Decoded(DecodedOne {
                ok: Literal,
                envelope: &d.envelope,
                warnings: &d.warnings,
                dialect: d.dialect,
            }),
            Err(error) => TryDecodeResult::Refused(RefusedOne { ok: Literal, error }),
        }
    }
}

/// A decoded envelope with what was kept unread.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "TryDecodeOk"))]
pub struct DecodedOne<'a> {
    /// `true`.
    pub ok: Literal<true>,
    /// The envelope in the normalised form.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::envelope::schema::json_schema::envelope_ref")
    )]
    pub envelope: &'a Value,
    /// What the envelope held that was kept but not understood.
    pub warnings: &'a [Warning],
    /// Which producer's dialect the envelope is in.
    pub dialect: WireDialect,
}

/// An envelope that could not be decoded.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "TryDecodeError"))]
pub struct RefusedOne<'a> {
    /// `false`.
    pub ok: Literal<false>,
    /// Why: the error `decodeEnvelope` would throw.
    pub error: &'a SteplineError,
}

/// A boolean that is always `B` (written as `true`/`false`, declared as that literal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Literal<const B: bool>;

impl<const B: bool> serde::Serialize for Literal<B> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(B)
    }
}

#[cfg(feature = "schema")]
impl<const B: bool> schemars::JsonSchema for Literal<B> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        if B { "True" } else { "False" }.into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "const": B })
    }
}

/// `decodeEnvelopes`: a JSONL batch, decoded.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DecodedBatch<'a> {
    /// The envelopes of the lines that decoded, in line order.
    #[cfg_attr(feature = "schema", schemars(schema_with = "envelope_list"))]
    pub envelopes: Vec<&'a Value>,
    /// The first 1,000 failing lines; `errorCount` counts all of them.
    pub errors: Vec<LineError<'a>>,
    /// How many lines failed.
    pub error_count: u64,
    /// What the envelopes held that was kept but not understood.
    pub warnings: Vec<IndexedWarning<'a>>,
    /// Each envelope's dialect, by position in `envelopes`.
    pub dialects: Vec<WireDialect>,
}

impl<'a> DecodedBatch<'a> {
    /// The batch result of [`crate::envelope::decode::decode_lines`].
    pub fn of(ok: &'a [Decoded], errors: &'a LineErrors) -> DecodedBatch<'a> {
        DecodedBatch {
            envelopes: ok.iter().map(|d| &d.envelope).collect(),
            errors: errors.views(),
            error_count: errors.count,
            warnings: ok
                .iter()
                .enumerate()
                .flat_map(|(index, d)| {
                    d.warnings
                        .iter()
                        .map(move |warning| IndexedWarning { index, warning })
                })
                .collect(),
            dialects: ok.iter().map(|d| d.dialect).collect(),
        }
    }
}

/// A warning of a decoded batch.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct IndexedWarning<'a> {
    /// The envelope's position in `envelopes`.
    pub index: usize,
    /// The warning; its `path` is inside that envelope.
    pub warning: &'a Warning,
}

#[cfg(feature = "schema")]
fn envelope_list(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "array", "items": { "$ref": "#/$defs/Envelope" } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::decode::{decode_lines, decode_text};

    #[test]
    fn try_decode_result_writes_ok_first_and_the_error_as_data() {
        let good = decode_text(
            r#"{"type":"agent.status","session_id":"s","payload":{"status":"processing","previous_status":"idle","x":1}}"#,
        );
        let text = crate::json::to_text(&TryDecodeResult::of(&good));
        assert_eq!(
            text,
            r#"{"ok":true,"envelope":{"type":"agent.status","session_id":"s","execution_id":null,"timestamp":null,"payload":{"status":"processing","previous_status":"idle","extra":{"x":1}}},"warnings":[{"path":"/payload/x","code":"unknown_field","message":"unknown payload field \"x\" (kept in payload.extra)"}],"dialect":"instructor"}"#
        );
        let bad = decode_text("[]");
        assert_eq!(
            crate::json::to_text(&TryDecodeResult::of(&bad)),
            r#"{"ok":false,"error":{"code":"invalid_type","path":"","message":"expected an envelope object, found an array"}}"#
        );
    }

    #[test]
    fn decoded_batch_lists_errors_by_line_and_warnings_by_index() {
        let (ok, errors) = decode_lines(
            "{\"type\":\"agent.x\",\"session_id\":\"s\"}\nnope\n{\"type\":\"agent.status\",\"session_id\":\"s\",\"payload\":{\"status\":\"idle\",\"previous_status\":null}}\n",
        );
        let text = crate::json::to_text(&DecodedBatch::of(&ok, &errors));
        assert!(
            text.starts_with(r#"{"envelopes":[{"type":"agent.x","#),
            "{text}"
        );
        assert!(
            text.contains(r#""errors":[{"line":2,"error":{"code":"invalid_json","path":null,"#),
            "{text}"
        );
        assert!(text.contains(r#""errorCount":1,"warnings":[{"index":0,"warning":{"path":"/type","code":"unknown_type","#), "{text}");
        assert!(
            text.ends_with(r#""dialects":["seed-003","instructor"]}"#),
            "{text}"
        );
    }
}
