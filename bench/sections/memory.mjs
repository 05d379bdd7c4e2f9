// Section `memory`: what each contender keeps after the live loop over the peer run
// (bench/agent-run.mjs), each measured in a fresh process by bench/memory-probe.mjs: the
// retained JS heap (gc, then heapUsed before and after, the result kept alive), and for
// stepline the growth of its wasm memory. No target: figures for the report.
//
// The peers' full runs at 100,000 events take many minutes (their cost grows with the square
// of the run), so unless --peer-budget is 0 their 100k figures come from the same run with
// the text deltas merged (the client's own compactEvents; joined deltas for ai): the same
// final view from far fewer events. At 10k both ways are measured, to show how close they are.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { int, ms } from '../lib/measure.mjs';

const probe = join(dirname(fileURLToPath(import.meta.url)), '..', 'memory-probe.mjs');
const run = promisify(execFile);
const SMALL = 10_000;
const LARGE = 100_000;

const mib = (bytes) => (bytes === null ? '' : `${(bytes / 2 ** 20).toFixed(2)} MiB`);

async function measureOne(contender, events, coalesce) {
  const args = ['--expose-gc', probe, '--contender', contender, '--events', String(events), ...(coalesce ? ['--coalesce'] : [])];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
  const result = JSON.parse(stdout.trim().split('\n').pop());
  const wasm = result.wasmAfter === null ? '' : `, wasm memory ${mib(result.wasmBefore)} -> ${mib(result.wasmAfter)}`;
  console.log(`  ${contender.padEnd(14)} N = ${int(events).padEnd(7)} ${coalesce ? 'deltas merged' : 'every event  '}  heap +${mib(result.heapUsed).padStart(10)}  external +${mib(result.external).padStart(10)}${wasm}  (${ms(result.elapsed)} ms loop)`);
  return result;
}

export default async function memory({ peerBudget, report }) {
  console.log('\n=== memory: retained heap after the live loop over the peer run, each in a fresh process (bench/memory-probe.mjs)');
  const fullPeers = peerBudget === 0;
  const plan = [
    ['stepline', SMALL, false], ['stepline', LARGE, false],
    ['@ag-ui/client', SMALL, false], ['@ag-ui/client', SMALL, true], ['@ag-ui/client', LARGE, !fullPeers],
    ['ai', SMALL, false], ['ai', SMALL, true], ['ai', LARGE, !fullPeers],
  ];
  const results = [];
  for (const [contender, events, coalesce] of plan) results.push({ n: events, ...(await measureOne(contender, events, coalesce)) });

  const sl = results.find((r) => r.contender === 'stepline' && r.n === LARGE);
  const slTotal = sl.heapUsed + (sl.wasmAfter - sl.wasmBefore);
  report.target('memory', 'N = 100k: stepline retained JS heap + wasm memory growth', `${mib(sl.heapUsed)} + ${mib(sl.wasmAfter - sl.wasmBefore)} = ${mib(slTotal)}`);
  for (const name of ['@ag-ui/client', 'ai']) {
    const r = results.find((x) => x.contender === name && x.n === LARGE);
    report.target('memory', `N = 100k: ${name} retained JS heap${r.coalesce ? ' (deltas merged)' : ''}`, mib(r.heapUsed));
  }
  const find = (name, n, coalesce) => results.find((r) => r.contender === name && r.n === n && r.coalesce === coalesce);
  const compare = ['@ag-ui/client', 'ai'].map((name) => {
    const [full, merged] = [find(name, SMALL, false), find(name, SMALL, true)];
    const same = full.digest === merged.digest ? 'the same final view' : '**a different final view**';
    return `${name} ${mib(full.heapUsed)} with every event, ${mib(merged.heapUsed)} with deltas merged (${same})`;
  });
  report.section('memory', [
    '## Memory after the live loop',
    '',
    'Each line is a fresh `node --expose-gc` process (bench/memory-probe.mjs) that runs one contender\'s live loop',
    'over the peer run (as in the peers section) and keeps the result alive (stepline\'s `Session`, the peer\'s last',
    'view). Retained JS heap: `process.memoryUsage().heapUsed` after two `gc()` calls, minus the same before the',
    'input was built; a 2,000-event run first (dropped) puts compiled code and the libraries\' lazy state in the',
    'baseline, and the input is dropped before the second reading, so only what the result holds counts (strings',
    'a view shares with its input included). stepline\'s wasm memory: the `WebAssembly.Memory` of the instance,',
    'read from the exports `initSync` returns (the probe loads the web entry, `stepline/web`: the same Rust code and',
    'glue; the Node entry does not expose its instance). Wasm memory never shrinks, so its growth is the',
    'high-water mark of the loop, allocator free space included; `process.memoryUsage().external` grows by the same',
    'amount (shown), so in Node `external` includes wasm memory. stepline\'s session keeps every applied envelope',
    '(for deduplication, reordering and `toRecording()`), not only the view.',
    '',
    `The peers' full runs at 100,000 events take many minutes each, so ${fullPeers ? 'they were run in full here (`--peer-budget 0`).' : 'their 100k lines are the same run with the text deltas'}`,
    ...(fullPeers ? [] : [
      'merged (AG-UI: the client\'s own `compactEvents`; ai: each text part\'s deltas joined), which builds the',
      'same final view from far fewer events. At 10k both ways are measured, and their views compared (a digest of',
      `their JSON): ${compare.join('; ')}.`,
      '`--peer-budget 0` measures the full runs.',
    ]),
    '',
    '| contender | N | input | events fed | retained JS heap | wasm memory (before → after) | `external` growth | loop ms |',
    '|---|--:|---|--:|--:|---|--:|--:|',
    ...results.map((r) => `| ${r.contender} | ${int(r.n)} | ${r.coalesce ? 'deltas merged' : 'every event'} | ${int(r.events)} | ${mib(r.heapUsed)} | ${r.wasmAfter === null ? '' : `${mib(r.wasmBefore)} → ${mib(r.wasmAfter)} (+${mib(r.wasmAfter - r.wasmBefore)})`} | ${mib(r.external)} | ${ms(r.elapsed)} |`),
    '',
    `At 100,000 events stepline holds ${mib(slTotal)} (JS heap ${mib(sl.heapUsed)}, wasm growth ${mib(sl.wasmAfter - sl.wasmBefore)}).`,
  ]);
}
