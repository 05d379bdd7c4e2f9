// The devtools entry, `stepline/devtools`, for browsers and bundlers: the whole API in
// one wasm, `stepline`'s and what only a devtools needs (Session.timeline and
// envelopesOf, exportOtlp, cost, pricesFromState, compareRuns, diagnose,
// Session.replayContinuation). A page that shows a run first and its devtools later
// imports it lazily:
//
//   const devtools = await import('stepline/devtools');
//   await devtools.default();
//   const session = devtools.Session.fromRecording(recording);
//   session.timeline().viewAt(3);
//
// Its Session is its own wasm's: a session of `stepline` or `stepline/live` moves over
// by its recording (`Session.fromRecording(other.toRecording())`).
import rawInit, { initSync as rawInitSync, __registerErrorClass } from './devtools/stepline.js';
import { Session } from './devtools/stepline.js';
import { entryPoints } from './entry.js';
import { installSessionView } from './view.js';

export { SteplineError } from './entry.js';
// The glue's wasm, read in Node; `here`, not import.meta.url, so bundlers emit it once.
const here = import.meta.url;
const { init, initSync } = entryPoints(rawInit, rawInitSync, __registerErrorClass, new URL('./devtools/stepline_bg.wasm', here));
export { init as default, initSync };
installSessionView(Session);

// @stepline-exports (this line is replaced by scripts/build.mjs)
