'use strict';
// Node entry, CommonJS. The ES module entry (index.mjs) re-exports this file, so a
// process that loads stepline both ways gets one wasm instance and one SteplineError.
const glue = require('./node/stepline.js');

// Declared for TypeScript in node/stepline.d.ts (generated from the Rust crate).
class SteplineError extends Error {
  constructor(code, path, message) {
    super(message);
    this.name = 'SteplineError';
    this.code = code;
    this.path = path;
  }
}

// The wasm throws `new SteplineError(code, path, message)` from here on.
glue.__registerErrorClass(SteplineError);

// Session's view methods (getSnapshot, bound subscribe, ingest's outcome objects):
// view.cjs, which scripts/build.mjs writes from view.js, the browser entries' copy.
require('./view.cjs').installSessionView(glue.Session);

exports.SteplineError = SteplineError;
// @stepline-exports (this line is replaced by scripts/build.mjs)
