//! `slimSnapshot`, `restoreState`, `validateSnapshot`, `snapshotSchema`.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::json::obj;
use crate::model::time::resolve_now;
use crate::model::view::agent_state_view;
use crate::model::AgentState;
use crate::snapshot::budget::slim_within;
use crate::snapshot::restore::restore;
use crate::snapshot::schema::snapshot_schema;
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
        let now = clock();
        let state = AgentState::from_value(&from_js(&state, "the agent state")?, &now)?;
        let fitted = slim_within(&state, &config, max_bytes)?;
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
