//! Chat messages in the reference's array form.
//!
//! `toArray` is `array_filter([role, name, content, _metadata])`: PHP-falsy
//! values ("", "0", [] and null) are dropped, which is why an assistant message
//! whose content is `"0"` serializes without `content` (vectors pin this).

use crate::json::{Map, Value};

use crate::error::{ErrorCode, Result};
use crate::json::{child, index, type_name};
use crate::model::read;
use crate::model::role::Role;
use crate::php;

/// One content part (`{type: "text", text}`, `{type: "image_url", image_url: {url}}`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct ContentPart {
    /// The part's `type` (`text`, `image_url`, …).
    pub kind: String,
    /// Every field except `type`, in input order.
    pub fields: Map,
}

impl ContentPart {
    /// A `{type: "text", text}` part.
    pub fn text(text: &str) -> ContentPart {
        let mut fields = Map::new();
        fields.insert("text", Value::String(text.into()));
        ContentPart {
            kind: "text".into(),
            fields,
        }
    }

    fn from_value(v: &Value, path: &str) -> Result<ContentPart> {
        match v {
            Value::String(s) => Ok(ContentPart::text(s)),
            Value::Object(m) => {
                let kind = read::opt_str(m, "type", path)?
                    .unwrap_or("text")
                    .to_string();
                // Copied whole, not inserted key by key: a part may carry any
                // number of keys, and each insert scans the keys before it.
                let mut fields = m.clone();
                fields.remove("type");
                if kind == "image_url" {
                    // Both `{url}` and `{image_url: "..."}` become `{image_url: {url}}`.
                    let url = match (fields.remove("url"), fields.get("image_url")) {
                        (Some(u), _) => Some(u),
                        (None, Some(Value::String(s))) => Some(Value::String(s.clone())),
                        _ => None,
                    };
                    if let Some(url) = url {
                        let mut inner = Map::new();
                        inner.insert("url", url);
                        fields.insert("image_url", Value::Object(inner));
                    }
                }
                Ok(ContentPart { kind, fields })
            }
            other => Err(read::invalid(
                ErrorCode::InvalidType,
                path,
                format!(
                    "expected a content part (string or object), found {}",
                    type_name(other)
                ),
            )),
        }
    }

    /// Fields that `toArray` exports: not null/""/[] and not `_private`.
    fn exported_fields(&self) -> impl Iterator<Item = (&crate::json::Name, &Value)> {
        self.fields.iter().filter(|(k, v)| {
            !k.starts_with('_')
                && !matches!(v, Value::Null)
                && !matches!(v, Value::String(s) if s.is_empty())
                && !php::is_empty_array(v)
        })
    }

    /// The part as `toArray` writes it, as a JSON value.
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(self)
    }

    fn text_value(&self) -> Option<&str> {
        self.fields.get("text").and_then(Value::as_str)
    }

    /// A text part carrying nothing but its text.
    fn is_simple_text(&self) -> bool {
        self.kind == "text" && self.exported_fields().all(|(k, _)| k == "text")
    }

    fn is_empty(&self) -> bool {
        if self.kind == "text" {
            return self.text_value().is_none_or(str::is_empty)
                && self.exported_fields().all(|(k, _)| k == "text");
        }
        self.exported_fields().next().is_none()
    }
}

/// `{type, ...fields}`: the part's own fields follow `type`, as `toArray`
/// writes them (PHP-falsy and `_private` ones left out). Hand-written because
/// the fields are open; [`ContentPart`]'s schema declares the shape.
impl serde::Serialize for ContentPart {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", &self.kind)?;
        for (k, v) in self.exported_fields() {
            m.serialize_entry(&**k, v)?;
        }
        m.end()
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ContentPart {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ContentPart".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "One content part of a composite message: `type` and the part's own fields.",
            "type": "object",
            "properties": {
                "type": { "type": "string", "description": "`text`, `image_url`, or the provider's own kind." },
                "text": { "type": "string", "description": "The text of a `text` part." },
                "image_url": {
                    "type": "object",
                    "description": "The image of an `image_url` part.",
                    "properties": { "url": { "type": "string" } },
                    "required": ["url"]
                }
            },
            "required": ["type"],
            "additionalProperties": true
        })
    }
}

