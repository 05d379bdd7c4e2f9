// Section `decode`: envelope decoding throughput (issue 5) next to JSON.parse of the same
// text, on a recorded-run-like batch (status, steps, tools, mostly stream chunks) made by the
// package's own encoder. No target: a figure for scale.
import * as stepline from 'stepline';

import { int, markdownTable, mb, measure, printTable, summarize } from '../lib/measure.mjs';

const N = 20_000;

function envelopes() {
  const encoder = new stepline.EnvelopeEncoder({ sessionId: 'sess-bench', executionId: 'exec-1', config: { preset: 'debug' }, now: '2026-01-20T12:00:00Z' });
  const out = [];
  for (let i = 0; out.length < N; i += 1) {
    const step = Math.floor(i / 40) + 1;
    const op = i % 40 === 0
      ? { event: 'AgentStepStarted', args: { stepNumber: step, messageCount: step * 2, availableTools: 3 } }
      : i % 40 === 1
        ? { event: 'ToolCallStarted', args: { tool: 'search', args: { query: `q${i}`, limit: 3 } } }
        : i % 40 === 2
          ? { event: 'ToolCallCompleted', args: { tool: 'search', success: true, error: null, startedAt: '2026-01-20T11:59:59Z', endedAt: '2026-01-20T12:00:00Z' } }
          : i % 40 === 39
            ? { event: 'AgentStepCompleted', args: { stepNumber: step, hasToolCalls: true, errorCount: 0, finishReason: 'tool_calls', usage: { input: 100, output: 20, cacheWrite: 0, cacheRead: 0, reasoning: 0 }, startedAt: '2026-01-20T11:59:58Z' } }
            : { event: 'StreamEventReceived', args: { content: `token ${i} żółć ` } };
    for (const b of encoder.push(op)) out.push(b.envelope);
  }
  return out.slice(0, N);
}

export default async function decode({ runs, report }) {
  console.log('\n=== decode: envelopes per second (issue 5), next to JSON.parse of the same text');
  const lines = envelopes().map((e) => JSON.stringify(e));
  const jsonl = lines.join('\n');
  const objects = lines.map((l) => JSON.parse(l));
  console.log(`  input: ${int(N)} envelopes, ${mb(Buffer.byteLength(jsonl))} of JSONL`);
  const check = stepline.decodeEnvelopes(jsonl);
  if (check.envelopes.length !== N || check.errors.length) throw new Error('decodeEnvelopes did not decode the whole batch');
  const ops = {
    'JSON.parse per line': () => lines.map((l) => JSON.parse(l)),
    'decodeEnvelopes(jsonl)': () => stepline.decodeEnvelopes(jsonl),
    'decodeEnvelope(obj) each': () => objects.map((o) => stepline.decodeEnvelope(o)),
    'decodeEnvelope(line) each': () => lines.map((l) => stepline.decodeEnvelope(l)),
  };
  const rows = summarize(await measure(ops, { warmup: 2, runs }), 'JSON.parse per line');
  printTable(rows, 'JSON.parse per line');
  console.log('');
  for (const r of rows) console.log(`  ${r.label.padEnd(28)} ${int(N / (r.median / 1000)).padStart(12)} envelopes/s`);
  report.section('decode', [
    '## Envelope decoding (for scale, no target)',
    '',
    `${int(N)} envelopes made by stepline's \`EnvelopeEncoder\` (debug preset; mostly stream chunks), ${mb(Buffer.byteLength(jsonl))} of JSONL.`,
    '',
    ...markdownTable(rows, 'JSON.parse per line'),
    '',
    ...rows.map((r) => `- ${r.label}: ${int(N / (r.median / 1000))} envelopes/s`),
  ]);
}
