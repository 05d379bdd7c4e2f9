// npm run bench:check, and the `bench` layer of npm test (scripts/test.mjs): short side-by-side
// performance measurements against the built package (pkg/; `npm run build` first), each a
// ratio of stepline's time or memory to a reference measured alongside it, checked against a
// ceiling in scripts/bench-budget.json the way scripts/build.mjs checks bytes against
// scripts/size-budget.json. A ratio over its ceiling fails its check; the process exits non-zero
// if any did. Each budget entry also has the redesign issue's target, printed, not enforced.
//
//   live     the live UI loop (ingest + getSnapshot() after every envelope, bench/contenders/
//            stepline.mjs) on bench/agent-run.mjs's run at N = 10,000, against the faster of the
//            peers (bench/contenders/ag-ui.mjs, ai.mjs: the same run in their protocols) and
//            against JSON.parse of the same envelopes' JSON texts; the `stepline/live` entry's
//            loop against the faster peer.
//   growth   stepline's live loop t(100,000) / t(10,000), each 100k round right after a 10k one.
//   bulk     Session.ingestJsonl(text) + one getSnapshot() against JSON.parse of every line, on
//            50,000 lines each of: bench/generate-envelopes.mjs's recording, short envelopes
//            (bench/generate-short-envelopes.mjs), and laravel/ai, AG-UI and AI SDK recordings
//            (bench/sections/dialects.mjs's dialectRecording).
//   memory   retained JS heap + wasm memory growth after the 100,000-event live loop, against
//            the lighter peer's retained heap, each in a fresh process (bench/memory-probe.mjs);
//            the peers' 100k runs with their text deltas merged, as bench/sections/memory.mjs
//            does: their full runs take many minutes (their cost grows with the square of the
//            run), and merged deltas build the same final view.
//
// Time ratios are medians over rounds run round-robin in this one process (bench/lib/measure.mjs:
// a full GC before each timed call), each round's ratio taken between calls made back to back
// (pairedRatio), so that load from the other users of a shared machine hits both sides alike.
// Smaller inputs than npm run bench (below), so the layer takes a few minutes. The memory
// figure is the lower of two probes each (heap and wasm memory after a GC barely move between
// runs; a collection that left garbage behind reads higher).
//
// Usage: node scripts/bench-check.mjs [--only live,growth,bulk,memory] [--json FILE]
//   --json FILE  also writes the measured ratios as JSON (to derive ceilings from several runs)
//   STEPLINE_BENCH_SLOW_INGEST=<µs>  a busy-wait of that many microseconds per envelope before
//            each Session.prototype.ingest, and per line before each ingestJsonl (both entries), in this process only:
//            a deliberately slowed package, to see the layer fail. Nothing in pkg/ changes.
//
// The last line is "bench: N passed, M failed", one check per ratio, which scripts/test.mjs reads.
import '../bench/lib/this-pkg.mjs';

import { execFile } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';

import { median, int, measure, mb, ms, pairedRatio, seconds } from '../bench/lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const GROUPS = ['live', 'growth', 'bulk', 'memory'];

// Sizes and rounds. npm run bench runs the peers at 100k too (a minute each, stopped), replays
// 200,000-line recordings (100,000 per dialect) in 3 rounds, and measures memory at 10k as well.
const LIVE_N = 10_000;
const LARGE_N = 100_000;
const WARM_N = 2_000;
const LIVE_ROUNDS = 9; // stepline, stepline/live and JSON.parse (JSON.parse of 10k texts takes ~10 ms: noisy)
const PEER_ROUNDS = 5; // the peers (4-7 s a run each) sit out the rounds after their 5th
const GROWTH_ROUNDS = 5;
const BULK_N = 50_000;
const BULK_ROUNDS = 7;

const { values: args } = parseArgs({ options: { only: { type: 'string' }, json: { type: 'string' } } });
const only = args.only ? args.only.split(',').map((x) => x.trim()).filter(Boolean) : GROUPS;
for (const name of only) {
  if (!GROUPS.includes(name)) {
    console.error(`bench-check: unknown group ${JSON.stringify(name)} (groups: ${GROUPS.join(', ')})`);
    process.exit(2);
  }
}

const budgetPath = join(root, 'scripts', 'bench-budget.json');
let budget = {};
try {
  budget = JSON.parse(readFileSync(budgetPath, 'utf8')).ratios ?? {};
} catch (error) {
  console.error(`bench-check: cannot read scripts/bench-budget.json (${error.message}); every ratio fails for want of a ceiling`);
}

