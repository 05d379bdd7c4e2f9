// Live sessions through the built package: the view, the snapshot contract
// (useSyncExternalStore), reconciliation against the reference runs, collect, diagnose.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Session, RunLog, diagnose, SteplineError } from 'stepline/devtools';
import { v1Vectors } from './lib/vectors.mjs';

const root = new URL('../../', import.meta.url);
const runs = v1Vectors('agent-runs.json');
const run = (prefix) => runs.find((r) => r.name.startsWith(prefix));
const envelopesOf = (turn) => turn.envelopes.map((e) => e.envelope);

test('every reference run reconciles in JS exactly as natively: only the exception path differs, with its cause', () => {
  for (const r of runs) {
    const s = new Session();
    for (const turn of r.expected) {
      for (const e of envelopesOf(turn)) assert.equal(s.ingest(e).applied, true);
      for (const snap of [turn.slim, turn.slimFull]) {
        const report = s.reconcile(snap);
        const unexplained = report.differences.filter((d) => d.cause === null);
        assert.deepEqual(unexplained, [], r.name);
        assert.equal(report.consistent, report.differences.length === 0);
      }
    }
  }
});

test('getSnapshot returns the same object until an ingest, then shares unchanged steps', () => {
  const turn = run('tool call then').expected[0];
  const s = new Session({ sessionId: 'sess-e2e' });
  const envelopes = envelopesOf(turn);
  // Through step 2's start: under this run's frozen clock step 2 starting in
  // the same instant makes step 1's tool run's placement `arrival`.
  for (const e of envelopes.slice(0, 7)) s.ingest(e);
  const before = s.getSnapshot();
  assert.equal(s.getSnapshot(), before, 'no ingest, same object');
  s.ingestJsonl('');
  assert.equal(s.getSnapshot(), before, 'an ingest that changed nothing, same object');
  s.ingest(envelopes[9]); // step 2 completed
  const after = s.getSnapshot();
  assert.notEqual(after, before);
  assert.equal(after.executions[0].steps[0], before.executions[0].steps[0], 'step 1 is shared');
  assert.notEqual(after.executions[0].steps[1], before.executions[0].steps[1], 'step 2 changed');
  assert.equal(after.executions[0].steps.length, 2);
  assert.ok(Object.isFrozen(after) && Object.isFrozen(after.executions[0].steps[1]));
  // The shared snapshot equals a fresh session's full view.
  const fresh = new Session();
  for (const e of [...envelopes.slice(0, 7), envelopes[9]]) fresh.ingest(e);
  assert.deepEqual(after.executions, fresh.getSnapshot().executions);
});

test('snapshots built from patches equal the full view for every run, read after every event', () => {
  for (const r of runs) {
    const s = new Session();
    for (const turn of r.expected) {
      for (const e of envelopesOf(turn)) {
        s.ingest(JSON.stringify(e));
        s.getSnapshot();
      }
    }
    const fresh = new Session();
    for (const turn of r.expected) fresh.ingestJsonl(envelopesOf(turn).map((e) => JSON.stringify(e)).join('\n'));
    assert.deepEqual(s.getSnapshot(), fresh.getSnapshot(), r.name);
  }
});

test('the snapshot read after every event equals the full view, whatever the order, repetition or noise', () => {
  for (const r of runs) {
    const all = r.expected.flatMap(envelopesOf);
    const sessionId = all[0].session_id;
    const noisy = [];
    all.slice().reverse().forEach((e, i) => {
      noisy.push(e, e);
      noisy.push(i % 3 === 0 ? { ...e, session_id: `other-${i % 2}` } : { ...e, [`x_${i}`]: i });
    });
    const s = new Session({ sessionId });
    noisy.forEach((e, i) => {
      s.ingest(e);
      const view = s.getSnapshot();
      const fresh = new Session({ sessionId });
      fresh.ingestJsonl(noisy.slice(0, i + 1).map((x) => JSON.stringify(x)).join('\n'));
      assert.deepEqual(view, fresh.getSnapshot(), `${r.name}, event ${i}`);
      fresh.free();
      for (const o of [view, view.executions, ...view.executions, ...view.executions.flatMap((x) => [x.steps, ...x.steps]), view.warnings, ...view.warnings]) {
        assert.ok(Object.isFrozen(o), `${r.name}, event ${i}: frozen`);
      }
    });
  }
});

