//! What the producer's wire shapes share: how a timestamp is written, and the
//! schemas of PHP's loosely typed fields (an empty map written as `[]`, tool
//! arguments that are an object or a list).

use crate::error::Result;
use crate::json::Map;
use crate::model::read;
use crate::model::time::{format_atom, NowSpec, Timestamp};

/// Options of `parseAgentState` and `restoreState`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ParseAgentStateOptions {
    /// The time used for missing dates: an ISO string or epoch milliseconds. Default: now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<NowSpec>,
    /// `true`: a v1.22 step reads exactly as the producer stored it (its
    /// `stepType`, legacy `toolCalls` and `usage`). Default `false`: each step
    /// as seed 001 derives it (a model or driver error makes it `error`,
    /// `toolCalls` the requested calls, `usage` the inference response's),
    /// as the slim snapshot summarises it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compat: Option<bool>,
}

impl ParseAgentStateOptions {
    /// Reads the options object (path `/options`).
    pub fn read(m: &Map) -> Result<ParseAgentStateOptions> {
        read::only_keys(m, &["now", "compat"], "/options")?;
        let compat = match m.get("compat").filter(|v| !v.is_null()) {
            None => None,
            Some(crate::json::Value::Bool(b)) => Some(*b),
            Some(other) => return Err(read::wrong_type("/options", "compat", "a boolean", other)),
        };
        Ok(ParseAgentStateOptions {
            now: now_of(m)?,
            compat,
        })
    }

    /// Whether steps read as the producer stored them (`compat: true`).
    pub fn compat(&self) -> bool {
        self.compat.unwrap_or(false)
    }
}

/// The `now` member of an options object, when set and not `null`.
pub fn now_of(m: &Map) -> Result<Option<NowSpec>> {
    m.get("now")
        .filter(|v| !v.is_null())
        .map(|v| NowSpec::from_value(v, "/options/now"))
        .transpose()
}

/// Writes a timestamp in the producer's ATOM form (`2026-01-20T12:00:00+00:00`).
pub fn atom<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_atom(t))
}

/// Schema of a PHP map: an object, or `[]` when it is empty (TypeScript `PhpMap`).
#[cfg(feature = "schema")]
pub fn php_map(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    g.subschema_for::<PhpMap>()
}

/// The declared name of [`php_map`]'s schema.
#[cfg(feature = "schema")]
struct PhpMap;

#[cfg(feature = "schema")]
impl schemars::JsonSchema for PhpMap {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PhpMap".into()
    }
    /// PHP writes an empty map as `[]`.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A map as PHP writes it: an empty one is `[]`.",
            "anyOf": [
                { "type": "object", "additionalProperties": true },
                { "type": "array", "maxItems": 0 }
            ]
        })
    }
}

/// Schema of tool-call arguments: an object, or a list (`[]` when empty).
#[cfg(feature = "schema")]
pub fn tool_arguments(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            { "type": "object", "additionalProperties": true },
            { "type": "array", "items": true }
        ]
    })
}

/// Schema of an ATOM timestamp string.
#[cfg(feature = "schema")]
pub fn timestamp(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string" })
}
