// Errors thrown by the wasm are instances of the package's SteplineError class.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import * as stepline from 'stepline';

const require = createRequire(import.meta.url);

/** Calls `fn` and returns what it threw (fails if it returned). */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
}

function parseAgentState() {
  assert.equal(typeof stepline.parseAgentState, 'function', 'the built package does not export parseAgentState');
  return stepline.parseAgentState;
}

test('invalid JSON throws a SteplineError with code invalid_json and no path', () => {
  const error = thrown(() => parseAgentState()('{'));
  assert.ok(error instanceof stepline.SteplineError, `not a SteplineError: ${error}`);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'SteplineError');
  assert.equal(error.code, 'invalid_json');
  assert.equal(error.path, null);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.ok(typeof error.stack === 'string' && error.stack.includes('SteplineError'));
});

test('an error raised through the ES module entry is an instance of the CommonJS class', () => {
  const error = thrown(() => parseAgentState()('{'));
  assert.ok(error instanceof require('stepline').SteplineError);
});
