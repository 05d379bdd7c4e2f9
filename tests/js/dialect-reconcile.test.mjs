// reconcileMessages end to end: a run description (scripts/lib/dialects/run.mjs)
// encoded by each dialect's encoder (scripts/lib/dialects/<dialect>.mjs),
// ingested event by event through the built package, then reconciled with the
// final form its producer would persist from the same events:
//   AG-UI       the messages @ag-ui/client's defaultApplyEvents ends with
//               (tests/js/lib/ag-ui-oracle.mjs);
//   AI SDK      the UIMessage `ai`'s readUIMessageStream ends with, after the
//               user's message;
//   laravel/ai  the agent_conversation_messages rows DatabaseConversationStore
//               inserts for the StreamedAgentResponse of those events
//               (TextDelta::combine, the ToolCall / ToolResult events'
//               data — results keyed by event index, as json_encode writes
//               the unindexed Collection — and StreamEnd::combineUsage), JSON
//               columns as stored text. laravel/ai stores completed runs only.
// The same run is consistent; one tool result changed in the final form is one
// field_mismatch on the step that called the tool, in the right execution.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { readUIMessageStream } from 'ai';
import { Session, SteplineError } from 'stepline';

import * as agUi from '../../scripts/lib/dialects/ag-ui.mjs';
import * as aiSdk from '../../scripts/lib/dialects/ai-sdk.mjs';
import * as laravelAi from '../../scripts/lib/dialects/laravel-ai.mjs';
import { canonicalRun, randomRun } from '../../scripts/lib/dialects/run.mjs';
import { oracleApply } from './lib/ag-ui-oracle.mjs';

const PROMPT = { id: 'user-1', role: 'user', parts: [{ type: 'text', text: 'Wie ist das Wetter in Zürich?' }] };

/** The final form each producer keeps for `events`, and how to change one tool call's result in it. */
const DIALECTS = {
  'ag-ui': {
    encode: (run) => agUi.encode(run),
    async finalForm(events) {
      return (await oracleApply(events)).messages;
    },
    changeResult(form, callId) {
      const m = form.find((x) => x.role === 'tool' && x.toolCallId === callId);
      m.content = JSON.stringify({ changed: true });
    },
  },
  'ai-sdk': {
    encode: (run) => aiSdk.encode(run),
    async finalForm(events) {
      const stream = new ReadableStream({
        start(controller) {
          for (const e of events) controller.enqueue(e);
          controller.close();
        },
      });
      let last;
      for await (const message of readUIMessageStream({ stream, onError: () => {} })) last = message;
      return [PROMPT, structuredClone(last)];
    },
    changeResult(form, callId) {
      const part = form[1].parts.find((p) => p.toolCallId === callId);
      part.output = { changed: true };
    },
  },
  'laravel-ai': {
    encode: (run) => laravelAi.encode(run),
    async finalForm(events) {
      return laravelRows(events);
    },
    changeResult(form, callId) {
      const results = JSON.parse(form[1].tool_results);
      const r = Object.values(results).find((x) => x.id === callId);
      r.result = { changed: true };
      form[1].tool_results = JSON.stringify(results);
    },
  },
};

/** The user and assistant rows laravel/ai stores for a streamed response made of `events`. */
function laravelRows(events) {
  const calls = events.filter((e) => e.type === 'tool_call');
  const argsOf = new Map(calls.map((e) => [e.tool_id, e.arguments]));
  const results = {};
  events.forEach((e, i) => {
    if (e.type === 'tool_result') results[String(i)] = { id: e.tool_id, name: e.tool_name, arguments: argsOf.get(e.tool_id) ?? [], result: e.result, result_id: null };
  });
  const usage = events.filter((e) => e.type === 'stream_end').reduce((u, e) => Object.fromEntries(Object.keys(u).map((k) => [k, u[k] + (e.usage?.[k] ?? 0)])), {
    prompt_tokens: 0, completion_tokens: 0, cache_write_input_tokens: 0, cache_read_input_tokens: 0, reasoning_tokens: 0,
  });
  const start = events.find((e) => e.type === 'stream_start');
  const row = { conversation_id: 'conv-1', user_id: 1, agent: 'App\\Ai\\Agents\\WeatherAgent', attachments: '[]' };
  return [
    { id: 'row-1', ...row, role: 'user', content: PROMPT.parts[0].text, tool_calls: '[]', tool_results: '[]', usage: '[]', meta: '[]' },
    {
      id: 'row-2', ...row, role: 'assistant',
      content: events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join(''),
      tool_calls: JSON.stringify(calls.map((e) => ({ id: e.tool_id, name: e.tool_name, arguments: e.arguments, result_id: null, reasoning_id: e.reasoning_id ?? null, reasoning_summary: null }))),
      tool_results: JSON.stringify(results),
      usage: JSON.stringify(usage),
      meta: JSON.stringify({ provider: start?.provider ?? null, model: start?.model ?? null, citations: [] }),
    },
  ];
}

