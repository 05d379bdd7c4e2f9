// Shape checks of Session, RunLog and the session-level functions: each call
// yields `[where, value]` for every run (see tests/js/shapes.test.mjs).
import { repoText } from '../lib/corpus.mjs';
import { encode as encodeAgUi } from '../../../scripts/lib/dialects/ag-ui.mjs';
import { encode as encodeAiSdk } from '../../../scripts/lib/dialects/ai-sdk.mjs';
import { encode as encodeLaravel } from '../../../scripts/lib/dialects/laravel-ai.mjs';
import { approvalRun, canonicalRun } from '../../../scripts/lib/dialects/run.mjs';

/**
 * The foreign dialects' runs (issue 18): the canonical run and the approval run as each
 * encoder writes them, with every option the encoders have, so reasoning, results,
 * approvals, end reasons and data reach the shapes.
 */
const dialectRuns = () => {
  const out = [];
  for (const [name, run] of [['canonical', canonicalRun()], ['approvals', approvalRun()]]) {
    for (const [dialect, events] of [
      ['laravel-ai', encodeLaravel(run)],
      ['ag-ui', encodeAgUi(run, { steps: true, chunked: true })],
      ['ai-sdk', encodeAiSdk(run, { metadata: true, sources: true, data: true, preliminary: true })],
    ]) {
      out.push({ name: `${dialect} ${name} run`, dialect, envelopes: events, jsonl: `${events.map((e) => JSON.stringify(e)).join('\n')}\n` });
    }
  }
  return out;
};

/** The repository's seed fixtures: seed-000 (a failed and a resumed run) and seed-003 (annotations). */
const fixtureRuns = () => ['seed-000/failed-run.jsonl', 'seed-000/resumed-run.jsonl', 'seed-003/annotated-run.jsonl'].map((file) => {
  const jsonl = repoText(`tests/fixtures/${file}`);
  return { name: file, jsonl, envelopes: jsonl.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)) };
});

/**
 * A seed-003 run with what the fixtures lack: a citation with a `provider_ref`,
 * streamed tool output and a failed tool.
 */
const seed003Extras = [
  { event_type: 'agent.llm.started', step_index: 1, step_id: 'x-1' },
  { event_type: 'agent.tool.started', step_index: 1, step_id: 'x-1', tool_name: 'search', tool_call: { id: 'c1', name: 'search', arguments: { q: 'paris' } } },
  { event_type: 'agent.tool.output', step_index: 1, step_id: 'x-1', tool_name: 'search', text_delta: '21C' },
  { event_type: 'agent.tool.failed', step_index: 1, step_id: 'x-1', tool_name: 'search', error: 'timeout', tool_call: { id: 'c1', name: 'search' } },
  {
    event_type: 'agent.llm.completed', step_index: 1, step_id: 'x-1',
    step: { step_id: 'x-1', annotations: { citations: [{ label: 'docs', url: null, provider_ref: { id: 7 } }], extra: { trace: 'a' } } },
  },
  { event_type: 'agent.run.failed', step_index: 1, step_id: 'x-1', error: 'gave up' },
];

/**
 * Two calls of one tool without ids finishing in the same millisecond (v2.7's
 * byte-identical completions, tests/identical_completions.rs): the second
 * completion's run is matched by count (`matched_by_count`).
 */
const identicalCompletions = (() => {
  const env = (type, payload) => ({ type, session_id: 'sess-1', execution_id: 'exec-1', timestamp: '2026-08-10T12:00:00.250Z', payload });
  const completed = () => env('agent.tool.completed', { tool_name: 'search', tool_call_id: null, success: true, error: null, duration_ms: 0, result_summary: null });
  return [
    env('agent.status', { status: 'processing', previous_status: 'idle' }),
    env('agent.step.started', { step_number: 1, message_count: 1, available_tools: 0 }),
    env('agent.tool.started', { tool_name: 'search', tool_call_id: null, args_summary: "query: 'a'" }),
    env('agent.tool.started', { tool_name: 'search', tool_call_id: null, args_summary: "query: 'b'" }),
    completed(),
    completed(),
    env('agent.step.completed', { step_number: 1, has_tool_calls: true, errors: 0, finish_reason: 'tool_calls', duration_ms: 0.0 }),
  ];
})();

