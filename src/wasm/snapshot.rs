//! `slimSnapshot`, `restoreState`, `validateSnapshot`, `snapshotSchema`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::json::Limits;

use crate::json::child;
use crate::model::time::resolve_now;
use crate::snapshot::budget::slim_within;
use crate::snapshot::schema::snapshot_schema;
use crate::snapshot::source::{Doc, SlimSource};
use crate::snapshot::validate::{Issue, Report};
use crate::snapshot::SlimConfig;
use crate::state_formats::{StateFormat, StateFormats};

use crate::model::shape::ParseAgentStateOptions;

use super::convert::{clock, options_map, out, out_with};
use super::types::{ParseAgentStateOptionsArg, SlimOptionsArg};
use super::walk;

/// Serializes an agent state (the producer's full format) into a slim snapshot
/// exactly as the producer's `SlimAgentStateSerializer` does, except for two
/// fixes — truncation never splits a UTF-8 character, and excluded tool results
/// are also removed from `_metadata.result` — which `compat: true` turns off.
/// `maxBytes` tightens content, then messages, then steps until the compact JSON
/// fits; `truncation` says what was dropped. A v2.x state gives a v2 snapshot
/// (`state_version: "v2"`, v2's status, the winning `stop_signal`), never the
/// stored `llmConfig` (it holds the API key) nor a real driver's `responseData`.
///
/// @example
/// ```js
/// const { snapshot, bytes, truncation } = slimSnapshot(row.state_json, { preset: 'standard', maxBytes: 64_000 });
/// await db.save(JSON.stringify(snapshot));
/// ```
#[wasm_bindgen(js_name = slimSnapshot, unchecked_return_type = "SlimResult")]
pub fn slim_snapshot(
    #[wasm_bindgen(unchecked_param_type = "string | object")] state: JsValue,
    config: Option<SlimOptionsArg>,
) -> Result<JsValue, JsValue> {
    out((|| {
        let opts = options_map(&config.map(JsValue::from))?;
        let (config, max_bytes) = SlimConfig::from_options(&opts, "/options")?;
        // Read selectively: V8 parses the text (it is fastest at that), and only
        // the parts a snapshot keeps cross into the wasm.
        let doc = JsDoc::new(js_document(&state, "the agent state")?, state.is_string());
        match whole_state(&doc)? {
            // A format that does not read selectively reads the state whole,
            // then slims it with its own writer.
            Some((format, state)) => format.slim(&state, &config, max_bytes, &clock()),
            None => {
                let source = SlimSource::from_doc(&doc, &config, &clock());
                slim_within(&doc.finish(source)?, &config, max_bytes)
            }
        }
    })())
}

/// Rebuilds an agent state from a slim snapshot to resume a conversation, as
/// the producer's `deserialize` does: messages, usage, metadata and timing come
/// back; steps do not, and `executionStartedAt` is never restored. Returns the
/// same shape as `parseAgentState`. A v2 snapshot (`state_version: "v2"`)
/// gives a v2 state between executions (`execution: null`, no `llmConfig`):
/// identity, metadata, system prompt and messages, what resuming needs.
///
/// @example
/// ```js
/// const state = restoreState(savedSnapshot);
/// state.messageStore.sections[0].messages.length;
/// ```
#[wasm_bindgen(js_name = restoreState, unchecked_return_type = "AgentState | AgentStateV2")]
pub fn restore_state(
    #[wasm_bindgen(unchecked_param_type = "string | object")] snapshot: JsValue,
    opts: Option<ParseAgentStateOptionsArg>,
) -> Result<JsValue, JsValue> {
    out_with(
        (|| {
            let opts = ParseAgentStateOptions::read(&options_map(&opts.map(JsValue::from))?)?;
            let now = resolve_now(opts.now.as_ref(), clock(), "/options/now")?;
            let value = walk::json_value(&snapshot, None, "the snapshot")?;
            Ok((crate::state_formats::restore(&value, &now)?, now))
        })(),
        |(state, now)| super::state::state_js(&**state, now),
    )
}

