#!/usr/bin/env node
// Writes tests/vectors/dialects/final-forms/: for runs of scripts/lib/dialects/run.mjs,
// the session side as normalised envelopes (the vocabulary the dialect translators
// emit) and the final form each producer keeps at the run's end, built from the
// producers' own declarations:
//   AG-UI     @ag-ui/core 1.x `Message` (UserMessage, ReasoningMessage, AssistantMessage
//             with `toolCalls: [{id, type: "function", function: {name, arguments}}]`,
//             ToolMessage `{id, role: "tool", toolCallId, content, error?}`)
//   AI SDK    ai 6 `UIMessage` (`parts`: step-start, reasoning, text, `tool-<name>` with
//             state output-available / output-error)
//   laravel   laravel/ai `agent_conversation_messages` rows as DatabaseConversationStore
//             inserts them (JSON columns as stored text; ToolCall/ToolResult/Usage/Meta
//             `toArray()` keys; a streamed response's tool_results keyed by event index)
// and cases.json: which form is reconciled with which session, and what the report
// must say (derived here from the one change each case makes).
//
//   node scripts/gen-final-form-vectors.mjs          writes the files
//   node scripts/gen-final-form-vectors.mjs --check  exits 1 when they differ
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalRun, randomRun, chunks, clock } from './lib/dialects/run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'tests', 'vectors', 'dialects', 'final-forms');
const check = process.argv.includes('--check');
const PROMPT = 'Wie ist das Wetter in Zürich?';

/** The session side: the normalised envelopes of `run`, one JSON text a line. */
export function envelopes(run) {
  const c = clock(run.startedAt);
  const out = [];
  const env = (type, payload) => out.push({ type, session_id: run.sessionId, execution_id: run.executionId, timestamp: c.tick(10), payload });
  env('agent.status', { status: 'processing', previous_status: 'idle' });
  run.steps.forEach((step, i) => {
    const n = i + 1;
    env('agent.step.started', { step_number: n });
    for (const d of chunks(step.reasoning, run.chunkChars)) env('agent.llm.reasoning.delta', { text_delta: d, step_index: n });
    for (const d of chunks(step.text, run.chunkChars)) env('agent.llm.output_text.delta', { text_delta: d, step_index: n });
    for (const t of step.tools ?? []) {
      env('agent.tool.started', { tool_name: t.name, tool_call_id: t.id, args: t.args, step_index: n });
      env('agent.tool.completed', t.error === undefined
        ? { tool_name: t.name, tool_call_id: t.id, success: true, result: t.result, step_index: n }
        : { tool_name: t.name, tool_call_id: t.id, success: false, error: t.error, step_index: n });
    }
    env('agent.step.completed', { step_number: n, finish_reason: step.finishReason, has_tool_calls: (step.tools ?? []).length > 0, usage: step.usage });
  });
  if (run.outcome.status === 'completed') {
    env('agent.run.completed', { final_answer: run.steps.at(-1).text ?? '', reason: 'stop' });
    env('agent.status', { status: 'completed', previous_status: 'processing' });
  } else {
    env('agent.run.failed', { error: run.outcome.error, reason: 'error' });
    env('agent.status', { status: 'failed', previous_status: 'processing' });
  }
  return out.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

const resultText = (r) => (typeof r === 'string' ? r : JSON.stringify(r));

/**
 * AG-UI messages: as the client's reducer orders them (tool messages after the assistant message
 * that called). A failed call: `errors: 'field'` keeps the ToolMessage's `error` member;
 * `'content'` keeps what the 1.0 reducer makes of a `TOOL_CALL_RESULT` in the Cloudflare Agents
 * adapter's convention (content `{"error": "<message>"}`, no `error` member); `'plain'` the bare
 * message text, which no convention reads as a failure.
 */
export function agUi(run, { turnId = 1, errors = 'field' } = {}) {
  const at = {};
  const messages = [{ id: `user-${turnId}`, role: 'user', content: PROMPT }];
  run.steps.forEach((step, i) => {
    const n = i + 1;
    if (step.reasoning) messages.push({ id: `reasoning-${turnId}-${n}`, role: 'reasoning', content: step.reasoning });
    if (step.text || step.tools?.length) {
      const m = { id: `msg-${turnId}-${n}`, role: 'assistant' };
      if (step.text) m.content = step.text;
      if (step.tools?.length) m.toolCalls = step.tools.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: JSON.stringify(t.args) } }));
      messages.push(m);
    }
    for (const t of step.tools ?? []) {
      at[t.id] = messages.length;
      messages.push(t.error === undefined
        ? { id: `result-${t.id}`, role: 'tool', toolCallId: t.id, content: resultText(t.result) }
        : errors === 'field' ? { id: `result-${t.id}`, role: 'tool', toolCallId: t.id, content: '', error: t.error }
          : { id: `result-${t.id}`, role: 'tool', toolCallId: t.id, content: errors === 'content' ? JSON.stringify({ error: t.error }) : t.error });
    }
  });
  return { messages, at };
}

