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

// React calls `subscribe` and `getSnapshot` unbound: each session gets bound copies on
// first read, kept. As bindViewMethods in entry.js, for the browser entries.
for (const name of ['subscribe', 'getSnapshot']) {
  const { Session } = glue;
  const method = Session.prototype[name];
  Object.defineProperty(Session.prototype, name, {
    configurable: true,
    get() {
      if (!(this instanceof Session) || this === Session.prototype) return method;
      const bound = method.bind(this);
      if (Object.isExtensible(this)) Object.defineProperty(this, name, { value: bound, writable: true, configurable: true });
      return bound;
    },
  });
}

exports.SteplineError = SteplineError;
// @stepline-exports (this line is replaced by scripts/build.mjs)
