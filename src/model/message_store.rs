//! The conversation store: named sections of messages plus free parameters.

use crate::json::{Map, Value};

use crate::error::Result;
use crate::json::child;
use crate::model::message::Messages;
use crate::model::read;

/// One named section (`summary`, `messages`, ...).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Section {
    /// The section's name.
    pub name: String,
    /// The section's messages, oldest first.
    pub messages: Messages,
}

/// The reference's `MessageStore`: `{sections: [{name, messages}], parameters}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageStore {
    /// The sections, in stored order.
    pub sections: Vec<Section>,
    /// Store parameters, kept as stored.
    pub parameters: Map,
}

/// The section the agent appends the conversation to.
pub const DEFAULT_SECTION: &str = "messages";

impl MessageStore {
    /// Reads the stored form; an error names the offending value by its JSON pointer under `path`.
    pub fn from_value(v: &Value, path: &str) -> Result<MessageStore> {
        let m = read::object(v, path, "messageStore")?;
        let mut sections = Vec::new();
        if let Some(list) = crate::php::get(m, "sections") {
            let sections_path = child(path, "sections");
            for (key, item) in read::entries(list, &sections_path, "sections")? {
                let item_path = child(&sections_path, &key);
                let s = read::object(item, &item_path, "a section")?;
                let name = read::opt_scalar_string(s, "name", &item_path)?
                    .unwrap_or_else(|| DEFAULT_SECTION.into());
                let messages = match crate::php::get(s, "messages") {
                    Some(list) => Messages::from_value(list, &child(&item_path, "messages"))?,
                    None => Messages::default(),
                };
                sections.push(Section { name, messages });
            }
        }
        let parameters = match crate::php::get(m, "parameters") {
            Some(p) => read::object(p, &child(path, "parameters"), "parameters")?.clone(),
            None => Map::new(),
        };
        Ok(MessageStore {
            sections,
            parameters,
        })
    }

    /// The stored form, as the producer writes it (its `toArray`).
    pub fn to_value(&self) -> Value {
        let sections: Vec<Value> = self
            .sections
            .iter()
            .map(|s| {
                crate::json::obj([
                    ("name", Value::from(s.name.clone())),
                    ("messages", s.messages.to_value()),
                ])
            })
            .collect();
        crate::json::obj([
            ("sections", Value::from(sections)),
            ("parameters", crate::php::map_value(&self.parameters)),
        ])
    }

    /// Messages of every section in order (what the reference's `messages()` returns
    /// for the default section is `section("messages")`).
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// Total number of stored messages across sections.
    pub fn message_count(&self) -> usize {
        self.sections.iter().map(|s| s.messages.len()).sum()
    }
}