/** Every run the checks go over: the corpus, the fixtures and the extras above. */
const allRuns = (runs) => [
  ...runs,
  ...fixtureRuns(),
  { name: 'seed-003 extras', envelopes: seed003Extras, jsonl: `${seed003Extras.map((e) => JSON.stringify(e)).join('\n')}\n` },
  { name: 'identical completions (v2.7)', envelopes: identicalCompletions, jsonl: `${identicalCompletions.map((e) => JSON.stringify(e)).join('\n')}\n` },
  ...dialectRuns(),
];

/** A line the decoder keeps with a warning (an unknown envelope type, in the run's session), and one it cannot read. */
const warned = (run) => {
  const first = run.dialect ? null : run.envelopes.find((e) => e.type);
  return JSON.stringify(first ? { ...first, type: 'agent.future.thing' } : { event_type: 'agent.future.thing', step_index: 1 });
};
const broken = '{"type": "agent.status", "payload": ';

/** The options a session is made with, each way a user would. */
const OPTIONS = [undefined, { maxTextBytes: 8 }, { staleAfterMs: 1 }];

/** A session fed `run` envelope by envelope, yielding each snapshot, then stale (setNow far ahead). */
function* liveSnapshots(stepline, run, options) {
  const session = new stepline.Session(options);
  for (const [i, envelope] of run.envelopes.entries()) {
    session.ingest(envelope);
    if (i % 5 === 0 || i === run.envelopes.length - 1) yield [`${run.name} #${i}`, session.getSnapshot()];
  }
  session.ingest(JSON.parse(warned(run)));
  session.setNow('2999-01-01T00:00:00Z');
  yield [`${run.name} with a warning, later`, session.getSnapshot()];
  session.free();
}

