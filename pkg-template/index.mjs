// Node entry, ES module. It re-exports the CommonJS entry rather than loading the
// wasm a second time: `import` and `require` of stepline in one process share the
// same instance and the same SteplineError class.
import stepline from './index.cjs';

/**
 * In Node the wasm is loaded with the module, so there is nothing to wait for: `init()`
 * resolves at once and `initSync()` returns. They are here so that code written for the
 * browser entry (`import init from 'stepline'; await init();`) also runs in Node, where
 * TypeScript's bundler resolution already accepts it. Their argument is ignored.
 */
export default async function init(_input) {}
export function initSync(_input) {}

// @stepline-exports (this line is replaced by scripts/build.mjs)
