// Shape checks of the reports: reconcile, v1.22 continuation and v2 stop
// logic. Each call yields `[where, value]` (see tests/js/shapes.test.mjs), on
// the continuation vectors of both producers and on every run of the corpus.
import { repoText } from '../lib/corpus.mjs';
import { v1Vectors, v2Vectors, V2_NOW } from '../lib/vectors.mjs';

const v1Continuation = v1Vectors('continuation.json');
const v2Continuation = v2Vectors('continuation.json');

/** The producer's builder options as stepline's `{defaults}` spec. */
function defaults(o) {
  const d = { maxSteps: o.maxSteps, maxTokens: o.maxTokens, maxExecutionTime: o.timeout, errorPolicy: o.errorPolicy, finishReasons: o.finishReasons };
  if (o.cumulativeTimeout !== null) d.cumulativeTimeout = o.cumulativeTimeout;
  return { defaults: d };
}

/** Criteria a user writes by hand: every kind, and the defaults. */
const criteriaSets = [
  ['default criteria', { defaults: {} }],
  ['max 1 step', { defaults: { maxSteps: 1, errorPolicy: 'retryToolErrors(2)', finishReasons: ['stop'] } }],
  ['every kind', [
    { kind: 'steps_limit', max: 3 },
    { kind: 'token_usage_limit', max: 100000 },
    { kind: 'execution_time_limit', max: 3600 },
    { kind: 'cumulative_execution_time_limit', max: 3600 },
    { kind: 'retry_limit', max: 2 },
    { kind: 'error_presence_check' },
    { kind: 'finish_reason_check', stopReasons: ['length'] },
    { kind: 'response_content_check', continueWhen: { notContains: 'done' } },
    { kind: 'error_policy', policy: { preset: 'retryAll', maxRetries: 2, onModelError: 'stop' } },
    { kind: 'all', criteria: [{ kind: 'fixed', decision: 'allow' }, { kind: 'tool_call_presence_check', criterion: 'My\\ToolUse' }] },
  ]],
  ['a request', [{ kind: 'response_content_check', continueWhen: (text) => text.length > 0 }, { kind: 'fixed', decision: 'request' }]],
];

/** v2 guards a user writes: the run's own (`UseGuards`), tighter ones and a finish-reason guard. */
const guardSets = [
  ['no guards', []],
  ['one step', [{ kind: 'steps_limit', max: 1 }]],
  ['all four', [
    { kind: 'steps_limit', max: 20 },
    { kind: 'token_usage_limit', max: 10 },
    { kind: 'execution_time_limit', max: 300 },
    { kind: 'finish_reason', stopReasons: ['tool_calls', 'stop'] },
  ]],
];

const v1States = (runs) => runs.filter((r) => r.version === 'v1.22' && r.finalState);
const v2States = (runs) => runs.filter((r) => r.version === 'v2.7' && r.finalState);

/** The snapshots a run is reconciled with: the corpus's own, and every preset of its final state. */
function snapshotsOf(stepline, run) {
  const out = [];
  if (run.slim) out.push(['its slim snapshot', run.slim]);
  if (run.finalState) {
    for (const preset of ['minimal', 'standard', 'full']) {
      out.push([preset, stepline.slimSnapshot(run.finalState, { preset, includeContinuationTrace: true }).snapshot]);
    }
  }
  return out;
}