/// Message content: a list of parts (a plain string is one text part).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Content {
    /// The parts, in order.
    pub parts: Vec<ContentPart>,
}

impl Content {
    /// One text part holding `s`.
    pub fn from_text(s: &str) -> Content {
        Content {
            parts: vec![ContentPart::text(s)],
        }
    }

    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    pub fn from_value(v: Option<&Value>, path: &str) -> Result<Content> {
        let path = child(path, "content");
        match v {
            None | Some(Value::Null) => Ok(Content::default()),
            Some(Value::String(s)) => Ok(Content::from_text(s)),
            Some(Value::Array(items)) => {
                let parts = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| ContentPart::from_value(item, &index(&path, i)))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Content { parts })
            }
            Some(part @ Value::Object(_)) => Ok(Content {
                parts: vec![ContentPart::from_value(part, &path)?],
            }),
            Some(Value::Number(n)) => Ok(Content::from_text(&crate::json::number_text(n))),
            Some(other) => Err(read::invalid(
                ErrorCode::InvalidType,
                &path,
                format!(
                    "expected message content as a string or a list of parts, found {}",
                    type_name(other)
                ),
            )),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(ContentPart::is_empty)
    }

    /// More than one part, or one part that is not plain text.
    pub fn is_composite(&self) -> bool {
        self.parts.len() > 1 || self.parts.first().is_some_and(|p| !p.is_simple_text())
    }

    /// The text of all text parts joined with newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(ContentPart::text_value)
            .collect();
        texts.join("\n")
    }

    /// The form `toArray` writes: `''` when empty, a part list when composite, else the text.
    pub fn to_value(&self) -> Value {
        if self.is_empty() {
            Value::String(String::new())
        } else if self.is_composite() {
            Value::Array(self.parts.iter().map(ContentPart::to_value).collect())
        } else {
            Value::String(self.text())
        }
    }
}

/// A chat message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The role string as written (unknown roles are kept verbatim; `""` becomes `user`).
    pub role: String,
    /// The participant's name (`""` when none).
    pub name: String,
    /// The content.
    pub content: Content,
    /// `_metadata` (or its `metadata` alias): tool calls, tool results, app data.
    pub metadata: Map,
    /// Read from an array that was not a message shape but held only strings
    /// (e.g. `{"role": "assistant"}`). The reference keeps such a message even
    /// though it shows no content (slim-serializer vectors), so it is never "empty".
    pub from_string_array: bool,
}

impl Message {
    /// A message of `role` holding `text`.
    pub fn new(role: Role, text: &str) -> Message {
        Message {
            role: role.as_str().into(),
            name: String::new(),
            content: Content::from_text(text),
            metadata: Map::new(),
            from_string_array: false,
        }
    }

    /// Reads one message: a string (a user message) or an object that has a
    /// `role` and either `content` or `_metadata` (the reference's `isMessage`).
    pub fn from_value(v: &Value, path: &str) -> Result<Message> {
        let m = match v {
            Value::String(s) => return Ok(Message::new(Role::User, s)),
            Value::Object(m) => m,
            other => {
                return Err(read::invalid(
                    ErrorCode::InvalidType,
                    path,
                    format!(
                        "expected a message object or string, found {}",
                        type_name(other)
                    ),
                ))
            }
        };
        let is_message = php::get(m, "role").is_some()
            && (php::get(m, "content").is_some() || php::get(m, "_metadata").is_some());
        // Reference quirk: an array that is not a message but has a role and
        // holds only strings (`{"role": "assistant"}`) is still accepted, with
        // empty content (the slim-serializer vectors); anything else is
        // rejected: another value beside the role (`{"role": …, "metadata":
        // {…}}`), or no role at all (`{"content": "x"}`: `isMessage` needs a
        // role, and the producer reads no message without one).
        let has_role = php::get(m, "role").is_some();
        if !is_message && (!has_role || !m.values().all(Value::is_string)) {
            let missing = if php::get(m, "role").is_none() {
                "role"
            } else {
                "content"
            };
            return Err(read::invalid(
                ErrorCode::MissingField,
                &child(path, missing),
                "Invalid message array - missing role or content keys: expected `role` and either `content` or `_metadata`",
            ));
        }
        let role = match read::opt_str(m, "role", path)? {
            None | Some("") => Role::User.as_str().to_string(),
            Some(r) => r.to_string(),
        };
        let name = read::opt_scalar_string(m, "name", path)?.unwrap_or_default();
        let content = Content::from_value(m.get("content"), path)?;
        let (meta_key, meta) = match (php::get(m, "_metadata"), php::get(m, "metadata")) {
            (Some(meta), _) => ("_metadata", Some(meta)),
            (None, Some(meta)) => ("metadata", Some(meta)),
            _ => ("_metadata", None),
        };
        let metadata = match meta {
            None => Map::new(),
            Some(meta) => read::object(meta, &child(path, meta_key), "message metadata")?.clone(),
        };
        Ok(Message {
            role,
            name,
            content,
            metadata,
            from_string_array: !is_message,
        })
    }