// Everything that imports `stepline` is imported from here on, after this-pkg.mjs registered
// the hook that resolves it to this checkout's pkg/.
const steplineMod = await import('stepline');
const liveMod = await import('stepline/live');
const { describeRun } = await import('../bench/agent-run.mjs');
const stepline = await import('../bench/contenders/stepline.mjs');
const agUi = await import('../bench/contenders/ag-ui.mjs');
const ai = await import('../bench/contenders/ai.mjs');

const pkgDir = realpathSync(join(root, 'pkg'));
const started = performance.now();
console.log(`bench: stepline ${steplineMod.version()} from ${pkgDir}, node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
try {
  const linked = realpathSync(join(root, 'node_modules', 'stepline'));
  if (linked !== pkgDir) console.log(`  (node_modules/stepline leads to ${linked}, another checkout's build: \`stepline\` is resolved to this checkout's pkg/ instead, bench/lib/this-pkg-hooks.mjs)`);
} catch { /* no link: the hook resolves it */ }

const slowUs = Number(process.env.STEPLINE_BENCH_SLOW_INGEST ?? 0);
if (slowUs > 0) {
  for (const Session of [steplineMod.Session, liveMod.Session]) slowDown(Session, slowUs);
  console.log(`  STEPLINE_BENCH_SLOW_INGEST=${slowUs}: Session.ingest and ingestJsonl (both entries) busy-wait ${slowUs} µs per envelope in this process`);
}

/** Busy-waits `us` microseconds. */
function spin(us) {
  const end = performance.now() + us / 1000;
  while (performance.now() < end) { /* the deliberate slowdown */ }
}

/** Non-empty lines of a JSONL text: the envelopes ingestJsonl is given. */
function lineCount(text) {
  let n = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    if (i > start) n += 1;
    start = i + 1;
  }
  return n + (start < text.length ? 1 : 0);
}

/** Wraps `Session.prototype.ingest` and `ingestJsonl` with a busy-wait per envelope. */
function slowDown(Session, us) {
  const { ingest, ingestJsonl } = Session.prototype;
  Session.prototype.ingest = function slowIngest(...rest) {
    spin(us);
    return ingest.apply(this, rest);
  };
  if (ingestJsonl) {
    Session.prototype.ingestJsonl = function slowIngestJsonl(text, ...rest) {
      spin(us * lineCount(String(text)));
      return ingestJsonl.call(this, text, ...rest);
    };
  }
}

/** The checks: one per ratio, {key, label, median, rounds, detail} or {key, label, error}. */
const checks = [];
const record = (key, label, fields) => checks.push({ key, label, ...fields });

/** Runs one group; a failure (a contender that did not build the run, a probe that crashed) fails its checks. */
async function group(name, keys, body) {
  if (!only.includes(name)) return;
  const since = performance.now();
  try {
    await body();
  } catch (error) {
    console.error(`  ${name}: could not measure: ${error.stack ?? error}`);
    for (const [key, label] of keys) if (!checks.some((c) => c.key === key)) record(key, label, { error: `could not measure: ${error.message}` });
  }
  console.log(`  (${name}: ${seconds(since)})`);
}

const PARSE = 'JSON.parse';
const LIVE_ENTRY = 'stepline/live';
const FASTER_PEER = 'live loop 10k: stepline / faster peer';
const VS_PARSE = 'live loop 10k: stepline / JSON.parse of the envelopes';
const LIVE_VS_PEER = 'live loop 10k: stepline/live / faster peer';

await group('live', [['live-vs-faster-peer', FASTER_PEER], ['live-vs-json-parse', VS_PARSE], ['live-entry-vs-faster-peer', LIVE_VS_PEER]], async () => {
  console.log(`\n=== live: the live UI loop on bench/agent-run.mjs's run, N = ${int(LIVE_N)}, reading the view after every event`);
  const run = describeRun({ events: LIVE_N });
  const warmRun = describeRun({ events: WARM_N });
  const inputs = (r) => ({ stepline: stepline.encode(r), [agUi.name]: agUi.encode(r), [ai.name]: ai.encode(r) });
  const events = inputs(run);
  const warmEvents = inputs(warmRun);
  const texts = (list) => list.map((e) => JSON.stringify(e));
  const liveTexts = texts(events.stepline);
  const warmTexts = texts(warmEvents.stepline);
  liveMod.initSync({ module: readFileSync(fileURLToPath(import.meta.resolve('stepline/live/stepline_bg.wasm'))) });
  console.log(`  ${int(events.stepline.length)} envelopes (${mb(liveTexts.reduce((n, t) => n + t.length, 0))} as JSON), `
    + `${agUi.name} ${int(events[agUi.name].length)} events, ${ai.name} ${int(events[ai.name].length)} chunks`);
  const ops = (ev, jsonTexts) => ({
    stepline: () => stepline.loop(ev.stepline),
    [LIVE_ENTRY]: () => stepline.loop(ev.stepline, { Session: liveMod.Session }),
    // What a page receiving the same envelopes as text pays at least: parse each one.
    [PARSE]: () => jsonTexts.map((t) => JSON.parse(t)),
    [agUi.name]: () => agUi.loop(ev[agUi.name]),
    [ai.name]: () => ai.loop(ev[ai.name]),
  });
  // An untimed round on a 2,000-event run warms the JIT of every contender cheaply.
  await measure(ops(warmEvents, warmTexts), { warmup: 1, runs: 0 });
  // Every contender's first timed result must be the whole run (outside the timing).
  const check = (label, result) => {
    if (label === stepline.name || label === LIVE_ENTRY) stepline.check(result, run);
    else if (label === agUi.name) agUi.check(result, run, events[agUi.name]);
    else if (label === ai.name) ai.check(result, run);
    else if (result.length !== LIVE_N) throw new Error(`${PARSE} gave ${result.length} envelopes`);
  };
  const results = await measure(ops(events, liveTexts), {
    runs: LIVE_ROUNDS, runsFor: { [agUi.name]: PEER_ROUNDS, [ai.name]: PEER_ROUNDS }, check,
  });
  // The faster peer of each round, so each ratio is between calls of the same round.
  const faster = Array.from({ length: PEER_ROUNDS }, (_, i) => Math.min(results[agUi.name].times[i], results[ai.name].times[i]));
  const versusFaster = (label) => median(faster.map((t, i) => results[label].times[i] / t));
  const peerMedians = [agUi.name, ai.name].map((k) => `${k} ${ms(median(results[k].times))} ms`).join(', ');
  const fasterName = median(results[agUi.name].times) < median(results[ai.name].times) ? agUi.name : ai.name;
  const slMedian = median(results.stepline.times);
  record('live-vs-faster-peer', `${FASTER_PEER} (${fasterName})`, {
    median: versusFaster('stepline'), rounds: PEER_ROUNDS,
    detail: `stepline ${ms(slMedian)} ms (${(slMedian * 1000 / LIVE_N).toFixed(1)} µs an envelope); ${peerMedians}`,
  });
  record('live-vs-json-parse', VS_PARSE, {
    median: pairedRatio(results, PARSE, 'stepline'), rounds: LIVE_ROUNDS,
    detail: `stepline ${ms(slMedian)} ms, JSON.parse of the ${int(LIVE_N)} texts ${ms(median(results[PARSE].times))} ms`,
  });
  record('live-entry-vs-faster-peer', `${LIVE_VS_PEER} (${fasterName})`, {
    median: versusFaster(LIVE_ENTRY), rounds: PEER_ROUNDS,
    detail: `stepline/live ${ms(median(results[LIVE_ENTRY].times))} ms; ${peerMedians}`,
  });
});

