// The AI SDK 6 UI message stream, ingested chunk by chunk, against the SDK's
// own reducer: `readUIMessageStream` (ai@6.0.324) runs on the same chunks
// and stepline's text, reasoning, tool calls (id, name, input), results,
// errors, approvals, data parts, files, sources and metadata must equal the
// final UIMessage's parts. Streams: the canonical run, 200 seeded random
// runs, and the 51 streams of the SDK's own tests
// (tests/vectors/dialects/ai-sdk/upstream/). Needs `npm run build`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { readUIMessageStream, uiMessageChunkSchema } from 'ai';
import { Session, SteplineError } from 'stepline';

import { encode } from '../../scripts/lib/dialects/ai-sdk.mjs';
import { approvalRun, canonicalRun, randomRun } from '../../scripts/lib/dialects/run.mjs';

const vectors = new URL('../vectors/dialects/ai-sdk/', import.meta.url);
const upstreamDir = new URL('upstream/', vectors);
const ALL = { metadata: true, sources: true, data: true, preliminary: true };

/** The SDK's reducer on `chunks`: the final UIMessage and the first error it reported. */
async function oracle(chunks) {
  const stream = new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(structuredClone(c));
      controller.close();
    },
  });
  let message;
  let error;
  for await (const m of readUIMessageStream({ stream, onError: (e) => { error ??= e; } })) message = m;
  return { message, error };
}

/** A session that ingested `chunks` one by one, as objects. */
function ingest(chunks) {
  const s = new Session();
  for (const c of chunks) s.ingest(structuredClone(c));
  return s;
}

/**
 * The message's parts grouped by step: the first `step-start` opens the first
 * group (parts before it belong to it too, as stepline puts chunks outside a
 * step into step 1), each later one a new group.
 */
function stepsOf(message) {
  const groups = [[]];
  let opened = false;
  for (const part of message?.parts ?? []) {
    if (part.type === 'step-start') {
      if (opened) groups.push([]);
      opened = true;
      continue;
    }
    groups[groups.length - 1].push(part);
  }
  return groups;
}

const isTool = (p) => p.type === 'dynamic-tool' || p.type.startsWith('tool-');
const toolName = (p) => (p.type === 'dynamic-tool' ? p.toolName : p.type.slice('tool-'.length));

/** The data names stepline gives the message's data and file parts (see src/dialects/ai_sdk.rs). */
function expectedData(message) {
  const data = {};
  const counts = {};
  const counted = (name) => `${name}#${(counts[name] = (counts[name] ?? 0) + 1)}`;
  for (const p of message?.parts ?? []) {
    if (p.type.startsWith('data-')) data[p.id != null ? `${p.type}:${p.id}` : counted(p.type)] = p.data;
    if (p.type === 'file') {
      const { type, ...file } = p;
      data[counted('file')] = file;
    }
  }
  if (message?.metadata != null) data.metadata = message.metadata;
  return data;
}

/** The JSON text of a value as stepline's view holds it (undefined output is null). */
const plain = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));

