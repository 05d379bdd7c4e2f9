// The live entry, `stepline/live`: the same core built without the `full` feature, for web
// UIs (the size budget in scripts/size-budget.json). It must export exactly the live API and behave
// exactly like the full package on every input both accept. Node has no fetch for file:
// URLs, so the wasm bytes are passed to init().
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import init, * as live from 'stepline/live';
import * as full from 'stepline';
import * as web from 'stepline/web';

import { demoRun as demoRunOf } from '../../scripts/demo-run.mjs';

const require = createRequire(import.meta.url);
const liveBytes = readFileSync(require.resolve('stepline/live/stepline_bg.wasm'));
const fullBytes = readFileSync(require.resolve('stepline/stepline_bg.wasm'));
await init({ module_or_path: liveBytes });

const root = new URL('../../', import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const runs = JSON.parse(readFileSync(new URL('agent-runs.json', vectorsDir), 'utf8'));
// The panel's bundled run, made the way scripts/build-www.mjs makes it (not committed).
const { recording: demoRun } = await demoRunOf();

/** What `live` and `full` give for `fn`, as `{ ok, value }` or `{ ok: false, error }`. */
function outcome(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return { ok: false, error: { name: e.name, code: e.code, path: e.path, message: e.message } };
  }
}

test('the live entry exports exactly the live API, and it is a subset of the full one', () => {
  const names = Object.keys(live).sort();
  assert.deepEqual(names, [
    'Session', 'SteplineError', 'channelFor', 'decodeEnvelope', 'decodeEnvelopes', 'default', 'defaultEventName', 'hasRole',
    'initSync', 'isAgentEventName', 'isAssistant', 'isDeveloper', 'isSystem', 'isTool', 'isUser', 'tryDecodeEnvelope', 'version',
  ]);
  for (const name of names) if (!['default', 'initSync'].includes(name)) assert.ok(name in full, `${name} is not in the full package`);
  assert.equal(typeof live.Session.prototype.reconcile, 'undefined', 'reconcile needs the snapshot reader: full package only');
  assert.equal(typeof live.Session.prototype.ingestFinalState, 'undefined', 'ingestFinalState reconciles: full package only');
  assert.equal(live.version(), full.version(), 'both wasm files come from one build');
});

test('the live wasm is the smaller build, under half the full one', () => {
  assert.ok(liveBytes.length * 2 < fullBytes.length, `live ${liveBytes.length} B, full ${fullBytes.length} B`);
});

test('every reference run gives the same ingest results, views and collected response in both builds', () => {
  let compared = 0;
  for (const r of runs) {
    const a = new live.Session();
    const b = new full.Session();
    for (const turn of r.expected) {
      for (const { envelope } of turn.envelopes) {
        assert.deepEqual(a.ingest(envelope), b.ingest(envelope), r.name);
        assert.deepEqual(a.ingest(JSON.stringify(envelope)), b.ingest(JSON.stringify(envelope)), `${r.name}: redelivery`);
        assert.deepEqual(a.getSnapshot(), b.getSnapshot(), r.name);
        compared += 1;
      }
    }
    assert.deepEqual(a.collect(), b.collect(), r.name);
    assert.equal(a.toRecording().split('\n').slice(1).join('\n'), b.toRecording().split('\n').slice(1).join('\n'), r.name);
    assert.equal(a.sessionId, b.sessionId);
  }
  assert.equal(compared, 75);
});

test('the bundled recorded run replays to the same view, from JSONL and as a recording', () => {
  const a = new live.Session();
  const b = new full.Session();
  const batch = a.ingestJsonl(demoRun);
  assert.deepEqual(batch, b.ingestJsonl(demoRun));
  assert.ok(batch.applied > 100, `applied ${batch.applied}`);
  assert.deepEqual(a.getSnapshot(), b.getSnapshot());
  const ra = live.Session.fromRecording(demoRun);
  const rb = full.Session.fromRecording(demoRun);
  assert.deepEqual(ra.getSnapshot(), rb.getSnapshot());
  assert.deepEqual(ra.recordedSnapshots(), rb.recordedSnapshots());
});

test('decoding and the helpers agree with the full build, errors included, and errors are the live SteplineError', () => {
  const all = runs.flatMap((r) => r.expected.flatMap((t) => t.envelopes.map((e) => e.envelope)));
  const jsonl = all.map((e) => JSON.stringify(e)).join('\n');
  assert.deepEqual(live.decodeEnvelopes(jsonl), full.decodeEnvelopes(jsonl));
  const bad = ['{', '[]', '{"type":"agent.status","payload":{}}', '{"type":"agent.stream.chunk","session_id":1}', '\uFEFF{}', ''];
  for (const input of [...all.map((e) => JSON.stringify(e)), ...bad]) {
    assert.deepEqual(outcome(() => live.decodeEnvelope(input)), outcome(() => full.decodeEnvelope(input)), input);
    assert.deepEqual(live.tryDecodeEnvelope(input), full.tryDecodeEnvelope(input), input);
  }
  assert.equal(live.channelFor('sess-1'), full.channelFor('sess-1'));
  for (const message of [{ role: 'assistant' }, { role: 'tool' }, { role: 'user' }, {}]) {
    assert.equal(live.isAssistant(message), full.isAssistant(message));
    assert.equal(live.hasRole(message, 'tool'), full.hasRole(message, 'tool'));
  }
  let error;
  try {
    new live.Session({ sessionId: 'a', unknownOption: 1 });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof live.SteplineError, `not the live SteplineError: ${error}`);
  assert.ok(!(error instanceof full.SteplineError), 'the Node entry has its own error class');
  assert.equal(live.SteplineError, web.SteplineError, 'the browser entries share one (pkg/entry.js)');
  assert.equal(error.path, '/options/unknownOption');
  const expected = outcome(() => new full.Session({ sessionId: 'a', unknownOption: 1 })).error;
  assert.deepEqual({ name: error.name, code: error.code, path: error.path, message: error.message }, expected);
});
