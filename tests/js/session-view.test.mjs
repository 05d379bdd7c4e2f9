// Session's view in JavaScript (pkg-template/view.js): `getSnapshot()` builds the
// published objects from the core's patches, and `ingest` turns the core's outcome
// index into an object. These tests pin that the JavaScript half shows exactly the
// view the core holds, whatever order and redeliveries the envelopes come in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Session } from 'stepline/devtools';
import initLive, { Session as LiveSession } from 'stepline/live';
import { describeRun } from '../../bench/agent-run.mjs';
import { encode } from '../../bench/contenders/stepline.mjs';
import { v2Vectors } from './lib/vectors.mjs';
import { randomRun } from '../../scripts/lib/dialects/run.mjs';
import { encode as encodeLaravel } from '../../scripts/lib/dialects/laravel-ai.mjs';
import { encode as encodeAgUi } from '../../scripts/lib/dialects/ag-ui.mjs';
import { encode as encodeAiSdk } from '../../scripts/lib/dialects/ai-sdk.mjs';

await initLive();
const schema = JSON.parse(readFileSync(new URL('../../schemas/stepline.schema.json', import.meta.url), 'utf8'));

/** The view without `counts`, which a timeline's view leaves at its own. */
const withoutCounts = (view) => JSON.stringify({ ...view, counts: null });

/** A seeded shuffle within windows of `span` envelopes, and every seventh one sent twice. */
function scrambled(envelopes, span = 6) {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const out = [];
  for (let i = 0; i < envelopes.length; i += span) {
    const window = envelopes.slice(i, i + span);
    for (let j = window.length - 1; j > 0; j -= 1) {
      const k = Math.floor(rand() * (j + 1));
      [window[j], window[k]] = [window[k], window[j]];
    }
    for (const e of window) {
      out.push(e);
      if (out.length % 7 === 0) out.push(e);
    }
  }
  return out;
}

test("getSnapshot() is the core's view after every envelope of a 40-step run delivered out of order with redeliveries", () => {
  const envelopes = scrambled(encode(describeRun({ events: 8_200 })));
  const session = new Session();
  let steps = 0;
  envelopes.forEach((envelope, i) => {
    session.ingest(envelope);
    const view = session.getSnapshot();
    steps = view.executions[0]?.steps.length ?? 0;
    if (i % 401 === 0 || i === envelopes.length - 1) {
      const timeline = session.timeline();
      assert.equal(withoutCounts(view), withoutCounts(timeline.viewAt(timeline.length)), `after envelope ${i}`);
      timeline.free();
    }
  });
  assert.ok(steps >= 40, `${steps} steps`);
  session.free();
});

for (const [dialect, encode] of [['laravel/ai', encodeLaravel], ['AG-UI', encodeAgUi], ['AI SDK', encodeAiSdk]]) {
  test(`getSnapshot() is the core's view after every event of ${dialect} runs whose steps stream text and reasoning`, () => {
    const session = new Session();
    let events = 0;
    let streamed = 0;
    for (let seed = 1; seed <= 4; seed += 1) {
      const run = randomRun(seed, { maxSteps: 8 });
      run.sessionId = 'sess-view';
      for (const event of encode(run)) {
        session.ingest(event);
        const view = session.getSnapshot();
        events += 1;
        if (events % 37 === 0) {
          const timeline = session.timeline();
          assert.equal(withoutCounts(view), withoutCounts(timeline.viewAt(timeline.length)), `${dialect}, event ${events}`);
          timeline.free();
        }
      }
      const timeline = session.timeline();
      assert.equal(withoutCounts(session.getSnapshot()), withoutCounts(timeline.viewAt(timeline.length)), `${dialect}, run ${seed}`);
      timeline.free();
    }
    for (const exec of session.getSnapshot().executions) {
      streamed += exec.steps.filter((step) => step.text.length > 0 || step.reasoning.length > 0).length;
    }
    assert.ok(streamed >= 4, `${streamed} steps with streamed text`);
    session.free();
  });
}

test('getSnapshot() of both entries agree on every v2.7 agent run, and freeze every object they publish', () => {
  let runs = 0;
  for (const { name, expected } of v2Vectors('agent-runs.json')) {
    const envelopes = expected.flatMap((outcome) => (outcome.envelopes ?? []).map((sent) => sent.envelope));
    if (envelopes.length === 0) continue;
    runs += 1;
    const full = new Session();
    const live = new LiveSession();
    for (const envelope of envelopes) {
      full.ingest(envelope);
      live.ingest(envelope);
    }
    const view = full.getSnapshot();
    assert.equal(JSON.stringify(live.getSnapshot()), JSON.stringify(view), name);
    assert.ok(Object.isFrozen(view) && Object.isFrozen(view.executions) && Object.isFrozen(view.warnings), name);
    for (const exec of view.executions) {
      assert.ok(Object.isFrozen(exec) && Object.isFrozen(exec.steps) && exec.steps.every(Object.isFrozen), name);
    }
    full.free();
    live.free();
  }
  assert.ok(runs >= 30, `${runs} runs`);
});

