//! v2 messages and the agent's context (`context.messageStore.sections`).

use crate::error::{ErrorCode, Result, SteplineError};
use crate::json::{child, type_name, Map, Value};
use crate::model::read;
use crate::model::time::{self, format_atom, Timestamp};
use crate::model::Role;

use super::{list, map_value, uuid_or_new};

/// One message: `{id, createdAt, role, content, …}`. Tool calls live in a
/// top-level `tool_calls` list and tool results in `tool_result`; those and
/// `_metadata` are kept as stored, in `rest`.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The message's id.
    pub id: String,
    /// When it was created (`createdAt`).
    pub created_at: Timestamp,
    /// The role.
    pub role: Role,
    /// A string, or a list of content parts.
    pub content: Value,
    /// Every other key, as stored (`_metadata`, `tool_calls`, `tool_result`, `name`).
    pub rest: Map,
}

impl Message {
    /// Reads a message. Roles are exact and required (`Assistant`, `robot` or
    /// no role are errors, as in v2); a missing id or date is generated (item 22).
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<Message> {
        let m = read::object(v, path, "a message")?;
        let role = match m.get("role") {
            Some(Value::String(s)) => Role::try_from_str(s).ok_or_else(|| {
                SteplineError::at(
                    ErrorCode::InvalidValue,
                    &child(path, "role"),
                    format!(
                        "expected a role (system, developer, user, assistant, tool; case-sensitive), found {}",
                        crate::json::quote(s)
                    ),
                )
            })?,
            None | Some(Value::Null) => {
                return Err(SteplineError::at(
                    ErrorCode::MissingField,
                    &child(path, "role"),
                    "expected the message's role",
                ))
            }
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidType,
                    &child(path, "role"),
                    format!("expected the role as a string, found {}", type_name(other)),
                ))
            }
        };
        let rest = m
            .iter()
            .filter(|(k, _)| !matches!(&***k, "id" | "createdAt" | "role" | "content"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(Message {
            id: uuid_or_new(m, "id", path)?,
            created_at: time::read_or_now(m.get("createdAt"), now, &child(path, "createdAt"))?,
            role,
            content: m.get("content").cloned().unwrap_or(Value::from("")),
            rest,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("id", Value::from(self.id.clone()));
        m.insert("createdAt", Value::from(format_atom(&self.created_at)));
        m.insert("role", Value::from(self.role.as_str()));
        m.insert("content", self.content.clone());
        for (k, v) in &self.rest {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    /// The text: the string content, or the text parts joined.
    pub fn text(&self) -> String {
        match &self.content {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        }
    }
}

/// Reads a list of messages.
pub fn messages(m: &Map, key: &str, path: &str, now: &Timestamp) -> Result<Vec<Message>> {
    list(m, key, path, |v, p| Message::from_value(v, p, now))
}

/// The stored form of a message list.
pub fn messages_value(list: &[Message]) -> Value {
    Value::Array(list.iter().map(Message::to_value).collect())
}

/// A named section of the message store (`messages`, `summary`, `buffer`, …).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// The section's name.
    pub name: String,
    /// The section's messages, oldest first.
    pub messages: Vec<Message>,
}

/// The agent's context: metadata, system prompt, response format and the
/// message store (`{sections, parameters}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// A map, or `[]`.
    pub metadata: Value,
    /// The system prompt (`systemPrompt`).
    pub system_prompt: String,
    /// A map, or `[]`.
    pub response_format: Value,
    /// The message store's sections.
    pub sections: Vec<Section>,
    /// A map, or `[]`.
    pub parameters: Value,
}

impl Context {
    /// An empty context: no metadata, prompt, response format or messages.
    pub fn empty() -> Context {
        Context {
            metadata: Value::Array(Vec::new()),
            system_prompt: String::new(),
            response_format: Value::Array(Vec::new()),
            sections: Vec::new(),
            parameters: Value::Array(Vec::new()),
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    /// Dates the producer would generate when missing take `now`.
    pub fn from_value(v: &Value, path: &str, now: &Timestamp) -> Result<Context> {
        let m = read::object(v, path, "the context")?;
        let store_path = child(path, "messageStore");
        let empty = Map::new();
        let store = match m.get("messageStore") {
            None | Some(Value::Null) => &empty,
            Some(s) => read::object(s, &store_path, "the message store")?,
        };
        let sections = list(store, "sections", &store_path, |v, p| {
            let s = read::object(v, p, "a message section")?;
            Ok(Section {
                name: read::opt_scalar_string(s, "name", p)?.unwrap_or_default(),
                messages: messages(s, "messages", p, now)?,
            })
        })?;
        Ok(Context {
            metadata: map_value(m, "metadata", path, "metadata")?,
            system_prompt: read::opt_scalar_string(m, "systemPrompt", path)?.unwrap_or_default(),
            response_format: map_value(m, "responseFormat", path, "the response format")?,
            sections,
            parameters: map_value(store, "parameters", &store_path, "the store's parameters")?,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        let sections = self
            .sections
            .iter()
            .map(|s| {
                crate::json::obj([
                    ("name", Value::from(s.name.clone())),
                    ("messages", messages_value(&s.messages)),
                ])
            })
            .collect();
        crate::json::obj([
            ("metadata", self.metadata.clone()),
            ("systemPrompt", Value::from(self.system_prompt.clone())),
            ("responseFormat", self.response_format.clone()),
            (
                "messageStore",
                crate::json::obj([
                    ("sections", Value::Array(sections)),
                    ("parameters", self.parameters.clone()),
                ]),
            ),
        ])
    }

    /// The conversation: the `messages` section (other sections are not part of it).
    pub fn messages(&self) -> &[Message] {
        self.sections
            .iter()
            .find(|s| s.name == "messages")
            .map_or(&[], |s| &s.messages)
    }
}