/// Checks an untrusted snapshot and reports every problem at once, each with a
/// JSON-pointer `path`, a `code` (`missing_field`, `wrong_type`, `invalid_enum`,
/// `invalid_timestamp`, `out_of_range`, `inconsistent`, `secret_in_state` (a
/// credential such as an API key, never echoed), or `invalid_json` when
/// the text is not JSON) and a `message`. Unknown properties are `warnings`, and so
/// are negative token counts (`out_of_range`): the producer keeps them, so they are valid.
///
/// @example
/// ```js
/// const { valid, errors } = validateSnapshot(body);
/// if (!valid) return res.status(422).json(errors);
/// ```
#[wasm_bindgen(js_name = validateSnapshot, unchecked_return_type = "SnapshotValidation")]
pub fn validate_snapshot(
    // `unknown`: it is for untrusted input, and whatever it is gets a report, never a throw.
    #[wasm_bindgen(unchecked_param_type = "unknown")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let report = match walk::json_value(&input, None, "the snapshot") {
        Ok(value) => crate::state_formats::validate_snapshot(&value),
        Err(e) => Report {
            errors: vec![Issue {
                path: e.path.unwrap_or_default(),
                code: e.code.as_str(),
                message: e.message,
            }],
            warnings: Vec::new(),
        },
    };
    out(Ok(report.view()))
}

/// The JSON Schema (draft 2020-12) of a slim snapshot, for validating in other
/// languages; also shipped as `stepline/schemas/snapshot.schema.json`.
///
/// @example
/// ```js
/// const ajv = new Ajv2020(); const check = ajv.compile(snapshotSchema());
/// ```
#[wasm_bindgen(js_name = snapshotSchema)]
pub fn snapshot_schema_js() -> Result<JsValue, JsValue> {
    out(Ok(snapshot_schema()))
}

/// The document's format and the document read whole, when its top-level
/// keys name a format that does not read selectively; `None` for one that
/// does (v1.22's selective reader, `SlimSource::from_doc`), or for a root
/// that is not an object (which that reader refuses).
#[inline(never)]
fn whole_state(doc: &JsDoc) -> Result<Option<(&'static dyn StateFormat, Value)>, SteplineError> {
    let root = doc.root();
    let keys = doc.keys(&root);
    if let Some(e) = doc.failed.borrow().clone() {
        return Err(e);
    }
    let Some(keys) = keys else { return Ok(None) };
    let format = match StateFormats::built_in().of_keys(&keys) {
        Ok(format) if format.slims_selectively() => return Ok(None),
        Ok(format) => format,
        // Neither or both: what a full read finds wrong first (nesting too
        // deep, bad JSON) is reported as parseAgentState reports it, else this.
        Err(e) => {
            doc.value(&root)?;
            return Err(e);
        }
    };
    Ok(Some((format, doc.value(&root)?)))
}

/// A JavaScript value read as a [`Doc`]: members and items are fetched one by
/// one, and only nodes that are kept are turned into JSON values.
///
/// Every read goes through `walk` (imports that catch): a getter, Proxy trap or
/// revoked Proxy that throws becomes a typed error. [`Doc`]'s readers cannot
/// return one, so the first such error is kept in `failed`, every later read
/// answers "absent", and [`JsDoc::finish`] returns the error in place of
/// whatever the walk made of the missing parts.
///
/// What the walk keeps is read as `parseAgentState` reads the same input: a
/// string with a lone surrogate is `invalid_json`, and for JSON text (`from_text`)
/// so is a number `JSON.parse` made Infinity. Parts that are not kept are not
/// read, so they are not checked.
struct JsDoc {
    root: JsValue,
    from_text: bool,
    failed: RefCell<Option<SteplineError>>,
}

/// A node of a [`JsDoc`] and its JSON pointer (for errors).
#[derive(Clone)]
struct JsNode {
    value: JsValue,
    path: Rc<str>,
}

impl JsNode {
    fn child(&self, value: JsValue, token: &str) -> JsNode {
        JsNode {
            value,
            path: child(&self.path, token).into(),
        }
    }
}

impl JsDoc {
    fn new(root: JsValue, from_text: bool) -> JsDoc {
        JsDoc {
            root,
            from_text,
            failed: RefCell::new(None),
        }
    }

    /// Runs a read unless one already failed; a failure is kept and reads as `None`.
    fn read<T>(&self, f: impl FnOnce() -> Result<Option<T>, SteplineError>) -> Option<T> {
        if self.failed.borrow().is_some() {
            return None;
        }
        f().unwrap_or_else(|e| {
            *self.failed.borrow_mut() = Some(e);
            None
        })
    }

