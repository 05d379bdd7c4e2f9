// Node entry, ES module. It re-exports the CommonJS entry rather than loading the
// wasm a second time: `import` and `require` of stepline in one process share the
// same instance and the same SteplineError class.
import stepline from './index.cjs';

// Nothing to wait for in Node (the wasm loads with the module): these let code written
// for the browser entry (`import init from 'stepline'; await init();`) run unchanged.
export default async function init(_input) {}
export function initSync(_input) {}

// @stepline-exports (this line is replaced by scripts/build.mjs)
