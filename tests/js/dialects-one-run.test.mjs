// Issue 18's run — tool steps (one failing), streamed non-ASCII text, reasoning and a final
// answer — described once (scripts/lib/dialects/run.mjs canonicalRun()) and expressed in each
// dialect by its encoder, ingested event by event. Each dialect's view must give the run's
// text and tool calls as the dialect's own reducer does (@ag-ui/client's defaultApplyEvents,
// ai's readUIMessageStream), mark the failed tool failed, keep laravel/ai's usage from its
// stream_end events, and say why the run ended; and the three views must agree with each
// other step by step. Needs `npm run build`.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { readUIMessageStream } from 'ai';
import { Session } from 'stepline';

import { encode as encodeAgUi } from '../../scripts/lib/dialects/ag-ui.mjs';
import { encode as encodeAiSdk } from '../../scripts/lib/dialects/ai-sdk.mjs';
import { encode as encodeLaravel } from '../../scripts/lib/dialects/laravel-ai.mjs';
import { canonicalRun, longRun } from '../../scripts/lib/dialects/run.mjs';
import { oracleApply, oracleFacts } from './lib/ag-ui-oracle.mjs';

const run = canonicalRun();
const DIALECTS = {
  'laravel-ai': encodeLaravel(run),
  'ag-ui': encodeAgUi(run),
  'ai-sdk': encodeAiSdk(run),
};

/** A session fed `events` one by one, as a live page receives them. */
function ingest(events) {
  const session = new Session();
  for (const e of events) {
    const out = session.ingest(structuredClone(e));
    assert.equal(out.rejected, null, JSON.stringify(e));
  }
  return session;
}

/** The steps of the session's one execution, as the facts every dialect must agree on. */
function facts(session) {
  const view = session.getSnapshot();
  assert.equal(view.executions.length, 1, 'one run, one execution');
  const e = view.executions[0];
  return {
    execution: e,
    steps: e.steps.map((s) => ({
      text: s.text,
      reasoning: s.reasoning,
      tools: s.tools.map((t) => ({ id: t.call_id, name: t.name, status: t.status, args: t.args, error: t.error })),
    })),
  };
}

/** The run description's own steps, in the same terms. */
const expectedSteps = run.steps.map((s) => ({
  text: s.text ?? '',
  reasoning: s.reasoning ?? '',
  tools: (s.tools ?? []).map((t) => ({ id: t.id, name: t.name, status: t.error ? 'failed' : 'succeeded', args: t.args, error: t.error ?? null })),
}));

for (const [dialect, events] of Object.entries(DIALECTS)) {
  test(`${dialect}: the run's steps, text, reasoning and tools, the failed tool failed, and why it ended`, () => {
    const { execution, steps } = facts(ingest(events));
    assert.equal(execution.dialect, dialect);
    assert.deepEqual(steps, expectedSteps);
    assert.equal(execution.status, 'completed');
    assert.ok(execution.end_reason, 'the producer said why the run ended');
    const answer = run.steps.at(-1).text;
    assert.equal(execution.text, run.steps.map((s) => s.text ?? '').join(''));
    assert.equal(execution.final_answer, answer);
  });
}

test("laravel/ai: the usage is what its stream_end events carried, step by step and in total", () => {
  const ends = DIALECTS['laravel-ai'].filter((e) => e.type === 'stream_end');
  assert.ok(ends.length > 0);
  const { execution } = facts(ingest(DIALECTS['laravel-ai']));
  const sum = (k) => ends.reduce((n, e) => n + (e.usage?.[k] ?? 0), 0);
  assert.equal(execution.usage.input, sum('prompt_tokens'));
  assert.equal(execution.usage.output, sum('completion_tokens'));
  assert.equal(execution.usage.cacheRead, sum('cache_read_input_tokens'));
  assert.equal(execution.usage.cacheWrite, sum('cache_write_input_tokens'));
  assert.equal(execution.usage.reasoning, sum('reasoning_tokens'));
  // …and that is the run description's usage, the numbers the producer was given.
  const described = (k) => run.steps.reduce((n, s) => n + s.usage[k], 0);
  assert.deepEqual(
    [execution.usage.input, execution.usage.output, execution.usage.cacheRead, execution.usage.reasoning],
    [described('input'), described('output'), described('cacheRead'), described('reasoning')],
  );
});

