//! `normalizeInferenceResponse` and `InferenceStreamAccumulator`.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{ErrorCode, SteplineError};
use crate::model::provider::openai::{normalize_response, StreamAccumulator, StreamDelta};
use crate::model::provider::{NormalizeOptions, Normalized};
use crate::model::read;
use crate::model::time::{resolve_now, NowSpec};

use super::convert::{clock, from_js, now_option, options, out};

/// Options shared by `normalizeInferenceResponse` and the accumulator.
struct InferenceOptions {
    core: NormalizeOptions,
    now: Option<NowSpec>,
}

impl InferenceOptions {
    fn read(input: &Option<JsValue>) -> Result<InferenceOptions, SteplineError> {
        let opts = options(input, &["provider", "now", "compat"])?;
        match read::opt_str(&opts, "provider", "/options")? {
            None | Some("openai") => {}
            Some(other) => {
                return Err(SteplineError::at(
                    ErrorCode::InvalidValue,
                    "/options/provider",
                    format!(
                        "expected provider \"openai\", found {}",
                        crate::json::quote(other)
                    ),
                ))
            }
        }
        let mut core = NormalizeOptions::default();
        if let Some(compat) = opts.get("compat").filter(|v| !v.is_null()) {
            let compat = read::object(compat, "/options/compat", "compat options")?;
            read::only_keys(compat, &["toolArgsAsContent"], "/options/compat")?;
            core.compat_tool_args_as_content = read::bool_or(compat, "toolArgsAsContent", false);
        }
        Ok(InferenceOptions {
            core,
            now: now_option(&opts)?,
        })
    }
}

fn normalized_json(n: &Normalized) -> Value {
    crate::json::obj([
        ("response", n.response.to_value()),
        (
            "finishReason",
            Value::from(n.response.finish_reason().as_str()),
        ),
        (
            "assistantMessage",
            n.assistant_message
                .as_ref()
                .map_or(Value::Null, |m| m.to_value()),
        ),
    ])
}

fn delta_json(d: &StreamDelta) -> Value {
    let calls: Vec<Value> = d
        .tool_calls
        .iter()
        .map(|c| {
            crate::json::obj([
                ("index", Value::from(c.index)),
                ("id", Value::from(c.id.clone())),
                ("name", Value::from(c.name.clone())),
                ("arguments", Value::from(c.arguments.clone())),
            ])
        })
        .collect();
    crate::json::obj([
        ("content", Value::from(d.content.clone())),
        ("reasoning", Value::from(d.reasoning.clone())),
        ("toolCalls", Value::from(calls)),
        ("finishReason", Value::from(d.finish_reason.clone())),
        ("done", Value::from(d.done)),
    ])
}

/// Turns a provider's response body (OpenAI chat completions) into the
/// producer's `InferenceResponse` form. Content is the model's text only: it
/// never falls back to tool-call arguments (the reference bug from seed 004,
/// reproducible with `compat: { toolArgsAsContent: true }`).
/// `assistantMessage` is the message to append to the conversation, or `null`
/// when the response has no real text.
///
/// @example
/// ```js
/// const { response, finishReason, assistantMessage } =
///   normalizeInferenceResponse(await res.json());
/// if (assistantMessage) messages.push(assistantMessage);
/// for (const call of response.toolCalls) run(call.name, call.arguments);
/// ```
#[wasm_bindgen(js_name = normalizeInferenceResponse, unchecked_return_type = "NormalizedInference")]
pub fn normalize_inference_response(
    #[wasm_bindgen(unchecked_param_type = "string | object")] payload: JsValue,
    opts: Option<super::types::NormalizeInferenceOptionsArg>,
) -> Result<JsValue, JsValue> {
    out((|| {
        let opts = InferenceOptions::read(&opts.map(JsValue::from))?;
        let now = resolve_now(opts.now.as_ref(), clock(), "/options/now")?;
        let value = from_js(&payload, "the provider response")?;
        Ok(normalized_json(&normalize_response(
            &value, &opts.core, &now,
        )?))
    })())
}

/// Accumulates a streamed response chunk by chunk. Text deltas carry only the
/// model's text (tool-call argument fragments never appear in them); tool calls
/// are assembled by index and decoded once, in `finish()`.
///
/// @example
/// ```js
/// const acc = new InferenceStreamAccumulator();
/// for await (const line of sseLines) {
///   const delta = acc.push(line);          // "data: {...}" or a chunk object
///   if (delta.content) render(delta.content);
/// }
/// const { response } = acc.finish();
/// acc.free();
/// ```
#[wasm_bindgen]
pub struct InferenceStreamAccumulator {
    inner: StreamAccumulator,
    now: Option<NowSpec>,
}

#[wasm_bindgen]
impl InferenceStreamAccumulator {
    /// Starts an empty accumulator. Options as for `normalizeInferenceResponse`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        opts: Option<super::types::NormalizeInferenceOptionsArg>,
    ) -> Result<InferenceStreamAccumulator, JsValue> {
        let opts =
            InferenceOptions::read(&opts.map(JsValue::from)).map_err(super::errors::to_js_error)?;
        Ok(InferenceStreamAccumulator {
            inner: StreamAccumulator::new(opts.core),
            now: opts.now,
        })
    }

    /// Adds one chunk: an SSE line (`"data: {...}"`, `"data: [DONE]"`), a chunk's
    /// JSON text, or a chunk object. Returns what this chunk added.
    #[wasm_bindgen(unchecked_return_type = "StreamDelta")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | object")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        let result = match chunk.as_string() {
            Some(line) if line.trim_start().starts_with("data:") || line.trim().is_empty() => {
                self.inner.push_sse_line(&line)
            }
            _ => from_js(&chunk, "a stream chunk").and_then(|v| self.inner.push(&v)),
        };
        out(result.map(|d| delta_json(&d)))
    }

    /// The complete response so far (call after the last chunk).
    #[wasm_bindgen(unchecked_return_type = "NormalizedInference")]
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        out((|| {
            let now = resolve_now(self.now.as_ref(), clock(), "/options/now")?;
            Ok(normalized_json(&self.inner.finish(&now)?))
        })())
    }

    /// Text accumulated so far.
    #[wasm_bindgen(getter)]
    pub fn content(&self) -> String {
        self.inner.content().to_string()
    }

    /// Number of chunks accepted so far.
    #[wasm_bindgen(getter, js_name = chunkCount)]
    pub fn chunk_count(&self) -> usize {
        self.inner.chunk_count()
    }
}