const GROWTH = 'live loop growth: stepline t(100k) / t(10k)';
await group('growth', [['live-growth', GROWTH]], async () => {
  console.log(`\n=== growth: stepline's live loop at N = ${int(LARGE_N)} against N = ${int(LIVE_N)} (bench/agent-run.mjs's run), each 100k round after a 10k one`);
  const runs = { [LIVE_N]: describeRun({ events: LIVE_N }), [LARGE_N]: describeRun({ events: LARGE_N }) };
  const small = stepline.encode(runs[LIVE_N]);
  const large = stepline.encode(runs[LARGE_N]);
  const SMALL_LABEL = `N = ${int(LIVE_N)}`;
  const LARGE_LABEL = `N = ${int(LARGE_N)}`;
  const check = (label, result) => stepline.check(result, label === SMALL_LABEL ? runs[LIVE_N] : runs[LARGE_N]);
  // One untimed 100k round: the first session that size grows the wasm memory.
  await measure({ [LARGE_LABEL]: () => stepline.loop(large) }, { warmup: 1, runs: 0, check });
  const results = await measure({ [SMALL_LABEL]: () => stepline.loop(small), [LARGE_LABEL]: () => stepline.loop(large) }, { runs: GROWTH_ROUNDS, check });
  record('live-growth', GROWTH, {
    median: pairedRatio(results, SMALL_LABEL, LARGE_LABEL), rounds: GROWTH_ROUNDS,
    detail: `${ms(median(results[SMALL_LABEL].times))} ms and ${ms(median(results[LARGE_LABEL].times))} ms`,
  });
});

