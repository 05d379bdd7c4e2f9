'use strict';
// The devtools entry in Node, CommonJS: the whole API, `stepline`'s and what only a
// devtools needs (Session.timeline and envelopesOf, exportOtlp, cost, pricesFromState,
// compareRuns, diagnose, Session.replayContinuation), in its own wasm. devtools.mjs
// re-exports this file, so a process that loads it both ways gets one instance.
const glue = require('./devtools-node/stepline.cjs');
const { SteplineError } = require('./error.cjs');

glue.__registerErrorClass(SteplineError);
require('./view.cjs').installSessionView(glue.Session);

exports.SteplineError = SteplineError;
// @stepline-exports (this line is replaced by scripts/build.mjs)
