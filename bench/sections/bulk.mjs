// Section `bulk`: a whole 200,000-envelope recording (bench/generate-envelopes.mjs) replayed
// into a session in one call, against the floors any JS consumer of the same JSONL pays; then
// a second recording of 200,000 short envelopes (bench/generate-short-envelopes.mjs, about 200
// bytes each), where the cost per envelope dominates.
// Targets (issue 17; BENCHMARKS.md sums them up): ingestJsonl <= 1.3x bare JSON.parse of every line
// on both recordings, and faster than JSON.parse + zod validation of every envelope
// (bench/zod-envelope.mjs).
import { performance } from 'node:perf_hooks';

import { Session } from 'stepline';

import { generateRecordingText } from '../generate-envelopes.mjs';
import { generateShortRecordingText } from '../generate-short-envelopes.mjs';
import { int, markdownTable, mb, measure, printTable, rate, seconds, summarize } from '../lib/measure.mjs';
import { EnvelopeSchema } from '../zod-envelope.mjs';

const N = 200_000;
const BASE = 'JSON.parse per line';
const NO_VIEW = 'ingestJsonl(text), no view read';

export default async function bulk({ bigRuns, report }) {
  console.log(`\n=== bulk replay: a ${int(N)}-envelope recording into a session, against JSON.parse (+ zod) of its lines (DESIGN.md section 11)`);
  let started = performance.now();
  const text = generateRecordingText({ envelopes: N });
  const input = `${int(N)} envelopes, ${mb(Buffer.byteLength(text))} of JSONL`;
  console.log(`  input: ${input}, generated in ${seconds(started)}`);

  const ops = {
    // What any JS consumer of the recording does at least: split it and parse every line.
    [BASE]: () => {
      const out = [];
      for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
      return out;
    },
    // ...and one that checks what it parsed.
    'JSON.parse + zod per line': () => {
      const out = [];
      for (const line of text.split('\n')) if (line) out.push(EnvelopeSchema.parse(JSON.parse(line)));
      return out;
    },
    'Session.ingestJsonl(text)': () => {
      const session = new Session();
      return { handle: session, batch: session.ingestJsonl(text), view: session.getSnapshot() };
    },
    // Where the time goes: the same replay without reading the view at the end.
    [NO_VIEW]: () => {
      const session = new Session();
      return { handle: session, batch: session.ingestJsonl(text) };
    },
    'Session.fromRecording(text)': () => {
      const session = Session.fromRecording(text);
      return { handle: session, view: session.getSnapshot() };
    },
  };
  // Every contender must take the whole recording (checked on its warm-up result).
  const check = (label, result) => {
    const ok = label === NO_VIEW
      ? result.batch.applied === N && result.batch.errors.length === 0
      : label.startsWith('Session')
        ? result.view.counts.applied === N && result.view.status === 'completed' && (result.batch?.errors.length ?? 0) === 0
        : result.length === N;
    if (!ok) throw new Error(`bulk: ${label} did not take the whole recording`);
  };
  started = performance.now();
  const rows = summarize(await measure(ops, { warmup: 1, runs: bigRuns, check }), BASE);
  printTable(rows, BASE);
  console.log('');
  for (const r of rows) console.log(`  ${r.label.padEnd(28)} ${rate(N, r.median).padStart(14)} envelopes`);
  const row = (label) => rows.find((r) => r.label === label);
  const ingest = row('Session.ingestJsonl(text)');
  const zod = row('JSON.parse + zod per line');
  const vsZod = ingest.median / zod.median;
  console.log('\n  targets (DESIGN.md section 11): ingestJsonl <= 1.3x JSON.parse of the same lines; faster than JSON.parse + zod');
  console.log(`    ingestJsonl / JSON.parse: ${ingest.ratio.toFixed(2)}x (${ingest.ratio <= 1.3 ? 'met' : 'NOT met'})`);
  console.log(`    ingestJsonl / (JSON.parse + zod): ${vsZod.toFixed(2)}x (${vsZod < 1 ? 'met' : 'NOT met'})`);
  console.log(`  (1 warm-up + ${bigRuns} timed rounds in ${seconds(started)})`);
  report.target('bulk', 'ingestJsonl(200k) ≤ 1.3× JSON.parse per line', `${ingest.ratio.toFixed(2)}×`, ingest.ratio <= 1.3);
  report.target('bulk', 'ingestJsonl(200k) faster than JSON.parse + zod', `${vsZod.toFixed(2)}× the zod time`, vsZod < 1);
  report.target('bulk', 'fromRecording(200k) vs JSON.parse per line', `${row('Session.fromRecording(text)').ratio.toFixed(2)}×`);
  const short = await shortRecording({ bigRuns, report });
  report.section('bulk', [
    '## Floor: bulk replay of a recording',
    '',
    `A recording of ${input} (bench/generate-envelopes.mjs), replayed into a session in one call, against`,
    'what any JS consumer of the same text pays at least: split it and `JSON.parse` every line; and',
    '`JSON.parse` plus validation of every envelope with a zod schema of the v1.22 union',
    '(bench/zod-envelope.mjs: the `type` discriminant, session and execution ids, an ISO-8601 timestamp, each',
    'payload\'s fields and kinds). The session does more than either: it decodes, dedupes, orders and builds the',
    `reconciled view. One warm-up and ${bigRuns} timed rounds, round-robin.`,
    'Targets: `ingestJsonl` ≤ 1.3× `JSON.parse`, and faster than `JSON.parse` + zod.',
    '',
    ...markdownTable(rows, BASE),
    '',
    `\`ingestJsonl\` takes ${vsZod.toFixed(2)}× the time of \`JSON.parse\` + zod. The targets are measured as a page`,
    'uses a replay: the view is read once at the end (`getSnapshot()`), which for this run builds 14,286 steps as',
    `JS objects. Without that read (the "${NO_VIEW}" row) the replay takes ${row(NO_VIEW).ratio.toFixed(2)}× \`JSON.parse\`.`,
    '',
    ...rows.map((r) => `- ${r.label}: ${rate(N, r.median)} envelopes`),
    '',
    ...short,
  ]);
}

