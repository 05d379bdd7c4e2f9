// `require('stepline')` in Node: the CommonJS entry.
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');

const stepline = require('stepline');
const manifest = require('stepline/package.json');

test('version() names the package version and the build', () => {
  assert.match(stepline.version(), /^\d+\.\d+\.\d+\+\S+$/);
  assert.equal(stepline.version().split('+')[0], manifest.version);
});

test('SteplineError is a real Error subclass', () => {
  assert.equal(typeof stepline.SteplineError, 'function');
  assert.ok(stepline.SteplineError.prototype instanceof Error);
});

test('the internal __registerErrorClass is not exported', () => {
  assert.equal('__registerErrorClass' in stepline, false);
  assert.equal(Object.keys(stepline).some((name) => name.startsWith('__')), false);
});

test('a dynamic import from CommonJS sees the same SteplineError', async () => {
  const esm = await import('stepline');
  assert.equal(esm.SteplineError, stepline.SteplineError);
  assert.equal(esm.version, stepline.version);
});
