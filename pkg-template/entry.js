// What the browser entries (web.js, live.js) share: the SteplineError class, the
// init/initSync wrappers that hand it to the wasm instance they start (so that every
// failure is thrown as `new SteplineError(code, path, message)`), and the binding of
// Session's view methods. Both entries use this one class: `instanceof SteplineError`
// holds whichever of them threw.

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

/**
 * `session.subscribe` and `session.getSnapshot` are handed to React's
 * `useSyncExternalStore` as they are, unbound, and wasm-bindgen's methods read
 * `this.__wbg_ptr`. Each instance gets its own bound copy on first read, kept, so the
 * functions are the same on every render (React resubscribes when `subscribe` changes).
 * A prototype getter, not a constructor wrapper: `Session.fromRecording` makes its
 * instances without the constructor. index.cjs holds the same function for Node.
 */
export function bindViewMethods(Session) {
  for (const name of ['subscribe', 'getSnapshot']) {
    const method = Session.prototype[name];
    Object.defineProperty(Session.prototype, name, {
      configurable: true,
      enumerable: false,
      get() {
        if (this === Session.prototype || !(this instanceof Session)) return method;
        const bound = method.bind(this);
        if (Object.isExtensible(this)) Object.defineProperty(this, name, { value: bound, configurable: true, writable: true });
        return bound;
      },
    });
  }
}

/**
 * Node's fetch cannot read file: URLs, which is where the wasm is when a browser entry
 * runs in Node (tests, SSR, scripts): read those bytes from disk instead. Reached
 * through `process.getBuiltinModule` (Node 20.16+), so that bundlers see no import of
 * a Node module. Anything else is left to the glue (fetch, or the bytes as they are).
 */
function fromFileUrl(input) {
  const url = input instanceof URL ? input : typeof input === 'string' && input.startsWith('file:') ? new URL(input) : null;
  if (url === null || url.protocol !== 'file:') return input;
  const getBuiltinModule = globalThis.process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') {
    throw new Error(`stepline: cannot read ${url.href} here (loading the wasm from a file: URL needs Node 20.16 or newer); `
      + "pass its bytes to init({ module_or_path: bytes }), or import 'stepline', the Node entry, which needs no init()");
  }
  return getBuiltinModule('node:fs').readFileSync(url);
}

/** A plain `{ key: value }` object, the form wasm-bindgen reads without a deprecation warning. */
function isOptionsObject(value, key) {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && key in value;
}

/**
 * `init` and `initSync` for one wasm-bindgen glue module. `wasmUrl` is where that glue
 * finds its wasm by default (it is only read where that is a file: URL, i.e. in Node).
 * Both accept the documented forms (nothing, the bytes, a Response, a URL, a compiled
 * WebAssembly.Module, or `{ module_or_path }` / `{ module }`) and always pass the glue
 * the object form, so no form logs wasm-bindgen's "deprecated parameters" warning.
 */
export function entryPoints(rawInit, rawInitSync, registerErrorClass, wasmUrl) {
  const defaultInput = () => (wasmUrl.protocol === 'file:' ? wasmUrl : undefined);
  return {
    async init(input) {
      let source = isOptionsObject(input, 'module_or_path') ? input.module_or_path : input;
      source = fromFileUrl(source === undefined ? defaultInput() : await source);
      const exports = await rawInit(source === undefined ? undefined : { module_or_path: source });
      registerErrorClass(SteplineError);
      return exports;
    },
    initSync(input) {
      let module = isOptionsObject(input, 'module') ? input.module : input;
      module = fromFileUrl(module === undefined ? defaultInput() : module);
      const exports = rawInitSync({ module });
      registerErrorClass(SteplineError);
      return exports;
    },
  };
}
