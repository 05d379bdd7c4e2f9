//! Step annotations (seed 003): safety verdicts, citations and free-form extras.
//!
//! The reference state format has no annotations; stepline reads them from an
//! optional `annotations` key on a step and writes the key only when there is
//! something in it, so reference round trips are unaffected.

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result};
use crate::json::{child, index};
use crate::model::read;

/// `allow`, `review` or `block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SafetyVerdict {
    /// Nothing to hold back.
    Allow,
    /// A person should look.
    Review,
    /// Held back.
    Block,
}

impl SafetyVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyVerdict::Allow => "allow",
            SafetyVerdict::Review => "review",
            SafetyVerdict::Block => "block",
        }
    }
}

/// A safety verdict on a step.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SafetyNote {
    /// What to do with the step.
    pub verdict: SafetyVerdict,
    /// The producer's category of the concern.
    pub category: String,
}

/// A source a step cites.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Citation {
    /// The citation's label.
    pub label: String,
    /// Where the source is, when the producer says.
    pub url: Option<String>,
    /// Provider-specific reference data, kept verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "any_value"))]
    pub provider_ref: Option<Value>,
}

/// Seed-003 annotations (present only when a step has any).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "StepAnnotations"))]
pub struct Annotations {
    /// Safety verdicts, each once.
    pub safety: Vec<SafetyNote>,
    /// Citations, each once.
    pub citations: Vec<Citation>,
    /// Free-form extras, merged.
    pub extra: Map,
}

/// Any JSON value (`unknown`).
#[cfg(feature = "schema")]
fn any_value(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::from(true)
}

impl Annotations {
    pub fn is_empty(&self) -> bool {
        self.safety.is_empty() && self.citations.is_empty() && self.extra.is_empty()
    }

    pub fn from_value(v: &Value, path: &str) -> Result<Annotations> {
        let m = read::object(v, path, "annotations")?;
        let mut out = Annotations::default();
        if let Some(list) = crate::php::get(m, "safety") {
            let p = child(path, "safety");
            for (i, (_, item)) in read::entries(list, &p, "safety notes")?
                .into_iter()
                .enumerate()
            {
                let ip = index(&p, i);
                let note = read::object(item, &ip, "a safety note")?;
                let verdict = match read::opt_str(note, "verdict", &ip)?.unwrap_or("allow") {
                    "allow" => SafetyVerdict::Allow,
                    "review" => SafetyVerdict::Review,
                    "block" => SafetyVerdict::Block,
                    other => {
                        return Err(read::invalid(
                            ErrorCode::InvalidValue,
                            &child(&ip, "verdict"),
                            format!(
                                "expected \"allow\", \"review\" or \"block\", found {}",
                                crate::json::quote(other)
                            ),
                        ))
                    }
                };
                let category = read::opt_str(note, "category", &ip)?.ok_or_else(|| {
                    read::invalid(
                        ErrorCode::MissingField,
                        &child(&ip, "category"),
                        "expected a safety category",
                    )
                })?;
                out.safety.push(SafetyNote {
                    verdict,
                    category: category.into(),
                });
            }
        }
        if let Some(list) = crate::php::get(m, "citations") {
            let p = child(path, "citations");
            for (i, (_, item)) in read::entries(list, &p, "citations")?
                .into_iter()
                .enumerate()
            {
                let ip = index(&p, i);
                let c = read::object(item, &ip, "a citation")?;
                let label = read::opt_str(c, "label", &ip)?.ok_or_else(|| {
                    read::invalid(
                        ErrorCode::MissingField,
                        &child(&ip, "label"),
                        "expected a citation label",
                    )
                })?;
                out.citations.push(Citation {
                    label: label.into(),
                    url: read::opt_str(c, "url", &ip)?.map(String::from),
                    provider_ref: crate::php::get(c, "provider_ref").cloned(),
                });
            }
        }
        if let Some(extra) = crate::php::get(m, "extra") {
            out.extra = read::object(extra, &child(path, "extra"), "extra annotations")?.clone();
        }
        Ok(out)
    }

    pub fn to_value(&self) -> Value {
        let safety: Vec<Value> = self
            .safety
            .iter()
            .map(|s| {
                crate::json::obj([
                    ("verdict", Value::from(s.verdict.as_str())),
                    ("category", Value::from(s.category.clone())),
                ])
            })
            .collect();
        let citations: Vec<Value> = self
            .citations
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("label", Value::from(c.label.clone()));
                m.insert("url", Value::from(c.url.clone()));
                if let Some(r) = &c.provider_ref {
                    m.insert("provider_ref", r.clone());
                }
                Value::Object(m)
            })
            .collect();
        crate::json::obj([
            ("safety", Value::from(safety)),
            ("citations", Value::from(citations)),
            ("extra", Value::from(self.extra.clone())),
        ])
    }
}