test("AG-UI: stepline's texts, tool calls and results equal @ag-ui/client's defaultApplyEvents", async () => {
  const events = DIALECTS['ag-ui'];
  const started = events.find((e) => e.type === 'RUN_STARTED');
  const oracle = oracleFacts((await oracleApply(events, { threadId: started.threadId, runId: started.runId })).messages);
  const { steps } = facts(ingest(events));
  assert.deepEqual(steps.map((s) => s.text).filter(Boolean), oracle.texts);
  assert.deepEqual(
    steps.flatMap((s) => s.tools.map((t) => ({ id: t.id, name: t.name, args: JSON.stringify(t.args) }))),
    oracle.calls.map((c) => ({ id: c.id, name: c.name, args: JSON.stringify(JSON.parse(c.args)) })),
  );
  const session = ingest(events);
  const results = session.getSnapshot().executions[0].steps.flatMap((s) => s.tools.map((t) => ({ id: t.call_id, content: t.result })));
  assert.deepEqual(results, oracle.results);
});

test("AI SDK: stepline's text, reasoning, tool calls and outcomes equal ai's readUIMessageStream", async () => {
  const chunks = DIALECTS['ai-sdk'];
  const stream = new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(structuredClone(c));
      controller.close();
    },
  });
  let message;
  for await (const m of readUIMessageStream({ stream })) message = m;
  const texts = message.parts.filter((p) => p.type === 'text').map((p) => p.text);
  const reasoning = message.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
  const tools = message.parts.filter((p) => p.type.startsWith('tool-')).map((p) => ({
    id: p.toolCallId,
    name: p.type.slice('tool-'.length),
    input: p.input,
    outcome: p.state === 'output-error' ? { error: p.errorText } : { result: p.output },
  }));
  const session = ingest(chunks);
  const steps = session.getSnapshot().executions[0].steps;
  assert.deepEqual(steps.map((s) => s.text).filter(Boolean), texts);
  assert.deepEqual(steps.map((s) => s.reasoning).filter(Boolean), reasoning);
  assert.deepEqual(
    steps.flatMap((s) => s.tools.map((t) => ({
      id: t.call_id,
      name: t.name,
      input: t.args,
      outcome: t.status === 'failed' ? { error: t.error } : { result: t.result },
    }))),
    tools,
  );
});

for (const [dialect, encode] of Object.entries({ 'laravel-ai': encodeLaravel, 'ag-ui': encodeAgUi, 'ai-sdk': encodeAiSdk })) {
  test(`${dialect}: a 39-step run, then the whole stream sent again (a resync), gives the same view`, () => {
    const long = longRun(39);
    const events = encode(long);
    const session = ingest(events);
    const first = session.getSnapshot();
    const e = first.executions[0];
    assert.equal(e.steps.length, 39);
    assert.equal(e.status, 'completed');
    assert.equal(e.final_answer, long.steps.at(-1).text);
    assert.deepEqual(
      e.steps.map((s) => s.tools.map((t) => [t.call_id, t.status])),
      long.steps.map((s) => (s.tools ?? []).map((t) => [t.id, t.error ? 'failed' : 'succeeded'])),
    );
    let duplicates = 0;
    for (const ev of events) duplicates += Number(session.ingest(structuredClone(ev)).duplicate);
    assert.equal(duplicates, events.length, 'every redelivered event is a duplicate');
    assert.deepEqual(session.getSnapshot().executions, first.executions);
  });
}
