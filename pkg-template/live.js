// The live entry, `stepline/live`: what a web UI needs to show a run as it streams
// (decodeEnvelope, tryDecodeEnvelope, decodeEnvelopes, channelFor, Session without
// `reconcile`, the role tests, version), in a wasm about half the size of the full
// package's. Same core, same behaviour; the rest of the API is in `stepline`.
//
//   import init, { Session } from 'stepline/live';
//   await init();            // fetches stepline_bg.wasm next to live/stepline.js (Node: reads it)
//   const session = new Session({ sessionId });
//
// `init(input)` and `initSync({ module })` accept the wasm bytes, a Response, a URL
// or a compiled WebAssembly.Module, for users who load the wasm themselves
// (`stepline/live/stepline_bg.wasm`).
import rawInit, { initSync as rawInitSync, __registerErrorClass } from './live/stepline.js';
import { Session } from './live/stepline.js';
import { entryPoints } from './entry.js';
import { installSessionView } from './view.js';

export { SteplineError } from './entry.js';
// The glue's wasm, read in Node; `here`, not import.meta.url, so bundlers emit it once.
const here = import.meta.url;
const { init, initSync } = entryPoints(rawInit, rawInitSync, __registerErrorClass, new URL('./live/stepline_bg.wasm', here));
export { init as default, initSync };
installSessionView(Session);

// @stepline-exports (this line is replaced by scripts/build.mjs)
