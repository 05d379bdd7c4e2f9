// Continuation through the built package, checked against the reference vectors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { evaluateContinuation, resolveOutcome, replayContinuation, parseAgentState, SteplineError } from 'stepline/devtools';

const root = new URL('../../', import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const cases = JSON.parse(readFileSync(new URL('continuation.json', vectorsDir), 'utf8'));

function thrown(fn) {
  try { fn(); } catch (error) { return error; }
  assert.fail('expected a throw');
}

/** The producer's builder options as stepline's `{defaults}` spec. */
function defaults(o) {
  const d = { maxSteps: o.maxSteps, maxTokens: o.maxTokens, maxExecutionTime: o.timeout, errorPolicy: o.errorPolicy, finishReasons: o.finishReasons };
  if (o.cumulativeTimeout !== null) d.cumulativeTimeout = o.cumulativeTimeout;
  return { defaults: d };
}

test('every default-criteria vector gives the reference outcome from the package', () => {
  const sample = cases.filter((c) => c.name.startsWith('c.default-criteria'));
  assert.equal(sample.length, 36);
  for (const c of sample) {
    // The reference's own rule for a state without executionStartedAt (session start).
    const options = { now: c.input.now, compat: true };
    if (c.input.executionStartedAt) options.executionStartedAt = c.input.executionStartedAt;
    const { explanation, timeOrigin, ...outcome } = evaluateContinuation(c.input.state, defaults(c.input.builderOptions), options);
    assert.deepEqual(outcome, c.expected, c.name);
    assert.equal(typeof explanation, 'string');
    assert.ok(explanation.length > 10);
    assert.equal(timeOrigin.from, c.input.executionStartedAt ? 'option' : c.input.state.executionStartedAt ? 'execution_started_at' : 'session_start', c.name);
  }
});

test('parseAgentState output evaluates the same as the raw state', () => {
  const c = cases.find((c) => c.name === 'c.default-criteria tool error, retryToolErrors(3), 3 consecutive failures');
  const opts = { now: c.input.now, executionStartedAt: c.input.executionStartedAt };
  const fromView = evaluateContinuation(parseAgentState(c.input.state, { now: c.input.now }), defaults(c.input.builderOptions), opts);
  assert.equal(fromView.resolvedBy, c.expected.resolvedBy);
  assert.equal(fromView.explanation, 'Stopped (error) by ErrorPolicyCriterion: Tool error after 3 consecutive failures (max: 3).');
});

test('resolveOutcome resolves every a.resolve vector to the reference decision', () => {
  const sample = cases.filter((c) => c.name.startsWith('a.resolve'));
  assert.equal(sample.length, 554);
  for (const c of sample) {
    const o = resolveOutcome(c.input.evaluations);
    assert.equal(o.decision, c.expected.decision, c.name);
    assert.equal(o.shouldContinue, c.expected.shouldContinue, c.name);
    assert.equal(o.resolvedBy, c.expected.resolvedBy, c.name);
    assert.equal(o.stopReason, c.expected.stopReason, c.name);
  }
});

test('specs are data: a spec list evaluates like the producer', () => {
  const c = cases.find((c) => c.name === 'c.default-criteria 20th step with tool calls (steps limit)');
  const o = evaluateContinuation(c.input.state, [{ kind: 'steps_limit', max: 20 }, { kind: 'tool_call_presence_check' }], { now: c.input.now });
  assert.equal(o.shouldContinue, false);
  assert.equal(o.evaluations[0].reason, 'Step limit reached: 20/20');
  assert.equal(o.explanation, 'Stopped (steps_limit) by StepsLimit: Step limit reached: 20/20.');
});

test('a JavaScript predicate drives ResponseContentCheck, and a throwing one fails the evaluation', () => {
  const c = cases.find((c) => c.name === 'c.default-criteria final answer (1 step, no tool calls)');
  const seen = [];
  const ask = evaluateContinuation(c.input.state, [{ kind: 'response_content_check', continueWhen: (r) => { seen.push(r); return r.length > 0; } }], { now: c.input.now });
  assert.equal(seen.length, 1);
  assert.equal(ask.decision, 'request');
  assert.equal(ask.evaluations[0].reason, 'Response content check requests continuation');
  const failing = evaluateContinuation(c.input.state, [{ kind: 'response_content_check', continueWhen: () => { throw new Error('predicate broke'); } }], { now: c.input.now });
  assert.equal(failing.decision, 'forbid');
  assert.equal(failing.stopReason, 'error');
  assert.equal(failing.evaluations[0].reason, 'Continuation evaluation failed: predicate broke');
});

test('replayContinuation answers "what if max steps were 5?"', () => {
  const c = cases.find((c) => c.name === 'c.default-criteria 19th step with tool calls');
  const replay = replayContinuation(c.input.state, { defaults: { maxSteps: 5 } }, { now: c.input.now, executionStartedAt: c.input.executionStartedAt });
  assert.equal(replay.recordedSteps, 19);
  assert.equal(replay.stopsAtStep, 5);
  assert.equal(replay.steps[4].wouldStop, true);
  assert.equal(replay.steps[4].outcome.stopReason, 'steps_limit');
});

test('bad specs throw SteplineError with a path', () => {
  const cases = [
    [[{ kind: 'nope' }], 'invalid_value', '/criteria/0/kind'],
    [[{ kind: 'execution_time_limit', max: 0 }], 'invalid_value', '/criteria/0/max'],
    [[{ kind: 'steps_limit', max: '5' }], 'invalid_type', '/criteria/0/max'],
    [{ defaults: { errorPolicy: 'sometimes' } }, 'invalid_value', '/criteria/defaults/errorPolicy'],
    ['everything', 'invalid_json', null],
  ];
  for (const [spec, code, path] of cases) {
    const e = thrown(() => evaluateContinuation('{}', spec));
    assert.ok(e instanceof SteplineError);
    assert.equal(e.code, code, JSON.stringify(spec));
    assert.equal(e.path, path);
  }
});
