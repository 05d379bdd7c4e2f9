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

// `session.subscribe` and `session.getSnapshot` are handed to React's
// `useSyncExternalStore` unbound, and wasm-bindgen's methods read `this.__wbg_ptr`:
// each instance gets its own bound copy on first read, kept, so the functions stay the
// same on every render. The browser entries do the same (entry.js, bindViewMethods).
for (const name of ['subscribe', 'getSnapshot']) {
  const method = glue.Session.prototype[name];
  Object.defineProperty(glue.Session.prototype, name, {
    configurable: true,
    enumerable: false,
    get() {
      if (this === glue.Session.prototype || !(this instanceof glue.Session)) return method;
      const bound = method.bind(this);
      if (Object.isExtensible(this)) Object.defineProperty(this, name, { value: bound, configurable: true, writable: true });
      return bound;
    },
  });
}

exports.SteplineError = SteplineError;
// @stepline-exports (this line is replaced by scripts/build.mjs)
