// Reconciling instructor-php v2.7 runs through the built package: each turn of
// every agent run in tests/vectors/instructor-php-v2.7/agent-runs.json, ingested
// envelope by envelope into one Session, against that turn's final v2 state
// slimmed with slimSnapshot() under each preset. A difference is allowed only
// with a cause from reconcileCauses(), and each cause is pinned to the runs
// that show it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { reconcileCauses, Session, slimSnapshot } from 'stepline';

const v2 = new URL('../../tests/vectors/instructor-php-v2.7/', import.meta.url);
const runs = JSON.parse(readFileSync(new URL('agent-runs.json', v2), 'utf8'));
const PRESETS = ['minimal', 'standard', 'full'];

/** The corpus shows generated ids as "<uuid>"; a stored state has real ones. */
function withIds(value) {
  let n = 0;
  return JSON.parse(JSON.stringify(value), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++n).padStart(12, '0')}` : v));
}

/**
 * Turn `t`'s envelopes, stamped `t` minutes later: the corpus ran under a
 * frozen clock, so its turns repeat the same envelopes at the same instant,
 * which a receiver must take for redeliveries; a real clock moves on.
 */
function turnEnvelopes(turn, t) {
  return turn.envelopes.map(({ envelope }) => ({
    ...envelope,
    timestamp: new Date(Date.parse(envelope.timestamp) + t * 60_000).toISOString(),
  }));
}

/** `[{ turn, preset, report }]` for every turn of `run` and every preset. */
function reconcileAll(run) {
  const session = new Session();
  const out = [];
  for (const [t, turn] of run.expected.entries()) {
    for (const envelope of turnEnvelopes(turn, t)) {
      const outcome = session.ingest(envelope);
      assert.ok(outcome.applied, `${run.name} turn ${t}: ${envelope.type}`);
    }
    for (const preset of PRESETS) {
      const { snapshot } = slimSnapshot(withIds(turn.finalState), { preset });
      assert.equal(snapshot.state_version, 'v2');
      out.push({ turn: t, preset, report: session.reconcile(snapshot) });
    }
  }
  session.free();
  return out;
}

const byName = (name) => runs.find((r) => r.name === name) ?? assert.fail(`no run ${name}`);

/** The `kind cause` pairs a run shows under every preset, sorted, once each. */
function causesOf(name) {
  const pairs = reconcileAll(byName(name)).flatMap(({ report }) => report.differences.map((d) => `${d.kind} ${d.cause}`));
  return [...new Set(pairs)].sort();
}

test('reconcileCauses() lists each cause once with its producer, README items and description', () => {
  const causes = reconcileCauses();
  assert.deepEqual(causes.map((c) => c.name).sort(), [
    'reference_exception_path', 'v2_aborted_step', 'v2_guard_started_step', 'v2_step_errors_fail_state', 'v2_unforced_stop',
  ]);
  for (const c of causes) {
    assert.ok(['v1.22', 'v2'].includes(c.producer), c.name);
    assert.ok(c.items.length > 0 && c.description.length > 40, c.name);
  }
});

test('every v2 turn reconciles with its final state under every preset, every difference naming a listed cause', () => {
  const named = new Set(reconcileCauses().map((c) => c.name));
  let checked = 0;
  for (const run of runs) {
    for (const { turn, preset, report } of reconcileAll(run)) {
      const unexplained = report.differences.filter((d) => !named.has(d.cause)).map((d) => `${d.kind} ${d.path}: ${d.message}`);
      assert.deepEqual(unexplained, [], `${run.name} turn ${turn} [${preset}]`);
      assert.equal(report.consistent, report.differences.length === 0);
      checked += 1;
    }
  }
  assert.equal(checked, 47 * 3);
});

test('plain, tool, observer and multi-turn runs are consistent', () => {
  for (const name of [
    'plain final answer [standard]',
    'tool call then answer [debug]',
    'UseAgentBroadcasting capability (observer) tool call then answer [debug]',
    'real driver: streamed tool-call step then streamed answer via UseAgentBroadcasting capability (observer) [debug]',
    'multi-turn: three turns with tool calls and streaming [debug]',
  ]) {
    for (const { turn, preset, report } of reconcileAll(byName(name))) assert.ok(report.consistent, `${name} turn ${turn} [${preset}]`);
  }
});

test('each cause is named where its run shows it', () => {
  assert.deepEqual(causesOf('failing tool (throws) then answer [debug]'), ['status_mismatch v2_step_errors_fail_state']);
  assert.deepEqual(causesOf('steps limit 2 reached (model always calls tools) [standard]'), ['extra_step v2_guard_started_step']);
  assert.deepEqual(causesOf('driver exception on first inference [debug]'), ['extra_step v2_aborted_step']);
  assert.deepEqual(causesOf('tool throws AgentStopException (stop requested) [debug]'), ['extra_step v2_aborted_step', 'lost_event v2_aborted_step']);
  assert.deepEqual(causesOf('autoStatusTracking disabled, tool call then answer [custom]'), ['status_mismatch v2_unforced_stop']);
});

test('the view after reconciling takes the v2 state\'s status', () => {
  const [{ report }] = reconcileAll(byName('failing tool (throws) then answer [debug]'));
  assert.equal(report.view.state_status, 'failed');
  assert.equal(report.view.status, 'failed', 'the snapshot wins');
});

test('the v2 demo run (npm run demo:live -- --producer v2) reconciles with its final state, which never shows its API key', async () => {
  const { demoRunV2 } = await import('../../scripts/demo-run-v2.mjs');
  const apiKey = 'sk-proj-demo-test-5e2f0a2b5e2f0a2b';
  const { envelopes, finalStates } = await demoRunV2({ apiKey });
  assert.ok(envelopes.some((e) => e.type === 'agent.stream.chunk' && e.payload.content.startsWith('{"id":"chatcmpl-')), 'raw provider frames among the chunks');
  const session = new Session();
  let sent = 0;
  for (const [t, state] of finalStates.entries()) {
    // Each turn's envelopes end with its trailing `stopped` (item 6).
    const end = envelopes.findIndex((e, i) => i >= sent && e.type === 'agent.status' && e.payload.status === 'stopped');
    for (const envelope of envelopes.slice(sent, end + 1)) assert.ok(session.ingest(envelope).applied);
    sent = end + 1;
    for (const preset of PRESETS) {
      const { snapshot } = slimSnapshot(state, { preset });
      const report = session.reconcile(snapshot);
      assert.deepEqual(report.differences, [], `turn ${t} [${preset}]`);
      assert.equal(report.view.state_status, 'completed');
      assert.ok(!JSON.stringify({ snapshot, report }).includes(apiKey), `turn ${t} [${preset}]: no API key`);
    }
  }
  assert.equal(sent, envelopes.length);
  session.free();
});
