// Runs the JSON engine experiment (see src/lib.rs) on the two bulk recordings, in the wasm,
// side by side in one process: every decoder on the same text, round-robin, medians.
//
//   (cd bench/serde-decode && cargo build --release --target wasm32-unknown-unknown)
//   wasm-bindgen --target nodejs --out-dir bench/serde-decode/target/pkg \
//     bench/serde-decode/target/wasm32-unknown-unknown/release/stepline_serde_decode.wasm
//   echo '{"type":"commonjs"}' > bench/serde-decode/target/pkg/package.json
//   node --expose-gc bench/serde-decode/run.mjs [--runs N]
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { generateRecordingText } from '../generate-envelopes.mjs';
import { generateShortRecordingText } from '../generate-short-envelopes.mjs';

const require = createRequire(import.meta.url);
const wasm = require('./target/pkg/stepline_serde_decode.js');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const N = 200_000;
const recordings = {
  'the bench recording': generateRecordingText({ envelopes: N }),
  'short envelopes': generateShortRecordingText({ envelopes: N }),
};
const contenders = ['own', 'serde_typed', 'serde_to_value', 'own_parse', 'serde_value'];
for (const [name, text] of Object.entries(recordings)) {
  const times = Object.fromEntries(contenders.map((c) => [c, []]));
  for (let round = 0; round <= runs; round += 1) {
    for (const c of contenders) {
      globalThis.gc?.();
      const started = performance.now();
      const decoded = wasm[c](text);
      const ms = performance.now() - started;
      if (decoded !== N) throw new Error(`${c} decoded ${decoded} of ${N} lines of ${name}`);
      if (round > 0) times[c].push(ms);
    }
  }
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const base = median(times.own);
  console.log(`${name} (${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB), median of ${runs}:`);
  for (const c of contenders) {
    const m = median(times[c]);
    console.log(`  ${c.padEnd(15)} ${m.toFixed(0).padStart(6)} ms  ${(m / base).toFixed(2)}x own`);
  }
}
