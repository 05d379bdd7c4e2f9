'use strict';
// The Node entries' SteplineError (index.cjs for `stepline`, devtools.cjs for
// `stepline/devtools`): one class, so `instanceof SteplineError` holds for a failure
// thrown by either entry's wasm in one process. The browser entries share entry.js's.
// Declared for TypeScript in node/stepline.d.ts (generated from the Rust crate).
class SteplineError extends Error {
  constructor(code, path, message) {
    super(message);
    this.name = 'SteplineError';
    this.code = code;
    this.path = path;
  }
}

exports.SteplineError = SteplineError;