    /// The role as the reference reads it (unknown strings are `user`).
    pub fn role(&self) -> Role {
        Role::from_str_or_user(&self.role)
    }

    /// Empty content and empty metadata: such messages are dropped on write.
    pub fn is_empty(&self) -> bool {
        self.content.is_empty() && self.metadata.is_empty() && !self.from_string_array
    }

    /// The message as `toArray` writes it.
    pub fn view(&self) -> MessageView<'_> {
        let content = if self.content.is_empty() {
            None
        } else if self.content.is_composite() {
            Some(ContentView::Parts(&self.content.parts))
        } else {
            Some(ContentView::Text(self.content.text())).filter(|c| !c.is_falsy())
        };
        MessageView {
            role: &self.role,
            name: &self.name,
            content,
            metadata: &self.metadata,
        }
    }

    /// [`Message::view`] as a JSON value.
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(&self.view())
    }
}

/// A message as the producer writes it (`array_filter` of its fields):
/// PHP-falsy fields (`""`, `"0"`, `[]`, `null`) are left out.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Message"))]
pub struct MessageView<'a> {
    /// The role string as written (unknown roles are kept; they read as `user`).
    #[serde(skip_serializing_if = "php::is_falsy_str")]
    pub role: &'a str,
    /// The participant's name.
    #[serde(skip_serializing_if = "php::is_falsy_str")]
    pub name: &'a str,
    /// The text, or the parts of a composite message.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "ContentView"))]
    pub content: Option<ContentView<'a>>,
    /// Tool calls, tool results and application data.
    #[serde(rename = "_metadata", skip_serializing_if = "no_entries")]
    #[cfg_attr(feature = "schema", schemars(with = "Map"))]
    pub metadata: &'a Map,
}

/// A message's content as written: its text, or its parts when composite.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "MessageContent"))]
#[serde(untagged)]
pub enum ContentView<'a> {
    /// Plain text.
    Text(String),
    /// The parts of a composite message.
    Parts(&'a [ContentPart]),
}

/// An empty map, which PHP's `array_filter` drops.
fn no_entries(m: &&Map) -> bool {
    m.is_empty()
}

impl ContentView<'_> {
    fn is_falsy(&self) -> bool {
        matches!(self, ContentView::Text(t) if php::is_falsy_str(t))
    }
}

/// An ordered list of messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Messages(pub Vec<Message>);

impl Messages {
    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    pub fn from_value(v: &Value, path: &str) -> Result<Messages> {
        let items = read::entries(v, path, "messages")?;
        items
            .into_iter()
            .map(|(key, item)| Message::from_value(item, &child(path, &key)))
            .collect::<Result<Vec<_>>>()
            .map(Messages)
    }

    /// Writes the list, dropping empty messages as `Messages::toArray` does.
    pub fn to_value(&self) -> Value {
        Value::Array(
            self.0
                .iter()
                .filter(|m| !m.is_empty())
                .map(Message::to_value)
                .collect(),
        )
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
