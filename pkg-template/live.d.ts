// The live entry's API is declared by wasm-bindgen from the Rust sources built without
// the `full` feature; `init` (the default export) and `initSync` keep the generated
// signatures.
export * from './live/stepline.js';
export { default } from './live/stepline.js';
