// What the browser entries (web.js, live.js) share: the SteplineError class and the
// init/initSync wrappers that hand it to the wasm instance they start, so that every
// failure is thrown as `new SteplineError(code, path, message)`. Both entries use
// this one class: `instanceof SteplineError` holds whichever of them threw.

// Declared for TypeScript in web/stepline.d.ts and live/stepline.d.ts (generated
// from the Rust crate).
export class SteplineError extends Error {
  constructor(code, path, message) {
    super(message);
    this.name = 'SteplineError';
    this.code = code;
    this.path = path;
  }
}

/** `init` and `initSync` for one wasm-bindgen glue module. */
export function entryPoints(rawInit, rawInitSync, registerErrorClass) {
  return {
    async init(module_or_path) {
      const exports = await rawInit(module_or_path);
      registerErrorClass(SteplineError);
      return exports;
    },
    initSync(module) {
      const exports = rawInitSync(module);
      registerErrorClass(SteplineError);
      return exports;
    },
  };
}
