// Browser and bundler entry, ES module. Call the default export once before
// anything else:
//
//   import init, { version } from 'stepline';
//   await init();            // fetches stepline_bg.wasm next to web/stepline.js (Node: reads it)
//   console.log(version());
//
// `init(input)` and `initSync({ module })` accept the wasm bytes, a Response, a URL
// or a compiled WebAssembly.Module, for users who load the wasm themselves.
import rawInit, { initSync as rawInitSync, __registerErrorClass } from './web/stepline.js';
import { Session } from './web/stepline.js';
import { entryPoints } from './entry.js';
import { installSessionView } from './view.js';

export { SteplineError } from './entry.js';
// The glue's wasm, read in Node; `here`, not import.meta.url, so bundlers emit it once.
const here = import.meta.url;
const { init, initSync } = entryPoints(rawInit, rawInitSync, __registerErrorClass, new URL('./web/stepline_bg.wasm', here));
export { init as default, initSync };
installSessionView(Session);

// @stepline-exports (this line is replaced by scripts/build.mjs)
