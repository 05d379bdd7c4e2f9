// AG-UI events into stepline, checked against AG-UI's own reducer: the same
// event streams go through @ag-ui/client's defaultApplyEvents (the oracle,
// tests/js/lib/ag-ui-oracle.mjs) and through a stepline Session, and the
// assistant texts, reasoning, tool calls (id, name, arguments) and tool results
// must be equal. Streams: the canonical run, 200 seeded random runs, each in
// three encodings (START/CONTENT/END, with STEP_* events, *_CHUNK events), and
// the event streams AG-UI's own tests publish (tests/vectors/dialects/ag-ui/upstream/).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Session } from 'stepline';
import { encode, toolContent } from '../../scripts/lib/dialects/ag-ui.mjs';
import { approvalRun, canonicalRun, randomRun } from '../../scripts/lib/dialects/run.mjs';
import { oracleApply, oracleFacts } from './lib/ag-ui-oracle.mjs';

const upstreamDir = new URL('../vectors/dialects/ag-ui/upstream/', import.meta.url);
const VARIANTS = [{}, { steps: true }, { chunked: true }, { steps: true, chunked: true }];

/** Ingests `events` one by one (each must be accepted) and returns the view. */
function stepline(events) {
  const s = new Session();
  const warnings = [];
  for (const e of events) {
    const out = s.ingest(e);
    assert.equal(out.rejected ?? null, null, `${e.type} rejected: ${JSON.stringify(out)}`);
    warnings.push(...out.warnings.map((w) => ({ ...w, type: e.type })));
  }
  return { view: s.getSnapshot(), warnings };
}

/** The same facts as oracleFacts, from stepline's view. */
function steplineFacts(view) {
  const texts = [];
  const reasoning = [];
  const calls = [];
  const results = [];
  for (const exec of view.executions) {
    for (const step of exec.steps) {
      if (step.text !== '') texts.push(step.text);
      if (step.reasoning !== '') reasoning.push(step.reasoning);
      for (const t of step.tools) {
        if (t.seen.started ?? true) calls.push({ id: t.call_id, name: t.name, args: t.args, status: t.status, error: t.error });
        if (t.result !== null) results.push({ id: t.call_id, content: t.result, status: t.status, error: t.error });
      }
    }
  }
  return { texts, reasoning, calls, results };
}

/** stepline's arguments are the oracle's text parsed as JSON, or the text itself when it is not JSON. */
function sameArgs(mine, theirs, where) {
  let parsed;
  try {
    parsed = JSON.parse(theirs);
  } catch {
    assert.equal(mine, theirs, where);
    return;
  }
  assert.deepEqual(mine, parsed, where);
}

// What the oracle shows that was not streamed is left out of its side: the
// messages of MESSAGES_SNAPSHOT and of RUN_STARTED's input (the final form and
// the request; stepline keeps them as data, compared below).
function streamedOnly(events) {
  return events
    .filter((e) => e.type !== 'MESSAGES_SNAPSHOT')
    .map((e) => (e.type === 'RUN_STARTED' && e.input ? { ...e, input: undefined } : e));
}

async function compare(events, where, { reasoning = true } = {}) {
  const oracle = await oracleApply(streamedOnly(events));
  const want = oracleFacts(oracle.messages);
  const { view, warnings } = stepline(events);
  const got = steplineFacts(view);
  assert.deepEqual(got.texts, want.texts, `${where}: assistant texts`);
  if (reasoning) assert.deepEqual(got.reasoning, want.reasoning, `${where}: reasoning`);
  const snapshots = events.filter((e) => e.type === 'MESSAGES_SNAPSHOT');
  if (snapshots.length > 0) {
    assert.deepEqual(view.executions.at(-1).data.messages, snapshots.at(-1).messages, `${where}: the messages snapshot`);
  }
  assert.deepEqual(got.calls.map((c) => [c.id, c.name]), want.calls.map((c) => [c.id, c.name]), `${where}: tool calls`);
  got.calls.forEach((c, i) => sameArgs(c.args, want.calls[i].args, `${where}: arguments of ${c.id}`));
  assert.deepEqual(got.results.map((r) => [r.id, r.content]), want.results.map((r) => [r.id, r.content]), `${where}: tool results`);
  return { view, warnings, got, oracle };
}

