'use strict';
// Node entry, CommonJS. The ES module entry (index.mjs) re-exports this file, so a
// process that loads stepline both ways gets one wasm instance and one SteplineError.
const glue = require('./node/stepline.js');

const { SteplineError } = require('./error.cjs');

// The wasm throws `new SteplineError(code, path, message)` from here on.
glue.__registerErrorClass(SteplineError);

// Session's view methods (getSnapshot, bound subscribe, ingest's outcome objects):
// view.cjs, which scripts/build.mjs writes from view.js, the browser entries' copy.
require('./view.cjs').installSessionView(glue.Session);

exports.SteplineError = SteplineError;
// @stepline-exports (this line is replaced by scripts/build.mjs)
