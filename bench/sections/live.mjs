// Section `live`: stepline's live UI loop alone, `session.ingest(envelope)` then
// `getSnapshot()` after every one, on bench/generate-envelopes.mjs's run (half streamed
// answer, half short tool steps: ~713 steps and ~1,430 tool runs per 10,000 envelopes), at
// N = 10,000 and 100,000. Target (BENCHMARKS.md sums it up): linear, t(100k) <= 11x t(10k).
// The `peers` section measures the same loop on bench/agent-run.mjs's run shape next to the peers.
import { performance } from 'node:perf_hooks';

import { Session } from 'stepline';

import { generateEnvelopes } from '../generate-envelopes.mjs';
import { int, markdownTable, mb, measure, ms, pairedRatio, printTable, rate, seconds, summarize } from '../lib/measure.mjs';

const SIZES = [10_000, 100_000];
const label = (n) => `N = ${int(n)}`;

/** The live UI loop over `envelopes`: `ingest` then `getSnapshot` after each one (the echo section's baseline too). */
export function loop(envelopes) {
  return () => {
    const session = new Session();
    let view;
    for (const envelope of envelopes) {
      session.ingest(envelope);
      view = session.getSnapshot();
    }
    return { handle: session, view };
  };
}

/** Throws unless the loop built the whole completed run, nothing missing. */
function checkRun(envelopes, view) {
  const exec = view.executions[0];
  const steps = envelopes.filter((e) => e.type === 'agent.step.started').length;
  const ok = view.counts.applied === envelopes.length && view.status === 'completed' && exec.missing_chunks.length === 0
    && exec.missing_steps.length === 0 && exec.steps.length === steps && exec.steps.every((s) => s.seen.completed);
  if (!ok) throw new Error(`the live loop did not build the whole run at N = ${envelopes.length}`);
}

export default async function live({ bigRuns, report }) {
  console.log('\n=== live UI loop: session.ingest(envelope) + session.getSnapshot() after each one (DESIGN.md section 11)');
  let started = performance.now();
  const runs = Object.fromEntries(SIZES.map((n) => [n, generateEnvelopes({ envelopes: n })]));
  const shapes = {};
  for (const n of SIZES) {
    const counts = {};
    for (const e of runs[n]) counts[e.type] = (counts[e.type] ?? 0) + 1;
    shapes[n] = `${int(counts['agent.step.started'])} steps, ${int(counts['agent.tool.started'] ?? 0)} tool runs, `
      + `${int(counts['agent.stream.chunk'])} stream chunks (${mb(runs[n].reduce((a, e) => a + JSON.stringify(e).length, 0))} as JSON)`;
    console.log(`  ${label(n)}: ${shapes[n]}`);
  }
  console.log(`  generated in ${seconds(started)}`);

  started = performance.now();
  // One untimed round of each size: it warms the JIT, and the first session of the big size
  // also grows the wasm memory. Each size's first result is checked (the whole run built,
  // nothing missing) before it is freed.
  const check = (name, { view }) => checkRun(runs[SIZES.find((n) => label(n) === name)], view);
  await measure(Object.fromEntries(SIZES.map((n) => [label(n), loop(runs[n])])), { warmup: 1, runs: 0, check });
  const results = await measure(Object.fromEntries(SIZES.map((n) => [label(n), loop(runs[n])])), { runs: bigRuns, check });
  const rows = summarize(results, label(SIZES[0]));
  printTable(rows, label(SIZES[0]));
  console.log('');
  for (const [i, n] of SIZES.entries()) {
    console.log(`  ${label(n).padEnd(12)} ${ms(rows[i].median).padStart(10)} ms  ${rate(n, rows[i].median).padStart(14)}  (${(rows[i].median * 1000 / n).toFixed(1)} µs per envelope)`);
  }
  // Each round's two sizes ran back to back; the median of their ratios is the figure.
  const growth = pairedRatio(results, label(SIZES[0]), label(SIZES[1]));
  const cpuGrowth = pairedRatio(results, label(SIZES[0]), label(SIZES[1]), 'cpu');
  console.log('\n  target (DESIGN.md section 11): linear growth, t(100k) <= 11x t(10k)');
  console.log(`    t(100k) / t(10k), median of the rounds' ratios: ${growth.toFixed(2)}x (${growth <= 11 ? 'met' : 'NOT met'}); in CPU time ${cpuGrowth.toFixed(2)}x; ratio of the medians ${rows[1].ratio.toFixed(2)}x`);
  console.log(`  (1 warm-up + ${bigRuns} timed rounds in ${seconds(started)})`);
  report.target('live', 'generate-envelopes run: t(100k) ≤ 11× t(10k)', `${growth.toFixed(2)}× (CPU time ${cpuGrowth.toFixed(2)}×)`, growth <= 11);
  report.section('live', [
    '## stepline alone on bench/generate-envelopes.mjs\'s run',
    '',
    'The live loop (`ingest` + `getSnapshot` after every envelope) on the run the bench used before the peer',
    'comparison: half streamed answer, half short tool steps (1-3 tools each), so many more steps than',
    'DESIGN.md\'s shape. One warm-up round of both sizes, then',
    `${bigRuns} timed rounds of both sizes round-robin. Target: t(100k) ≤ 11× t(10k), taken as the median of`,
    'each round\'s ratio (the two sizes of a round run back to back, under the same load).',
    '',
    ...SIZES.map((n) => `- ${label(n)}: ${shapes[n]}`),
    '',
    ...markdownTable(rows, label(SIZES[0])),
    '',
    ...SIZES.map((n, i) => `- ${label(n)}: ${rate(n, rows[i].median)} envelopes, ${(rows[i].median * 1000 / n).toFixed(1)} µs per envelope`),
    '',
    `t(100k) / t(10k): ${growth.toFixed(2)}× (median of the rounds' ratios; ${growth <= 11 ? 'met' : '**not met**'}); in CPU time ${cpuGrowth.toFixed(2)}×; the ratio of the medians is ${rows[1].ratio.toFixed(2)}×.`,
  ]);
}