/** Every tool of the run: failed with its error when the description says so, else succeeded with its result. */
function assertToolOutcomes(run, got, where) {
  const tools = run.steps.flatMap((s) => s.tools ?? []);
  assert.equal(got.results.length, tools.length, where);
  tools.forEach((tool, i) => {
    const r = got.results[i];
    assert.equal(r.id, tool.id, where);
    assert.equal(r.content, toolContent(tool), where);
    if (tool.error !== undefined) {
      assert.equal(r.status, 'failed', `${where}: ${tool.id} failed`);
      assert.equal(r.error, tool.error, where);
    } else {
      assert.equal(r.status, 'succeeded', `${where}: ${tool.id} succeeded`);
    }
  });
}

test('the canonical run in every AG-UI encoding equals @ag-ui/client, marks the failed tool failed and ends completed', async () => {
  const run = canonicalRun();
  for (const variant of VARIANTS) {
    const where = `canonical ${JSON.stringify(variant)}`;
    const { view, warnings, got } = await compare(encode(run, variant), where);
    assert.deepEqual(warnings, [], where);
    assertToolOutcomes(run, got, where);
    const [exec] = view.executions;
    assert.equal(view.executions.length, 1);
    assert.equal(exec.execution_id, run.executionId);
    assert.equal(exec.dialect, 'ag-ui');
    assert.equal(exec.status, 'completed');
    assert.equal(exec.end_reason, 'success');
    assert.equal(exec.final_answer, run.steps.at(-1).text);
    assert.equal(exec.steps.length, run.steps.length, `${where}: one step per model call`);
    exec.steps.forEach((step, i) => {
      assert.equal(step.text, run.steps[i].text ?? '', where);
      assert.equal(step.reasoning, run.steps[i].reasoning ?? '', where);
      assert.deepEqual(step.tools.map((t) => t.call_id), (run.steps[i].tools ?? []).map((t) => t.id), where);
      assert.deepEqual(step.tools.map((t) => t.args), (run.steps[i].tools ?? []).map((t) => t.args), where);
      assert.equal(step.seen.started && step.seen.completed, true, where);
    });
    const total = (k) => run.steps.reduce((n, s) => n + s.usage[k], 0);
    assert.equal(exec.usage.input, total('input'), `${where}: the run's usage`);
    assert.equal(exec.usage.output, total('output'));
    assert.equal(exec.usage.cacheRead, total('cacheRead'));
    assert.equal(exec.first_at, '2026-11-20T10:00:00.000Z');
    assert.equal(exec.data.usage[0].inputTokens, total('input'));
  }
});

test('200 seeded random runs in every AG-UI encoding equal @ag-ui/client: texts, reasoning, tool calls and results', async () => {
  let compared = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const run = randomRun(seed);
    for (const variant of VARIANTS) {
      const where = `seed ${seed} ${JSON.stringify(variant)}`;
      const { view, warnings, got } = await compare(encode(run, variant), where);
      assert.deepEqual(warnings, [], where);
      assertToolOutcomes(run, got, where);
      const [exec] = view.executions;
      assert.equal(exec.status, run.outcome.status, where);
      if (run.outcome.status === 'failed') assert.equal(exec.error, run.outcome.error, where);
      compared += 1;
    }
  }
  assert.equal(compared, 800);
});

function upstreamStreams() {
  const streams = [];
  for (const file of readdirSync(upstreamDir).filter((f) => f.endsWith('.json')).sort()) {
    const v = JSON.parse(readFileSync(new URL(file, upstreamDir), 'utf8'));
    if (Array.isArray(v)) streams.push([file, v]);
    else for (const [name, events] of Object.entries(v)) streams.push([`${file}#${name}`, events]);
  }
  return streams;
}

test("the event streams AG-UI's own tests publish equal @ag-ui/client in stepline", async () => {
  const streams = upstreamStreams();
  assert.equal(streams.length, 35, 'every published stream (20 .NET server baselines, 15 Dart fixtures)');
  for (const [name, events] of streams) {
    // A type the TypeScript protocol never had (the Dart SDK's THINKING_CONTENT)
    // makes @ag-ui/client's reducer throw; stepline keeps it as a warning.
    if (events.some((e) => e.type === 'THINKING_CONTENT')) continue;
    // @ag-ui/client 1.0 drops the pre-1.0 THINKING_* events; stepline keeps their text as reasoning.
    const legacy = events.filter((e) => e.type === 'THINKING_TEXT_MESSAGE_CONTENT');
    const { got } = await compare(events, name, { reasoning: legacy.length === 0 });
    if (legacy.length > 0) assert.deepEqual(got.reasoning, [legacy.map((e) => e.delta).join('')], name);
  }
});

