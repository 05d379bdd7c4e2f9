// laravel/ai broadcasts of generated runs, ingested event by event through the
// built package: the view has the description's text, reasoning, tool calls
// (the failing ones failed, with their error), the usage each stream_end
// reported and the reason the run ended. The streams come from the encoder
// (scripts/lib/dialects/laravel-ai.mjs), in both layouts laravel/ai sends:
// one stream_start … stream_end per provider step, and Prism's loop with a
// single stream_end for the whole run.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Session } from 'stepline';

import { encode, eventName } from '../../scripts/lib/dialects/laravel-ai.mjs';
import { approvalRun, canonicalRun, randomRun } from '../../scripts/lib/dialects/run.mjs';

const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const add = (a, b) => Object.fromEntries(Object.keys(ZERO).map((k) => [k, a[k] + (b?.[k] ?? 0)]));
const usageOf = (u) => u && Object.fromEntries(Object.keys(ZERO).map((k) => [k, u[k]]));

/** The view of `events` ingested one by one into a new session. */
function ingest(events) {
  const session = new Session();
  try {
    for (const event of events) {
      const out = session.ingest(event);
      assert.ok(out.applied, `${event.type} not applied: ${JSON.stringify(out)}`);
    }
    return session.getSnapshot();
  } finally {
    session.free();
  }
}

/** Checks the view of `run` as `layout` streams it; returns the execution. */
function checkRun(run, perStep, label) {
  const events = encode(run, { perStep });
  for (const e of events) assert.equal(eventName(e), e.type);
  const view = ingest(events);
  assert.equal(view.executions.length, 1, label);
  const exec = view.executions[0];
  assert.equal(exec.execution_id, run.executionId, label);
  assert.equal(exec.dialect, 'laravel-ai', label);
  assert.equal(exec.steps.length, run.steps.length, label);
  const failed = run.outcome.status === 'failed';
  run.steps.forEach((step, i) => {
    const got = exec.steps[i];
    const at = `${label} step ${i + 1}`;
    assert.equal(got.number, i + 1, at);
    assert.equal(got.text, step.text ?? '', at);
    assert.equal(got.reasoning, step.reasoning ?? '', at);
    const tools = step.tools ?? [];
    assert.equal(got.tools.length, tools.length, at);
    tools.forEach((tool, k) => {
      const t = got.tools[k];
      assert.equal(t.call_id, tool.id, at);
      assert.equal(t.name, tool.name, at);
      assert.deepEqual(t.args, tool.args, at);
      if (tool.error === undefined) {
        assert.equal(t.status, 'succeeded', at);
        assert.deepEqual(t.result, tool.result, at);
        assert.equal(t.error, null, at);
      } else {
        assert.equal(t.status, 'failed', at);
        assert.equal(t.error, tool.error, at);
      }
    });
  });
  // Usage: what the stream_end events carried. Per step: each step's own
  // (the failing step sends none); Prism's loop: the run's sum on the last step.
  const sent = failed ? run.steps.slice(0, -1) : run.steps;
  const total = sent.reduce((sum, s) => add(sum, s.usage), ZERO);
  if (perStep) {
    run.steps.forEach((step, i) => {
      const expected = failed && i === run.steps.length - 1 ? null : usageOf(step.usage);
      assert.deepEqual(usageOf(exec.steps[i].usage), expected, `${label} step ${i + 1} usage`);
    });
  } else if (!failed) {
    assert.deepEqual(usageOf(exec.steps.at(-1).usage), total, `${label} usage`);
  }
  // A failing run sends no stream_end in Prism's loop: no usage reached the view.
  assert.deepEqual(usageOf(exec.usage), !perStep && failed ? ZERO : total, `${label} run usage`);
  if (failed) {
    assert.equal(exec.status, 'failed', label);
    assert.equal(exec.end_reason, 'server_error', label);
    assert.equal(exec.error, run.outcome.error, label);
  } else {
    assert.equal(exec.status, 'completed', label);
    assert.equal(exec.end_reason, run.steps.at(-1).finishReason, label);
    assert.equal(exec.final_answer, run.steps.at(-1).text, label);
  }
  return exec;
}

test('the canonical run (tool steps, one failing, non-ASCII text, reasoning, a final answer) reads back from laravel/ai broadcasts in both layouts', () => {
  const run = canonicalRun();
  for (const perStep of [true, false]) {
    const exec = checkRun(run, perStep, `canonical perStep=${perStep}`);
    const failedTools = exec.steps.flatMap((s) => s.tools).filter((t) => t.status === 'failed');
    assert.deepEqual(failedTools.map((t) => t.call_id), ['call_forecast_2']);
    assert.equal(exec.usage.input, 412 + 530 + 611);
  }
});

test('50 seeded random runs read back from laravel/ai broadcasts, event by event, in both layouts', () => {
  let failedRuns = 0;
  let failedTools = 0;
  for (let seed = 1; seed <= 50; seed++) {
    const run = randomRun(seed);
    failedRuns += run.outcome.status === 'failed' ? 1 : 0;
    failedTools += run.steps.flatMap((s) => s.tools ?? []).filter((t) => t.error).length;
    checkRun(run, true, `seed ${seed}`);
    checkRun(run, false, `seed ${seed} prism`);
  }
  // The generated runs do cover failed runs and failing tools.
  assert.ok(failedRuns > 0 && failedTools > 0, `${failedRuns} failed runs, ${failedTools} failed tools`);
});

test('tools that ask a person first: the run is interrupted awaiting approval, and the resumed call shows each decision', () => {
  const run = approvalRun();
  const view = ingest(encode(run));
  // laravel/ai resumes a paused run as a new agent call (a new invocation).
  assert.deepEqual(view.executions.map((e) => e.execution_id), [run.executionId, `${run.executionId}-resumed-1`]);
  const [paused, resumed] = view.executions;
  assert.equal(paused.status, 'interrupted');
  assert.equal(paused.end_reason, 'tool_approval');
  const asked = paused.steps[0].tools;
  assert.deepEqual(asked.map((t) => [t.call_id, t.name, t.approval]), run.steps[0].tools.map((t) => [t.id, t.name, 'requested']));
  assert.deepEqual(asked.map((t) => t.args), run.steps[0].tools.map((t) => t.args));
  assert.equal(paused.steps[0].text, run.steps[0].text);
  assert.deepEqual(paused.steps[0].usage && { input: paused.steps[0].usage.input }, { input: run.steps[0].usage.input });
  assert.equal(resumed.status, 'completed');
  assert.equal(resumed.end_reason, 'stop');
  const decided = resumed.steps[0].tools;
  assert.deepEqual(decided.map((t) => [t.call_id, t.approval, t.status]), [['call_rm_1', 'approved', 'succeeded'], ['call_mail_2', 'denied', 'failed']]);
  assert.deepEqual(decided[0].result, { deleted: true });
  assert.equal(resumed.steps[1].text, run.steps[1].text);
  assert.equal(resumed.final_answer, run.steps[1].text);
});

test('a redelivered laravel/ai stream changes nothing', () => {
  const events = encode(canonicalRun());
  const session = new Session();
  try {
    for (const e of events) session.ingest(e);
    const before = session.getSnapshot();
    for (const e of events) {
      const out = session.ingest(e);
      assert.ok(out.duplicate && !out.applied);
    }
    const after = session.getSnapshot();
    assert.deepEqual(after.executions, before.executions);
  } finally {
    session.free();
  }
});
