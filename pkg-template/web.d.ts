// The API is declared once, by wasm-bindgen, from the Rust sources; `init` (the
// default export) and `initSync` keep the generated signatures.
export * from './web/stepline.js';
export { default } from './web/stepline.js';
