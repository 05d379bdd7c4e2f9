// The browser entry (`stepline` under the browser/import conditions, or `stepline/web`
// anywhere): nothing works until `init()`, which takes the wasm bytes when the caller
// loads them itself. Node has no fetch for file: URLs, so these tests pass the bytes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import init, * as web from 'stepline/web';
import * as node from 'stepline';

const require = createRequire(import.meta.url);
const wasmBytes = readFileSync(require.resolve('stepline/stepline_bg.wasm'));

test('init() with the wasm bytes resolves and version() names the build', async () => {
  const exports = await init({ module_or_path: wasmBytes });
  assert.ok(exports.memory instanceof WebAssembly.Memory);
  assert.match(web.version(), /^\d+\.\d+\.\d+\+\S+$/);
  assert.equal(web.version(), node.version());
});

test('initSync() after init() is harmless and returns the same instance', async () => {
  const first = await init({ module_or_path: wasmBytes });
  const second = web.initSync({ module: new WebAssembly.Module(wasmBytes) });
  assert.equal(second, first);
});

test('the browser entry exports init, initSync and SteplineError but not __registerErrorClass', () => {
  assert.equal(typeof web.default, 'function');
  assert.equal(typeof web.initSync, 'function');
  assert.ok(web.SteplineError.prototype instanceof Error);
  assert.equal(Object.keys(web).some((name) => name.startsWith('__')), false);
});

test('errors from the browser entry are its own SteplineError after init()', async () => {
  await init({ module_or_path: wasmBytes });
  assert.equal(typeof web.parseAgentState, 'function', 'the built package does not export parseAgentState');
  let error;
  try {
    web.parseAgentState('{');
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof web.SteplineError, `not a SteplineError: ${error}`);
  assert.ok(error instanceof Error);
  assert.equal(error.code, 'invalid_json');
  assert.equal(error.path, null);
});
