// `import 'stepline'` in Node: ES module entry over the CommonJS glue.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import * as stepline from 'stepline';
import { SteplineError, version } from 'stepline';

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(require.resolve('stepline/package.json'), 'utf8'));

test('version() names the package version and the build', () => {
  assert.match(version(), /^\d+\.\d+\.\d+\+\S+$/);
  assert.equal(version().split('+')[0], manifest.version);
});

test('SteplineError is a real Error subclass', () => {
  assert.equal(typeof SteplineError, 'function');
  assert.ok(SteplineError.prototype instanceof Error);
});

test('the internal __registerErrorClass is not exported', () => {
  assert.equal('__registerErrorClass' in stepline, false);
  assert.equal(Object.keys(stepline).some((name) => name.startsWith('__')), false);
});

test('import and require in one process share one instance and one SteplineError', () => {
  const cjs = require('stepline');
  assert.equal(cjs.SteplineError, SteplineError);
  assert.equal(cjs.version, version);
});