test('streamed text is appended in index order, and replaced when a late chunk lands inside', () => {
  const chunk = (i, content) => ({ type: 'agent.stream.chunk', session_id: 's', execution_id: 'e', timestamp: '2026-01-20T12:00:00Z', payload: { content, chunk_index: i } });
  const s = new Session();
  s.ingest(chunk(0, 'Hel'));
  assert.equal(s.getSnapshot().executions[0].text, 'Hel');
  s.ingest(chunk(2, ' world'));
  assert.equal(s.getSnapshot().executions[0].text, 'Hel world');
  assert.deepEqual(s.getSnapshot().executions[0].missing_chunks, [1]);
  s.ingest(chunk(1, 'lo,'));
  assert.equal(s.getSnapshot().executions[0].text, 'Hello, world');
  assert.deepEqual(s.getSnapshot().executions[0].missing_chunks, []);
});

test('subscribe notifies after each ingest; unsubscribe (twice is fine) stops it', () => {
  const s = new Session();
  let a = 0;
  let b = 0;
  const offA = s.subscribe(() => a++);
  s.subscribe(() => { b++; throw new Error('a throwing listener does not stop ingest'); });
  const [first, second] = envelopesOf(run('direct final').expected[0]);
  s.ingest(first);
  assert.deepEqual([a, b], [1, 1]);
  offA();
  offA();
  s.ingest(second);
  assert.deepEqual([a, b], [1, 2]);
});

test('redelivery and foreign sessions through the JS API', () => {
  const [first] = envelopesOf(run('direct final').expected[0]);
  const s = new Session({ sessionId: first.session_id });
  assert.deepEqual(s.ingest(first), { applied: true, duplicate: false, rejected: null, warnings: [] });
  assert.deepEqual(s.ingest(first), { applied: false, duplicate: true, rejected: null, warnings: [] });
  const other = { ...first, session_id: 'someone-else' };
  const rejected = s.ingest(other);
  assert.deepEqual(rejected, { applied: false, duplicate: false, rejected: 'foreign_session', warnings: [] });
  rejected.warnings.push('mine');
  assert.deepEqual(s.ingest(other).warnings, [], 'each outcome is a new object');
  const view = s.getSnapshot();
  assert.deepEqual(view.counts, { applied: 1, duplicates: 1, rejected: 2 });
  assert.deepEqual(view.rejected_sessions, { 'someone-else': 2 });
  assert.equal(s.sessionId, first.session_id);
});

test('bad input throws SteplineError with a code and path; ingestJsonl reports lines instead', () => {
  const s = new Session();
  assert.throws(() => s.ingest('{"type": "agent.status"'), (e) => e instanceof SteplineError && e.code === 'invalid_json');
  assert.throws(
    () => s.ingest({ type: 'agent.status', session_id: 's', payload: { status: 7 } }),
    (e) => e instanceof SteplineError && e.code === 'invalid_type' && e.path === '/payload/status',
  );
  const r = s.ingestJsonl('{"type":"agent.status","session_id":"s","payload":{"status":"processing"}}\nnot json\n');
  assert.equal(r.applied, 1);
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0].line, 2);
  assert.throws(() => new Session({ sesionId: 'typo' }), (e) => e instanceof SteplineError && e.path === '/options/sesionId');
  assert.throws(() => s.reconcile('[]'), (e) => e instanceof SteplineError && e.code === 'invalid_type');
});

test('collect builds the seed-003 response from a reference run', () => {
  const turn = run('two tool calls').expected[0];
  const s = new Session();
  for (const e of envelopesOf(turn)) s.ingest(e);
  const { turns, final_output: finalOutput } = s.collect();
  assert.equal(turns.length, turn.slim.steps.length);
  assert.deepEqual(turns[0].tool_results.map((t) => t.call.name), turn.slim.steps[0].tool_calls.map((c) => c.name));
  assert.equal(typeof finalOutput, 'string');
});

test('diagnose flags the exception path and stays quiet on a clean run', () => {
  const clean = run('tool call then').expected[0];
  assert.deepEqual(diagnose({ envelopes: envelopesOf(clean), snapshot: clean.slim }), []);
  const throws = run('tool throws').expected[0];
  const found = diagnose({ envelopes: envelopesOf(throws) });
  assert.deepEqual(found.map((d) => d.code), ['final_status_missing']);
  assert.equal(found[0].severity, 'warning');
  assert.throws(() => diagnose({ envelopes: [], bogus: 1 }), (e) => e instanceof SteplineError && e.path === '/bogus');
});