/** Asserts stepline's execution equals the SDK's final message, part by part. */
function assertSame(exec, message, chunks, label) {
  const groups = stepsOf(message);
  const steps = exec.steps;
  // A step that holds nothing in the SDK's message may still be a step to stepline.
  assert.ok(steps.length >= groups.filter((g) => g.length).length, `${label}: step count`);
  groups.forEach((parts, i) => {
    const step = steps[i];
    const where = `${label}: step ${i + 1}`;
    if (!step) {
      assert.equal(parts.length, 0, `${where} is missing`);
      return;
    }
    const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    const reasoning = parts.filter((p) => p.type === 'reasoning').map((p) => p.text).join('');
    assert.equal(step.text, text, `${where} text`);
    assert.equal(step.reasoning, reasoning, `${where} reasoning`);
    const tools = parts.filter(isTool);
    assert.equal(step.tools.length, tools.length, `${where} tool count`);
    for (const part of tools) {
      const run = step.tools.find((t) => t.call_id === part.toolCallId);
      const at = `${where} tool ${part.toolCallId}`;
      assert.ok(run, `${at} is missing`);
      assert.equal(run.name, toolName(part), `${at} name`);
      if (part.state !== 'input-streaming') {
        const input = part.state === 'output-error' && part.input === undefined ? part.rawInput : part.input;
        assert.deepEqual(run.args, plain(input), `${at} input`);
      }
      switch (part.state) {
        case 'output-available':
          // A call that asked a person first and then ran was approved.
          assert.equal(run.approval, part.approval ? 'approved' : null, `${at} approval`);
          if (part.preliminary) {
            assert.equal(run.status, 'running', `${at} preliminary output is not a completion`);
            assert.ok(run.output.endsWith(`${typeof part.output === 'string' ? part.output : JSON.stringify(part.output)}\n`), `${at} preliminary output`);
          } else {
            assert.equal(run.status, 'succeeded', `${at} status`);
            assert.deepEqual(run.result, plain(part.output), `${at} result`);
          }
          break;
        case 'output-error':
          assert.equal(run.status, 'failed', `${at} status`);
          assert.equal(run.error, part.errorText, `${at} error`);
          break;
        case 'output-denied':
          assert.equal(run.approval, 'denied', `${at} approval`);
          assert.equal(run.status, 'failed', `${at} status`);
          break;
        case 'approval-requested':
          assert.equal(run.approval, 'requested', `${at} approval`);
          assert.equal(run.status, 'running', `${at} status`);
          break;
        case 'input-available':
        case 'input-streaming':
          assert.equal(run.status, 'running', `${at} status`);
          break;
        default:
          assert.fail(`${at}: unexpected state ${part.state}`);
      }
    }
    const sources = parts.filter((p) => p.type === 'source-url' || p.type === 'source-document');
    const citations = step.annotations?.citations ?? [];
    assert.deepEqual(
      citations.map((c) => [c.label, c.url, c.provider_ref?.sourceId]),
      sources.map((p) => [p.title ?? p.url, p.url ?? null, p.sourceId]),
      `${where} sources`,
    );
  });
  const transient = new Set(chunks.filter((c) => c.type.startsWith('data-') && c.transient).map((c) => c.type));
  const data = Object.fromEntries(Object.entries(exec.data).filter(([k]) => !transient.has(k)));
  assert.deepEqual(data, plain(expectedData(message)), `${label}: data, files and metadata`);
}

/** The execution the SDK's final message is (the SDK keeps only the last message). */
function executionOf(view, message) {
  const execs = view.executions;
  return execs.find((e) => e.execution_id === message?.id && message?.id) ?? execs[execs.length - 1];
}

async function compareRun(run, options, label) {
  const chunks = encode(run, options);
  const { message, error } = await oracle(chunks);
  const s = ingest(chunks);
  const view = s.getSnapshot();
  assert.equal(view.executions.length, 1, label);
  const exec = view.executions[0];
  assert.equal(exec.dialect, 'ai-sdk', label);
  assert.equal(exec.execution_id, run.executionId, label);
  assertSame(exec, message, chunks, label);
  // What the reducer does not keep, checked against the run description.
  const failed = run.outcome.status === 'failed';
  assert.equal(error?.message, failed ? run.outcome.error : undefined, `${label}: the SDK's error`);
  assert.equal(exec.status, failed ? 'failed' : 'completed', `${label}: status`);
  assert.equal(exec.error, failed ? run.outcome.error : null, `${label}: error`);
  const last = run.steps[run.steps.length - 1];
  assert.equal(exec.end_reason, failed ? 'error' : chunks[chunks.length - 1].finishReason, `${label}: end reason`);
  if (!failed) assert.equal(exec.final_answer, last.text ?? null, `${label}: final answer`);
  run.steps.forEach((step, i) => {
    for (const tool of step.tools ?? []) {
      const t = exec.steps[i].tools.find((x) => x.call_id === tool.id);
      const failedTool = tool.error !== undefined || tool.approval === 'denied';
      assert.equal(t.status, failedTool ? 'failed' : 'succeeded', `${label}: ${tool.id}`);
      assert.equal(t.approval, tool.approval ?? null, `${label}: ${tool.id} approval`);
    }
  });
  return { s, chunks };
}

test('the canonical run reads as the SDK reads it: text, reasoning, tools (one failed), sources, data, metadata', async () => {
  const { s } = await compareRun(canonicalRun(), ALL, 'canonical');
  const exec = s.getSnapshot().executions[0];
  assert.equal(exec.steps[0].tools[1].status, 'failed');
  assert.equal(exec.steps[0].tools[1].error, 'Forecast service timed out after 5000 ms');
  assert.match(exec.final_answer, /天气晴朗 🌤️/);
  // Without any option: the plain stream streamText sends.
  await compareRun(canonicalRun(), {}, 'canonical (plain)');
});

test('a run whose tools ask a person first: the approved call runs, the denied one is failed, in one execution', async () => {
  for (const options of [{}, ALL]) {
    const { s } = await compareRun(approvalRun(), options, 'approvals');
    const exec = s.getSnapshot().executions[0];
    assert.deepEqual(exec.steps[0].tools.map((t) => [t.name, t.approval, t.status]), [
      ['delete_file', 'approved', 'succeeded'],
      ['send_mail', 'denied', 'failed'],
    ]);
    assert.equal(exec.status, 'completed');
    assert.equal(exec.steps.length, 2);
  }
});