const BULK = [
  ['bulk-bench', 'bulk: ingestJsonl / JSON.parse, bench recording'],
  ['bulk-short', 'bulk: ingestJsonl / JSON.parse, short envelopes'],
  ['bulk-laravel-ai', 'bulk: ingestJsonl / JSON.parse, laravel/ai'],
  ['bulk-ag-ui', 'bulk: ingestJsonl / JSON.parse, AG-UI'],
  ['bulk-ai-sdk', 'bulk: ingestJsonl / JSON.parse, AI SDK UI stream'],
];
await group('bulk', BULK, async () => {
  const { generateRecordingText } = await import('../bench/generate-envelopes.mjs');
  const { generateShortRecordingText } = await import('../bench/generate-short-envelopes.mjs');
  const { dialectRecording } = await import('../bench/sections/dialects.mjs');
  const { encode: encodeLaravel } = await import('./lib/dialects/laravel-ai.mjs');
  const { encode: encodeAgUi } = await import('./lib/dialects/ag-ui.mjs');
  const { encode: encodeAiSdk } = await import('./lib/dialects/ai-sdk.mjs');
  // v1.22 recordings are one completed run: every line applied. The dialects' are many seeded
  // runs cut at 50,000 lines: every line taken (applied, or recognised as sent again).
  const whole = (text, lines, { batch, view }) => batch.errors.length === 0 && batch.applied === lines && view.counts.applied === lines && view.status === 'completed';
  const taken = (text, lines, { batch }) => batch.errors.length === 0 && batch.applied + batch.duplicates === lines;
  const inputs = [
    ['bench recording (bench/generate-envelopes.mjs)', () => generateRecordingText({ envelopes: BULK_N }), whole],
    ['short envelopes (bench/generate-short-envelopes.mjs)', () => generateShortRecordingText({ envelopes: BULK_N }), whole],
    ['laravel/ai', () => dialectRecording(encodeLaravel, BULK_N), taken],
    ['AG-UI', () => dialectRecording(encodeAgUi, BULK_N), taken],
    ['AI SDK UI stream', () => dialectRecording(encodeAiSdk, BULK_N), taken],
  ];
  console.log(`\n=== bulk: Session.ingestJsonl(text) + getSnapshot() against JSON.parse of every line, ${int(BULK_N)} lines each, 1 warm-up + ${BULK_ROUNDS} rounds`);
  for (const [i, [name, make, complete]] of inputs.entries()) {
    const [key, label] = BULK[i];
    try {
      const text = make();
      const lines = lineCount(text);
      console.log(`  ${name}: ${int(lines)} lines, ${mb(Buffer.byteLength(text))} of JSONL`);
      const INGEST = 'ingestJsonl + view';
      const ops = {
        [PARSE]: () => {
          const out = [];
          for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
          return out;
        },
        [INGEST]: () => {
          const session = new steplineMod.Session();
          return { handle: session, batch: session.ingestJsonl(text), view: session.getSnapshot() };
        },
      };
      const check = (l, result) => {
        const ok = l === PARSE ? result.length === lines : complete(text, lines, result);
        if (!ok) throw new Error(`${l} did not take the whole ${name} recording (${JSON.stringify(result.batch?.errors?.[0] ?? null)})`);
      };
      const results = await measure(ops, { warmup: 1, runs: BULK_ROUNDS, check });
      record(key, label, {
        median: pairedRatio(results, PARSE, INGEST), rounds: BULK_ROUNDS,
        detail: `ingestJsonl ${ms(median(results[INGEST].times))} ms, JSON.parse ${ms(median(results[PARSE].times))} ms`,
      });
    } catch (error) {
      console.error(`  ${name}: could not measure: ${error.stack ?? error}`);
      record(key, label, { error: `could not measure: ${error.message}` });
    }
  }
});