test("a published execution has the schema's fields in the core's order, and an unchanged one is the same object", () => {
  const session = new Session();
  const [status, ...rest] = encode(describeRun({ events: 200 }));
  session.ingest(status);
  session.ingest({ ...status, execution_id: 'exec-2' });
  const first = session.getSnapshot();
  assert.deepEqual(Object.keys(first), Object.keys(schema.$defs.SessionView.properties));
  assert.deepEqual(Object.keys(first.executions[0]), Object.keys(schema.$defs.ExecutionView.properties));
  session.ingest(rest[0]);
  const second = session.getSnapshot();
  assert.notEqual(second, first);
  assert.notEqual(second.executions[0], first.executions[0]);
  assert.equal(second.executions[1], first.executions[1], 'the execution no envelope touched');
  assert.equal(session.getSnapshot(), second, 'no ingest in between: the same snapshot');
  session.free();
});

test("a read after ingestJsonl (a patch of megabytes, taken as bytes) is the view read envelope by envelope, non-ASCII text included", async () => {
  const { Session: NodeSession } = await import('stepline');
  // The streamed text, tool arguments and continuation reasons get characters past U+007F
  // (escapes in the patch): one- and two-unit UTF-16 (an astral one), and U+00FF, whose
  // UTF-8 bytes would read as two other characters if a patch were decoded as Latin-1.
  const texts = new Set(['content', 'query', 'reason']);
  const accented = (key, value) => (texts.has(key) && typeof value === 'string' ? `${value} é東京🚀\u00ff` : value);
  const envelopes = encode(describeRun({ events: 6_000 })).map((e) => JSON.parse(JSON.stringify(e), accented));
  const half = envelopes.length >> 1;
  const lines = (list) => list.map((e) => JSON.stringify(e)).join('\n');
  for (const [name, S] of [['stepline/devtools', Session], ['stepline', NodeSession], ['stepline/live', LiveSession]]) {
    const oneByOne = new S();
    for (const e of envelopes.slice(0, half)) oneByOne.ingest(e);
    const bulk = new S();
    bulk.ingestJsonl(lines(envelopes.slice(0, half)));
    const first = bulk.getSnapshot();
    assert.ok(JSON.stringify(first).length > 64 * 1024, `${name}: a large first patch`);
    assert.equal(JSON.stringify(first), JSON.stringify(oneByOne.getSnapshot()), `${name}: the first read`);
    assert.ok(JSON.stringify(first).includes('é東京🚀\u00ff'), `${name}: the text came through`);
    assert.equal(bulk.getSnapshot(), first, `${name}: nothing since: the same snapshot`);
    for (const e of envelopes.slice(half)) oneByOne.ingest(e);
    bulk.ingestJsonl(lines(envelopes.slice(half)));
    const second = bulk.getSnapshot();
    assert.equal(JSON.stringify(second), JSON.stringify(oneByOne.getSnapshot()), `${name}: the read after a second ingestJsonl`);
    bulk.ingest(envelopes[0]);
    const third = bulk.getSnapshot();
    assert.equal(third.counts.duplicates, second.counts.duplicates + 1, `${name}: a redelivery, read as a string`);
    assert.equal(third.executions[0], second.executions[0], `${name}: the execution a redelivery left as it was`);
    oneByOne.free();
    bulk.free();
  }
});

test('ingest() returns a new outcome object each time, for applied, duplicate and foreign-session envelopes alike', () => {
  const session = new Session({ sessionId: 'sess-bench' });
  const [envelope] = encode(describeRun({ events: 200 }));
  const applied = session.ingest(envelope);
  const duplicate = session.ingest(envelope);
  const foreign = session.ingest({ ...envelope, session_id: 'another' });
  assert.deepEqual(applied, { applied: true, duplicate: false, rejected: null, warnings: [] });
  assert.deepEqual(duplicate, { applied: false, duplicate: true, rejected: null, warnings: [] });
  assert.deepEqual(foreign, { applied: false, duplicate: false, rejected: 'foreign_session', warnings: [] });
  const again = session.ingest(envelope);
  assert.notEqual(again, duplicate);
  again.warnings.push('mine');
  assert.deepEqual(session.ingest(envelope).warnings, []);
  const event = session.ingestEvent('.instructor.agent.event', envelope);
  assert.deepEqual(event, duplicate);
  assert.equal(session.ingestEvent('App\\Events\\OrderShipped', { id: 7 }), null);
  session.free();
});
