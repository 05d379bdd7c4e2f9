// Redelivery, resync and merges through the built package: a recording (`toRecording()`)
// or a server log merged into a live session that holds part of the run leaves
// `getSnapshot().executions` deep-equal to the whole run's; a run with real timestamps
// delivered with windows shuffled across step boundaries gives the in-order view.
// The reference's recorded runs (frozen clock) come from tests/vectors, the real-clock
// runs from bench/generate-envelopes.mjs (timestamps counting up, tool events without
// step numbers or call ids, as v1.22 sends them).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Session } from 'stepline/devtools';
import { generateEnvelopes } from '../../bench/generate-envelopes.mjs';

const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('../vectors/cognesy-v1.22/', import.meta.url);
const runs = JSON.parse(readFileSync(new URL('agent-runs.json', vectorsDir), 'utf8'));
const envelopesOf = (run) => run.expected.flatMap((turn) => turn.envelopes.map((e) => e.envelope));

const jsonl = (envelopes) => envelopes.map((e) => JSON.stringify(e)).join('\n');
/** The envelope lines of a recording (its first line is the `stepline_recording` header). */
const recordingBody = (text) => text.split('\n').filter((l) => l && !l.includes('"stepline_recording"')).join('\n');

function live(envelopes) {
  const s = new Session();
  for (const e of envelopes) s.ingest(e);
  return s;
}

/** A seeded shuffle (xorshift), so a failure names its seed. */
function shuffled(list, seed) {
  let x = seed | 1;
  const out = list.slice();
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

test('merging a recording into a live session that holds the start of the run gives the whole run (every reference run)', () => {
  for (const run of runs) {
    const all = envelopesOf(run);
    const whole = live(all);
    const recording = whole.toRecording();
    for (let held = 0; held <= all.length; held++) {
      const s = live(all.slice(0, held));
      const out = s.ingestJsonl(recordingBody(recording));
      assert.deepEqual(s.getSnapshot().executions, whole.getSnapshot().executions, `${run.name}, holding ${held}`);
      assert.equal(out.duplicates, held, `${run.name}, holding ${held}: the held envelopes are redeliveries`);
      assert.equal(out.applied, all.length - held);
      s.free();
    }
    whole.free();
  }
});

test('replaying a finished run, whole or any part in any order, changes nothing but the duplicate counter', () => {
  for (const run of runs) {
    const all = envelopesOf(run);
    const s = live(all);
    const view = s.getSnapshot();
    s.ingestJsonl(jsonl(all)); // a resync replaying the server log
    s.ingestJsonl(jsonl(shuffled(all, 7)));
    for (const e of shuffled(all, 11).slice(0, Math.ceil(all.length / 2))) assert.equal(s.ingest(e).duplicate, true, run.name);
    assert.deepEqual(s.getSnapshot().executions, view.executions, run.name);
    assert.equal(s.getSnapshot().counts.duplicates, 2 * all.length + Math.ceil(all.length / 2));
    s.free();
  }
});

test('identical tool events of consecutive steps under the reference\'s frozen clock are two calls, each on its step', () => {
  const run = runs.find((r) => r.name.startsWith('steps limit 2'));
  const view = live(envelopesOf(run)).getSnapshot();
  const steps = view.executions[0].steps;
  assert.deepEqual(steps.map((s) => s.tools.length), [1, 1]);
  assert.deepEqual(steps.flatMap((s) => s.tools.map((t) => t.attribution)), ['arrival', 'arrival'], 'timestamps could not decide');
});

test('a real-clock run: windows of envelopes shuffled across step boundaries give the in-order view, every tool run placed by its timestamp', () => {
  const all = generateEnvelopes({ envelopes: 3_000, seed: 15 });
  const inOrder = live(all).getSnapshot();
  const tools = inOrder.executions[0].steps.flatMap((s) => s.tools);
  assert.ok(tools.length > 100);
  assert.ok(tools.every((t) => t.attribution === 'timestamp'));
  for (const [window, seed] of [[24, 1], [48, 2], [64, 3]]) {
    const arrival = [];
    for (let i = 0; i < all.length; i += window) arrival.push(...shuffled(all.slice(i, i + window), seed + i));
    const s = live(arrival);
    assert.deepEqual(s.getSnapshot().executions, inOrder.executions, `windows of ${window}`);
    s.free();
  }
});

test('a real-clock run: the recording merged into a session that holds any part of it gives the whole run', () => {
  const all = generateEnvelopes({ envelopes: 2_000, seed: 16 });
  const whole = live(all);
  const recording = whole.toRecording();
  for (const seed of [3, 5, 9]) {
    const held = shuffled(all, seed).slice(0, 1_200); // a random part, in a random order
    const s = live(held);
    const out = s.ingestJsonl(recordingBody(recording));
    assert.deepEqual(s.getSnapshot().executions, whole.getSnapshot().executions, `seed ${seed}`);
    assert.equal(out.duplicates, held.length);
    s.free();
  }
});
