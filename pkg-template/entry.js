// What the browser entries (web.js, live.js) share: the SteplineError class, the
// init/initSync wrappers that hand it to the wasm instance they start (so that every
// failure is thrown as `new SteplineError(code, path, message)`). Session's view
// methods are view.js's. One class: `instanceof SteplineError` holds for either entry.

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

// Node's fetch cannot read file: URLs, where the wasm is when a browser entry runs in
// Node: read the bytes (getBuiltinModule, Node 20.16+: no import for bundlers to see).
function fromFileUrl(input) {
  const url = input instanceof URL ? input : typeof input === 'string' && input.startsWith('file:') ? new URL(input) : null;
  if (url?.protocol !== 'file:') return input;
  const load = globalThis.process?.getBuiltinModule;
  if (!load) throw new Error(`stepline: cannot read ${url.href} (needs Node 20.16+); pass the wasm bytes to init()`);
  return load('node:fs').readFileSync(url);
}

const unwrap = (v, key) => (v && Object.getPrototypeOf(v) === Object.prototype && key in v ? v[key] : v);

/**
 * `init` and `initSync` for one glue module whose wasm is at `wasmUrl` (read only when
 * that is a file: URL). Every documented input (nothing, bytes, a Response, a URL, a
 * WebAssembly.Module, `{ module_or_path }`, `{ module }`) reaches the glue in its object
 * form, so none logs wasm-bindgen's "deprecated parameters" warning.
 */
export function entryPoints(rawInit, rawInitSync, registerErrorClass, wasmUrl) {
  const fallback = wasmUrl.protocol === 'file:' ? wasmUrl : undefined;
  return {
    async init(input) {
      const source = fromFileUrl((await unwrap(input, 'module_or_path')) ?? fallback);
      const exports = await rawInit(source === undefined ? undefined : { module_or_path: source });
      registerErrorClass(SteplineError);
      return exports;
    },
    initSync(input) {
      const exports = rawInitSync({ module: fromFileUrl(unwrap(input, 'module') ?? fallback) });
      registerErrorClass(SteplineError);
      return exports;
    },
  };
}
