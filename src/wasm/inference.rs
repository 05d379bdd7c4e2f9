//! `normalizeInferenceResponse` and `InferenceStreamAccumulator`.

use wasm_bindgen::prelude::*;

use crate::error::SteplineError;
use crate::model::provider::openai::{normalize_response, StreamAccumulator};
use crate::model::provider::{NormalizeInferenceOptions, Normalized};
use crate::model::time::{resolve_now, NowSpec};

use super::convert::{clock, from_js, options_map, out};

/// Options shared by `normalizeInferenceResponse` and the accumulator.
fn inference_options(input: Option<JsValue>) -> Result<NormalizeInferenceOptions, SteplineError> {
    NormalizeInferenceOptions::read(&options_map(&input)?)
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
    let normalized = (|| {
        let opts = inference_options(opts.map(JsValue::from))?;
        let now = resolve_now(opts.now.as_ref(), clock(), "/options/now")?;
        let value = from_js(&payload, "the provider response")?;
        normalize_response(&value, &opts.core(), &now)
    })();
    out(normalized
        .as_ref()
        .map(Normalized::view)
        .map_err(Clone::clone))
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
            inference_options(opts.map(JsValue::from)).map_err(super::errors::to_js_error)?;
        Ok(InferenceStreamAccumulator {
            inner: StreamAccumulator::new(opts.core()),
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
        out(result)
    }

    /// The complete response so far (call after the last chunk).
    #[wasm_bindgen(unchecked_return_type = "NormalizedInference")]
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        let normalized = resolve_now(self.now.as_ref(), clock(), "/options/now")
            .and_then(|now| self.inner.finish(&now));
        out(normalized
            .as_ref()
            .map(Normalized::view)
            .map_err(Clone::clone))
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
