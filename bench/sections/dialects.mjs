// Section `dialects`: bulk ingest of recordings in each foreign dialect (laravel/ai broadcasts,
// AG-UI events, AI SDK UI message chunks), each made by that dialect's encoder
// (scripts/lib/dialects/) from the same seeded run descriptions, next to the v1.22 figure on
// short envelopes (bench/generate-short-envelopes.mjs) of the same count. Each replay is
// Session.ingestJsonl(text) with the view read once at the end, against JSON.parse of every
// line: the floor any JS consumer of the same JSONL pays. The issue asks for the figures, not
// a target; the v1.22 target (<= 1.3x) is printed next to them for comparison.
import { performance } from 'node:perf_hooks';

import { Session } from 'stepline';

import { randomRun } from '../../scripts/lib/dialects/run.mjs';
import { encode as encodeLaravel } from '../../scripts/lib/dialects/laravel-ai.mjs';
import { encode as encodeAgUi } from '../../scripts/lib/dialects/ag-ui.mjs';
import { encode as encodeAiSdk } from '../../scripts/lib/dialects/ai-sdk.mjs';
import { generateShortRecordingText } from '../generate-short-envelopes.mjs';
import { int, markdownTable, mb, measure, printTable, seconds, summarize } from '../lib/measure.mjs';

const N = 100_000;
const PARSE = 'JSON.parse per line';
const INGEST = 'Session.ingestJsonl(text) + view';

/** JSONL of at least `n` events of one dialect: seeded random runs, one session, until `n`. */
export function dialectRecording(encode, n) {
  const lines = [];
  for (let seed = 1; lines.length < n; seed++) {
    const run = randomRun(seed, { maxSteps: 8 });
    run.sessionId = 'sess-bench';
    for (const event of encode(run)) lines.push(JSON.stringify(event));
  }
  return lines.slice(0, n).join('\n');
}

export default async function dialects({ bigRuns, report }) {
  console.log(`\n=== dialects: bulk ingest of ${int(N)} events in each dialect, against JSON.parse of its lines`);
  const inputs = [
    ['instructor v1.22 (short envelopes)', () => generateShortRecordingText({ envelopes: N })],
    ['laravel/ai', () => dialectRecording(encodeLaravel, N)],
    ['AG-UI', () => dialectRecording(encodeAgUi, N)],
    ['AI SDK UI stream', () => dialectRecording(encodeAiSdk, N)],
  ];
  const summary = [];
  const tables = [];
  for (const [name, make] of inputs) {
    const started = performance.now();
    const text = make();
    const lines = text.split('\n').filter(Boolean).length;
    console.log(`\n  ${name}: ${int(lines)} events, ${mb(Buffer.byteLength(text))} of JSONL, generated in ${seconds(started)}`);
    const ops = {
      [PARSE]: () => {
        const out = [];
        for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
        return out;
      },
      [INGEST]: () => {
        const session = new Session();
        return { handle: session, batch: session.ingestJsonl(text), view: session.getSnapshot() };
      },
    };
    const check = (label, result) => {
      const ok = label === PARSE
        ? result.length === lines
        : result.batch.errors.length === 0 && result.batch.applied + result.batch.duplicates === lines;
      if (!ok) throw new Error(`dialects: ${label} did not take the whole ${name} recording (${JSON.stringify(result.batch?.errors?.[0] ?? null)})`);
    };
    const rows = summarize(await measure(ops, { warmup: 1, runs: bigRuns, check }), PARSE);
    printTable(rows, PARSE);
    const ingest = rows.find((r) => r.label === INGEST);
    summary.push({ name, lines, bytes: Buffer.byteLength(text), ratio: ingest.ratio, median: ingest.median });
    tables.push(`### ${name}`, '', ...markdownTable(rows, PARSE), '');
    report.target('dialects', `ingestJsonl of ${int(lines)} ${name} events vs JSON.parse per line`, `${ingest.ratio.toFixed(2)}×`);
  }
  console.log('\n  ingestJsonl / JSON.parse per dialect:');
  for (const s of summary) console.log(`    ${s.name.padEnd(36)} ${s.ratio.toFixed(2)}x  (${int(s.lines / (s.median / 1000))} events/s)`);
  report.section('dialects', [
    '## Bulk ingest per dialect',
    '',
    `${int(N)} events of each dialect, made by its encoder (scripts/lib/dialects/) from the same seeded run`,
    'descriptions (scripts/lib/dialects/run.mjs, up to 8 steps, parallel tools, some failing), replayed into one',
    'session with `ingestJsonl` and the view read once, against `JSON.parse` of every line. The first row is',
    'the v1.22 figure on short envelopes of the same count. Foreign events are translated into the normalised',
    'envelopes and then decoded and applied as v1.22 ones are, so their cost is that of v1.22 plus the',
    'translation.',
    '',
    '| dialect | events | JSONL | ingestJsonl × JSON.parse | events/s |',
    '|---|--:|--:|--:|--:|',
    ...summary.map((s) => `| ${s.name} | ${int(s.lines)} | ${mb(s.bytes)} | ${s.ratio.toFixed(2)}× | ${int(s.lines / (s.median / 1000))} |`),
    '',
    ...tables,
  ]);
}