/** `name` → a generator of `[where, returned value]` over the corpus. */
export const calls = {
  async *version({ stepline }) {
    yield ['the package', stepline.version()];
  },
  async *'Session.ingest'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      for (const [i, envelope] of run.envelopes.entries()) yield [`${run.name} #${i}`, session.ingest(envelope)];
      // Again: every one a duplicate.
      yield [`${run.name} redelivered`, session.ingest(run.envelopes[0])];
      session.free();
    }
    const other = new stepline.Session({ sessionId: 'someone-else' });
    yield ['a foreign session', other.ingest(runs[0].envelopes[0])];
    yield ['an unknown type', other.ingest({ ...runs[0].envelopes[0], type: 'agent.future.thing', session_id: 'someone-else' })];
    other.free();
  },

  async *'Session.ingestEvent'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      // As Echo hands them over: laravel/ai events under their type, envelopes under the transport's name.
      const name = (e) => (run.dialect === 'laravel-ai' ? `.${e.type}` : '.instructor.agent.event');
      for (const [i, event] of run.envelopes.entries()) yield [`${run.name} #${i}`, session.ingestEvent(name(event), event)];
      yield [`${run.name}: another event on the channel`, session.ingestEvent('App\\Events\\OrderShipped', { id: 7 })];
      session.free();
    }
  },

  async *'Session.ingestJsonl'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      for (const options of OPTIONS) {
        const session = new stepline.Session(options);
        yield [`${run.name} ${JSON.stringify(options)}`, session.ingestJsonl(run.jsonl)];
        yield [`${run.name} again, with a warned and a broken line`, session.ingestJsonl(`${run.jsonl}${warned(run)}\n${broken}\n`)];
        session.free();
      }
    }
  },

  async *'Session.getSnapshot'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      for (const options of OPTIONS) yield* liveSnapshots(stepline, run, options);
    }
    const mine = new stepline.Session({ sessionId: 'mine' });
    mine.ingest({ ...runs[0].envelopes[0], session_id: 'theirs' });
    yield ['a session that rejected another session', mine.getSnapshot()];
    mine.free();
  },

  async *'Session.setNow'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session({ staleAfterMs: 1000 });
      session.ingestJsonl(run.jsonl);
      yield [`${run.name} now`, session.setNow(Date.parse('2000-01-01T00:00:00Z'))];
      yield [`${run.name} much later`, session.setNow('2999-01-01T00:00:00Z')];
      session.free();
    }
  },

  async *'Session.collect'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      yield [run.name, session.collect()];
      session.free();
    }
    const empty = new stepline.Session();
    yield ['an empty session', empty.collect()];
    empty.free();
  },

  async *'Session.diagnose'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      yield [run.name, session.diagnose()];
      yield [`${run.name} with its snapshot and state`, session.diagnose({ snapshot: run.slim ?? null, state: run.finalState ?? null, includeToolResults: false })];
      session.free();
    }
  },

  async *'Session.exportOtlp'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      yield [run.name, session.exportOtlp()];
      yield [`${run.name} under a service name`, session.exportOtlp({ serviceName: 'shape-check' })];
      session.free();
    }
    const empty = new stepline.Session();
    yield ['an empty session', empty.exportOtlp()];
    empty.free();
  },

  async *'Session.cost'({ stepline, runs }) {
    const prices = { 'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 }, other: { input: 1, output: 2 } };
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      yield [`${run.name} priced`, session.cost(prices, { model: 'gpt-4o' })];
      yield [`${run.name} with no price for its model`, session.cost(prices, { model: 'unknown' })];
      yield [`${run.name} with an empty table`, session.cost({})];
      session.free();
    }
  },

  async *pricesFromState({ stepline, runs }) {
    for (const run of runs.filter((r) => r.version === 'v2.7' && r.finalState)) {
      yield [`${run.name}'s state`, stepline.pricesFromState(run.finalState)];
      const priced = { ...run.finalState, llmConfig: { ...(run.finalState.llmConfig ?? {}), model: 'm', pricing: { input: 3, output: 15 } } };
      yield [`${run.name}'s state priced`, stepline.pricesFromState(priced)];
    }
  },

  async *compareRuns({ stepline, runs }) {
    const all = allRuns(runs);
    const sessions = all.map((run) => {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      return session;
    });
    for (const [i, run] of all.entries()) {
      yield [`${run.name} against itself`, stepline.compareRuns(sessions[i], sessions[i])];
      const next = (i + 1) % all.length;
      yield [`${run.name} against ${all[next].name}`, stepline.compareRuns(sessions[i], sessions[next])];
    }
    const empty = new stepline.Session();
    yield ['an empty session against a run', stepline.compareRuns(empty, sessions[0])];
    for (const s of [...sessions, empty]) s.free();
  },

  async *diagnose({ stepline, runs }) {
    // Foreign events are read by a Session only (diagnose({envelopes}) refuses them with a path).
    for (const run of allRuns(runs).filter((r) => !r.dialect)) {
      yield [run.name, stepline.diagnose({ envelopes: run.envelopes })];
      yield [`${run.name} with its snapshot and state`, stepline.diagnose({ envelopes: run.envelopes, snapshot: run.slim ?? null, state: run.finalState ?? null, includeToolResults: false })];
    }
  },

  async *'Session.toRecording'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      yield [run.name, session.toRecording()];
      session.free();
    }
  },

  async *'RunLog.ingest'({ stepline, runs }) {
    const log = new stepline.RunLog();
    for (const run of allRuns(runs)) {
      for (const [i, envelope] of run.envelopes.entries()) yield [`${run.name} #${i}`, log.ingest(envelope)];
      yield [`${run.name} redelivered`, log.ingest(run.envelopes[0])];
    }
    log.free();
  },

  async *'RunLog.ingestJsonl'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const log = new stepline.RunLog();
      yield [run.name, log.ingestJsonl(run.jsonl)];
      yield [`${run.name} again, with a broken line`, log.ingestJsonl(`${run.jsonl}${broken}\n`)];
      log.free();
    }
  },

  async *'RunLog.sessions'({ stepline, runs }) {
    const log = new stepline.RunLog();
    for (const run of allRuns(runs)) {
      log.ingestJsonl(run.jsonl);
      yield [`up to ${run.name}`, log.sessions()];
    }
    log.free();
  },

  async *'RunLog.summary'({ stepline, runs }) {
    const log = new stepline.RunLog();
    yield ['an empty log', log.summary()];
    for (const run of allRuns(runs)) {
      const one = new stepline.RunLog();
      one.ingestJsonl(run.jsonl);
      yield [run.name, one.summary()];
      one.free();
      log.ingestJsonl(run.jsonl);
    }
    yield ['every run', log.summary()];
    log.free();
  },

  async *'RunLog.save'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const log = new stepline.RunLog();
      log.ingestJsonl(run.jsonl);
      if (run.slim) log.addSnapshot('s', run.slim);
      yield [run.name, log.save()];
      log.free();
    }
  },

  // Last: its SlimSnapshot is the model domain's declaration.
  async *'Session.recordedSnapshots'({ stepline, runs }) {
    for (const run of runs.filter((r) => r.slim)) {
      const log = new stepline.RunLog();
      log.ingestJsonl(run.jsonl);
      const [view] = log.sessions();
      log.addSnapshot(view.session_id ?? '', run.slim);
      const session = stepline.Session.fromRecording(log.save());
      yield [run.name, session.recordedSnapshots()];
      session.free();
      log.free();
    }
    const live = new stepline.Session();
    yield ['a live session', live.recordedSnapshots()];
    live.free();
  },

  async *'Session.replayContinuation'({ stepline, runs }) {
    // v1.22 and v2.7 runs alike: the state built from the stream is v1.22-shaped.
    for (const run of allRuns(runs).filter((r) => !r.dialect)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      if (session.getSnapshot().executions.length === 0) { session.free(); continue; }
      yield [run.name, session.replayContinuation(null, { defaults: { maxSteps: 1 } }, { now: '2026-08-10T12:00:00Z' })];
      yield [`${run.name}, first execution`, session.replayContinuation(0, [{ kind: 'steps_limit', max: 3 }])];
      session.free();
    }
  },

  async *'SessionTimeline.viewAt'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      const timeline = session.timeline();
      for (const i of [0, Math.floor(timeline.length / 2), timeline.length]) yield [`${run.name} at ${i}`, timeline.viewAt(i)];
      timeline.free();
      session.free();
    }
  },

  async *'SessionTimeline.update'({ stepline, runs }) {
    const session = new stepline.Session();
    const timeline = session.timeline();
    for (const envelope of runs[0].envelopes) {
      session.ingest(envelope);
      yield [runs[0].name, timeline.update(session)];
    }
    timeline.free();
    session.free();
  },

  async *'SessionTimeline.length'({ stepline, runs }) {
    const session = new stepline.Session();
    session.ingestJsonl(runs[0].jsonl);
    const timeline = session.timeline();
    yield [runs[0].name, timeline.length];
    timeline.free();
    session.free();
  },

  async *'Session.envelopesOf'({ stepline, runs }) {
    for (const run of allRuns(runs)) {
      const session = new stepline.Session();
      session.ingestJsonl(run.jsonl);
      for (const [i, exec] of session.getSnapshot().executions.entries()) {
        for (const step of exec.steps) yield [`${run.name} execution ${i} step ${step.number}`, session.envelopesOf(i, step.number)];
      }
      yield [`${run.name}: no such step`, session.envelopesOf(0, 9999)];
      // Bounded by the time slider's position: each step as it stood halfway, and at the start.
      const timeline = session.timeline();
      const half = Math.floor(timeline.length / 2);
      timeline.free();
      for (const [i, exec] of session.getSnapshot().executions.entries()) {
        for (const step of exec.steps) {
          yield [`${run.name} execution ${i} step ${step.number} before ${half}`, session.envelopesOf(i, step.number, { before: half })];
        }
      }
      yield [`${run.name}: before 0`, session.envelopesOf(0, 1, { before: 0 })];
      session.free();
    }
  },
};

/** Exports whose result is not data, and why. */
export const notData = {
  'Session.free': 'releases the wasm memory',
  'Session.subscribe': 'returns the function that unsubscribes',
  'Session.fromRecording': 'returns a Session handle',
  'Session.sessionId': 'a getter: the id, or undefined before one is adopted',
  'Session.registerEventPrefix': 'returns nothing (the custom_events it keeps are checked in the view)',
  'RunLog.free': 'releases the wasm memory',
  'RunLog.addSnapshot': 'returns nothing',
  'RunLog.load': 'returns a RunLog handle',
  'SessionTimeline.free': 'releases the wasm memory',
  'Session.timeline': 'returns a SessionTimeline handle (its viewAt is checked)',
};
