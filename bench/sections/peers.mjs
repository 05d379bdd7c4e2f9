// Section `peers`: the live UI loop against the peers. One agent run
// (bench/agent-run.mjs: a 5,000-chunk answer, 200 tool calls, 50 steps per 10,000 events)
// is fed to each contender in its own protocol (bench/contenders/*.mjs), reading the view
// after every event, at N = 10,000 and 100,000. Targets: stepline >= 10x faster than the
// faster peer at 10k; linear, t(100k) <= 11x t(10k).
//
// The peers copy their whole view on every event, so their cost grows with the square of
// the run: at 100k one of their runs takes many minutes. There each peer runs once, stopped
// at a time budget (--peer-budget, seconds; 0 runs them to the end), which makes its figure
// a lower bound: the time it had spent when it was stopped, and how far it had got.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { Session } from 'stepline';
import { initSync as initLive, Session as LiveSession } from 'stepline/live';

import { describeRun, runCounts } from '../agent-run.mjs';
import * as agUi from '../contenders/ag-ui.mjs';
import * as ai from '../contenders/ai.mjs';
import * as stepline from '../contenders/stepline.mjs';
import { int, markdownTable, measure, ms, pairedRatio, printTable, seconds, summarize } from '../lib/measure.mjs';

const CONTENDERS = [stepline, agUi, ai];
const PEERS = [agUi, ai];
const SMALL = 10_000;
const LARGE = 100_000;
const INGEST_ONLY = 'stepline, ingest only';
// What a web UI loads (`stepline/live`): the same core built for size (opt-level "z").
const LIVE_ENTRY = 'stepline/live, size build';
const PAIRED = 'stepline, N = 10,000';

const perEvent = (msTime, n) => `${(msTime * 1000 / n).toFixed(1)} µs`;

/** Rounds of `ops` at one size; returns the raw results and the summarized rows. */
async function round(ops, options, baseline) {
  const results = await measure(ops, options);
  const rows = summarize(results, baseline);
  printTable(rows, baseline);
  return { results, rows };
}

