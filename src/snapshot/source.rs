//! What the slim serializer reads: a state's identity, status, usage, timing
//! and metadata, the newest messages and steps, and the last continuation
//! outcome — gathered from a parsed state, or from any [`Doc`] without
//! building the rest (a 20 MB state keeps 50 of its 10,000 messages).

use crate::json::{Map, Value};

use crate::error::Result;
use crate::json::{child, index};
use crate::model::continuation::Outcome;
use crate::model::message::Message;
use crate::model::message_store::DEFAULT_SECTION;
use crate::model::state::AgentState;
use crate::model::step::AgentStep;
use crate::model::time::Timestamp;
use crate::snapshot::config::{limit, SlimConfig};
use crate::snapshot::serialize::last;

/// Read access to a JSON document that need not be built in full: a
/// `crate::json::Value`, or (in WebAssembly) a JavaScript object from `JSON.parse`.
pub trait Doc {
    /// A position in the document.
    type Node: Clone;
    /// The document's root.
    fn root(&self) -> Self::Node;
    /// An object member; `None` when absent, null, or the node is not an object.
    fn get(&self, node: &Self::Node, key: &str) -> Option<Self::Node>;
    /// An object's keys in order; `None` when the node is not an object.
    fn keys(&self, node: &Self::Node) -> Option<Vec<String>>;
    /// An array's length; `None` when the node is not an array.
    fn len(&self, node: &Self::Node) -> Option<usize>;
    /// An array's item; `None` past the end or when the node is not an array.
    fn at(&self, node: &Self::Node, i: usize) -> Option<Self::Node>;
    /// The node built as a JSON value.
    fn value(&self, node: &Self::Node) -> Result<Value>;
}

