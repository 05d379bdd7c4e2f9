// Issue 28: a 1,000,000-chunk single execution of each dialect (instructor-php v1.22 and
// v2.7 envelopes, laravel/ai, AG-UI, AI SDK) stays under the documented memory caps
// (docs/node/bulk-replay.md, "Memory bounds") with the typed `limit_exceeded` warning raised once.
// Each dialect gets a fresh wasm instance (wasm memory never shrinks), as
// tests/js/memory-bounds.test.mjs makes them, and 1M text chunks of 16 bytes (16 MB,
// twice the default 8 MiB text cap) in JSONL batches, with `record: false` so that what
// is measured is what the view holds (the recording's own cost is its own row of the
// table). The bound is the table's: the text cap with the joined text's growth (under 4x
// its size, memory-bounds' measure), plus 43 bytes per applied envelope (the redelivery
// fingerprints, at most 3/4 full; a laravel/ai event keeps its id too, about 40 bytes
// more) with the old table alive while a resize fills the new one (x1.5), plus the
// instance's size before the run. Needs `npm run build`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { v1Vectors, v2Vectors } from './lib/vectors.mjs';

const require = createRequire(import.meta.url);
const wasmPath = require.resolve('stepline/stepline_bg.wasm');
const glueUrl = new URL('stepline.js', pathToFileURL(wasmPath));
const { installSessionView } = await import(new URL('../view.js', glueUrl).href);
const wasmModule = new WebAssembly.Module(readFileSync(wasmPath));
const MB = 1024 * 1024;
const CHUNKS = 1_000_000;
const TEXT_CAP = 8 * MB; // maxTextBytes' default (docs/node/bulk-replay.md, Memory bounds)
const BATCH = 50_000;

let instances = 0;
async function freshInstance() {
  const glue = await import(`${glueUrl.href}?instance=${instances++}`);
  const exports = await glue.default({ module_or_path: wasmModule });
  // What the package's entries add to the glue's Session: getSnapshot() and ingest's outcomes.
  installSessionView(glue.Session);
  return { ...glue, memoryBytes: () => exports.memory.buffer.byteLength };
}

/** Chunk `i`'s text: 16 bytes. */
const piece = (i) => `c${String(i).padStart(13, '0')}. `;

/** An instructor-php corpus run's envelopes up to its first chunk, and that chunk as the template. */
function instructor(cases) {
  for (const c of cases) {
    const all = c.expected.flatMap((t) => t.envelopes.map((e) => e.envelope ?? e));
    const first = all.findIndex((e) => e.type === 'agent.stream.chunk');
    if (first < 0) continue;
    const template = all[first];
    const head = all.slice(0, first).filter((e) => e.execution_id === template.execution_id);
    return {
      head: head.map((e) => JSON.stringify(e)),
      line: (i) => JSON.stringify({ ...template, payload: { ...template.payload, content: piece(i), chunk_index: i } }),
    };
  }
  throw new Error('no run with stream chunks');
}

const DIALECTS = [
  // The v1.22 corpus' runs stream no chunks: its envelopes.json has the chunk's form.
  ['instructor-php v1.22', () => {
    const chunk = v1Vectors('envelopes.json')
      .flatMap((c) => (Array.isArray(c.expected) ? c.expected : []))
      .map((x) => x?.envelope)
      .find((e) => e?.type === 'agent.stream.chunk');
    const base = { session_id: chunk.session_id, execution_id: chunk.execution_id, timestamp: chunk.timestamp };
    return {
      head: [
        JSON.stringify({ type: 'agent.status', ...base, payload: { status: 'processing', previous_status: 'idle' } }),
        JSON.stringify({ type: 'agent.step.started', ...base, payload: { step_number: 1, message_count: 1, available_tools: 0 } }),
      ],
      line: (i) => JSON.stringify({ ...chunk, payload: { ...chunk.payload, content: piece(i), chunk_index: i } }),
    };
  }],
  ['instructor-php v2.7', () => instructor(v2Vectors('agent-runs.json'))],
  ['laravel/ai', () => ({
    head: [
      '{"id":"evt_s","invocation_id":"inv-1","type":"stream_start","provider":"openai","model":"m","timestamp":1795168800,"metadata":null}',
      '{"id":"evt_p","invocation_id":"inv-1","type":"text_start","message_id":"p1","timestamp":1795168800}',
    ],
    line: (i) => `{"id":"evt_${i}","invocation_id":"inv-1","type":"text_delta","message_id":"p1","delta":"${piece(i)}","timestamp":1795168800}`,
  })],
  ['AG-UI', () => ({
    head: [
      '{"type":"RUN_STARTED","threadId":"t","runId":"run-1"}',
      '{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}',
    ],
    line: (i) => `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"${piece(i)}"}`,
  })],
  ['AI SDK', () => ({
    head: ['{"type":"start","messageId":"msg-1"}', '{"type":"start-step"}', '{"type":"text-start","id":"t0"}'],
    line: (i) => `{"type":"text-delta","id":"t0","delta":"${piece(i)}"}`,
  })],
];

for (const [dialect, make] of DIALECTS) {
  test(`${dialect}: 1,000,000 chunks in one execution stay under the documented caps, with one limit_exceeded warning`, async (t) => {
    const { head, line } = make();
    const w = await freshInstance();
    const session = new w.Session({ record: false });
    const before = w.memoryBytes();
    let applied = 0;
    const first = session.ingestJsonl(head.join('\n'));
    applied += first.applied;
    for (let start = 0; start < CHUNKS; start += BATCH) {
      const lines = [];
      for (let i = start; i < start + BATCH; i++) lines.push(line(i));
      const out = session.ingestJsonl(lines.join('\n'));
      assert.equal(out.errorCount, 0, `${dialect}: ${JSON.stringify(out.errors?.[0])}`);
      applied += out.applied;
    }
    const view = session.getSnapshot();
    const used = w.memoryBytes();
    const perEnvelope = 43 + (dialect === 'laravel/ai' ? 40 : 0); // a laravel/ai event keeps its id too
    const bound = before + 4 * TEXT_CAP + Math.ceil(1.5 * perEnvelope * applied);
    t.diagnostic(`${applied} envelopes applied: wasm memory ${(before / MB).toFixed(1)} MB before, ${(used / MB).toFixed(1)} MB after (bound ${(bound / MB).toFixed(1)} MB)`);
    assert.equal(applied, head.length + CHUNKS, `${dialect}: every chunk applied`);
    assert.equal(view.executions.length, 1, `${dialect}: one execution`);
    const limits = view.warnings.filter((x) => (x.warning?.code ?? x.code) === 'limit_exceeded');
    assert.equal(limits.length, 1, `${dialect}: limit_exceeded warnings ${JSON.stringify(limits)}`);
    assert.ok(used <= bound, `${dialect}: ${(used / MB).toFixed(1)} MB of wasm memory, over the bound of ${(bound / MB).toFixed(1)} MB`);
    session.free();
  });
}
