//! Tool calls requested by the model.

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result};
use crate::json::{child, type_name};
use crate::model::read;
use crate::php;

/// A requested tool call, as the producer's `toArray` writes it (in that
/// order). `arguments` is `[]` when empty (PHP).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The decoded arguments: an object, or `[]` when there are none.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "crate::model::shape::tool_arguments")
    )]
    pub arguments: Value,
    /// The provider's call id.
    pub id: String,
}

impl ToolCall {
    /// A call of tool `name` with id `id`.
    pub fn new(id: &str, name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }

    /// Reads `{id, name, arguments}`; arguments may be a JSON string (decoded),
    /// an object, or absent. A call whose name is PHP-`empty()` (`""`, `"0"`) is
    /// skipped (`None`), as the reference does.
    pub fn from_value(v: &Value, path: &str) -> Result<Option<ToolCall>> {
        let m = read::object(v, path, "a tool call")?;
        if m.get("name").is_none_or(php::is_falsy) {
            return Ok(None);
        }
        let name = read::opt_scalar_string(m, "name", path)?.unwrap_or_default();
        let id = read::opt_scalar_string(m, "id", path)?.unwrap_or_default();
        let (key, raw) = match (m.get("arguments"), m.get("args")) {
            (Some(a), _) => ("arguments", Some(a)),
            (None, Some(a)) => ("args", Some(a)),
            _ => ("arguments", None),
        };
        let arguments = decode_arguments(raw, &child(path, key))?;
        Ok(Some(ToolCall {
            id,
            name,
            arguments,
        }))
    }

    /// `{name, arguments, id}` (the reference's `toArray` order) as a JSON value.
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    /// The OpenAI message form: `{id, type: "function", function: {name, arguments}}`
    /// with arguments encoded by PHP's `json_encode` (escaped slashes and unicode).
    pub fn to_tool_call_array(&self) -> Value {
        crate::json::obj([
            ("id", Value::from(self.id.clone())),
            ("type", Value::from("function")),
            (
                "function",
                crate::json::obj([
                    ("name", Value::from(self.name.clone())),
                    ("arguments", Value::from(php::json_encode(&self.arguments))),
                ]),
            ),
        ])
    }

    /// `search(q=x, path=/a/b)`.
    pub fn summary(&self) -> String {
        summary_of(&self.name, &self.arguments)
    }
}

/// Decodes tool-call arguments the way the reference does: a string is parsed as
/// JSON (empty or `null` gives `[]`), an array/object is taken as is.
pub fn decode_arguments(raw: Option<&Value>, path: &str) -> Result<Value> {
    match raw {
        None | Some(Value::Null) => Ok(Value::Array(Vec::new())),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Value::Array(Vec::new())),
        Some(Value::String(s)) => match crate::json::from_str(s) {
            Ok(v @ (Value::Object(_) | Value::Array(_))) => Ok(v),
            Ok(Value::Null) => Ok(Value::Array(Vec::new())),
            Ok(other) => Err(read::invalid(
                ErrorCode::InvalidType,
                path,
                format!(
                    "expected tool-call arguments to encode an object, found {}",
                    type_name(&other)
                ),
            )),
            Err(e) => Err(read::invalid(
                ErrorCode::InvalidJson,
                path,
                format!("expected tool-call arguments as a JSON object string: {e}"),
            )),
        },
        Some(v @ (Value::Object(_) | Value::Array(_))) => Ok(v.clone()),
        Some(other) => Err(read::invalid(
            ErrorCode::InvalidType,
            path,
            format!(
                "ToolCall args must be a string or an array, found {}",
                type_name(other)
            ),
        )),
    }
}

/// An ordered list of tool calls.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct ToolCalls(pub Vec<ToolCall>);

impl ToolCalls {
    /// Reads a list (or PHP map) of calls. A string entry is a call named by its
    /// key whose value is the JSON-encoded arguments; nameless calls are skipped.
    pub fn from_value(v: &Value, path: &str) -> Result<ToolCalls> {
        let mut calls = Vec::new();
        for (key, item) in read::entries(v, path, "tool calls")? {
            let item_path = child(path, &key);
            match item {
                Value::String(args) => {
                    if php::is_falsy(&Value::String(key.clone())) {
                        continue;
                    }
                    let arguments =
                        decode_arguments(Some(&Value::String(args.clone())), &item_path)?;
                    calls.push(ToolCall {
                        id: String::new(),
                        name: key,
                        arguments,
                    });
                }
                other => {
                    if let Some(call) = ToolCall::from_value(other, &item_path)? {
                        calls.push(call);
                    }
                }
            }
        }
        Ok(ToolCalls(calls))
    }

    /// The list as a JSON value.
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// Helper for callers holding a map: `{}` when the arguments are `[]`.
pub fn arguments_map(arguments: &Value) -> Map {
    match arguments {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    }
}

/// `name(key=value, …)` as the producers' step summaries write a call (v1.22
/// and v2.7 alike): string values bare, others JSON-encoded as PHP does.
pub fn summary_of(name: &str, arguments: &Value) -> String {
    let args: Vec<String> = match arguments {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={}", php::json_encode(other)),
            })
            .collect(),
        _ => Vec::new(),
    };
    format!("{name}({})", args.join(", "))
}