impl<'a> Doc for &'a Value {
    type Node = &'a Value;
    fn root(&self) -> &'a Value {
        self
    }
    fn get(&self, node: &&'a Value, key: &str) -> Option<&'a Value> {
        Value::get(node, key).filter(|v| !v.is_null())
    }
    fn keys(&self, node: &&'a Value) -> Option<Vec<String>> {
        node.as_object()
            .map(|m| m.keys().map(|k| k.to_string()).collect())
    }
    fn len(&self, node: &&'a Value) -> Option<usize> {
        node.as_array().map(Vec::len)
    }
    fn at(&self, node: &&'a Value, i: usize) -> Option<&'a Value> {
        Value::get(node, i)
    }
    fn value(&self, node: &&'a Value) -> Result<Value> {
        Ok((*node).clone())
    }
}

/// The parts of a state a snapshot is made of.
#[derive(Clone, Debug)]
pub struct SlimSource {
    /// The state without its conversation, steps and results.
    pub head: AgentState,
    /// The conversation section's messages as `Messages::toArray` writes them
    /// (empty ones dropped), oldest first: at least the newest `max_messages`.
    pub messages: Vec<Value>,
    /// At least the newest `max_steps` steps, oldest first.
    pub steps: Vec<AgentStep>,
    /// Each of `steps`' duration in milliseconds, from its step result
    /// ([`AgentState::step_duration_ms`]).
    pub durations: Vec<Option<f64>>,
    /// How many steps the state has in all.
    pub step_count: usize,
    /// The continuation outcome of the last step result, if any.
    pub last_outcome: Option<Outcome>,
}

/// The state fields that are large and read selectively.
const SELECTIVE: &[&str] = &[
    "messageStore",
    "steps",
    "stepResults",
    "currentStep",
    "cachedContext",
    "cache",
];

impl SlimSource {
    /// From a parsed state.
    pub fn from_state(state: &AgentState, config: &SlimConfig) -> SlimSource {
        let messages = match state
            .message_store
            .section(DEFAULT_SECTION)
            .map(|s| s.messages.to_value())
        {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        let steps = last(&state.steps, config.max_steps);
        let first = state.steps.len() - steps.len();
        let durations = steps
            .iter()
            .enumerate()
            .map(|(i, s)| state.step_duration_ms(s, first + i))
            .collect();
        SlimSource {
            head: state.clone_head(),
            messages: last(&messages, config.max_messages).to_vec(),
            steps: steps.to_vec(),
            durations,
            step_count: state.steps.len(),
            last_outcome: state.last_outcome().cloned(),
        }
    }

    /// From a document, building only the small fields, the newest
    /// `max_messages` non-empty messages, the newest `max_steps` steps and the
    /// last outcome. Parts a snapshot drops are not read, so they are not
    /// checked the way `parseAgentState` checks them. A root that is not an
    /// object is read in full (and gets its error from there). The document
    /// is read as a v1.22 state: which format a state is in is asked first
    /// (`StateFormats::of_keys` in src/state_formats/registry.rs), or a v2
    /// state would read as an empty v1.22 one.
    pub fn from_doc<D: Doc>(doc: &D, config: &SlimConfig, now: &Timestamp) -> Result<SlimSource> {
        let root = doc.root();
        let Some(keys) = doc.keys(&root) else {
            let state = AgentState::from_value(&doc.value(&root)?, now)?;
            return Ok(SlimSource::from_state(&state, config));
        };
        // Pushed, then checked once: inserting key by key scans the keys before
        // each, which a state with very many top-level keys would feel.
        let mut members = Vec::new();
        for k in keys.iter().filter(|k| !SELECTIVE.contains(&k.as_str())) {
            if let Some(node) = doc.get(&root, k) {
                members.push((k.clone().into(), doc.value(&node)?));
            }
        }
        let small = Map::from_entries(members);
        let head = AgentState::from_value(&Value::Object(small), now)?;
        let messages = match doc.get(&root, "messageStore") {
            Some(store) => newest_messages(
                doc,
                &store,
                limit(config.max_messages),
                config.redact_tool_args,
            )?,
            None => Vec::new(),
        };
        let (step_count, steps) = match doc.get(&root, "steps") {
            Some(list) => newest_steps(
                doc,
                &list,
                if config.include_steps {
                    limit(config.max_steps)
                } else {
                    0
                },
                now,
            )?,
            None => (0, Vec::new()),
        };
        let results = doc.get(&root, "stepResults");
        let last_outcome = match &results {
            Some(list) if config.include_continuation_trace => last_outcome(doc, list)?,
            _ => None,
        };
        let durations = match &results {
            Some(list) => step_durations(doc, list, &steps, step_count - steps.len(), now),
            None => vec![None; steps.len()],
        };
        Ok(SlimSource {
            head,
            messages,
            steps,
            durations,
            step_count,
            last_outcome,
        })
    }
}

/// A PHP array used as a list: an array, or an object read in key order.
struct List<N> {
    node: N,
    keys: Option<Vec<String>>,
    len: usize,
}

impl<N: Clone> List<N> {
    fn of<D: Doc<Node = N>>(doc: &D, node: &N) -> Option<List<N>> {
        if let Some(len) = doc.len(node) {
            return Some(List {
                node: node.clone(),
                keys: None,
                len,
            });
        }
        let keys = doc.keys(node)?;
        Some(List {
            node: node.clone(),
            len: keys.len(),
            keys: Some(keys),
        })
    }

    fn at<D: Doc<Node = N>>(&self, doc: &D, i: usize) -> Option<N> {
        match &self.keys {
            None => doc.at(&self.node, i),
            Some(keys) => doc.get(&self.node, keys.get(i)?),
        }
    }

    /// The pointer token of item `i` (its index, or its key in an object list).
    fn token(&self, i: usize) -> String {
        match &self.keys {
            None => i.to_string(),
            Some(keys) => keys.get(i).cloned().unwrap_or_default(),
        }
    }
}

/// Builds a node that is too big to skip reading in full only when it is not a
/// list (the reader then reports it exactly as a full read would).
fn not_a_list<D: Doc>(
    doc: &D,
    node: &D::Node,
    what: &str,
    path: &str,
) -> crate::error::SteplineError {
    let found = doc
        .value(node)
        .map(|v| crate::json::type_name(&v))
        .unwrap_or("an unreadable value");
    crate::model::read::invalid(
        crate::ErrorCode::InvalidType,
        path,
        format!("expected {what} as an array, found {found}"),
    )
}

/// The conversation section's newest `n` non-empty messages, written form.
/// The newest `n` non-empty messages of the conversation section; with
/// `redact` (the config's `redact_tool_args`) each kept message's tool calls
/// must be redactable (see [`redactable`]).
fn newest_messages<D: Doc>(doc: &D, store: &D::Node, n: usize, redact: bool) -> Result<Vec<Value>> {
    if doc.keys(store).is_none() {
        // Not an object: a full read gives the producer's answer (`[]` is an empty store).
        let value = doc.value(store)?;
        let store = crate::model::message_store::MessageStore::from_value(&value, "/messageStore")?;
        return Ok(
            match store
                .section(DEFAULT_SECTION)
                .map(|s| s.messages.to_value())
            {
                Some(Value::Array(list)) => last(&list, n as i64).to_vec(),
                _ => Vec::new(),
            },
        );
    }
    let Some(sections_node) = doc.get(store, "sections") else {
        return Ok(Vec::new());
    };
    let sections = List::of(doc, &sections_node)
        .ok_or_else(|| not_a_list(doc, &sections_node, "sections", "/messageStore/sections"))?;
    for i in 0..sections.len {
        let path = child("/messageStore/sections", &sections.token(i));
        let Some(section) = sections.at(doc, i) else {
            continue;
        };
        let name = doc
            .get(&section, "name")
            .map(|n| doc.value(&n))
            .transpose()?;
        let is_conversation = match &name {
            Some(Value::String(s)) => s == DEFAULT_SECTION,
            None => true,
            Some(_) => false,
        };
        if !is_conversation {
            continue;
        }
        let Some(messages_node) = doc.get(&section, "messages") else {
            return Ok(Vec::new());
        };
        let list_path = child(&path, "messages");
        let messages = List::of(doc, &messages_node)
            .ok_or_else(|| not_a_list(doc, &messages_node, "messages", &list_path))?;
        // `n` comes from the caller's options (maxMessages): never allocate by it.
        let mut kept = Vec::with_capacity(n.min(messages.len));
        for j in (0..messages.len).rev() {
            if kept.len() == n {
                break;
            }
            let item_path = child(&list_path, &messages.token(j));
            let Some(item) = messages.at(doc, j) else {
                continue;
            };
            let value = doc.value(&item)?;
            let message = Message::from_value(&value, &item_path)?;
            if !message.is_empty() {
                if redact {
                    redactable(&value, &item_path)?;
                }
                kept.push(message.to_value());
            }
        }
        kept.reverse();
        return Ok(kept);
    }
    Ok(Vec::new())
}

fn newest_steps<D: Doc>(
    doc: &D,
    node: &D::Node,
    n: usize,
    now: &Timestamp,
) -> Result<(usize, Vec<AgentStep>)> {
    let list = List::of(doc, node).ok_or_else(|| not_a_list(doc, node, "steps", "/steps"))?;
    let from = list.len - n.min(list.len);
    let mut steps = Vec::with_capacity(list.len - from);
    for i in from..list.len {
        let path = child("/steps", &list.token(i));
        if let Some(item) = list.at(doc, i) {
            steps.push(AgentStep::from_value(&doc.value(&item)?, &path, now)?);
        }
    }
    Ok((list.len, steps))
}

/// The durations [`AgentState::step_duration_ms`] gives `steps` (the newest,
/// the first of them at `first` in the state), reading of each step result
/// only its step's id and its two dates: the result at the step's own index
/// when its step is the same, else the first that is. A result a full read
/// would refuse gives no duration.
fn step_durations<D: Doc>(
    doc: &D,
    node: &D::Node,
    steps: &[AgentStep],
    first: usize,
    now: &Timestamp,
) -> Vec<Option<f64>> {
    let Some(list) = List::of(doc, node) else {
        return vec![None; steps.len()];
    };
    let id_at = |i: usize| -> Option<String> {
        let result = list.at(doc, i)?;
        let info = doc.get(&doc.get(&result, "step")?, "stepInfo")?;
        let info =
            crate::model::info::StepInfo::from_value(&doc.value(&info).ok()?, "", now).ok()?;
        Some(info.id)
    };
    let duration_at = |i: usize| -> Option<f64> {
        let result = list.at(doc, i)?;
        let date = |k: &str| -> Option<Timestamp> {
            let v = doc.value(&doc.get(&result, k)?).ok()?;
            crate::model::time::read(&v, now, "").ok()
        };
        // As `StepResult::duration_ms`.
        Some(crate::model::tool_execution::millis_between(
            &date("startedAt")?,
            &date("completedAt")?,
        ))
    };
    steps
        .iter()
        .enumerate()
        .map(|(k, step)| {
            let hint = first + k;
            let found = if id_at(hint).as_deref() == Some(step.info.id.as_str()) {
                Some(hint)
            } else {
                (0..list.len).find(|&i| id_at(i).as_deref() == Some(step.info.id.as_str()))
            };
            duration_at(found?)
        })
        .collect()
}

fn last_outcome<D: Doc>(doc: &D, node: &D::Node) -> Result<Option<Outcome>> {
    let list =
        List::of(doc, node).ok_or_else(|| not_a_list(doc, node, "stepResults", "/stepResults"))?;
    let Some(last) = list.len.checked_sub(1).and_then(|i| list.at(doc, i)) else {
        return Ok(None);
    };
    let path = index("/stepResults", list.len - 1);
    // As the full read (`StepResult::fromArray`): an outcome is required.
    let Some(outcome) = doc.get(&last, "outcome") else {
        return Err(crate::model::read::invalid(
            crate::ErrorCode::MissingField,
            &child(&path, "outcome"),
            "expected the continuation outcome of this step result",
        ));
    };
    let outcome = doc.value(&outcome)?;
    Outcome::from_value(&outcome, &child(&path, "outcome")).map(Some)
}

/// The producer redacts a message's tool calls with `array_map(fn(array
/// $toolCall) …)` under `strict_types` (v1.22
/// `SlimAgentStateSerializer::redactToolArgs`), a `TypeError` for an entry
/// that is not an array (a JSON object or list): refused here, at the
/// entry, rather than written as a call named `unknown`. The metadata is
/// the message's `_metadata`, else its `metadata` alias, as the message
/// reader takes it.
pub fn redactable(message: &Value, path: &str) -> Result<()> {
    let (key, meta) = match (message.get("_metadata"), message.get("metadata")) {
        (Some(m), _) if !m.is_null() => ("_metadata", m),
        (_, Some(m)) => ("metadata", m),
        _ => return Ok(()),
    };
    let Some(Value::Array(calls)) = meta.get("tool_calls") else {
        return Ok(());
    };
    for (j, call) in calls.iter().enumerate() {
        if !matches!(call, Value::Object(_) | Value::Array(_)) {
            return Err(crate::error::SteplineError::at(
                crate::ErrorCode::InvalidType,
                &format!("{path}/{key}/tool_calls/{j}"),
                format!(
                    "expected each tool call as an array to redact it, found {}",
                    crate::json::type_name(call)
                ),
            ));
        }
    }
    Ok(())
}
