//! `slimSnapshot`, `restoreState`, `validateSnapshot`, `snapshotSchema`.

use js_sys::{Array, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::json::Limits;

use crate::json::obj;
use crate::model::time::resolve_now;
use crate::model::view::agent_state_view;
use crate::snapshot::budget::slim_within;
use crate::snapshot::restore::restore;
use crate::snapshot::schema::snapshot_schema;
use crate::snapshot::source::{Doc, SlimSource};
use crate::snapshot::validate::{validate, Issue, Report};
use crate::snapshot::SlimConfig;

use super::convert::{clock, from_js, now_option, options, options_map, out};
use super::types::{ParseAgentStateOptionsArg, SlimOptionsArg};

/// Serializes an agent state (the producer's full format) into a slim snapshot
/// exactly as the producer's `SlimAgentStateSerializer` does, except for two
/// fixes — truncation never splits a UTF-8 character, and excluded tool results
/// are also removed from `_metadata.result` — which `compat: true` turns off.
/// `maxBytes` tightens content, then messages, then steps until the compact JSON
/// fits; `truncation` says what was dropped.
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
        let doc = JsDoc(js_document(&state, "the agent state")?);
        let source = SlimSource::from_doc(&doc, &config, &clock())?;
        let fitted = slim_within(&source, &config, max_bytes)?;
        Ok(obj([
            ("snapshot", fitted.snapshot),
            ("bytes", Value::from(fitted.bytes)),
            (
                "truncation",
                fitted.truncation.map_or(Value::Null, |t| t.to_value()),
            ),
        ]))
    })())
}

/// Rebuilds an agent state from a slim snapshot to resume a conversation, as
/// the producer's `deserialize` does: messages, usage, metadata and timing come
/// back; steps do not, and `executionStartedAt` is never restored. Returns the
/// same shape as `parseAgentState`.
///
/// @example
/// ```js
/// const state = restoreState(savedSnapshot);
/// state.messageStore.sections[0].messages.length;
/// ```
#[wasm_bindgen(js_name = restoreState, unchecked_return_type = "AgentState")]
pub fn restore_state(
    #[wasm_bindgen(unchecked_param_type = "string | object")] snapshot: JsValue,
    opts: Option<ParseAgentStateOptionsArg>,
) -> Result<JsValue, JsValue> {
    out((|| {
        let opts = options(&opts.map(JsValue::from), &["now"])?;
        let now = resolve_now(now_option(&opts)?.as_ref(), clock(), "/options/now")?;
        let value = from_js(&snapshot, "the snapshot")?;
        Ok(agent_state_view(&restore(&value, &now)?))
    })())
}

/// Checks an untrusted snapshot and reports every problem at once, each with a
/// JSON-pointer `path`, a `code` (`missing_field`, `wrong_type`, `invalid_enum`,
/// `invalid_timestamp`, `out_of_range`, `inconsistent`, or `invalid_json` when
/// the text is not JSON) and a `message`. Unknown properties are `warnings`.
///
/// @example
/// ```js
/// const { valid, errors } = validateSnapshot(body);
/// if (!valid) return res.status(422).json(errors);
/// ```
#[wasm_bindgen(js_name = validateSnapshot, unchecked_return_type = "SnapshotValidation")]
pub fn validate_snapshot(
    #[wasm_bindgen(unchecked_param_type = "string | object")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let report = match from_js(&input, "the snapshot") {
        Ok(value) => validate(&value),
        Err(e) => Report {
            errors: vec![Issue {
                path: e.path.unwrap_or_default(),
                code: e.code.as_str(),
                message: e.message,
            }],
            warnings: Vec::new(),
        },
    };
    out(Ok(report.to_value()))
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

/// A JavaScript value read as a [`Doc`]: members and items are fetched one by
/// one, and only nodes that are kept are turned into JSON values.
struct JsDoc(JsValue);

fn is_plain_object(v: &JsValue) -> bool {
    v.is_object() && !Array::is_array(v)
}

impl Doc for JsDoc {
    type Node = JsValue;

    fn root(&self) -> JsValue {
        self.0.clone()
    }

    fn get(&self, node: &JsValue, key: &str) -> Option<JsValue> {
        if !is_plain_object(node) {
            return None;
        }
        // Own properties only: `Reflect.get` would also find inherited ones.
        let object: &Object = node.unchecked_ref();
        if !Object::has_own(object, &JsValue::from_str(key)) {
            return None;
        }
        Reflect::get(node, &JsValue::from_str(key))
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    }

    fn keys(&self, node: &JsValue) -> Option<Vec<String>> {
        is_plain_object(node).then(|| {
            Object::keys(node.unchecked_ref::<Object>())
                .iter()
                .filter_map(|k| k.as_string())
                .collect()
        })
    }

    fn len(&self, node: &JsValue) -> Option<usize> {
        Array::is_array(node).then(|| Array::from(node).length() as usize)
    }

    fn at(&self, node: &JsValue, i: usize) -> Option<JsValue> {
        Reflect::get_u32(node, i as u32)
            .ok()
            .filter(|v| !v.is_undefined())
    }

    fn value(&self, node: &JsValue) -> Result<Value, SteplineError> {
        // A string node is a string, not JSON text to parse.
        if let Some(s) = node.as_string() {
            return Ok(Value::String(s));
        }
        from_js(node, "the agent state")
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
        let message = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_default();
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