test("text of another role than assistant is data under message:<role>, as the oracle's own message, not step text", async () => {
  const events = upstreamStreams().find(([n]) => n.endsWith('#concurrent_messages'))[1];
  const { view } = stepline(events);
  const system = (await oracleApply(events)).messages.find((m) => m.role === 'system');
  const [exec] = view.executions;
  assert.deepEqual(exec.data['message:system'], { messageId: system.id, content: system.content });
  assert.equal(exec.steps.map((s) => s.text).join(''), 'First message');
});

test('an interrupt outcome is an interrupted run whose tool shows approval requested (AG-UI .NET sample 09)', () => {
  const file = 'Step09_InterruptsApproval--PostRun_DeleteRequest_EmitsInterruptThenResumes--Turn_01.06.Response.Server.AGUI.json';
  const events = JSON.parse(readFileSync(new URL(file, upstreamDir), 'utf8'));
  const { view } = stepline(events);
  const [exec] = view.executions;
  assert.equal(exec.status, 'interrupted');
  assert.equal(exec.end_reason, 'tool_call');
  const [tool] = exec.steps.flatMap((s) => s.tools);
  assert.equal(tool.name, 'delete_file');
  assert.equal(tool.approval, 'requested');
  assert.deepEqual(tool.args, { filename: 'report-draft.txt' });
  assert.equal(exec.usage.input, 182);
});

test('the Dart-only THINKING_CONTENT is kept as an unknown type; a RUN_FINISHED after RUN_ERROR is a gap, the run stays failed', () => {
  const streams = Object.fromEntries(upstreamStreams());
  const thinking = stepline(streams['dart-fixtures-events.json#thinking_events']);
  assert.deepEqual(thinking.warnings.map((w) => [w.type, w.code]), [['THINKING_CONTENT', 'unknown_type'], ['THINKING_CONTENT', 'unknown_type']]);
  const failed = stepline(streams['dart-fixtures-events.json#error_handling']);
  assert.equal(failed.view.executions[0].status, 'failed');
  assert.equal(failed.view.executions[0].end_reason, 'TIMEOUT');
  assert.deepEqual(failed.warnings.map((w) => [w.type, w.code]), [['RUN_FINISHED', 'gap']]);
});

test('state snapshots and JSON Patch deltas give the state @ag-ui/client ends with', async () => {
  const streams = Object.fromEntries(upstreamStreams());
  const events = streams['dart-fixtures-events.json#state_management'];
  const { view } = stepline(events);
  const oracle = await oracleApply(events);
  assert.deepEqual(view.executions[0].data.state, oracle.state);
  const activity = stepline(streams['dart-fixtures-events.json#activity_events']);
  const oracleActivity = (await oracleApply(streams['dart-fixtures-events.json#activity_events'])).messages.find((m) => m.role === 'activity');
  assert.deepEqual(activity.view.executions[0].data[`activity:${oracleActivity.id}`].content, oracleActivity.content);
});

test('approvals: the run pauses on one interrupt per tool; the resumed run answers them, the approved tool runs and the denied one never does', async () => {
  const run = approvalRun();
  for (const variant of VARIANTS) {
    const where = `approvals ${JSON.stringify(variant)}`;
    const { view, warnings, got } = await compare(encode(run, variant), where);
    assert.deepEqual(warnings, [], where);
    assert.deepEqual(view.executions.map((e) => [e.execution_id, e.status, e.end_reason]), [
      ['run-approvals', 'interrupted', 'tool_call'],
      ['run-approvals-resume-1', 'completed', 'success'],
    ], where);
    const tools = view.executions[0].steps[0].tools;
    assert.deepEqual(tools.map((t) => [t.call_id, t.name, t.approval, t.status]), [
      ['call_rm_1', 'delete_file', 'approved', 'succeeded'],
      ['call_mail_2', 'send_mail', 'denied', tools[1].status],
    ], where);
    assert.notEqual(tools[1].status, 'succeeded', `${where}: the denied tool never ran`);
    assert.equal(tools[1].seen.completed, false, where);
    assert.deepEqual(got.results.map((r) => r.id), ['call_rm_1'], where);
  }
});

test('the approval-run vector the Rust tests read is what the encoder writes', () => {
  const stored = JSON.parse(readFileSync(new URL('../vectors/dialects/ag-ui/approval-run.json', import.meta.url), 'utf8'));
  assert.deepEqual(stored.events, encode(approvalRun(), { steps: true }));
});
