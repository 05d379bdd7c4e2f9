// Session.envelopesOf(exec, step, { before }) through the built package: a step
// as it stood after the session's first `before` envelopes, at the position
// timeline().viewAt(i) takes (the step exists exactly when viewAt shows it, and
// its envelopes only grow, one at a time); past the end, absent or null is the
// whole run; a bad `before` throws a SteplineError at /options/before.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Session, SteplineError } from 'stepline/devtools';
import { demoRun } from '../../scripts/demo-run.mjs';
import { v1Vectors } from './lib/vectors.mjs';

const runs = v1Vectors('agent-runs.json');

function sessionOf(envelopes) {
  const s = new Session();
  // Every envelope applied: envelope i of the list is envelope i of the timeline.
  for (const e of envelopes) assert.equal(s.ingest(e).applied, true);
  return s;
}

test('before i, a step exists exactly when viewAt(i) shows it, and gains only envelope i', async () => {
  const demo = await demoRun();
  const all = [
    ['demo run', demo.envelopes],
    ...runs.map((r) => [r.name, r.expected.flatMap((t) => t.envelopes.map((e) => e.envelope))]),
  ];
  let present = 0;
  for (const [name, envelopes] of all) {
    const s = sessionOf(envelopes);
    const timeline = s.timeline();
    assert.equal(timeline.length, envelopes.length, name);
    const whole = s.getSnapshot().executions;
    for (let i = 0; i <= timeline.length; i++) {
      const shown = timeline.viewAt(i).executions;
      const arrived = timeline.length > i ? JSON.parse(JSON.stringify(envelopes[i])) : null;
      for (const [e, exec] of whole.entries()) {
        for (const { number } of exec.steps) {
          const at = `${name}: execution ${e} step ${number} before ${i}`;
          const got = s.envelopesOf(e, number, { before: i });
          const has = shown[e]?.steps.some((x) => x.number === number) ?? false;
          assert.equal(got !== null, has, `${at}: exists in one and not the other`);
          if (!got) continue;
          present++;
          const next = s.envelopesOf(e, number, { before: i + 1 });
          assert.deepEqual(next.envelopes.slice(0, got.envelopes.length), got.envelopes, at);
          const added = next.envelopes.length - got.envelopes.length;
          assert.ok(added === 0 || (added === 1 && arrived !== null), `${at}: ${added} added`);
          if (added === 1) assert.deepEqual(next.envelopes.at(-1), arrived, at);
        }
      }
    }
    timeline.free();
    s.free();
  }
  assert.ok(present > 300, `bounded steps checked: ${present}`);
});

test('at or past the end, absent, empty or null: the whole run', async () => {
  const { envelopes } = await demoRun();
  const s = sessionOf(envelopes);
  const timeline = s.timeline();
  const end = timeline.length;
  timeline.free();
  for (const [e, exec] of s.getSnapshot().executions.entries()) {
    for (const { number } of exec.steps) {
      const whole = s.envelopesOf(e, number);
      assert.ok(whole.envelopes.length > 0);
      for (const options of [undefined, null, {}, { before: null }, { before: end }, { before: end + 1 }, { before: 2 ** 53 }]) {
        assert.deepEqual(s.envelopesOf(e, number, options), whole, `execution ${e} step ${number} ${JSON.stringify(options)}`);
      }
      assert.equal(s.envelopesOf(e, number, { before: 0 }), null, 'nothing had arrived at the start');
    }
  }
  s.free();
});

test('a bad before is a SteplineError with its path', () => {
  const s = sessionOf(runs[0].expected[0].envelopes.map((e) => e.envelope));
  const cases = [
    [{ before: -1 }, 'out_of_range', '/options/before'],
    [{ before: 1.5 }, 'invalid_type', '/options/before'],
    [{ before: '3' }, 'invalid_type', '/options/before'],
    [{ before: Number.NaN }, 'invalid_type', '/options/before'],
    [{ before: Number.POSITIVE_INFINITY }, 'out_of_range', '/options/before'],
    [{ befor: 3 }, 'invalid_value', '/options/befor'],
    [3, 'invalid_type', '/options'],
  ];
  for (const [options, code, path] of cases) {
    assert.throws(() => s.envelopesOf(0, 1, options), (err) => {
      assert.ok(err instanceof SteplineError, `${JSON.stringify(options)}: ${err}`);
      assert.equal(err.code, code, `${JSON.stringify(options)}: ${err.message}`);
      assert.equal(err.path, path, `${JSON.stringify(options)}: ${err.message}`);
      return true;
    });
  }
  s.free();
});
