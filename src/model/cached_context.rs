//! The inference context cached across steps (system messages, tools, tool
//! choice, response format), read from `cachedContext` or the legacy `cache` key.

use crate::json::{Map, Value};

use crate::error::Result;
use crate::json::child;
use crate::model::message::Messages;
use crate::model::read;
use crate::php;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CachedContext {
    pub messages: Messages,
    pub tools: Value,
    pub tool_choice: Value,
    /// `None` when no response format is set (written as `[]`).
    pub response_format: Option<ResponseFormat>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResponseFormat {
    pub kind: String,
    pub schema: Value,
    pub name: String,
    pub strict: bool,
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
        let tools = php::get(m, "tools")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let tool_choice = php::get(m, "toolChoice")
            .or_else(|| php::get(m, "tool_choice"))
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let rf_key = if php::get(m, "responseFormat").is_some() {
            "responseFormat"
        } else {
            "response_format"
        };
        let response_format = match php::get(m, rf_key) {
            Some(Value::Object(rf)) if !rf.is_empty() => {
                Some(ResponseFormat::from_map(rf, &child(&path, rf_key))?)
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

    pub fn empty() -> CachedContext {
        CachedContext {
            messages: Messages::default(),
            tools: Value::Array(Vec::new()),
            tool_choice: Value::Array(Vec::new()),
            response_format: None,
        }
    }

    pub fn to_value(&self) -> Value {
        crate::json::obj([
            ("messages", self.messages.to_value()),
            ("tools", self.tools.clone()),
            ("toolChoice", self.tool_choice.clone()),
            (
                "responseFormat",
                self.response_format
                    .as_ref()
                    .map_or(Value::Array(Vec::new()), ResponseFormat::to_value),
            ),
        ])
    }
}

impl ResponseFormat {
    /// Missing fields take the reference defaults: schema `[]`, name `schema`, strict `true`.
    fn from_map(m: &Map, path: &str) -> Result<ResponseFormat> {
        Ok(ResponseFormat {
            kind: read::opt_scalar_string(m, "type", path)?.unwrap_or_default(),
            schema: php::get(m, "schema")
                .cloned()
                .unwrap_or(Value::Array(Vec::new())),
            name: read::opt_scalar_string(m, "name", path)?.unwrap_or_else(|| "schema".into()),
            strict: read::bool_or(m, "strict", true),
        })
    }

    fn to_value(&self) -> Value {
        crate::json::obj([
            ("type", Value::from(self.kind.clone())),
            ("schema", self.schema.clone()),
            ("name", Value::from(self.name.clone())),
            ("strict", Value::from(self.strict)),
        ])
    }
}