/**
 * The same replay on 200,000 short envelopes: JSON.parse, and ingestJsonl with and without the
 * view. Returns its lines of the report's bulk section.
 */
async function shortRecording({ bigRuns, report }) {
  console.log(`\n=== bulk replay of short envelopes: ${int(N)} of about 200 bytes (bench/generate-short-envelopes.mjs), against JSON.parse of its lines`);
  let started = performance.now();
  const text = generateShortRecordingText({ envelopes: N });
  const input = `${int(N)} envelopes, ${mb(Buffer.byteLength(text))} of JSONL`;
  console.log(`  input: ${input}, generated in ${seconds(started)}`);
  const INGEST = 'Session.ingestJsonl(text)';
  const ops = {
    [BASE]: () => {
      const out = [];
      for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
      return out;
    },
    [INGEST]: () => {
      const session = new Session();
      return { handle: session, batch: session.ingestJsonl(text), view: session.getSnapshot() };
    },
    [NO_VIEW]: () => {
      const session = new Session();
      return { handle: session, batch: session.ingestJsonl(text) };
    },
  };
  const check = (label, result) => {
    const ok = label === BASE
      ? result.length === N
      : result.batch.applied === N && result.batch.errors.length === 0
        && (label === NO_VIEW || (result.view.counts.applied === N && result.view.status === 'completed'));
    if (!ok) throw new Error(`bulk (short): ${label} did not take the whole recording`);
  };
  started = performance.now();
  const rows = summarize(await measure(ops, { warmup: 1, runs: bigRuns, check }), BASE);
  printTable(rows, BASE);
  const row = (label) => rows.find((r) => r.label === label);
  const ingest = row(INGEST);
  console.log('\n  target (issue 17): ingestJsonl <= 1.3x JSON.parse of the same short lines');
  console.log(`    ingestJsonl / JSON.parse: ${ingest.ratio.toFixed(2)}x (${ingest.ratio <= 1.3 ? 'met' : 'NOT met'})`);
  console.log(`  (1 warm-up + ${bigRuns} timed rounds in ${seconds(started)})`);
  report.target('bulk', 'ingestJsonl(200k short envelopes) ≤ 1.3× JSON.parse per line', `${ingest.ratio.toFixed(2)}×`, ingest.ratio <= 1.3);
  return [
    '### The same on short envelopes',
    '',
    `A recording of ${input} (bench/generate-short-envelopes.mjs: steps of a tool call and 4–24 streamed`,
    'chunks of a few words, about 200 bytes an envelope, no continuation trace), where the cost per envelope',
    `dominates. Target: \`ingestJsonl\` ≤ 1.3× \`JSON.parse\`. One warm-up and ${bigRuns} timed rounds, round-robin.`,
    '',
    ...markdownTable(rows, BASE),
    '',
    ...rows.map((r) => `- ${r.label}: ${rate(N, r.median)} envelopes`),
  ];
}