/** A session that ingested `events` one by one. */
function sessionOf(events) {
  const session = new Session();
  for (const e of events) {
    const out = session.ingest(e);
    assert.ok(out.applied || out.duplicate, `${e.type}: ${JSON.stringify(out)}`);
  }
  return session;
}

const short = (ds) => ds.map((d) => `${d.kind} step ${d.step} ${d.path}: ${d.message}`);

/** Reconciles `run` in `dialect` as is, then with the result of each of `changed` calls altered. */
async function check(dialect, run, changed, label) {
  const d = DIALECTS[dialect];
  const events = d.encode(run);
  const session = sessionOf(events);
  try {
    const form = await d.finalForm(events);
    const clean = session.reconcileMessages(form);
    assert.equal(clean.dialect, dialect, label);
    assert.deepEqual(short(clean.differences), [], label);
    assert.equal(clean.consistent, true, label);
    assert.equal(session.reconcileMessages(JSON.stringify(form), { dialect }).consistent, true, `${label} as text, dialect given`);
    for (const { id, step } of changed) {
      const bad = structuredClone(form);
      d.changeResult(bad, id);
      const report = session.reconcileMessages(bad);
      const at = `${label}: result of ${id} changed`;
      assert.equal(report.consistent, false, at);
      assert.deepEqual(report.differences.map((x) => [x.kind, x.step, x.execution_id]), [['field_mismatch', step, run.executionId]], `${at}: ${short(report.differences)}`);
      assert.ok(report.differences[0].message.includes(id), at);
    }
  } finally {
    session.free();
  }
}

/** Every tool call of `run` that returned a result, with its step number. */
const resultCalls = (run) => run.steps.flatMap((s, i) => (s.tools ?? []).filter((t) => t.error === undefined).map((t) => ({ id: t.id, step: i + 1 })));

for (const dialect of Object.keys(DIALECTS)) {
  test(`${dialect}: the canonical run reconciles clean, and a changed tool result is one difference on its step`, async () => {
    const run = canonicalRun();
    await check(dialect, run, resultCalls(run), `${dialect} canonical`);
  });

  test(`${dialect}: seeded runs of many shapes reconcile clean, and a changed result lands on its step`, async () => {
    let checked = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const run = randomRun(seed);
      // laravel/ai stores only a completed response.
      if (dialect === 'laravel-ai' && run.outcome.status !== 'completed') continue;
      const calls = resultCalls(run);
      await check(dialect, run, calls.slice(-1), `${dialect} seed ${seed}`);
      checked++;
    }
    assert.ok(checked >= 30, `${checked} runs`);
  });
}

test('a form of no known shape is a SteplineError with its path', () => {
  const session = new Session();
  try {
    assert.throws(() => session.reconcileMessages([{ foo: 1 }]), (e) => e instanceof SteplineError && e.code === 'invalid_value' && e.path === '');
    assert.throws(() => session.reconcileMessages([], { dialect: 'langchain' }), (e) => e.code === 'invalid_value' && e.path === '/options/dialect');
    assert.throws(() => session.reconcileMessages([{ id: 'm', role: 'assistant', parts: [{ type: 'tool-f', toolCallId: 'c', state: 'done' }] }]), (e) => e.code === 'invalid_value' && e.path === '/0/parts/0/state');
  } finally {
    session.free();
  }
});