    /// The walk's result, or the error of a read that threw.
    fn finish<T>(self, result: Result<T, SteplineError>) -> Result<T, SteplineError> {
        match self.failed.into_inner() {
            Some(e) => Err(e),
            None => result,
        }
    }
}

impl Doc for JsDoc {
    type Node = JsNode;

    fn root(&self) -> JsNode {
        JsNode {
            value: self.root.clone(),
            path: "".into(),
        }
    }

    fn get(&self, node: &JsNode, key: &str) -> Option<JsNode> {
        self.read(|| {
            let (v, path) = (&node.value, &*node.path);
            // Own properties only: `Reflect.get` would also find inherited ones.
            if !walk::is_plain_object(v, path)? || !walk::has_own(v, key, path)? {
                return Ok(None);
            }
            let member = walk::get(v, key, path)?;
            Ok((!member.is_undefined() && !member.is_null()).then(|| node.child(member, key)))
        })
    }

    fn keys(&self, node: &JsNode) -> Option<Vec<String>> {
        self.read(|| {
            let (v, path) = (&node.value, &*node.path);
            if !walk::is_plain_object(v, path)? {
                return Ok(None);
            }
            walk::well_formed_keys(v, path).map(Some)
        })
    }

    fn len(&self, node: &JsNode) -> Option<usize> {
        self.read(|| {
            let (v, path) = (&node.value, &*node.path);
            if !walk::is_array(v, path)? {
                return Ok(None);
            }
            Ok(Some(walk::length(v, path)? as usize))
        })
    }

    fn at(&self, node: &JsNode, i: usize) -> Option<JsNode> {
        self.read(|| {
            let Ok(index) = u32::try_from(i) else {
                return Ok(None);
            };
            if !node.value.is_object() {
                return Ok(None);
            }
            let item = walk::get_index(&node.value, index, &node.path)?;
            Ok((!item.is_undefined()).then(|| node.child(item, &i.to_string())))
        })
    }

    fn value(&self, node: &JsNode) -> Result<Value, SteplineError> {
        if let Some(e) = self.failed.borrow().as_ref() {
            return Err(e.clone());
        }
        // A string node is a string, not JSON text to parse.
        if let Some(s) = node.value.as_string() {
            // A lone surrogate reads as U+FFFD: check the engine's string only then.
            if crate::json::contains_replacement_char(&s)
                && !walk::well_formed(node.value.unchecked_ref())
            {
                return Err(walk::lone_surrogate(&node.path, "the agent state"));
            }
            return Ok(Value::String(s));
        }
        if self.from_text {
            return walk::parsed_json_value(&node.value, &node.path, "the agent state");
        }
        let path = (!node.path.is_empty()).then_some(&*node.path);
        walk::json_value(&node.value, path, "the agent state")
    }
}

#[wasm_bindgen]
extern "C" {
    /// `JSON.parse` on a JavaScript string as is (no copy into the wasm).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// A document from JSON text (parsed by `JSON.parse`) or from an object as is.
fn js_document(input: &JsValue, what: &str) -> Result<JsValue, SteplineError> {
    if !input.is_string() {
        if input.is_undefined() || input.is_null() {
            return Err(SteplineError::new(
                ErrorCode::InvalidType,
                None,
                format!("expected {what} as a JSON string or an object"),
            ));
        }
        return Ok(input.clone());
    }
    // Not checked for lone surrogates here: `isWellFormed` on 20 MB costs a
    // quarter of a JSON.parse, and JSON.parse keeps them in the strings it
    // makes, where the walk checks the ones it keeps.
    // UTF-16 units: a lower bound on the UTF-8 bytes, so the limit still holds.
    let units = input.unchecked_ref::<js_sys::JsString>().length() as usize;
    let limits = Limits::default();
    if units > limits.max_bytes {
        return Err(SteplineError::new(
            ErrorCode::TooLarge,
            None,
            format!(
                "expected at most {} bytes of JSON, found at least {units}",
                limits.max_bytes
            ),
        ));
    }
    json_parse(input).map_err(|e| {
        let message = walk::thrown_message(&e).unwrap_or_default();
        if e.is_instance_of::<js_sys::RangeError>() {
            SteplineError::new(
                ErrorCode::TooDeep,
                None,
                format!("expected JSON nested less deeply: {message}"),
            )
        } else {
            SteplineError::new(
                ErrorCode::InvalidJson,
                None,
                format!("expected valid JSON: {message}"),
            )
        }
    })
}
