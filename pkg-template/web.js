// Browser and bundler entry, ES module. Call the default export once before
// anything else:
//
//   import init, { version } from 'stepline';
//   await init();            // fetches stepline_bg.wasm next to web/stepline.js
//   console.log(version());
//
// `init(input)` and `initSync({ module })` accept the wasm bytes, a Response, a URL
// or a compiled WebAssembly.Module, for users who load the wasm themselves.
import rawInit, { initSync as rawInitSync, __registerErrorClass } from './web/stepline.js';

// Declared for TypeScript in web/stepline.d.ts (generated from the Rust crate).
export class SteplineError extends Error {
  constructor(code, path, message) {
    super(message);
    this.name = 'SteplineError';
    this.code = code;
    this.path = path;
  }
}

export default async function init(module_or_path) {
  const exports = await rawInit(module_or_path);
  __registerErrorClass(SteplineError);
  return exports;
}

export function initSync(module) {
  const exports = rawInitSync(module);
  __registerErrorClass(SteplineError);
  return exports;
}

// @stepline-exports (this line is replaced by scripts/build.mjs)