/** AI SDK UIMessage[]: one assistant message whose step-start parts open its steps. */
export function aiSdk(run, { id = run.executionId } = {}) {
  const parts = [];
  const at = {};
  run.steps.forEach((step, i) => {
    parts.push({ type: 'step-start' });
    if (step.reasoning) parts.push({ type: 'reasoning', text: step.reasoning, state: 'done' });
    if (step.text) { at[`text-${i + 1}`] = parts.length; parts.push({ type: 'text', text: step.text, state: 'done' }); }
    for (const t of step.tools ?? []) {
      at[t.id] = parts.length;
      parts.push(t.error === undefined
        ? { type: `tool-${t.name}`, toolCallId: t.id, state: 'output-available', input: t.args, output: t.result }
        : { type: `tool-${t.name}`, toolCallId: t.id, state: 'output-error', input: t.args, errorText: t.error });
    }
  });
  return { messages: [{ id: `user-${id}`, role: 'user', parts: [{ type: 'text', text: PROMPT }] }, { id, role: 'assistant', parts }], at };
}

/** laravel/ai rows: a user row and the assistant row DatabaseConversationStore inserts. */
export function laravel(run, { stored = true, keyedResults = true } = {}) {
  const col = (v) => (stored ? JSON.stringify(v) : v);
  const tools = run.steps.flatMap((s) => s.tools ?? []);
  const usage = run.steps.reduce((u, s) => ({
    prompt_tokens: u.prompt_tokens + s.usage.input,
    completion_tokens: u.completion_tokens + s.usage.output,
    cache_write_input_tokens: u.cache_write_input_tokens + s.usage.cacheWrite,
    cache_read_input_tokens: u.cache_read_input_tokens + s.usage.cacheRead,
    reasoning_tokens: u.reasoning_tokens + s.usage.reasoning,
  }), { prompt_tokens: 0, completion_tokens: 0, cache_write_input_tokens: 0, cache_read_input_tokens: 0, reasoning_tokens: 0 });
  const results = tools.map((t) => ({ id: t.id, name: t.name, arguments: t.args, result: t.error ?? t.result, result_id: null }));
  // The streamed response filters its event list without values(): keys are event indexes.
  const keyed = Object.fromEntries(results.map((r, i) => [String(3 + i * 4), r]));
  const base = { conversation_id: '0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b', user_id: 1, agent: 'App\\Ai\\Agents\\WeatherAgent', created_at: '2026-11-20 10:00:05', updated_at: '2026-11-20 10:00:05' };
  return [
    { id: '0199a1b2-7c3d-7e4f-8a9b-000000000001', ...base, role: 'user', content: PROMPT, attachments: '[]', tool_calls: '[]', tool_results: '[]', usage: '[]', meta: '[]' },
    {
      id: '0199a1b2-7c3d-7e4f-8a9b-000000000002', ...base, role: 'assistant',
      content: run.steps.map((s) => s.text ?? '').join(''),
      attachments: '[]',
      tool_calls: col(tools.map((t) => ({ id: t.id, name: t.name, arguments: t.args, result_id: null, reasoning_id: null, reasoning_summary: null }))),
      tool_results: col(keyedResults ? keyed : results),
      usage: col(usage),
      meta: col({ provider: run.provider, model: run.model, citations: [] }),
    },
  ];
}

