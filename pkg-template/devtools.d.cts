// The API is declared once, by wasm-bindgen, from the Rust sources.
export * from './devtools-node/stepline.js';
