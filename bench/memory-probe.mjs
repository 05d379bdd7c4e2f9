// One memory measurement for the `memory` section of npm run bench, run in a fresh process
// (node --expose-gc) so that nothing else lives in its heap and stepline's wasm memory starts
// at its initial size: one contender's live loop over the peer run (bench/agent-run.mjs),
// then the heap it retains while its result (the session, or the peer's last view) is kept.
// Prints one JSON line.
//
//   node --expose-gc bench/memory-probe.mjs --contender stepline|@ag-ui/client|ai --events N [--coalesce] [--no-record]
//
// --no-record: stepline's session is `new Session({ record: false })` (keeps no envelope text).
//
// stepline is loaded through its web entry here (`stepline/web`, `initSync` with the wasm
// bytes), the same Rust code and glue as the Node entry, because `initSync` returns the
// instance's exports and so its `WebAssembly.Memory`; the Node entry keeps them private.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { describeRun } from './agent-run.mjs';
import * as agUi from './contenders/ag-ui.mjs';
import * as ai from './contenders/ai.mjs';
import * as stepline from './contenders/stepline.mjs';

const { values: args } = parseArgs({ options: { contender: { type: 'string' }, events: { type: 'string' }, coalesce: { type: 'boolean' }, 'no-record': { type: 'boolean' } } });
const contender = [stepline, agUi, ai].find((k) => k.name === args.contender);
if (!contender || typeof globalThis.gc !== 'function') {
  console.error('usage: node --expose-gc bench/memory-probe.mjs --contender stepline|@ag-ui/client|ai --events N [--coalesce]');
  process.exit(2);
}

let options;
let memory = null;
if (contender === stepline) {
  const web = await import('stepline/web');
  const exports = web.initSync({ module: readFileSync(fileURLToPath(import.meta.resolve('stepline/stepline_bg.wasm'))) });
  memory = exports.memory;
  options = { Session: web.Session, sessionOptions: args['no-record'] ? { record: false } : undefined };
}

/** Builds the input, runs the loop and checks its view; only the result outlives the call. */
async function liveLoop(events) {
  const run = describeRun({ events });
  let input = contender.encode(run);
  if (args.coalesce) input = contender.coalesce(input);
  const started = performance.now();
  const result = await contender.loop(input, options);
  const elapsed = performance.now() - started;
  contender.check(result, run, input);
  return { result, elapsed, count: input.length };
}

// Two collections: the second frees what finalizers of the first released.
const settle = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage();
};

// A small run first, dropped, so compiled code and the libraries' lazy state are in the
// baseline. The measured run's input is built after the baseline and dropped before the
// final reading: what the view shares with it (strings) counts, the rest does not.
const warm = await liveLoop(2_000);
warm.result.handle?.free();
const before = settle();
const wasmBefore = memory?.buffer.byteLength ?? null;
const { result, elapsed, count } = await liveLoop(Number(args.events));
const after = settle();
const wasmAfter = memory?.buffer.byteLength ?? null;

const delta = (key) => after[key] - before[key];
// A digest of the final view, so that the section can check that two ways of feeding the
// same run (every delta, deltas merged) built the same view.
const digest = createHash('sha256').update(JSON.stringify(result.view)).digest('hex').slice(0, 16);
console.log(JSON.stringify({
  contender: contender.name,
  events: count,
  coalesce: Boolean(args.coalesce),
  record: !args['no-record'],
  elapsed,
  heapUsed: delta('heapUsed'),
  external: delta('external'),
  arrayBuffers: delta('arrayBuffers'),
  rss: delta('rss'),
  wasmBefore,
  wasmAfter,
  digest,
}));
// Kept alive to here, so the measurement above counted it.
if (!result.view) process.exitCode = 1;
