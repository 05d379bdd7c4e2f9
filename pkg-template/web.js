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
import { entryPoints } from './entry.js';

export { SteplineError } from './entry.js';
const { init, initSync } = entryPoints(rawInit, rawInitSync, __registerErrorClass);
export { init as default, initSync };

// @stepline-exports (this line is replaced by scripts/build.mjs)