/** `name` → a generator of `[where, returned value]` over the corpus. */
export const calls = {
  async *'Session.reconcile'({ stepline, runs }) {
    let previous = null;
    for (const run of runs) {
      for (const [name, snapshot] of snapshotsOf(stepline, run)) {
        const session = new stepline.Session();
        for (const envelope of run.envelopes) session.ingest(envelope);
        yield [`${run.name} against ${name}`, session.reconcile(snapshot)];
        // Its text form, and a snapshot of another run (differences of every kind).
        yield [`${run.name} against ${name} as text`, session.reconcile(JSON.stringify(snapshot))];
        if (previous) yield [`${run.name} against ${previous.name}'s`, session.reconcile(snapshotsOf(stepline, previous)[0][1])];
        session.free();
      }
      // The turns of a run in one session: the earlier turns are executions the snapshot does not mark.
      if (previous && previous.name.replace(/ turn \d+$/, '') === run.name.replace(/ turn \d+$/, '') && run.slim) {
        const session = new stepline.Session();
        for (const envelope of [...previous.envelopes, ...run.envelopes]) session.ingest(envelope);
        yield [`${run.name} after its earlier turn`, session.reconcile(run.slim)];
        session.free();
      }
      if (run.finalState) previous = run;
    }
    const empty = new stepline.Session();
    yield ['an empty session', empty.reconcile({ status: 'completed', steps: [] })];
    empty.free();
    // The seed producers' runs: seed 000's failed run against its snapshot, seed 003's annotated steps.
    const seed000 = repoText('tests/fixtures/seed-000/failed-run.snapshot.json');
    for (const run of ['seed-000/failed-run.jsonl', 'seed-003/annotated-run.jsonl']) {
      const session = new stepline.Session();
      for (const line of repoText(`tests/fixtures/${run}`).split('\n').filter((l) => l.trim() !== '')) session.ingest(line);
      yield [`${run} against seed 000's snapshot`, session.reconcile(seed000)];
      session.free();
    }
    // A citation with the provider's own reference (kept as given).
    const cited = new stepline.Session();
    cited.ingest({ event_type: 'agent.llm.output_text.delta', step_index: 1, step_id: 'st-1', llm_delta: 'Paris.', annotations: { citations: [{ label: 'w', url: null, provider_ref: { id: 7 } }] } });
    yield ['a citation with a provider reference', cited.reconcile(seed000)];
    cited.free();
  },
  async *'Session.ingestFinalState'({ stepline, runs }) {
    // Every turn against its stored state (either producer version), then that state as a recording line.
    for (const run of runs.filter((r) => r.finalState)) {
      const session = new stepline.Session();
      for (const envelope of run.envelopes) session.ingest(envelope);
      yield [`${run.name} against its stored state`, session.ingestFinalState(run.finalState)];
      if (run.slim) yield [`${run.name} against its slim snapshot line`, session.ingestFinalState({ stepline_snapshot: run.slim, error: 'a recorded error' })];
      session.free();
    }
  },
  async *'Session.reconcileMessages'({ stepline }) {
    // Every final-form case (tests/vectors/dialects/final-forms): each dialect, clean and with differences of every kind.
    const dir = 'tests/vectors/dialects/final-forms';
    for (const c of JSON.parse(repoText(`${dir}/cases.json`)).cases) {
      const session = new stepline.Session();
      session.ingestJsonl(repoText(`${dir}/${c.session}`));
      yield [c.name, session.reconcileMessages(JSON.parse(repoText(`${dir}/${c.form}`)), c.dialect ? { dialect: c.dialect } : undefined)];
      session.free();
    }
  },
  async *reconcileCauses({ stepline }) {
    yield ['the list', stepline.reconcileCauses()];
  },
  async *resolveOutcome({ stepline }) {
    for (const c of v1Continuation.filter((c) => c.name.startsWith('a.resolve'))) yield [c.name, stepline.resolveOutcome(c.input.evaluations)];
  },
  async *evaluateContinuation({ stepline, runs }) {
    for (const c of v1Continuation.filter((c) => c.name.startsWith('c.default-criteria'))) {
      const options = { now: c.input.now };
      if (c.input.executionStartedAt) options.executionStartedAt = c.input.executionStartedAt;
      yield [c.name, stepline.evaluateContinuation(c.input.state, defaults(c.input.builderOptions), options)];
    }
    for (const run of v1States(runs)) {
      for (const [name, criteria] of criteriaSets) {
        yield [`${run.name}, ${name}`, stepline.evaluateContinuation(run.finalState, criteria, { now: Date.now(), executionStartedAt: 0 })];
      }
    }
  },
  async *replayContinuation({ stepline, runs }) {
    for (const run of v1States(runs)) {
      for (const [name, criteria] of criteriaSets) {
        yield [`${run.name}, ${name}`, stepline.replayContinuation(run.finalState, criteria)];
      }
      yield [`${run.name}, fixed now`, stepline.replayContinuation(run.finalState, { defaults: { maxSteps: 2 } }, { now: '2026-01-20T12:00:00Z' })];
    }
  },
  async *stopReasons({ stepline }) {
    yield ['the table', stepline.stopReasons()];
  },
  async *resolveStopSignals({ stepline }) {
    for (const c of v2Continuation.filter((c) => c.name.startsWith('b.'))) {
      try { yield [c.name, stepline.resolveStopSignals(c.input.signals)]; } catch { /* a case the producer refuses */ }
    }
  },
  async *explainContinuation({ stepline, runs }) {
    for (const c of v2Continuation.filter((c) => c.name.startsWith('c.'))) {
      try { yield [c.name, stepline.explainContinuation(c.input.continuation)]; } catch { /* a case the producer refuses */ }
    }
    for (const run of v2States(runs)) {
      const continuation = run.finalState.execution?.continuation;
      if (continuation) yield [run.name, stepline.explainContinuation(continuation)];
    }
  },
  async *evaluateGuards({ stepline, runs }) {
    for (const c of v2Continuation.filter((c) => c.name.startsWith('e.'))) {
      const guard = guardOf(c.input.hook, c.input.params);
      yield [c.name, stepline.evaluateGuards(c.input.state, [guard], { now: V2_NOW, executionStartedAt: V2_NOW, trigger: c.input.trigger })];
    }
    for (const run of v2States(runs)) {
      for (const [name, guards] of guardSets) yield [`${run.name}, ${name}`, stepline.evaluateGuards(run.finalState, guards, { now: V2_NOW })];
    }
  },
  async *replayGuards({ stepline, runs }) {
    for (const run of v2States(runs)) {
      for (const [name, guards] of guardSets) {
        yield [`${run.name}, ${name}`, stepline.replayGuards(run.finalState, guards)];
        yield [`${run.name}, ${name} at a fixed now`, stepline.replayGuards(run.finalState, guards, { now: V2_NOW, executionStartedAt: '2026-08-10T11:59:00Z' })];
      }
    }
  },
};

/** A v2.7 vector's hook as a guard spec. */
function guardOf(hook, params) {
  switch (hook) {
    case 'StepsLimitHook': return { kind: 'steps_limit', max: params.maxSteps };
    case 'TokenUsageLimitHook': return { kind: 'token_usage_limit', max: params.maxTotalTokens };
    case 'ExecutionTimeLimitHook': return { kind: 'execution_time_limit', max: params.maxSeconds };
    case 'FinishReasonHook': return { kind: 'finish_reason', stopReasons: params.stopReasons };
    default: throw new Error(`unknown hook ${hook}`);
  }
}

/** Exports whose result is not data, and why. */
export const notData = {};