function build() {
  const files = new Map();
  const cases = [];
  const errors = [];
  const put = (name, value) => files.set(name, typeof value === 'string' ? value : JSON.stringify(value, null, 1) + '\n');
  const clean = (name, session, form, dialect = null, extra = {}) => cases.push({ name, session, form, dialect, expect: { consistent: true, differences: [] }, ...extra });
  const diff = (name, session, form, differences, dialect = null) => cases.push({ name, session, form, dialect, expect: { consistent: false, differences } });

  const run = canonicalRun();
  const id = run.executionId;
  put('sessions/canonical.jsonl', envelopes(run));
  const S = 'sessions/canonical.jsonl';

  // Clean: the same run in every form.
  const ag = agUi(run);
  put('forms/canonical.ag-ui.json', ag.messages);
  clean('ag-ui: the same run is consistent', S, 'forms/canonical.ag-ui.json');
  put('forms/canonical.ag-ui.snapshot.json', { type: 'MESSAGES_SNAPSHOT', messages: ag.messages });
  clean('ag-ui: a MESSAGES_SNAPSHOT event is read as its messages', S, 'forms/canonical.ag-ui.snapshot.json');
  put('forms/canonical.ag-ui.reduced.json', agUi(run, { errors: 'content' }).messages);
  clean('ag-ui: a failed call as the 1.0 reducer keeps it (content {"error": …}) is consistent', S, 'forms/canonical.ag-ui.reduced.json');
  const agPlain = agUi(run, { errors: 'plain' });
  put('forms/canonical.ag-ui.failure-plain.json', agPlain.messages);
  diff('ag-ui: a failed call whose message says no failure is a field_mismatch of its outcome', S, 'forms/canonical.ag-ui.failure-plain.json',
    [{ kind: 'field_mismatch', step: 1, execution_id: id, path: `/${agPlain.at.call_forecast_2}` }]);
  const sdk = aiSdk(run);
  put('forms/canonical.ai-sdk.json', sdk.messages);
  clean('ai-sdk: the same run is consistent', S, 'forms/canonical.ai-sdk.json');
  put('forms/canonical.laravel-ai.json', laravel(run));
  clean('laravel-ai: the stored rows (JSON columns as text, results keyed by event index) are consistent', S, 'forms/canonical.laravel-ai.json');
  put('forms/canonical.laravel-ai.decoded.json', laravel(run, { stored: false, keyedResults: false }));
  clean('laravel-ai: decoded JSON columns are consistent', S, 'forms/canonical.laravel-ai.decoded.json', 'laravel-ai');

  // An earlier turn the session never saw is not compared.
  const earlier = aiSdk({ ...run, steps: [{ text: 'Hallo!', usage: run.steps[0].usage, finishReason: 'stop' }] }, { id: 'msg-earlier' }).messages;
  put('forms/canonical.ai-sdk.two-turns.json', [...earlier, ...sdk.messages]);
  clean('ai-sdk: an earlier turn the session never streamed is left uncompared', S, 'forms/canonical.ai-sdk.two-turns.json', null, { turns: [null, 0] });
  const agEarlier = agUi({ ...run, steps: [{ text: 'Hallo!', usage: run.steps[0].usage }] }, { turnId: 0 }).messages;
  put('forms/canonical.ag-ui.two-turns.json', [...agEarlier, ...ag.messages]);
  clean('ag-ui: turns are paired from the end', S, 'forms/canonical.ag-ui.two-turns.json', null, { turns: [null, 0] });

  // One change each, and the difference it must give.
  const changed = { temp: 19, sky: 'bewölkt' };
  const sdkResult = structuredClone(sdk.messages);
  sdkResult[1].parts[sdk.at.call_weather_1].output = changed;
  put('forms/canonical.ai-sdk.result-changed.json', sdkResult);
  diff('ai-sdk: a changed tool result is a field_mismatch on its step', S, 'forms/canonical.ai-sdk.result-changed.json',
    [{ kind: 'field_mismatch', step: 1, execution_id: id, path: `/1/parts/${sdk.at.call_weather_1}/output` }]);

  const agResult = structuredClone(ag.messages);
  agResult[ag.at.call_convert_3].content = '71 °F';
  put('forms/canonical.ag-ui.result-changed.json', agResult);
  diff('ag-ui: a changed tool result is a field_mismatch on the step it was streamed in', S, 'forms/canonical.ag-ui.result-changed.json',
    [{ kind: 'field_mismatch', step: 2, execution_id: id, path: `/${ag.at.call_convert_3}` }]);

  const lvResult = laravel(run, { stored: false, keyedResults: false });
  lvResult[1].tool_results[2].result = '71 °F';
  put('forms/canonical.laravel-ai.result-changed.json', lvResult);
  diff('laravel-ai: a changed tool result is a field_mismatch on the step it was streamed in', S, 'forms/canonical.laravel-ai.result-changed.json',
    [{ kind: 'field_mismatch', step: 2, execution_id: id, path: '/1/tool_results/2/result' }]);

  const sdkText = structuredClone(sdk.messages);
  sdkText[1].parts[sdk.at['text-3']].text = run.steps[2].text.replace('21,5', '22,5');
  put('forms/canonical.ai-sdk.text-changed.json', sdkText);
  diff('ai-sdk: changed text is a text_mismatch on its step', S, 'forms/canonical.ai-sdk.text-changed.json',
    [{ kind: 'text_mismatch', step: 3, execution_id: id, path: `/1/parts/${sdk.at['text-3']}/text` }]);

  const lvText = laravel(run);
  lvText[1].content = lvText[1].content.replace('21,5', '22,5');
  put('forms/canonical.laravel-ai.text-changed.json', lvText);
  diff('laravel-ai: changed text is placed in the streamed step it falls in', S, 'forms/canonical.laravel-ai.text-changed.json',
    [{ kind: 'text_mismatch', step: 3, execution_id: id, path: '/1/content' }]);

  const agReasoning = structuredClone(ag.messages);
  const r2 = agReasoning.findIndex((m) => m.id === 'reasoning-1-2');
  agReasoning[r2].content = 'Die Vorhersage fiel aus.';
  put('forms/canonical.ag-ui.reasoning-changed.json', agReasoning);
  diff('ag-ui: changed reasoning is a text_mismatch placed in its streamed step', S, 'forms/canonical.ag-ui.reasoning-changed.json',
    [{ kind: 'text_mismatch', step: 2, execution_id: id, path: `/${r2}/content` }]);

  const lvUsage = laravel(run);
  lvUsage[1].usage = JSON.stringify({ ...JSON.parse(lvUsage[1].usage), completion_tokens: 1 });
  put('forms/canonical.laravel-ai.usage-changed.json', lvUsage);
  diff('laravel-ai: other usage is a run-wide field_mismatch', S, 'forms/canonical.laravel-ai.usage-changed.json',
    [{ kind: 'field_mismatch', step: null, execution_id: id, path: '/1/usage' }]);

  const sdkOutcome = structuredClone(sdk.messages);
  const p = sdkOutcome[1].parts[sdk.at.call_forecast_2];
  delete p.errorText; p.state = 'output-available'; p.output = { days: [] };
  put('forms/canonical.ai-sdk.failure-hidden.json', sdkOutcome);
  diff('ai-sdk: a failed call kept as succeeded is a field_mismatch of its outcome', S, 'forms/canonical.ai-sdk.failure-hidden.json',
    [{ kind: 'field_mismatch', step: 1, execution_id: id, path: `/1/parts/${sdk.at.call_forecast_2}/output` }]);

  const agMissing = structuredClone(ag.messages).filter((m) => m.toolCallId !== 'call_convert_3');
  const a2 = agMissing.findIndex((m) => m.id === 'msg-1-2');
  agMissing.splice(a2, 1);
  put('forms/canonical.ag-ui.call-removed.json', agMissing);
  diff('ag-ui: a streamed call the form lacks is tool_call_unexpected on its step', S, 'forms/canonical.ag-ui.call-removed.json',
    [{ kind: 'tool_call_unexpected', step: 2, execution_id: id, path: '/stream/steps/2/tools/0' }]);

  const sdkExtra = structuredClone(sdk.messages);
  const extraAt = sdk.at.call_convert_3 + 1;
  sdkExtra[1].parts.splice(extraAt, 0, { type: 'dynamic-tool', toolName: 'notify', toolCallId: 'call_notify_9', state: 'output-available', input: { to: 'ops' }, output: 'sent' });
  put('forms/canonical.ai-sdk.call-added.json', sdkExtra);
  diff('ai-sdk: a call the stream never carried is tool_call_missing on the form\'s step', S, 'forms/canonical.ai-sdk.call-added.json',
    [{ kind: 'tool_call_missing', step: 2, execution_id: id, path: `/1/parts/${extraAt}` }]);

  const sdkSteps = structuredClone(sdk.messages);
  sdkSteps[1].parts.push({ type: 'step-start' }, { type: 'text', text: 'Noch etwas?' });
  put('forms/canonical.ai-sdk.step-added.json', sdkSteps);
  diff('ai-sdk: a step the stream never carried is missing_step', S, 'forms/canonical.ai-sdk.step-added.json',
    [{ kind: 'missing_step', step: 4, execution_id: id, path: `/1/parts/${sdkSteps[1].parts.length - 2}` }]);

  // A failed run: laravel/ai stores only completed responses.
  const failedRun = { ...canonicalRun(), executionId: 'run-failed', outcome: { status: 'failed', error: 'provider error: overloaded' } };
  failedRun.steps[2].finishReason = 'error';
  put('sessions/failed.jsonl', envelopes(failedRun));
  put('forms/failed.laravel-ai.json', laravel(failedRun));
  diff('laravel-ai: a stored run the stream saw fail is a status_mismatch', 'sessions/failed.jsonl', 'forms/failed.laravel-ai.json',
    [{ kind: 'status_mismatch', step: null, execution_id: 'run-failed', path: '/1' }]);

  // Runs of many shapes, clean in every form.
  for (const seed of [3, 11, 42, 77, 1234]) {
    const r = randomRun(seed);
    const s = `sessions/random-${seed}.jsonl`;
    put(s, envelopes(r));
    put(`forms/random-${seed}.ag-ui.json`, agUi(r).messages);
    clean(`ag-ui: random run ${seed} is consistent`, s, `forms/random-${seed}.ag-ui.json`);
    put(`forms/random-${seed}.ai-sdk.json`, aiSdk(r).messages);
    clean(`ai-sdk: random run ${seed} is consistent`, s, `forms/random-${seed}.ai-sdk.json`);
    if (r.outcome.status === 'completed') {
      put(`forms/random-${seed}.laravel-ai.json`, laravel(r));
      clean(`laravel-ai: random run ${seed} is consistent`, s, `forms/random-${seed}.laravel-ai.json`);
    }
  }

  // Forms of no known shape, and bad messages of a known one.
  const bad = (name, form, dialect, code, path) => errors.push({ name, form, dialect, error: { code, path } });
  bad('a number is no final form', 42, null, 'invalid_type', '');
  bad('objects of no producer', [{ foo: 1 }], null, 'invalid_value', '');
  bad('an empty array names no dialect', [], null, 'invalid_value', '');
  bad('a message that is not an object', [{ id: 'u', role: 'user', content: 'x' }, 'hello'], null, 'invalid_type', '/1');
  bad('an unknown dialect', [], 'langchain', 'invalid_value', '/options/dialect');
  bad('ag-ui: a tool message without toolCallId', [{ id: 'u', role: 'user', content: 'x' }, { id: 't', role: 'tool', content: 'r' }], 'ag-ui', 'missing_field', '/1/toolCallId');
  bad('ag-ui: a tool call without function', [{ id: 'a', role: 'assistant', toolCalls: [{ id: 'c', type: 'function' }] }], null, 'missing_field', '/0/toolCalls/0/function');
  bad('ag-ui: arguments that are not JSON text', [{ id: 'a', role: 'assistant', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { a: 1 } } }] }], null, 'invalid_type', '/0/toolCalls/0/function/arguments');
  bad('ag-ui: MESSAGES_SNAPSHOT without messages', { type: 'MESSAGES_SNAPSHOT' }, null, 'missing_field', '/messages');
  bad('ai-sdk: a tool part of no known state', [{ id: 'm', role: 'assistant', parts: [{ type: 'step-start' }, { type: 'tool-f', toolCallId: 'c', state: 'done', input: {} }] }], null, 'invalid_value', '/0/parts/1/state');
  bad('ai-sdk: an output-error without errorText', [{ id: 'm', role: 'assistant', parts: [{ type: 'tool-f', toolCallId: 'c', state: 'output-error', input: {} }] }], null, 'missing_field', '/0/parts/0/errorText');
  bad('ai-sdk: parts that are not an array', [{ id: 'm', role: 'assistant', parts: {} }], 'ai-sdk', 'invalid_type', '/0/parts');
  bad('laravel-ai: a tool_calls column that is not JSON', [{ role: 'assistant', content: '', tool_calls: '[{', tool_results: '[]', usage: '[]' }], null, 'invalid_json', '/0/tool_calls');
  bad('laravel-ai: a tool result without id', [{ role: 'assistant', content: '', tool_calls: [], tool_results: [{ name: 'f', result: 1 }], usage: [] }], null, 'missing_field', '/0/tool_results/0/id');
  bad('laravel-ai: usage that is not a number', [{ role: 'assistant', content: '', tool_calls: [], tool_results: [], usage: { prompt_tokens: 'many' } }], null, 'invalid_type', '/0/usage/prompt_tokens');

  put('cases.json', { cases, errors });
  return files;
}

const files = build();
let stale = 0;
for (const [name, text] of files) {
  const file = join(dir, name);
  if (check) {
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) { console.error(`stale: ${name}`); stale++; }
  } else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}
if (check && stale) process.exit(1);
console.log(`${check ? 'checked' : 'wrote'} ${files.size} files in ${dir}`);
