// Reconciling runs longer than the snapshot's step window, through the built
// package. A slim snapshot lists the run's last N steps numbered 1..N inside
// the window, with `step_count` the run's total (vectors quirk 2): reconcile
// places them at the end of the run, keeps the steps before the window as
// streamed, marks them outside it and never counts them as differences.
// The long runs come from scripts/long-run.mjs (the producer's events through
// EnvelopeEncoder, and the full state its loop builds).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Session, slimSnapshot } from 'stepline';

import { longRun } from '../../scripts/long-run.mjs';

const root = new URL('../../', import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const runs = JSON.parse(readFileSync(new URL('agent-runs.json', vectorsDir), 'utf8'));

const PRESETS = { standard: 20, minimal: 0, full: 50 };

function sessionOf(envelopes) {
  const s = new Session();
  for (const e of envelopes) assert.equal(s.ingest(e).applied, true);
  return s;
}

const lastSteps = (report) => report.view.executions.at(-1).steps;

test("the issue's repro: a 2-step reference run against a last-1 window is consistent and step 1 keeps its finish reason", () => {
  const turn = runs.find((r) => r.name.startsWith('tool call then')).expected[0];
  const s = sessionOf(turn.envelopes.map((e) => e.envelope));
  const { snapshot } = slimSnapshot(turn.finalState, { maxSteps: 1 });
  assert.equal(snapshot.steps[0].step_number, 1, 'numbered inside the window');
  const report = s.reconcile(snapshot);
  assert.deepEqual(report.differences, []);
  assert.equal(report.consistent, true);
  assert.deepEqual(report.window, { step_count: 2, listed: 1, first_step: 2, last_step: 2, outside_steps: [1], outside_step_count: 1 });
  const [one, two] = lastSteps(report);
  assert.equal(one.finish_reason, 'tool_calls');
  assert.equal(one.snapshot_window, 'outside');
  assert.equal(two.finish_reason, 'stop');
  assert.equal(two.snapshot_window, 'inside');
});

for (const steps of [30, 120]) {
  test(`a ${steps}-step run reconciles as consistent against standard, minimal and full snapshots; every step keeps its own data`, async () => {
    const { envelopes, state } = await longRun({ steps });
    const s = sessionOf(envelopes);
    const streamed = s.getSnapshot().executions[0].steps;
    assert.equal(streamed.length, steps);
    for (const [preset, max] of Object.entries(PRESETS)) {
      const { snapshot } = slimSnapshot(state, { preset });
      assert.equal(snapshot.step_count, steps, preset);
      const report = s.reconcile(snapshot);
      assert.deepEqual(report.differences, [], preset);
      assert.equal(report.consistent, true, preset);
      const listed = Math.min(max, steps);
      const first = steps - listed + 1;
      assert.deepEqual(report.window, {
        step_count: steps,
        listed,
        first_step: listed ? first : null,
        last_step: listed ? steps : null,
        outside_steps: Array.from({ length: first - 1 }, (_, i) => i + 1),
        outside_step_count: first - 1,
      }, preset);
      const reconciled = lastSteps(report);
      assert.equal(reconciled.length, steps, preset);
      for (const [i, step] of reconciled.entries()) {
        const { snapshot_window: place, ...own } = step;
        assert.equal(place, i + 1 >= first ? 'inside' : 'outside', `${preset} step ${i + 1}`);
        assert.deepEqual(own, streamed[i], `${preset}: step ${i + 1} keeps its own data`);
      }
    }
  });
}

test("a difference inside the window names the run's own step; the snapshot wins there only", async () => {
  const { envelopes, state } = await longRun({ steps: 30 });
  const s = sessionOf(envelopes);
  const { snapshot } = slimSnapshot(state);
  snapshot.steps[0].finish_reason = 'length';
  const report = s.reconcile(snapshot);
  assert.deepEqual(report.differences.map((d) => [d.kind, d.path, d.step]), [['field_mismatch', '/steps/0/finish_reason', 11]]);
  const steps = lastSteps(report);
  assert.equal(steps[10].finish_reason, 'length');
  assert.equal(steps[0].finish_reason, 'tool_calls');
});

test('a long run on the exception path differs only by what the reference causes', async () => {
  const { envelopes, state } = await longRun({ steps: 30, ending: 'toolThrows' });
  const s = sessionOf(envelopes);
  const report = s.reconcile(slimSnapshot(state).snapshot);
  assert.deepEqual(report.differences.map((d) => [d.kind, d.step, d.cause]), [
    ['status_mismatch', null, 'reference_exception_path'],
    ['step_not_completed', 30, 'reference_exception_path'],
    ['tool_call_unexpected', 30, 'reference_exception_path'],
  ]);
  assert.equal(report.window.outside_step_count, 10);
});

test('the stored state itself is read whole by the wasm: every step of a 39-step run compared, the thrown one with its error', async () => {
  const { envelopes, state } = await longRun({ steps: 39, ending: 'toolThrows' });
  const report = sessionOf(envelopes).reconcile(state);
  assert.deepEqual([report.window.listed, report.window.first_step, report.window.outside_step_count], [39, 1, 0]);
  assert.equal(report.view.executions.at(-1).status, 'failed');
  assert.equal(report.view.executions.at(-1).error, 'Connection refused', "the stored state's last step error");
  // A count past wasm32's address space keeps everything, as a large one does natively.
  const huge = 2 ** 40;
  const { snapshot } = slimSnapshot(state, { maxSteps: huge, maxMessages: huge, maxContentLength: huge });
  assert.equal(snapshot.steps.length, 39);
  assert.deepEqual(snapshot.messages, slimSnapshot(state, { maxSteps: 1000, maxMessages: 1000, maxContentLength: 1_000_000 }).snapshot.messages);
});

test('stepline replay exits 0 on a 39-step recording with a standard snapshot line, and says how many steps were outside the window', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'stepline-window-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const { recording } = await longRun({ steps: 39 });
  const file = join(tmp, 'long-run.jsonl');
  writeFileSync(file, recording({ preset: 'standard' }));
  const cli = join(fileURLToPath(root), 'node_modules', 'stepline', 'bin', 'stepline.mjs');
  const replay = (args) => spawnSync(process.execPath, [cli, 'replay', file, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

  const human = replay([]);
  assert.equal(human.status, 0, human.stdout + human.stderr);
  assert.match(human.stdout, /\nreconciliation against the recorded snapshot: consistent\n {2}snapshot window: steps 20\.\.39 compared; 19 streamed steps before it outside the window, kept as streamed\n$/);

  const json = replay(['--json']);
  assert.equal(json.status, 0, json.stderr);
  const { reconciliation } = JSON.parse(json.stdout);
  assert.equal(reconciliation.consistent, true);
  assert.equal(reconciliation.window.outside_step_count, 19);
});
