// Every public function and method, called on every run of both corpora, the
// demo runs and a 39-step run, returns exactly the shape its generated
// declaration says: a field written in Rust but not declared fails here, and so
// does a declared field that no run returns. The calls are listed per domain in
// tests/js/shapes/; the declared return types are read from the package's .d.ts.
// Through `stepline/devtools`, which holds the whole API (`stepline` is a part of it,
// the same core built without the devtools' exports).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as stepline from 'stepline/devtools';

import { corpusRuns } from './lib/corpus.mjs';
import { ShapeChecker, declaredReturns, schemaOfType, bundle } from './lib/shapes.mjs';
import { calls as sessionCalls, notData as sessionNotData } from './shapes/session.mjs';
import { calls as modelCalls, notData as modelNotData } from './shapes/model.mjs';
import { calls as envelopeCalls, notData as envelopeNotData } from './shapes/envelopes.mjs';
import { calls as reportsCalls, notData as reportsNotData } from './shapes/reports.mjs';

const domains = [
  { calls: sessionCalls, notData: sessionNotData },
  { calls: modelCalls, notData: modelNotData },
  { calls: envelopeCalls, notData: envelopeNotData },
  { calls: reportsCalls, notData: reportsNotData },
];

const calls = Object.assign({}, ...domains.map((d) => d.calls));
const notData = Object.assign({}, ...domains.map((d) => d.notData ?? {}));
const returns = declaredReturns();
const classes = new Set(Object.keys(returns).filter((k) => k.includes('.')).map((k) => k.split('.')[0]));

const checker = new ShapeChecker();
const runs = await corpusRuns();

test('every exported function and method is called by a shape check, or says why its result is not data', () => {
  const unlisted = Object.keys(returns).filter((name) => !(name in calls) && !(name in notData));
  assert.deepEqual(unlisted, [], `add these to tests/js/shapes/<domain>.mjs: ${unlisted.join(', ')}`);
  const stale = [...Object.keys(calls), ...Object.keys(notData)].filter((name) => !(name in returns));
  assert.deepEqual(stale, [], 'listed but not exported');
});

test('what every public function returns on every run is the declared shape', async () => {
  assert.ok(runs.length >= 50, `${runs.length} runs`);
  for (const [name, call] of Object.entries(calls)) {
    const schema = schemaOfType(returns[name], classes);
    assert.ok(schema, `${name} returns ${returns[name]}, which is not data: list it under notData`);
    let n = 0;
    for await (const [where, value] of call({ stepline, runs })) {
      checker.check(schema, value, `${name} on ${where}`);
      n++;
    }
    assert.ok(n > 0, `${name} was never called`);
  }
  assert.deepEqual(checker.failures.slice(0, 20), [], `${checker.failures.length} of ${checker.checked} results do not match their declaration`);
});

test('every declared property of a returned shape is returned by some run', () => {
  assert.ok(checker.checked > 0);
  assert.deepEqual(checker.neverSeen(), [], 'declared but never returned (a run that returns it belongs in tests/js/shapes/)');
});

test('the schema bundle closes every object it declares', () => {
  const open = [];
  const visit = (schema, path) => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.properties && schema.additionalProperties === undefined) open.push(path);
    for (const [k, v] of Object.entries(schema)) visit(v, `${path}/${k}`);
  };
  visit(bundle.$defs, '#/$defs');
  assert.deepEqual(open, []);
});