test('the committed canonical vector is what the encoder writes', () => {
  const committed = readFileSync(new URL('canonical.jsonl', vectors), 'utf8');
  const chunks = encode(canonicalRun(), ALL);
  assert.equal(committed, chunks.map((c) => JSON.stringify(c)).join('\n') + '\n');
});

test('200 seeded random runs read as the SDK reads them', async () => {
  let tools = 0;
  let failedRuns = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const run = randomRun(seed);
    const options = { metadata: !!(seed & 1), sources: !!(seed & 2), data: !!(seed & 4), preliminary: !!(seed & 8) };
    await compareRun(run, options, `seed ${seed}`);
    tools += run.steps.reduce((n, s) => n + (s.tools?.length ?? 0), 0);
    failedRuns += run.outcome.status === 'failed' ? 1 : 0;
  }
  assert.ok(tools > 300 && failedRuns > 10, `${tools} tools, ${failedRuns} failed runs`);
});

const upstream = readdirSync(upstreamDir).filter((f) => f.endsWith('.json')).sort();
const refused = (name) => name.startsWith('should-throw') || name.startsWith('should-not-read-object-prototype');

test('the streams of the SDK\'s own tests read as the SDK reads them', async () => {
  assert.ok(upstream.length >= 40);
  let compared = 0;
  for (const file of upstream) {
    const { chunks } = JSON.parse(readFileSync(new URL(file, upstreamDir), 'utf8'));
    const { message, error } = await oracle(chunks);
    const s = ingest(chunks);
    if (refused(file)) {
      // The SDK refuses a part that never started; stepline keeps it, with a gap.
      assert.equal(error?.name, 'AI_UIMessageStreamError', file);
      assert.ok(s.getSnapshot().warnings.some((w) => w.code === 'gap'), file);
      continue;
    }
    const view = s.getSnapshot();
    assertSame(executionOf(view, message), message, chunks, file);
    compared += 1;
  }
  assert.ok(compared >= 35, `${compared} compared`);
});

test('a failed run fails, an abort interrupts, a denied tool is failed with its approval denied', async () => {
  const aborted = ingest([
    { type: 'start', messageId: 'm' },
    { type: 'start-step' },
    { type: 'tool-input-available', toolCallId: 'c1', toolName: 'deploy', input: { env: 'prod' } },
    { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
    { type: 'tool-output-denied', toolCallId: 'c1' },
    { type: 'abort', reason: 'user pressed stop' },
  ]).getSnapshot().executions[0];
  assert.equal(aborted.status, 'interrupted');
  assert.equal(aborted.end_reason, 'abort');
  assert.equal(aborted.steps[0].tools[0].approval, 'denied');
  assert.equal(aborted.steps[0].tools[0].status, 'failed');
});

test('a bad chunk throws a SteplineError naming the field; the session is unchanged', () => {
  const s = ingest([{ type: 'start', messageId: 'm' }, { type: 'start-step' }]);
  const before = JSON.stringify(s.getSnapshot());
  assert.throws(
    () => s.ingest({ type: 'tool-input-available', toolCallId: 'c1', input: {} }),
    (e) => e instanceof SteplineError && e.code === 'missing_field' && e.path === '/toolName',
  );
  assert.equal(JSON.stringify(s.getSnapshot()), before);
});

test('stepline refuses exactly the chunks the SDK\'s own schema refuses (uiMessageChunkSchema), and takes what it takes', async () => {
  const schema = uiMessageChunkSchema();
  const bad = JSON.parse(readFileSync(new URL('bad-input.json', vectors), 'utf8'));
  for (const c of bad) {
    assert.equal((await schema.validate(c.chunk)).success, false, `${c.name}: the SDK refuses it too`);
    for (const ok of c.before) assert.equal((await schema.validate(ok)).success, true, `${c.name}: context`);
  }
  const streams = [
    encode(canonicalRun(), ALL),
    encode(approvalRun(), ALL),
    ...upstream.map((f) => JSON.parse(readFileSync(new URL(f, upstreamDir), 'utf8')).chunks),
    ...JSON.parse(readFileSync(new URL('gaps.json', vectors), 'utf8')).map((c) => c.chunks),
  ];
  let checked = 0;
  for (const chunks of streams) {
    for (const c of chunks) {
      const r = await schema.validate(c);
      assert.equal(r.success, true, `${JSON.stringify(c)}: ${r.error?.message}`);
      checked += 1;
    }
  }
  assert.ok(checked > 300, `${checked} chunks`);
});
