//! TypeScript declarations for the data stepline returns. They describe the
//! producer's wire format (field names exactly as on the wire) and are emitted
//! into the generated `.d.ts` by wasm-bindgen, so they ship with the code.

use wasm_bindgen::prelude::*;

/// The declarations generated from the Rust types (`npm run gen`, from
/// src/schema.rs): every shape the API reads and returns.
#[wasm_bindgen(typescript_custom_section)]
const GENERATED_TYPES: &'static str = include_str!("generated/types.d.ts");

// Options parameters as TypeScript types, so `Option<…>` parameters are emitted
// as optional (`opts?: EvaluateOptions | null`).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "ParseAgentStateOptions")]
    pub type ParseAgentStateOptionsArg;
    #[wasm_bindgen(typescript_type = "NormalizeInferenceOptions")]
    pub type NormalizeInferenceOptionsArg;
    #[wasm_bindgen(typescript_type = "EvaluateOptions")]
    pub type EvaluateOptionsArg;
    #[wasm_bindgen(typescript_type = "SlimOptions")]
    pub type SlimOptionsArg;
    #[wasm_bindgen(typescript_type = "EnvelopeEncoderOptions")]
    pub type EncoderOptionsArg;
    #[wasm_bindgen(typescript_type = "SessionOptions")]
    pub type SessionOptionsArg;
}
