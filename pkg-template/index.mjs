// Node entry, ES module. It re-exports the CommonJS entry rather than loading the
// wasm a second time: `import` and `require` of stepline in one process share the
// same instance and the same SteplineError class.
import stepline from './index.cjs';

// @stepline-exports (this line is replaced by scripts/build.mjs)
