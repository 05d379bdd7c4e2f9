//! The inference context cached across steps (system messages, tools, tool
//! choice, response format), read from `cachedContext` or the legacy `cache` key.

use crate::json::{Map, Value};

use crate::error::Result;
use crate::json::child;
use crate::model::message::Messages;
use crate::model::read;
use crate::php;

/// The inference context the reference caches between steps (`cachedContext`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CachedContext {
    /// Messages cached ahead of the conversation.
    pub messages: Messages,
    /// The tool definitions, as stored.
    pub tools: Value,
    /// The tool choice, as stored (`toolChoice`).
    pub tool_choice: Value,
    /// `None` when no response format is set (written as `[]`).
    pub response_format: Option<ResponseFormat>,
}

/// The reference's `ResponseFormat`: each part unset (`None`) or set. Read
/// as `ResponseFormat::fromData` reads it: `schema`, `name` and `strict` from
/// the top level or else from the OpenAI-style nested `json_schema`; written
/// as `AgentState::toArray` writes it, with the accessors' defaults (`text`,
/// `[]`, `schema`, `true`), so the nested form comes back flat, nothing lost.
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseFormat {
    /// `type` (`text`, `json_object`, `json_schema`, …).
    pub kind: Option<String>,
    /// The JSON Schema of the response.
    pub schema: Option<Value>,
    /// The schema's name.
    pub name: Option<String>,
    /// Whether the provider must follow the schema strictly.
    pub strict: Option<bool>,
}

impl CachedContext {
    /// Reads the state's cache: `cachedContext` wins over the legacy `cache`; inside
    /// it, `toolChoice`/`responseFormat` win over `tool_choice`/`response_format`.
    pub fn from_state(state: &Map, path: &str) -> Result<CachedContext> {
        let (key, data) = match (state.get("cachedContext"), state.get("cache")) {
            (Some(v @ (Value::Object(_) | Value::Array(_))), _) => ("cachedContext", v),
            (_, Some(v @ (Value::Object(_) | Value::Array(_)))) => ("cache", v),
            _ => return Ok(CachedContext::empty()),
        };
        let path = child(path, key);
        let m = read::object(data, &path, "the cached context")?;
        if m.is_empty() {
            return Ok(CachedContext::empty());
        }
        let messages = match php::get(m, "messages") {
            Some(v) => Messages::from_value(v, &child(&path, "messages"))?,
            None => Messages::default(),
        };
        // The constructor's `array $tools` and `string|array $toolChoice`
        // (strict types): anything else is the reference's TypeError.
        let tools = match php::get(m, "tools") {
            None => Value::Array(Vec::new()),
            Some(v @ (Value::Object(_) | Value::Array(_))) => v.clone(),
            Some(other) => return Err(read::wrong_type(&path, "tools", "an array", other)),
        };
        let choice_key = if php::get(m, "toolChoice").is_some() {
            "toolChoice"
        } else {
            "tool_choice"
        };
        let tool_choice = match php::get(m, choice_key) {
            None => Value::Array(Vec::new()),
            Some(v @ (Value::Object(_) | Value::Array(_) | Value::String(_))) => v.clone(),
            Some(other) => {
                return Err(read::wrong_type(
                    &path,
                    choice_key,
                    "a string or an array",
                    other,
                ))
            }
        };
        let rf_key = if php::get(m, "responseFormat").is_some() {
            "responseFormat"
        } else {
            "response_format"
        };
        let response_format = match php::get(m, rf_key) {
            Some(Value::Object(rf)) if !rf.is_empty() => {
                ResponseFormat::from_map(rf, &child(&path, rf_key))?
            }
            _ => None,
        };
        Ok(CachedContext {
            messages,
            tools,
            tool_choice,
            response_format,
        })
    }

    /// No cached messages, tools, tool choice or response format.
    pub fn empty() -> CachedContext {
        CachedContext {
            messages: Messages::default(),
            tools: Value::Array(Vec::new()),
            tool_choice: Value::Array(Vec::new()),
            response_format: None,
        }
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("messages", self.messages.to_value()),
            ("tools", self.tools.clone()),
            ("toolChoice", self.tool_choice.clone()),
            ("responseFormat", self.response_format_value()),
        ])
    }

    /// The response format as written: its parts with defaults, or `[]` when unset.
    pub fn response_format_value(&self) -> Value {
        self.response_format
            .as_ref()
            .map_or(Value::Array(Vec::new()), ResponseFormat::to_value)
    }
}

impl ResponseFormat {
    /// `fromData`: `None` when every part is unset (the reference's
    /// `isEmpty()`, written as `[]`). The constructor's types are strict
    /// (`?string`, `?array`, `?bool` under `strict_types`): another type is
    /// the reference's TypeError, `invalid_type` here.
    fn from_map(m: &Map, path: &str) -> Result<Option<ResponseFormat>> {
        // `$data['json_schema']['schema']` under `??`: a nested map, else nothing.
        let nested = php::get(m, "json_schema").and_then(Value::as_object);
        let nested_path = child(path, "json_schema");
        // The value of `k` and the path of the object holding it.
        let pick = |k: &str| -> (Option<&Value>, &str) {
            match (php::get(m, k), nested.and_then(|n| php::get(n, k))) {
                (None, Some(v)) => (Some(v), nested_path.as_str()),
                (v, _) => (v, path),
            }
        };
        let string = |k: &str, (v, at): (Option<&Value>, &str)| -> Result<Option<String>> {
            match v {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(read::wrong_type(at, k, "a string", other)),
            }
        };
        let kind = string("type", (php::get(m, "type"), path))?;
        let schema = match pick("schema") {
            (None, _) => None,
            (Some(v @ (Value::Object(_) | Value::Array(_))), _) => Some(v.clone()),
            (Some(other), at) => return Err(read::wrong_type(at, "schema", "an array", other)),
        };
        let name = string("name", pick("name"))?;
        let strict = match pick("strict") {
            (None, _) => None,
            (Some(Value::Bool(b)), _) => Some(*b),
            (Some(other), at) => return Err(read::wrong_type(at, "strict", "a boolean", other)),
        };
        let format = ResponseFormat {
            kind,
            schema,
            name,
            strict,
        };
        let empty = format.kind.is_none()
            && format.schema.is_none()
            && format.name.is_none()
            && format.strict.is_none();
        Ok((!empty).then_some(format))
    }

    fn to_value(&self) -> Value {
        crate::json::obj([
            ("type", Value::from(self.kind.as_deref().unwrap_or("text"))),
            (
                "schema",
                self.schema.clone().unwrap_or(Value::Array(Vec::new())),
            ),
            (
                "name",
                Value::from(self.name.as_deref().unwrap_or("schema")),
            ),
            ("strict", Value::from(self.strict.unwrap_or(true))),
        ])
    }
}
