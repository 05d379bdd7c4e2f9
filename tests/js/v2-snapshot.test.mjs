// Slim snapshots and the stop logic of instructor-php v2.7 through the built
// package: slimSnapshot / validateSnapshot / restoreState recognise a v2 state
// (never an empty v1.22 one) under every preset and maxBytes, and v2's stop
// logic is data (stopReasons, resolveStopSignals, explainContinuation,
// evaluateGuards, replayGuards) checked against tests/vectors/instructor-php-v2.7.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  slimSnapshot, validateSnapshot, restoreState, snapshotSchema, evaluateContinuation,
  stopReasons, resolveStopSignals, explainContinuation, evaluateGuards, replayGuards, SteplineError,
} from 'stepline';

const v2 = new URL('../../tests/vectors/instructor-php-v2.7/', import.meta.url);
const read = (file) => JSON.parse(readFileSync(new URL(file, v2), 'utf8'));
const runs = read('agent-runs.json');
const stateModel = read('state-model.json');
const continuation = read('continuation.json');
const NOW = '2026-08-10T12:00:00.250Z';
const PRESETS = ['minimal', 'standard', 'full'];

/** The corpus shows generated ids as "<uuid>"; a stored state has real ones. */
function withIds(value) {
  let n = 0;
  return JSON.parse(JSON.stringify(value), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++n).padStart(12, '0')}` : v));
}

function thrown(fn) {
  try { fn(); } catch (error) { return error; }
  assert.fail('expected a throw');
}

/** [name, state, derived] of every agent-runs turn (state-model run-final cases carry the same states). */
const finals = runs.flatMap((run) => run.expected.map((turn, i) => [`${run.name} turn ${i}`, withIds(turn.finalState), turn.derived]));

test('slimSnapshot of every v2 final state carries its status, steps, usage and stop signal under every preset', () => {
  assert.equal(finals.length, 47);
  for (const [name, state, derived] of finals) {
    for (const preset of PRESETS) {
      const at = `${name} [${preset}]`;
      const { snapshot, bytes, truncation } = slimSnapshot(JSON.stringify(state), { preset });
      assert.equal(snapshot.state_version, 'v2', at);
      assert.equal(snapshot.status, derived.status, at);
      assert.equal(snapshot.step_count, derived.stepCount, at);
      assert.deepEqual(snapshot.usage, derived.usage, at);
      assert.deepEqual(snapshot.stop_signal, derived.stopSignal, at);
      assert.equal(truncation, null, at);
      // The core's encoding keeps floats' `.0`, so JSON.stringify is never longer.
      assert.ok(Buffer.byteLength(JSON.stringify(snapshot)) <= bytes, at);
      assert.deepEqual(slimSnapshot(state, { preset }).snapshot, snapshot, `${at}: object and text input agree`);
      const report = validateSnapshot(snapshot);
      assert.deepEqual([report.valid, report.errors, report.warnings], [true, [], []], at);
      if (preset === 'full') assert.equal(snapshot.continuation.explain, derived.explain, at);
    }
  }
});

test('the run-final states of state-model.json slim and validate too (real driver states included)', () => {
  const cases = stateModel.filter((c) => c.name.startsWith('run-final'));
  assert.equal(cases.length, 20);
  for (const c of cases) {
    for (const preset of PRESETS) {
      const { snapshot } = slimSnapshot(withIds(c.input.state), { preset });
      assert.equal(snapshot.state_version, 'v2', c.name);
      if (c.expected.derived) assert.equal(snapshot.status, c.expected.derived.status, c.name);
      assert.equal(validateSnapshot(snapshot).valid, true, c.name);
    }
  }
});

test('a real driver\'s HTTP status, raw body and headers never reach a slim snapshot', () => {
  const real = finals.filter(([name]) => name.startsWith('real driver'));
  assert.equal(real.length, 8);
  for (const [name, state] of real) {
    const raw = state.execution.stepExecutions.flatMap((s) => {
      const data = s.step.inferenceResponse.responseData;
      return [data.body, ...Object.entries(data.headers ?? {}).flat()].filter((x) => typeof x === 'string' && x.length > 0);
    });
    for (const preset of PRESETS) {
      const text = JSON.stringify(slimSnapshot(state, { preset }).snapshot);
      assert.ok(!text.includes('responseData') && !text.includes('llmConfig'), name);
      for (const r of raw) assert.ok(!text.includes(JSON.stringify(r)), `${name} [${preset}]: ${r.slice(0, 40)}`);
      // A failed first inference leaves no llmConfig (HTTP 500 runs).
      if (state.llmConfig?.apiKey) assert.ok(!text.includes(state.llmConfig.apiKey), `${name}: API key`);
    }
  }
});

test('maxBytes tightens a v2 snapshot and reports what it dropped', () => {
  const [, state] = finals.find(([name]) => name.startsWith('multi-turn: three turns') && name.endsWith('turn 2'));
  const whole = slimSnapshot(state, { preset: 'full' });
  const fitted = slimSnapshot(state, { preset: 'full', maxBytes: Math.floor(whole.bytes / 2) });
  assert.ok(fitted.bytes <= whole.bytes / 2);
  assert.ok(fitted.truncation.messagesDropped > 0 || fitted.truncation.contentLimit < 5000);
  assert.equal(validateSnapshot(fitted.snapshot).valid, true);
  assert.deepEqual(fitted.snapshot.stop_signal, whole.snapshot.stop_signal);
  assert.equal(thrown(() => slimSnapshot(state, { maxBytes: 10 })).code, 'too_large');
});

test('restoreState of a v2 snapshot gives a v2 state between executions, with the conversation', () => {
  for (const [name, state, derived] of finals) {
    const { snapshot } = slimSnapshot(state, { preset: 'full' });
    const restored = restoreState(snapshot, { now: NOW });
    assert.equal(restored.stateVersion, 'v2', name);
    assert.equal(restored.agentId, state.agentId, name);
    assert.equal(restored.execution, null, name);
    assert.equal(restored.llmConfig, null, name);
    assert.equal(restored.derived.messageCount, Math.min(derived.messageCount, 100), name);
    assert.deepEqual(restored.context.messageStore.sections[0].messages.map((m) => m.id), snapshot.messages.map((m) => m.id), name);
  }
  const err = thrown(() => restoreState({ state_version: 'v3', messages: [] }));
  assert.ok(err instanceof SteplineError);
  assert.deepEqual([err.code, err.path], ['unknown_state_version', '/state_version']);
});

test('the one snapshot schema declares the v2 fields; a v1.22 snapshot keeps v1.22 statuses', () => {
  const schema = snapshotSchema();
  for (const key of ['state_version', 'stop_signal', 'continuation', 'system_prompt', 'created_at']) assert.ok(schema.properties[key], key);
  assert.deepEqual(schema.then.properties.status.enum, ['in_progress', 'completed', 'failed']);
  const [, state] = finals[0];
  const { snapshot } = slimSnapshot(state);
  const asV1 = { ...snapshot, status: 'stopped' };
  delete asV1.state_version;
  assert.deepEqual(validateSnapshot(asV1).errors.map((e) => [e.path, e.code]), [['/status', 'invalid_enum']]);
});

test('stopReasons lists the ten reasons by priority as the producer ranks them', () => {
  const table = stopReasons();
  assert.deepEqual(table.map((r) => r.priority), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  let checked = 0;
  for (const c of continuation.filter((x) => x.name.startsWith('a. StopReason ') && !x.expected.throws)) {
    const row = table.find((r) => r.reason === c.input.reason);
    assert.deepEqual([row.priority, row.caseName, row.forceStop], [c.expected.priority, c.expected.name, c.expected.wasForceStopped], c.name);
    checked += 1;
  }
  assert.equal(checked, 8);
  assert.deepEqual(table.find((r) => r.reason === 'completed').broadcast, { onContinuationStop: 'completed', onExecutionStopped: 'stopped' });
});

test('resolveStopSignals and explainContinuation agree with the b. and c. cases', () => {
  const b = continuation.filter((c) => c.name.startsWith('b.'));
  const c = continuation.filter((x) => x.name.startsWith('c.'));
  assert.deepEqual([b.length, c.length], [86, 20]);
  for (const x of b) {
    if (x.expected.throws) assert.ok(thrown(() => resolveStopSignals(x.input.signals)) instanceof SteplineError, x.name);
    else assert.deepEqual(resolveStopSignals(x.input.signals).stopSignal, x.expected.highest, x.name);
  }
  for (const x of c) {
    if (x.expected.throws) {
      assert.ok(thrown(() => explainContinuation(x.input.continuation)) instanceof SteplineError, x.name);
      continue;
    }
    const got = explainContinuation(x.input.continuation);
    for (const key of ['shouldStop', 'stopSignal', 'isContinuationRequested', 'explain']) assert.deepEqual(got[key], x.expected[key], `${x.name}: ${key}`);
  }
});

const HOOKS = {
  StepsLimitHook: (p) => ({ kind: 'steps_limit', max: p.maxSteps }),
  TokenUsageLimitHook: (p) => ({ kind: 'token_usage_limit', max: p.maxTotalTokens }),
  ExecutionTimeLimitHook: (p) => ({ kind: 'execution_time_limit', max: p.maxSeconds }),
  FinishReasonHook: (p) => ({ kind: 'finish_reason', stopReasons: p.stopReasons }),
};

test('evaluateGuards adds the producer\'s signals below, at and above every limit (e. cases)', () => {
  const cases = continuation.filter((c) => c.name.startsWith('e.'));
  assert.equal(cases.length, 24);
  for (const c of cases) {
    const guard = HOOKS[c.input.hook](c.input.params);
    // Under the harness's frozen clock the time hook's start is `now`.
    const got = evaluateGuards(c.input.state, [guard], { now: NOW, executionStartedAt: NOW, trigger: c.input.trigger });
    assert.deepEqual(got.addedSignals, c.expected.addedSignals, c.name);
    assert.equal(got.shouldStop, c.expected.shouldStop, c.name);
    assert.equal(got.stopReason, c.expected.stopReason, c.name);
  }
});

/** A run's UseGuards parameters as guard specs. */
function guardsOf(g) {
  const out = [];
  if (g.maxSteps != null) out.push({ kind: 'steps_limit', max: g.maxSteps });
  if (g.maxTokens != null) out.push({ kind: 'token_usage_limit', max: g.maxTokens });
  if (g.maxExecutionTime != null) out.push({ kind: 'execution_time_limit', max: g.maxExecutionTime });
  if (g.finishReasons != null) out.push({ kind: 'finish_reason', stopReasons: g.finishReasons });
  return out;
}

test('replayGuards under a run\'s own guards stops exactly where the producer stopped', () => {
  let checked = 0;
  for (const run of runs.filter((r) => r.input.guards)) {
    const [turn] = run.expected;
    const { derived } = turn;
    if (!['steps_limit', 'token_limit', 'time_limit', 'finish_reason'].includes(derived.stopReason)) continue;
    const replay = replayGuards(withIds(turn.finalState), guardsOf(run.input.guards));
    assert.deepEqual(replay.stopSignal, derived.stopSignal, run.name);
    assert.equal(replay.stepsRun, derived.stepCount, run.name);
    if (derived.stopReason === 'finish_reason') assert.equal(replay.stopsAfterStep, derived.stepCount, run.name);
    else assert.equal(replay.stopsBeforeStep, derived.stepCount + 1, run.name);
    checked += 1;
  }
  assert.equal(checked, 6);
});

test('replayGuards marks where a recorded run would have stopped under other limits', () => {
  const run = runs.find((r) => r.name === 'steps limit 2 reached (model always calls tools) [debug]');
  const state = withIds(run.expected[0].finalState);
  const tighter = replayGuards(state, [{ kind: 'steps_limit', max: 1 }]);
  assert.deepEqual([tighter.stepsRun, tighter.stopsBeforeStep, tighter.stopSignal.message], [1, 2, 'Step limit reached: 1/1']);
  assert.deepEqual(tighter.steps.map((s) => s.wouldStop), [false, true]);
  const looser = replayGuards(state, [{ kind: 'steps_limit', max: 5 }]);
  assert.deepEqual([looser.stepsRun, looser.stopSignal, looser.runsPastRecord], [2, null, true]);
});

test('the v1.22 criteria functions refuse a v2 state, the guard functions a v1.22 one', () => {
  const [, state] = finals[0];
  const err = thrown(() => evaluateContinuation(state, [{ kind: 'steps_limit', max: 1 }]));
  assert.equal(err.code, 'invalid_value');
  assert.match(err.message, /evaluateGuards/);
  const v1 = { agentId: 'agent-1', status: 'in_progress', steps: [] };
  assert.equal(thrown(() => evaluateGuards(v1, [])).code, 'invalid_value');
  assert.equal(thrown(() => replayGuards(state, [{ kind: 'guard' }])).path, '/guards/0/kind');
});