test('a session recording round-trips, snapshot lines included', () => {
  const turn = run('tool call then').expected[0];
  const s = new Session();
  for (const e of envelopesOf(turn)) s.ingest(e);
  const text = `${s.toRecording()}${JSON.stringify({ stepline_snapshot: turn.slim })}\n`;
  const back = Session.fromRecording(text);
  assert.deepEqual(back.getSnapshot().executions, s.getSnapshot().executions);
  assert.deepEqual(back.recordedSnapshots(), [turn.slim]);
  assert.equal(back.reconcile(back.recordedSnapshots()[0]).consistent, true);
  assert.throws(() => Session.fromRecording('{"stepline_recording":1}\n{"type":"agent.status"}\n'),
    (e) => e instanceof SteplineError && e.path.startsWith('/lines/2'));
});

test('ingestFinalState: a stored state says why a thrown run failed, and the recording keeps it where it arrived', () => {
  const turn = run('tool throws (exception escapes ToolExecutor), default policy').expected[0];
  let id = 0;
  const stored = JSON.parse(JSON.stringify(turn.finalState), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++id).padStart(12, '0')}` : v));
  const s = new Session();
  for (const e of envelopesOf(turn)) s.ingest(e);
  assert.equal(s.reconcile(turn.slim).view.executions[0].error,
    'failed with 1 error in step 1; the final snapshot keeps no error text (a stored agent state does)');
  assert.deepEqual(s.recordedSnapshots(), [], 'reconcile only reads');
  const report = s.ingestFinalState(stored);
  assert.equal(report.view.executions[0].status, 'failed');
  assert.equal(report.view.executions[0].error, 'Connection refused');
  assert.deepEqual(s.reconcile(JSON.stringify(stored)), report, 'reconcile reads the same forms, text included');
  const text = s.toRecording();
  const lines = text.trim().split('\n');
  assert.equal(lines.length, 2 + envelopesOf(turn).length, 'header, envelopes, the final state');
  assert.deepEqual(Object.keys(JSON.parse(lines.at(-1))).sort(), ['error', 'execution_id', 'session_id', 'stepline_snapshot']);
  const back = Session.fromRecording(text);
  assert.equal(back.toRecording(), text);
  assert.deepEqual(back.ingestFinalState(JSON.parse(lines.at(-1))), report, 'the line reconciles as the stored state did');
  assert.throws(() => s.ingestFinalState([1]), (e) => e instanceof SteplineError && e.code === 'invalid_type' && e.path === '');
  assert.throws(() => s.ingestFinalState({ stepline_snapshot: {}, error: 5 }), (e) => e instanceof SteplineError && e.path === '/error');
});

test('a RunLog routes interleaved sessions, summarises, and saves/loads', () => {
  const log = new RunLog();
  const streams = runs.map((r, i) => r.expected.flatMap((t) => envelopesOf(t)).map((e) => ({ ...e, session_id: `run-${i}` })));
  const longest = Math.max(...streams.map((s) => s.length));
  for (let k = 0; k < longest; k++) for (const s of streams) if (s[k]) log.ingest(s[k]);
  const sessions = log.sessions();
  assert.deepEqual(sessions.map((v) => v.session_id), runs.map((_, i) => `run-${i}`));
  const alone = new Session();
  for (const e of streams[0]) alone.ingest(e);
  assert.deepEqual(sessions[0].executions, alone.getSnapshot().executions);
  const summary = log.summary();
  assert.equal(summary.sessions, runs.length);
  const toolStarts = streams.flat().filter((e) => e.type === 'agent.tool.started').length;
  assert.equal(Object.values(summary.tool_calls).reduce((n, t) => n + t.count, 0), toolStarts);
  const again = RunLog.load(log.save());
  assert.deepEqual(again.summary(), summary);
  const batch = new RunLog().ingestJsonl(`${JSON.stringify(streams[1][0])}\n{oops\n`);
  assert.equal(batch.applied, 1);
  assert.equal(batch.errors[0].line, 2);
  assert.equal(batch.errors[0].error.code, 'invalid_json');
});

test('ingestJsonl lists its lines\' warnings, and the view names the envelope each warning came from', () => {
  const s = new Session();
  const line = (type, payload, timestamp) => JSON.stringify({ type, session_id: 'w', execution_id: 'e', timestamp, payload });
  const out = s.ingestJsonl([
    line('agent.status', { status: 'processing' }, '2026-01-20T12:00:00.000Z'),
    line('agent.step.started', { step_number: 1, mood: 'calm' }, '2026-01-20T12:00:01.000Z'),
    line('agent.custom', { n: 1 }, '2026-01-20T12:00:02.000Z'),
  ].join('\n'));
  assert.equal(out.warningCount, 2);
  assert.deepEqual(out.warnings.map((w) => [w.line, w.warning.code, w.warning.path]), [[2, 'unknown_field', '/payload/mood'], [3, 'unknown_type', '/type']]);
  const { warnings, warning_count } = s.getSnapshot();
  assert.equal(warning_count, 2);
  assert.deepEqual(warnings.map((w) => [w.type, w.timestamp, w.path]), [
    ['agent.step.started', '2026-01-20T12:00:01.000Z', '/payload/mood'],
    ['agent.custom', '2026-01-20T12:00:02.000Z', '/type'],
  ]);
  s.free();
});

// Issue 15, items 3, 4 and 7: what the producers send reaches the JS view.
const fixture = (path) => readFileSync(new URL(`tests/fixtures/${path}`, root), 'utf8');
const fixtureLines = (path) => fixture(path).split('\n').filter((l) => l.trim() !== '');

test('why a run ended reaches the JS view: error_message, last_response and step_count', () => {
  const s = new Session();
  for (const line of fixtureLines('seed-000/failed-run.jsonl')) s.ingest(line);
  const e = s.getSnapshot().executions[0];
  assert.equal(e.status, 'failed');
  assert.equal(e.error_message, 'Driver threw: connection reset by peer');
  assert.equal(e.last_response, 'Here is haha the response');
  assert.equal(e.step_count, 1);
  // The patched snapshot and a fresh full read agree on them.
  const fresh = new Session();
  fresh.ingestJsonl(fixture('seed-000/failed-run.jsonl'));
  assert.deepEqual(s.getSnapshot().executions, fresh.getSnapshot().executions);
});

test('seed-000 status words reconcile without a status mismatch, and in_progress after completed resumes the execution', () => {
  const s = new Session();
  s.ingestJsonl(fixture('seed-000/failed-run.jsonl'));
  const report = s.reconcile(JSON.parse(fixture('seed-000/failed-run.snapshot.json')));
  assert.deepEqual(report.differences.filter((d) => d.kind === 'status_mismatch'), []);
  const resumed = new Session();
  resumed.ingestJsonl(fixture('seed-000/resumed-run.jsonl'));
  const view = resumed.getSnapshot();
  assert.equal(view.executions.length, 1);
  assert.equal(view.executions[0].status, 'in_progress');
  assert.equal(view.executions[0].state_status, 'in_progress');
  assert.equal(view.executions[0].resumed, true);
});

test('tool call ids, result summaries, durations and annotations reach the JS view and collect()', () => {
  const s = new Session();
  s.ingestJsonl(fixture('seed-000/failed-run.jsonl'));
  const tool = s.getSnapshot().executions[0].steps[0].tools[0];
  assert.deepEqual([tool.call_id, tool.result_summary, tool.duration_ms], ['call_abc123', 'Found 3 entities', 250]);
  const collected = s.collect().turns[0].tool_results[0];
  assert.deepEqual([collected.call.id, collected.result_summary, collected.duration_ms], ['call_abc123', 'Found 3 entities', 250]);

  const a = new Session();
  for (const line of fixtureLines('seed-003/annotated-run.jsonl')) a.ingest(line);
  const annotations = a.getSnapshot().executions[0].steps[0].annotations;
  assert.deepEqual(annotations.safety, [{ verdict: 'review', category: 'location' }, { verdict: 'allow', category: 'self_harm' }]);
  assert.deepEqual(annotations.citations.map((c) => c.url), ['https://weather.example/paris']);
  assert.deepEqual(a.collect().turns[0].annotations, annotations);
  assert.equal(s.getSnapshot().executions[0].steps[0].annotations, null);
});

test('the producer\'s own usage total is kept in the JS view and collect()', () => {
  const s = new Session();
  for (const line of fixtureLines('seed-000/failed-run.jsonl')) s.ingest(line);
  const view = s.getSnapshot();
  assert.equal(view.executions[0].steps[0].usage.total, 700);
  assert.equal(view.executions[0].usage.total, 700);
  assert.equal(view.usage.total, 700);
  assert.equal(s.collect().turns[0].llm_response.usage.total, 700);
});

test('a redelivered chunk without chunk_index does not double the text; equal chunks at different times both count', () => {
  const text = fixture('seed-000/failed-run.jsonl');
  const s = new Session();
  s.ingestJsonl(text);
  const again = s.ingestJsonl(text);
  assert.equal(again.applied, 0);
  assert.equal(again.duplicates, fixtureLines('seed-000/failed-run.jsonl').length);
  assert.equal(s.getSnapshot().executions[0].text, 'Here is haha the response');
});

test('a run that never ends turns stale after staleAfterMs of silence, its status left as broadcast', () => {
  const throws = run('tool throws (exception escapes ToolExecutor), default policy').expected[0];
  const s = new Session({ staleAfterMs: 60_000 });
  for (const e of envelopesOf(throws)) s.ingest(e);
  const last = Date.parse('2026-01-20T12:00:00.250Z');
  assert.equal(s.getSnapshot().executions[0].stale, false);
  let notified = 0;
  const unsubscribe = s.subscribe(() => { notified += 1; });
  assert.equal(s.setNow(last + 59_999), false);
  assert.equal(notified, 0);
  assert.equal(s.setNow('2026-01-20T12:01:00.250Z'), true);
  assert.equal(notified, 1, 'subscribers hear of the change');
  const e = s.getSnapshot().executions[0];
  assert.deepEqual([e.stale, e.status], [true, 'processing']);
  unsubscribe();
  // Without the option nothing is stale; bad values are typed errors.
  const plain = new Session();
  for (const env of envelopesOf(throws)) plain.ingest(env);
  assert.equal(plain.setNow(Date.parse('2030-01-01T00:00:00Z')), false);
  assert.equal(plain.getSnapshot().executions[0].stale, false);
  assert.throws(() => new Session({ staleAfterMs: -5 }), (err) => err instanceof SteplineError && err.path === '/options/staleAfterMs');
  assert.throws(() => s.setNow('tomorrow'), (err) => err instanceof SteplineError && err.code === 'invalid_timestamp');
});

test('ingestJsonl reads a JSON array of events (JSON.stringify(events)) as it reads their lines, any dialect', async () => {
  const { canonicalRun } = await import('../../scripts/lib/dialects/run.mjs');
  const streams = [['v1.22', runs.flatMap((r) => r.expected.flatMap(envelopesOf)).slice(0, 40)]];
  for (const dialect of ['laravel-ai', 'ag-ui', 'ai-sdk']) {
    const { encode } = await import(`../../scripts/lib/dialects/${dialect}.mjs`);
    streams.push([dialect, encode(canonicalRun())]);
  }
  for (const [dialect, events] of streams) {
    const lines = new Session();
    const a = lines.ingestJsonl(events.map((e) => JSON.stringify(e)).join('\n'));
    const array = new Session();
    const b = array.ingestJsonl(JSON.stringify(events, null, 2));
    assert.equal(b.errorCount, 0, dialect);
    assert.deepEqual(b, a, dialect);
    assert.deepEqual(array.getSnapshot(), lines.getSnapshot(), dialect);
    // A recording may be a JSON array too, and saves back as JSONL.
    const replayed = Session.fromRecording(JSON.stringify(events));
    assert.deepEqual(replayed.getSnapshot().executions, lines.getSnapshot().executions, dialect);
    assert.equal(replayed.toRecording(), lines.toRecording(), dialect);
  }
  // A bad element is named by its 1-based position; the others are still read.
  const s = new Session();
  const r = s.ingestJsonl('[{"type":"agent.status","session_id":"s","payload":{"status":"processing"}}, 7]');
  assert.equal(r.applied, 1);
  assert.equal(r.errors[0].line, 2);
  assert.ok(r.errors[0].error instanceof Object);
});

// Seed 003 (docs/seeds/003-agent-response-structure.md): registered prefixes
// and step identity, through the built package.
test('registerEventPrefix keeps agent.planner.* events as custom_events, and steps carry generated ids', () => {
  const lines = readFileSync(new URL('tests/fixtures/seed-003/planner-run.jsonl', root), 'utf8')
    .split('\n')
    .filter(Boolean);
  const s = new Session();
  s.registerEventPrefix('agent.planner.');
  for (const line of lines) s.ingest(line);
  const view = s.getSnapshot();
  assert.equal(view.warning_count, 0);
  const exec = view.executions[0];
  assert.deepEqual(
    exec.custom_events.map((e) => e.type),
    ['agent.planner.started', 'agent.planner.plan', 'agent.planner.revised'],
  );
  assert.deepEqual(
    exec.steps.map((st) => [st.step_index, st.step_id, st.step_id_generated]),
    [[1, 'step-1', true], [2, 'st-2', false]],
  );
  assert.equal(s.collect().turns[0].timestamp, '2026-01-16T10:05:00.900Z');
  assert.throws(() => s.registerEventPrefix('agent.tool.'), (e) => e instanceof SteplineError && e.path === '/prefix');
  const byOption = new Session({ eventPrefixes: ['agent.planner.'] });
  for (const line of lines) byOption.ingest(line);
  assert.equal(byOption.getSnapshot().warning_count, 0);
});