export default async function peers({ runs, bigRuns, peerBudget, report }) {
  console.log('\n=== peers: the live UI loop on one run, in each contender\'s protocol, reading the view after every event (DESIGN.md section 11)');
  let started = performance.now();
  const runsBySize = Object.fromEntries([SMALL, LARGE].map((n) => [n, describeRun({ events: n })]));
  const events = {};
  for (const n of [SMALL, LARGE]) {
    const c = runCounts(runsBySize[n]);
    events[n] = Object.fromEntries(CONTENDERS.map((k) => [k.name, k.encode(runsBySize[n])]));
    console.log(`  N = ${int(n)}: ${int(c.steps)} steps, ${int(c.tools)} tool calls, ${int(c.answerChunks)} answer chunks + ${int(c.chunks - c.answerChunks)} chunks of tool-step text; `
      + CONTENDERS.map((k) => `${k.name} ${int(events[n][k.name].length)} events`).join(', '));
  }
  console.log(`  generated in ${seconds(started)}`);

  const check = (n) => (label, result) => {
    const contender = CONTENDERS.find((k) => k.name === label);
    contender?.check(result, runsBySize[n], events[n][label]);
  };
  const loops = (n, budget) => Object.fromEntries(CONTENDERS.map((k) => [k.name,
    () => k.loop(events[n][k.name], budget && k !== stepline ? { deadline: performance.now() + budget } : undefined)]));

  // N = 10,000: every contender to the end, round-robin; one warm-up round (also the
  // correctness check of each view), and stepline's ingest alone for where its time goes.
  const smallRuns = Math.min(runs, 5);
  console.log(`\n  N = ${int(SMALL)}: 1 warm-up + ${smallRuns} timed rounds`);
  started = performance.now();
  const ingestOnly = () => {
    const session = new Session();
    for (const envelope of events[SMALL].stepline) session.ingest(envelope);
    return session;
  };
  initLive({ module: readFileSync(fileURLToPath(import.meta.resolve('stepline/live/stepline_bg.wasm'))) });
  const liveEntry = () => stepline.loop(events[SMALL].stepline, { Session: LiveSession });
  const checkSmall = (label, result) => (label === LIVE_ENTRY ? stepline.check(result, runsBySize[SMALL]) : check(SMALL)(label, result));
  const { rows: small } = await round({ ...loops(SMALL), [LIVE_ENTRY]: liveEntry, [INGEST_ONLY]: ingestOnly }, { warmup: 1, runs: smallRuns, check: checkSmall }, 'stepline');
  console.log(`  (${seconds(started)})`);

  // N = 100,000: stepline for `bigRuns` rounds, each peer once within its budget. Each
  // round starts with stepline at 10,000 again, so that its growth is measured on pairs run
  // back to back (the load on a shared machine drifts over the minutes between phases).
  const budget = peerBudget > 0 ? peerBudget * 1000 : 0;
  console.log(`\n  N = ${int(LARGE)}: stepline ${bigRuns} timed rounds, each after one at N = ${int(SMALL)}; each peer 1 round${budget ? `, stopped after ${peerBudget} s` : ''}`);
  started = performance.now();
  const partials = {};
  const largeLoops = { [PAIRED]: loops(SMALL).stepline, ...loops(LARGE, budget) };
  // One untimed stepline round at 100k first: the first session that size also grows the
  // wasm memory and meets code paths the JIT has not optimised yet.
  await measure({ stepline: largeLoops.stepline }, { warmup: 1, runs: 0, check: check(LARGE) });
  for (const k of PEERS) {
    const run = largeLoops[k.name];
    largeLoops[k.name] = async () => {
      const result = await run();
      if (result.partial) partials[k.name] = result.partial;
      return result;
    };
  }
  const { results: largeResults, rows: large } = await round(largeLoops, { runs: bigRuns, runsFor: Object.fromEntries(PEERS.map((k) => [k.name, 1])), check: check(LARGE) }, 'stepline');
  console.log(`  (${seconds(started)})`);

  // The figures and the targets.
  const at = (rows, name) => rows.find((r) => r.label === name);
  const sl10 = at(small, 'stepline').median;
  const sl100 = at(large, 'stepline').median;
  const fastest = PEERS.map((k) => at(small, k.name)).sort((a, b) => a.median - b.median)[0];
  const speedup = fastest.median / sl10;
  const growth = pairedRatio(largeResults, PAIRED, 'stepline');
  const cpuGrowth = pairedRatio(largeResults, PAIRED, 'stepline', 'cpu');
  console.log('');
  // A stopped run's time per event is over the events it had applied.
  const applied = (n, k) => (n === LARGE && partials[k.name] ? partials[k.name].processed : events[n][k.name].length);
  for (const [n, rows] of [[SMALL, small], [LARGE, large]]) {
    for (const k of CONTENDERS) {
      const r = at(rows, k.name);
      const count = events[n][k.name].length;
      const partial = n === LARGE && partials[k.name] ? `, stopped after ${int(partials[k.name].processed)} of ${int(count)} events` : '';
      console.log(`  N = ${int(n).padEnd(7)} ${k.name.padEnd(14)} ${(r.partial ? '>' : ' ') + ms(r.median).padStart(10)} ms  ${perEvent(r.median, applied(n, k)).padStart(10)} per event  ${(r.partial ? '>' : ' ') + (r.median / (n === SMALL ? sl10 : sl100)).toFixed(1)}x stepline${partial}`);
    }
  }
  console.log('\n  targets (DESIGN.md section 11): stepline >= 10x faster than the faster peer at 10k; t(100k) <= 11x t(10k)');
  console.log(`    faster peer at 10k: ${fastest.label}, ${speedup.toFixed(2)}x stepline's time (${speedup >= 10 ? 'met' : 'NOT met'}); in CPU time ${fastest.cpuRatio.toFixed(2)}x`);
  console.log(`    stepline t(100k) / t(10k), median of the paired rounds' ratios: ${growth.toFixed(2)}x (${growth <= 11 ? 'met' : 'NOT met'}); in CPU time ${cpuGrowth.toFixed(2)}x; across the phases ${(sl100 / sl10).toFixed(2)}x`);
  report.target('peers', `N = 10k: stepline ≥ 10× faster than the faster peer (${fastest.label})`, `${speedup.toFixed(2)}× (CPU time ${fastest.cpuRatio.toFixed(2)}×)`, speedup >= 10);
  report.target('peers', 'N = 10k: stepline live loop', `${ms(sl10)} ms, ${perEvent(sl10, SMALL)} per envelope`);
  const liveRow = at(small, LIVE_ENTRY);
  report.target('peers', 'N = 10k: stepline/live (size build) vs the faster peer', `${(fastest.median / liveRow.median).toFixed(2)}× faster (${ms(liveRow.median)} ms)`, fastest.median / liveRow.median >= 10);
  report.target('peers', 'N = 100k: stepline live loop', `${ms(sl100)} ms, ${perEvent(sl100, LARGE)} per envelope`);
  report.target('peers', 'stepline t(100k) ≤ 11× t(10k)', `${growth.toFixed(2)}× (CPU time ${cpuGrowth.toFixed(2)}×)`, growth <= 11);
  for (const k of PEERS) {
    const r = at(large, k.name);
    report.target('peers', `N = 100k: ${k.name} vs stepline`, `${r.partial ? '> ' : ''}${(r.median / sl100).toFixed(1)}× stepline's time${r.partial ? ' (stopped at its budget)' : ''}`);
  }

  const c10 = runCounts(runsBySize[SMALL]);
  const c100 = runCounts(runsBySize[LARGE]);
  const rowFor = (n, rows, k) => {
    const r = at(rows, k.name);
    const count = events[n][k.name].length;
    const base = n === SMALL ? sl10 : sl100;
    const bound = r.partial ? '> ' : '';
    const note = partials[k.name] && n === LARGE ? `stopped after ${peerBudget} s, at event ${int(partials[k.name].processed)} of ${int(count)}` : `${r.runs} round${r.runs === 1 ? '' : 's'}`;
    return `| ${int(n)} | ${k.name} | ${int(count)} | ${bound}${ms(r.median)} | ${perEvent(r.median, applied(n, k))}${r.partial ? ' (over the events applied)' : ''} | ${bound}${(r.median / base).toFixed(1)}× | ${note} |`;
  };
  report.section('peers', [
    '## Live UI loop against the peers',
    '',
    'One agent run, fed to each contender in its own protocol, with the view read after every event (what a UI',
    'does on each update). The run (bench/agent-run.mjs) follows DESIGN.md section 11: per 10,000 v1.22',
    'envelopes a 5,000-chunk streamed answer, 200 tool calls (one in 13 steps has a failing one) and 50 steps',
    `(49 tool steps and the answer step), scaled ×10 for 100,000 (${int(c100.answerChunks)} answer chunks, ${int(c100.tools)} tool calls, ${int(c100.steps)} steps).`,
    'Those take 5,552 of every 10,000 envelopes; the rest is text the tool steps stream before their tool',
    `calls (${int(c10.chunks - c10.answerChunks)} chunks at 10k, ~${Math.round((c10.chunks - c10.answerChunks) / (c10.steps - 1))} a step), so that the v1.22 encoding is exactly N envelopes.`,
    'The same run is a few more events in the peers\' protocols (tool calls take 4 AG-UI events, steps 4 in both).',
    '',
    `N = 10,000: one warm-up round (which also checks that each contender built the whole run), then ${smallRuns} timed`,
    `rounds, round-robin. N = 100,000: one untimed round of stepline, then ${bigRuns} rounds of stepline (each after a`,
    `run at 10,000, for the growth); each peer once${budget ? `, stopped after ${peerBudget} s` : ''}, in the first round.`,
    'A figure marked ">" is a run stopped at its budget: a lower bound (the peers\' cost grows with the square of',
    'the run, so the rest would take longer than the part done). `--peer-budget 0` runs them to the end (many',
    'minutes each).',
    '',
    '| N | contender | events | median ms | per event | × stepline | |',
    '|--:|---|--:|--:|--:|--:|---|',
    ...CONTENDERS.map((k) => rowFor(SMALL, small, k)),
    `| ${int(SMALL)} | (${LIVE_ENTRY}) | ${int(SMALL)} | ${ms(liveRow.median)} | ${perEvent(liveRow.median, SMALL)} | ${(liveRow.median / sl10).toFixed(2)}× | what a web UI loads: the same loop on \`stepline/live\` (opt-level "z") |`,
    `| ${int(SMALL)} | (${INGEST_ONLY}) | ${int(SMALL)} | ${ms(at(small, INGEST_ONLY).median)} | ${perEvent(at(small, INGEST_ONLY).median, SMALL)} | ${(at(small, INGEST_ONLY).median / sl10).toFixed(2)}× | no view read: where the loop's time goes |`,
    ...CONTENDERS.map((k) => rowFor(LARGE, large, k)),
    '',
    `Targets: stepline ≥ 10× faster than the faster peer at 10k: the faster peer is ${fastest.label}, at`,
    `${speedup.toFixed(2)}× stepline's time (${speedup >= 10 ? 'met' : '**not met**'}; ${fastest.cpuRatio.toFixed(2)}× in CPU time). Linear growth, t(100k) ≤ 11× t(10k): ${growth.toFixed(2)}×`,
    `(${growth <= 11 ? 'met' : '**not met**'}), the median of the ratios of the 100k rounds to the 10k run just before each`,
    `(same load); in CPU time ${cpuGrowth.toFixed(2)}×; the 100k median over the 10k phase's median is ${(sl100 / sl10).toFixed(2)}×.`,
    '',
    'All rounds, N = 10,000:',
    '',
    ...markdownTable(small, 'stepline'),
    '',
    `N = 100,000 (with the paired runs of stepline at 10,000, "${PAIRED}"):`,
    '',
    ...markdownTable(large, 'stepline'),
    '',
    '### How each contender is driven',
    '',
    `- **stepline** (${stepline.protocol}): \`new Session()\`, then for each envelope \`session.ingest(envelope)\` and`,
    '  `session.getSnapshot()`. The envelopes are the v1.22 debug preset\'s (tool arguments and the continuation trace',
    '  included), as plain objects. Synchronous.',
    `- **@ag-ui/client** (${agUi.protocol}): \`defaultApplyEvents(input, from(events), agent, [])\`, the function`,
    '  `AbstractAgent.runAgent` applies events with, fed one rxjs Observable of the whole run (the cheapest way in);',
    '  after each mutation it emits, the loop takes its messages as the view (`agent.messages = mutation.messages`,',
    '  as `processApplyEvents` does). No subscribers, `NODE_ENV` unset (production: no freezing of the views).',
    '  Mapping: RUN_STARTED; per step STEP_STARTED, the step\'s text as one assistant message (TEXT_MESSAGE_START,',
    '  a TEXT_MESSAGE_CONTENT per chunk, TEXT_MESSAGE_END), per tool call TOOL_CALL_START (parented to that',
    '  message), TOOL_CALL_ARGS (the arguments as one JSON delta), TOOL_CALL_END, TOOL_CALL_RESULT; STEP_FINISHED;',
    '  RUN_FINISHED.',
    `- **ai** (${ai.protocol}): \`readUIMessageStream({ stream })\`, the public API over \`processUIMessageStream\`, the`,
    '  processor `useChat` uses; the loop reads every message the async iterator yields. Mapping: `start`; per',
    '  step `start-step`, one text part (`text-start`, a `text-delta` per chunk, `text-end`), per tool call',
    '  `tool-input-available` and `tool-output-available` (or `tool-output-error`), `finish-step`; `finish`.',
    '',
    '### Fairness caveats',
    '',
    '- Same work per event: each contender applies the event and the loop takes the resulting view object. None of',
    '  the loops walks the view; each contender\'s own way of producing it (stepline: the changed parts decoded',
    '  from the core, unchanged parts shared; AG-UI: a `structuredClone` of all messages per mutation; ai: a',
    '  `structuredClone` of the whole message per update) is what is measured.',
    '- The `ai` API is asynchronous only: a ReadableStream in, an async iterator out, so every chunk costs the',
    '  stream hand-offs and promise turns the API forces (measured as it is used; the source stream never waits).',
    '  `defaultApplyEvents` is `concatMap` over an async function: at least one promise turn per event.',
    '- The peers\' events carry less: AG-UI and UI message chunks have no fields for usage, durations, timestamps',
    '  or the continuation trace, which the v1.22 envelopes carry and stepline decodes, validates and keeps; the',
    '  peers do no deduplication, reordering or session isolation. Tool results: the peers get a short result',
    '  text per call (their protocols require one); v1.22 sends `result_summary: null`.',
    '- `AbstractAgent.runAgent` would add event verification (`verifyEvents`), chunk transformation and',
    '  middlewares on top of `defaultApplyEvents`; `useChat` adds React state updates on top of the processor.',
    '  Both only add cost, so the peers\' figures are their floors.',
    '- The view read differs in what it gives: stepline\'s is the whole session view (steps with tools, usage,',
    '  continuation, streamed text, missing parts); AG-UI\'s is the message list; ai\'s is one UI message.',
  ]);
}