const MEMORY = 'memory after the 100k loop, record: false: stepline / lighter peer';
await group('memory', [['memory-vs-lighter-peer', MEMORY]], async () => {
  console.log(`\n=== memory: retained after the live loop over bench/agent-run.mjs's run, N = ${int(LARGE_N)}, each in a fresh process (bench/memory-probe.mjs; the peers' deltas merged)`);
  const probe = join(root, 'bench', 'memory-probe.mjs');
  const hook = pathToFileURL(join(root, 'bench', 'lib', 'this-pkg.mjs')).href;
  const run = promisify(execFile);
  const measureOne = async (contender, coalesce, noRecord = false) => {
    const argv = ['--expose-gc', '--import', hook, probe, '--contender', contender, '--events', String(LARGE_N), ...(coalesce ? ['--coalesce'] : []), ...(noRecord ? ['--no-record'] : [])];
    const { stdout } = await run(process.execPath, argv, { cwd: root, maxBuffer: 1 << 20 });
    return JSON.parse(stdout.trim().split('\n').pop());
  };
  // The four processes at once: what they retain does not depend on how fast they run.
  // stepline as the issue's target measures it, with `record: false` (no envelope log);
  // the recording session's figure is printed beside it. Each is measured twice, in two
  // waves, and its lower reading kept: what a process retains cannot be less than it holds,
  // but a collection that left garbage behind reads more (@ag-ui/client once read 9.97 MiB
  // where its other processes read 3.0 to 3.15), for stepline and the peers alike.
  const totalOf = (r) => r.heapUsed + (r.wasmAfter - r.wasmBefore);
  const wave = () => Promise.all([
    measureOne(stepline.name, false, true), measureOne(stepline.name, false), measureOne(agUi.name, true), measureOne(ai.name, true),
  ]);
  const first = await wave();
  const second = await wave();
  const [sl, recording, ag, aiResult] = first.map((r, i) => (totalOf(second[i]) < totalOf(r) ? second[i] : r));
  const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
  console.log(`  two readings each: ${first.map((r, i) => `${r.contender}${i === 1 ? ' (recording)' : ''} ${mib(totalOf(r))} / ${mib(totalOf(second[i]))}`).join(', ')}`);
  const wasm = sl.wasmAfter - sl.wasmBefore;
  const slTotal = totalOf(sl);
  const lighter = ag.heapUsed <= aiResult.heapUsed ? ag : aiResult;
  console.log(`  stepline, record: false  JS heap ${mib(sl.heapUsed)} + wasm memory ${mib(sl.wasmBefore)} -> ${mib(sl.wasmAfter)} (+${mib(wasm)}) = ${mib(slTotal)}`);
  console.log(`  stepline, recording      ${mib(totalOf(recording))} (the log: ${mib(totalOf(recording) - slTotal)})`);
  for (const r of [ag, aiResult]) console.log(`  ${r.contender.padEnd(14)} JS heap ${mib(r.heapUsed)} (${int(r.events)} events, deltas merged)`);
  record('memory-vs-lighter-peer', `${MEMORY} (${lighter.contender})`, {
    median: slTotal / lighter.heapUsed, rounds: 1,
    detail: `stepline ${mib(slTotal)}, ${lighter.contender} ${mib(lighter.heapUsed)}`,
  });
});

// The verdicts, one line per ratio: the measured median, its ceiling (enforced) and the issue's target (not).
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2));
const times = (x) => (x < 1 ? ` (${(1 / x).toFixed(1)}x faster)` : '');
let passed = 0;
let failed = 0;
console.log(`\n=== bench: ratios (lower is better) against scripts/bench-budget.json; targets printed, not enforced`);
const width = Math.max(...checks.map((c) => c.label.length), 10);
for (const c of checks) {
  const entry = budget[c.key];
  let ok = false;
  let verdict;
  if (c.error) verdict = `FAILED: ${c.error}`;
  else if (!entry || typeof entry.ceiling !== 'number') verdict = `FAILED: ${fmt(c.median)}, but no ceiling for "${c.key}" in scripts/bench-budget.json`;
  else {
    ok = c.median <= entry.ceiling;
    const target = typeof entry.target === 'number' ? `, target ${fmt(entry.target)}${times(entry.target)}${c.median <= entry.target ? ': target met' : ''}` : '';
    verdict = `${ok ? 'ok' : 'OVER CEILING'}: ${fmt(c.median)}${times(c.median)}, ceiling ${fmt(entry.ceiling)}${target}`;
  }
  if (ok) passed += 1;
  else failed += 1;
  console.log(`  ${c.label.padEnd(width)}  ${verdict}`);
  if (c.detail) console.log(`  ${''.padEnd(width)}    median of ${c.rounds} round${c.rounds === 1 ? '' : 's'}; ${c.detail}`);
}
if (args.json) {
  writeFileSync(args.json, `${JSON.stringify({ date: new Date().toISOString(), stepline: steplineMod.version(), load: loadavg(), elapsedSeconds: (performance.now() - started) / 1000, ratios: Object.fromEntries(checks.map((c) => [c.key, c.error ? null : c.median])) }, null, 2)}\n`);
}
console.log(`\nbench: took ${seconds(started)}, load ${loadavg().map((x) => x.toFixed(2)).join(', ')} at the end`);
if (failed) console.log('bench: a ratio over its ceiling means something got slower or bigger: find it (npm run bench has the full sections), or, if it is worth it, raise the ceiling in scripts/bench-budget.json with a line in its "why"');
console.log(`bench: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
