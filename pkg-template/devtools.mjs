// The devtools entry in Node, ES module: re-exports the CommonJS one (devtools.cjs), so
// `import` and `require` of stepline/devtools in one process share one wasm instance.
import stepline from './devtools.cjs';

// Nothing to wait for in Node (the wasm loads with the module): these let code written
// for the browser entry (`import init from 'stepline/devtools'; await init();`) run unchanged.
export default async function init(_input) {}
export function initSync(_input) {}

// @stepline-exports (this line is replaced by scripts/build.mjs)
