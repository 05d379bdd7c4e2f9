// The devtools entry's API is declared by wasm-bindgen from the Rust sources built with
// the `devtools` feature; `init` (the default export) and `initSync` keep the generated
// signatures.
export * from './devtools/stepline.js';
export { default } from './devtools/stepline.js';
