// npm run bench: the performance comparisons whose targets BENCHMARKS.md sums up, measured in one Node
// process against the built package (`npm run build` first), printed as they run and written
// to BENCHMARKS.md with the machine and the versions. Sections (bench/sections/):
//
//   peers   the live UI loop against @ag-ui/client and the ai package, each fed the same run
//           in its own protocol, at N = 10,000 and 100,000 events. Targets: stepline >= 10x
//           faster than the faster peer at 10k; linear, t(100k) <= 11x t(10k).
//   bulk    Session.ingestJsonl of a 200,000-envelope recording against JSON.parse of its
//           lines (target <= 1.3x) and JSON.parse + zod validation (target: faster); then
//           of 200,000 short envelopes (~200 B each) against JSON.parse (target <= 1.3x).
//   slim    slimSnapshot of a ~20 MB state against JSON.parse (target <= 1.5x).
//   memory  retained JS heap and stepline's wasm memory after the live loop, next to the
//           peers', each in a fresh process.
//   size    raw, gzip and brotli sizes of the wasm and glue against the 120 KB gzip budget.
//   live    stepline's live loop alone on bench/generate-envelopes.mjs's run (linear growth).
//   decode  envelope decoding throughput next to JSON.parse.
//   validate validateSnapshot(text) against JSON.parse + Ajv compiled from snapshotSchema(), on
//           the vectors' ~1 KB slim snapshots and on ~1 MB ones (target: at or under Ajv).
//   dialects ingestJsonl of 100,000 laravel/ai, AG-UI and AI SDK events (each dialect's encoder,
//           the same seeded runs) against JSON.parse of the lines, next to v1.22's figure.
//   echo    stepline/echo's feed (Echo's listenToAll callback + the feed's state) next to the
//           bare live loop, 10,000 envelopes.
//   startup loading each entry and its wasm plus the first ingest, cold, in Node and Chromium.
//
// Contenders run round-robin within each round (drift on a shared machine hits all alike),
// with a full GC before each timed call; medians are reported. The cases that take seconds
// run fewer rounds (at most 3; the peers at 100k once, within --peer-budget seconds each).
// These are measurements, not tests: nothing fails on a missed target.
//
// Usage: node scripts/bench.mjs [--runs N] [--only peers,bulk,validate,...] [--peer-budget S] [--report FILE]
//        (npm run bench: 9 runs, every section, a 60 s budget, BENCHMARKS.md; a run with
//        --only writes no report unless --report is given)
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { describeMachine, fmtLoad } from '../bench/lib/machine.mjs';
import { seconds } from '../bench/lib/measure.mjs';
import { Report } from '../bench/lib/report.mjs';

const SECTIONS = ['peers', 'bulk', 'slim', 'memory', 'size', 'startup', 'live', 'decode', 'validate', 'dialects', 'echo'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    only: { type: 'string' },
    'peer-budget': { type: 'string', default: '60' },
    report: { type: 'string' },
  },
});
const runs = Math.max(1, Number(args.runs) || 9);
const only = args.only ? args.only.split(',').map((x) => x.trim()).filter(Boolean) : SECTIONS;
for (const name of only) {
  if (!SECTIONS.includes(name)) {
    console.error(`bench: unknown section ${JSON.stringify(name)} (sections: ${SECTIONS.join(', ')})`);
    process.exit(2);
  }
}
const peerBudget = Number(args['peer-budget']);
if (!Number.isFinite(peerBudget) || peerBudget < 0) {
  console.error('bench: --peer-budget takes a number of seconds (0: no budget)');
  process.exit(2);
}
const reportPath = args.report ?? (args.only ? null : join(root, 'BENCHMARKS.md'));

const context = {
  runs,
  /** Rounds for the cases that take seconds each. */
  bigRuns: Math.min(runs, 3),
  peerBudget,
  report: new Report(describeMachine()),
};

const m = context.report.machine;
console.log(`bench: stepline ${m.stepline}, node ${m.node}, ${m.cores} x ${m.cpu}, ${m.memory}, load ${fmtLoad(m.loadStart)}`);
console.log(`  peers: ${m.peers.map((p) => `${p.name} ${p.version}`).join(', ')}`);
if (process.env.NODE_ENV) console.log(`  NODE_ENV=${process.env.NODE_ENV} (the peers may do extra work outside production)`);

const started = performance.now();
for (const name of SECTIONS.filter((s) => only.includes(s))) {
  const { default: section } = await import(`../bench/sections/${name}.mjs`);
  await section(context);
}
const elapsed = seconds(started);
context.report.printSummary(elapsed);
if (reportPath) {
  const command = args.only || process.argv.length > 2 ? `node scripts/bench.mjs ${process.argv.slice(2).join(' ')}`.trim() : 'npm run bench';
  context.report.write(reportPath, { command, elapsed });
  console.log(`\nwrote ${relative(process.cwd(), reportPath) || reportPath}`);
} else {
  console.log('\n(a partial run: BENCHMARKS.md not written; pass --report FILE to write one)');
}
