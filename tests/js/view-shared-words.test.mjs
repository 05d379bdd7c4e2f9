// The published view keeps each word a run repeats once (pkg-template/view.js, `Words`):
// a step's type, its tools' names and its continuation's criteria, reasons and explanation
// arrive again with every step, and JSON.parse makes a new string of each. Sharing a string
// cannot be seen from JavaScript (`===` compares content), so these tests count the copies
// in a heap snapshot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';

import { Session } from 'stepline';
import { describeRun } from '../../bench/agent-run.mjs';
import { encode } from '../../bench/contenders/stepline.mjs';

/** How many strings in the heap read exactly `value`. */
async function copiesInHeap(values) {
  const chunks = [];
  for await (const chunk of v8.getHeapSnapshot()) chunks.push(chunk);
  const snap = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const { node_fields: fields, node_types: [types] } = snap.snapshot.meta;
  const [width, type, name] = [fields.length, fields.indexOf('type'), fields.indexOf('name')];
  const counts = new Map(values.map((v) => [v, 0]));
  for (let i = 0; i < snap.nodes.length; i += width) {
    if (types[snap.nodes[i + type]] !== 'string') continue;
    const s = snap.strings[snap.nodes[i + name]];
    if (counts.has(s)) counts.set(s, counts.get(s) + 1);
  }
  return counts;
}

test('a live loop over 40 steps keeps one copy of each repeated word of its view', async () => {
  const run = describeRun({ events: 8_000 });
  const session = new Session({ record: false });
  let view;
  for (const envelope of encode(run)) {
    session.ingest(envelope);
    view = session.getSnapshot();
  }
  const steps = view.executions[0].steps;
  assert.ok(steps.length >= 40, `${steps.length} steps`);
  const step = steps.find((s) => s.continuation?.evaluations?.length > 0 && s.tools.length > 0);
  const tool = step.tools.find((t) => t.name.length > 10);
  const repeated = steps.filter((s) => s.explanation === step.explanation).length;
  assert.ok(repeated >= 20, `the run repeats its explanation (${repeated} steps)`);
  const words = [step.type, step.explanation, step.continuation.resolved_by, tool.name,
    ...step.continuation.evaluations.flatMap((e) => [e.criterion, e.reason])];
  const wanted = [...new Set(words.filter((w) => typeof w === 'string' && w.length > 10))];
  const counts = await copiesInHeap(wanted);
  for (const [word, copies] of counts) assert.ok(copies <= 2, `${copies} copies of ${JSON.stringify(word)}`);
  session.free();
});
