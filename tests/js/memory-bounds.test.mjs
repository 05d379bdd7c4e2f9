// Memory bounds of the built package: ingesting an endless stream must keep the wasm
// memory proportional to what the view holds. Measured on the instance's own
// WebAssembly.Memory (what the browser entry's `init()` returns as `exports.memory`):
// wasm memory grows in 64 KiB pages and never shrinks, so every measurement gets a fresh
// instance, made by importing the package's wasm-bindgen glue (stepline/devtools's
// devtools/stepline.js: the same session as `stepline`'s, and the devtools methods the
// record: false test calls) under its own URL and instantiating its stepline_bg.wasm.
// Each test states the bound it holds (the caps are documented in docs/node/bulk-replay.md, "Memory bounds").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const wasmPath = require.resolve('stepline/devtools/stepline_bg.wasm');
const glueUrl = new URL('stepline.js', pathToFileURL(wasmPath));
const { installSessionView } = await import(new URL('../view.js', glueUrl).href);
const wasmModule = new WebAssembly.Module(readFileSync(wasmPath));
const KB = 1024;
const MB = 1024 * 1024;
const PAGE = 64 * KB;

let instances = 0;
/** A fresh wasm instance of the package: its exports and a reader of its memory size. */
async function freshInstance() {
  const glue = await import(`${glueUrl.href}?instance=${instances++}`);
  const exports = await glue.default({ module_or_path: wasmModule });
  // What the package's entries add to the glue's Session: getSnapshot() and ingest's outcomes.
  installSessionView(glue.Session);
  return { ...glue, memoryBytes: () => exports.memory.buffer.byteLength };
}

const fmt = (bytes) => `${(bytes / MB).toFixed(2)} MB`;
const at = (ms) => new Date(Date.UTC(2026, 0, 20, 12) + ms).toISOString();
const base = { session_id: 's', execution_id: 'e' };

/** A v1.22-style run as JSON lines: per step a start, `chunks` stream chunks, one tool call, a completion. */
function runLines(steps, chunks = 3) {
  const lines = [JSON.stringify({ ...base, type: 'agent.status', timestamp: at(0), payload: { status: 'processing', previous_status: 'idle' } })];
  let chunkIndex = 0;
  for (let n = 1; n <= steps; n++) {
    const t = at(n * 1000);
    lines.push(JSON.stringify({ ...base, type: 'agent.step.started', timestamp: t, payload: { step_number: n, message_count: n, available_tools: 2 } }));
    for (let k = 0; k < chunks; k++) {
      lines.push(JSON.stringify({ ...base, type: 'agent.stream.chunk', timestamp: t, payload: { content: `step ${n} part ${k}, some streamed text. `, chunk_index: chunkIndex++ } }));
    }
    lines.push(JSON.stringify({ ...base, type: 'agent.tool.started', timestamp: t, payload: { tool_name: 'search', tool_call_id: `call-${n}`, args_summary: 'q=x', args: { q: 'x' } } }));
    lines.push(JSON.stringify({ ...base, type: 'agent.tool.completed', timestamp: t, payload: { tool_name: 'search', tool_call_id: `call-${n}`, success: true, duration_ms: 12, result_summary: 'ok' } }));
    lines.push(JSON.stringify({ ...base, type: 'agent.step.completed', timestamp: t, payload: { step_number: n, has_tool_calls: true, errors: 0, finish_reason: 'tool_calls', usage: { input: 10, output: 5, cacheWrite: 0, cacheRead: 0, reasoning: 0 }, duration_ms: 100 } }));
  }
  return lines;
}

/** Ingests `lines` one by one, reading the snapshot every `every` envelopes as a live UI does. */
function ingestLive(session, lines, every = 100) {
  for (let i = 0; i < lines.length; i++) {
    session.ingest(lines[i]);
    if (i % every === every - 1) session.getSnapshot();
  }
  return session.getSnapshot();
}

test('exact redeliveries cost no wasm memory: a 7k-envelope run delivered 4 more times grows it by at most a page', async (t) => {
  const w = await freshInstance();
  const lines = runLines(1000);
  const session = new w.Session();
  ingestLive(session, lines);
  const before = w.memoryBytes();
  for (let round = 0; round < 4; round++) for (const line of lines) session.ingest(line);
  const view = session.getSnapshot();
  const grown = w.memoryBytes() - before;
  t.diagnostic(`${lines.length} envelopes, then ${4 * lines.length} duplicates: +${grown} bytes of wasm memory`);
  assert.deepEqual(view.counts, { applied: lines.length, duplicates: 4 * lines.length, rejected: 0 });
  assert.ok(grown <= PAGE, `duplicates grew wasm memory by ${grown} bytes`);
  session.free();
});

test('a resync that delivers the whole run again as one batch costs no memory after the first (what stepline/echo does on every reconnect)', async (t) => {
  const w = await freshInstance();
  const text = runLines(1500).join('\n');
  const session = new w.Session();
  session.ingestJsonl(text);
  session.getSnapshot();
  // The first resync sizes the batch's own tables; later ones must reuse them.
  session.ingestJsonl(text);
  session.getSnapshot();
  const after = w.memoryBytes();
  for (let round = 0; round < 4; round++) {
    const out = session.ingestJsonl(text);
    assert.equal(out.applied, 0);
    session.getSnapshot();
  }
  const grown = w.memoryBytes() - after;
  t.diagnostic(`run of ${fmt(text.length)} JSONL; four more resyncs grew wasm memory by ${fmt(grown)}`);
  assert.ok(grown <= 64 * 1024, `four resyncs of a ${fmt(text.length)} run grew wasm memory by ${fmt(grown)}`);
  assert.equal(session.toRecording().split('\n').filter(Boolean).length, text.split('\n').length + 1);
  session.free();
});

test('envelopes of another session cost no memory after the first (they are counted, not kept)', async (t) => {
  const w = await freshInstance();
  const session = new w.Session({ sessionId: 'mine' });
  const foreign = (i) => JSON.stringify({ session_id: 'theirs', execution_id: 'x', type: 'agent.stream.chunk', timestamp: at(i), payload: { content: `text ${i}`, chunk_index: i } });
  session.ingest(foreign(0));
  session.getSnapshot();
  const before = w.memoryBytes();
  for (let i = 1; i < 20_000; i++) session.ingest(foreign(i));
  const view = session.getSnapshot();
  const grown = w.memoryBytes() - before;
  t.diagnostic(`20,000 envelopes from one foreign session: +${grown} bytes`);
  assert.deepEqual(view.rejected_sessions, { theirs: 20_000 });
  assert.ok(grown <= PAGE, `rejected envelopes grew wasm memory by ${grown} bytes`);
  session.free();
});

test('wasm memory grows linearly with the retained run (steps, chunks, tool calls), within 12x its view', async (t) => {
  const measure = async (steps) => {
    const w = await freshInstance();
    const lines = runLines(steps);
    const session = new w.Session();
    const before = w.memoryBytes();
    const view = ingestLive(session, lines);
    const grown = w.memoryBytes() - before;
    const viewBytes = JSON.stringify(view).length;
    const wireBytes = lines.reduce((n, l) => n + l.length, 0);
    t.diagnostic(`${steps} steps, ${lines.length} envelopes (${fmt(wireBytes)} on the wire): wasm +${fmt(grown)}, `
      + `${(grown / lines.length).toFixed(0)} B per envelope, view ${fmt(viewBytes)} (x${(grown / viewBytes).toFixed(1)})`);
    session.free();
    return { grown, viewBytes, envelopes: lines.length };
  };
  const small = await measure(2500);
  const large = await measure(10_000);
  const ratio = large.grown / small.grown;
  t.diagnostic(`4x the run -> x${ratio.toFixed(2)} the memory`);
  assert.ok(ratio > 2.5 && ratio < 5.5, `memory grew x${ratio.toFixed(2)} for a 4x longer run (linear is ~4)`);
  assert.ok(large.grown <= 12 * large.viewBytes, `wasm memory is x${(large.grown / large.viewBytes).toFixed(1)} the view`);
});

// Each chunk's text is held by the chunk map, the joined text (a growing String) and the envelope log:
// three copies, more while the joined text's capacity doubles. (10 MB of text: over the default 8 MiB limit.)
// The text once, the log's copy of each envelope, and the text's growth slack: chunks wholly in
// the text keep no copy of their own (they did until 2026-11-23: x4.23).
test('streamed text costs a bounded multiple of its bytes: 40 chunks of 256 KB take under 4x their size', async (t) => {
  const w = await freshInstance();
  const session = new w.Session({ maxTextBytes: 16 * MB });
  const piece = 'lorem ipsum '.repeat(256 * KB / 12);
  session.getSnapshot();
  const before = w.memoryBytes();
  for (let i = 0; i < 40; i++) {
    session.ingest(JSON.stringify({ ...base, type: 'agent.stream.chunk', timestamp: at(i), payload: { content: piece, chunk_index: i } }));
    session.getSnapshot();
  }
  const text = session.getSnapshot().executions[0].text;
  const grown = w.memoryBytes() - before;
  t.diagnostic(`${fmt(text.length)} of streamed text: wasm +${fmt(grown)} (x${(grown / text.length).toFixed(2)})`);
  assert.equal(text.length, 40 * piece.length);
  assert.ok(grown <= 4 * text.length, `x${(grown / text.length).toFixed(2)} the text`);
  session.free();
});

test('free() gives a session\'s memory back for reuse: five create/ingest/free cycles need no more than the first', async (t) => {
  const w = await freshInstance();
  const lines = runLines(1500);
  const sizes = [];
  for (let cycle = 0; cycle < 5; cycle++) {
    const session = new w.Session();
    ingestLive(session, lines);
    session.free();
    const log = new w.RunLog();
    log.ingestJsonl(lines.join('\n'));
    log.summary();
    log.free();
    sizes.push(w.memoryBytes());
  }
  t.diagnostic(`wasm memory after each cycle: ${sizes.map(fmt).join(', ')}`);
  assert.ok(sizes.at(-1) - sizes[0] <= PAGE, `memory kept growing across cycles: ${sizes.map(fmt).join(' -> ')}`);
});

// A re-stamped event is a new envelope, not a redelivery (only byte-identical
// normalised envelopes are): it is kept in the log that toRecording() writes,
// as its text, plus a 16-byte fingerprint in a tree and a log entry (the text's
// pointer and its arrival number, by which text the limit drops leaves the log
// and a RunLog saves in arrival order): about 80 bytes with the allocator's
// share. What must hold is that this is all.
test('re-sent events with a new timestamp cost their text in the recording log and nothing more', async (t) => {
  const w = await freshInstance();
  const session = new w.Session();
  const restamped = (i) => JSON.stringify({ ...base, type: 'agent.step.started', timestamp: at(i), payload: { step_number: 1 } });
  session.ingest(restamped(0));
  const first = session.getSnapshot();
  const before = w.memoryBytes();
  for (let i = 1; i < 20_000; i++) session.ingest(restamped(i));
  const view = session.getSnapshot();
  const grown = w.memoryBytes() - before;
  t.diagnostic(`20,000 re-stamped step.started: +${fmt(grown)} (${(grown / 20_000).toFixed(0)} B each), view ${JSON.stringify(view).length} B`);
  assert.deepEqual(view.executions[0].steps, first.executions[0].steps, 'the view did not change');
  const text = restamped(1).length;
  assert.ok(grown / 20_000 <= text + 80, `${(grown / 20_000).toFixed(0)} B per re-stamped envelope of ${text} B`);
  session.free();
});

test('a JSONL batch full of bad lines costs bounded memory (its error list is capped)', async (t) => {
  const grownFor = async (lines, call) => {
    const w = await freshInstance();
    const text = 'x\n'.repeat(lines);
    const before = w.memoryBytes();
    const result = call(w, text);
    assert.equal(result.errors.length > 0, true);
    return w.memoryBytes() - before;
  };
  const growth = {};
  for (const [name, call] of [
    ['decodeEnvelopes', (w, text) => w.decodeEnvelopes(text)],
    ['Session#ingestJsonl', (w, text) => new w.Session().ingestJsonl(text)],
    ['RunLog#ingestJsonl', (w, text) => new w.RunLog().ingestJsonl(text)],
  ]) {
    const small = await grownFor(10_000, call);
    const large = await grownFor(80_000, call);
    t.diagnostic(`${name}: 10,000 bad lines +${fmt(small)}, 80,000 bad lines +${fmt(large)} (${(large / 80_000).toFixed(0)} B per line)`);
    growth[name] = large - small;
  }
  for (const [name, extra] of Object.entries(growth)) assert.ok(extra <= MB, `${name}: 70,000 more bad lines cost ${fmt(extra)}`);
});

test('streamed text per execution is capped (maxTextBytes, 8 MiB by default), so an endless chunk stream has a bounded footprint', async (t) => {
  const w = await freshInstance();
  const session = new w.Session();
  const piece = 'y'.repeat(MB - 200);
  const chunk = (i) => JSON.stringify({ ...base, type: 'agent.stream.chunk', timestamp: at(i), payload: { content: piece, chunk_index: i } });
  const before = w.memoryBytes();
  for (let i = 0; i < 24; i++) session.ingest(chunk(i));
  let exec = session.getSnapshot().executions[0];
  const first = w.memoryBytes();
  t.diagnostic(`24 chunks of ~1 MiB: view text ${fmt(exec.text.length)}, wasm +${fmt(first - before)}`);
  assert.equal(exec.text.length, 8 * MB);
  assert.equal(exec.text_truncated, true);
  assert.equal(exec.text_dropped_bytes, 24 * piece.length - 8 * MB);
  // The stream goes on (read as a live UI does): nothing more is kept.
  for (let i = 24; i < 96; i++) {
    session.ingest(chunk(i));
    if (i % 8 === 0) session.getSnapshot();
  }
  exec = session.getSnapshot().executions[0];
  const grown = w.memoryBytes() - first;
  t.diagnostic(`72 more chunks (${fmt(72 * piece.length)}): wasm +${fmt(grown)}`);
  assert.equal(exec.text_dropped_bytes, 96 * piece.length - 8 * MB);
  assert.equal(session.counts?.applied ?? session.getSnapshot().counts.applied, 96);
  assert.ok(grown <= 2 * MB, `72 MB more streamed text grew wasm memory by ${fmt(grown)}`);
  // Its recording holds only the text that shows (and says what it dropped).
  const recording = session.toRecording();
  assert.ok(recording.length < 10 * MB, `the recording is ${fmt(recording.length)}`);
  const back = w.Session.fromRecording(recording);
  assert.deepEqual(back.getSnapshot().executions[0], exec);
  back.free();
  session.free();
});

test('chunks in reverse order are held within the limit too: four times the stream, the same memory', async (t) => {
  const piece = 'z'.repeat(MB - 200);
  const measure = async (chunks) => {
    const w = await freshInstance();
    const session = new w.Session({ maxTextBytes: 4 * MB });
    const before = w.memoryBytes();
    for (let i = chunks - 1; i >= 0; i--) {
      session.ingest(JSON.stringify({ ...base, type: 'agent.stream.chunk', timestamp: at(i), payload: { content: piece, chunk_index: i } }));
    }
    const exec = session.getSnapshot().executions[0];
    const grown = w.memoryBytes() - before;
    t.diagnostic(`${chunks} chunks of ~1 MiB, last first, 4 MiB kept: wasm +${fmt(grown)}`);
    assert.equal(exec.text.length, 4 * MB);
    assert.deepEqual(exec.missing_chunks, []);
    assert.equal(exec.text_dropped_bytes, chunks * piece.length - 4 * MB);
    session.free();
    return grown;
  };
  // Where talc places the 1 MiB blocks moves the peak by a few MiB either way (32 then 64
  // chunks measured +36.1/+32.1 MB on one build and +37.1/+42.2 MB on the next, 128 and 256
  // chunks +36.1/+32.1 and +39.1/+39.1): the bound is twice the kept text, and a session that
  // held each chunk would grow by the 96 MiB more it was sent.
  const small = await measure(32);
  const large = await measure(128);
  assert.ok(large <= small + 8 * MB, `96 more chunks grew wasm memory from ${fmt(small)} to ${fmt(large)}`);
});

test('maxTextBytes must be a non-negative integer: a fraction or a string is invalid_type, a whole number out of range out_of_range', async () => {
  const w = await freshInstance();
  for (const [bad, code] of [[-1, 'out_of_range'], [1e300, 'out_of_range'], [1.5, 'invalid_type'], ['8', 'invalid_type']]) {
    assert.throws(() => new w.Session({ maxTextBytes: bad }), (e) => e.code === code && e.path === '/options/maxTextBytes', String(bad));
  }
  const s = new w.Session({ maxTextBytes: 0 });
  s.ingest({ ...base, type: 'agent.stream.chunk', payload: { content: 'abc', chunk_index: 0 } });
  assert.equal(s.getSnapshot().executions[0].text, '');
  assert.equal(s.getSnapshot().executions[0].text_dropped_bytes, 3);
  s.free();
});

test('a run log keeps redelivered envelopes at no memory cost', async (t) => {
  const w = await freshInstance();
  const lines = runLines(1000);
  const log = new w.RunLog();
  for (const line of lines) log.ingest(line);
  const before = w.memoryBytes();
  for (let round = 0; round < 4; round++) for (const line of lines) log.ingest(line);
  const grown = w.memoryBytes() - before;
  t.diagnostic(`${4 * lines.length} redeliveries into a RunLog: +${fmt(grown)}`);
  assert.equal(log.summary().duplicates, 4 * lines.length);
  assert.ok(grown <= PAGE, `redeliveries grew the run log by ${fmt(grown)}`);
  const back = w.RunLog.load(log.save());
  assert.deepEqual(back.summary(), log.summary(), 'a saved and loaded log counts the same duplicates');
  back.free();
  log.free();
});

test('record: false keeps no envelope text: the same view in less wasm memory, and typed errors from what reads the envelopes', async (t) => {
  const lines = runLines(3000);
  const grown = {};
  const views = {};
  for (const record of [true, false]) {
    const w = await freshInstance();
    const session = new w.Session({ record });
    const before = w.memoryBytes();
    views[record] = ingestLive(session, lines);
    grown[record] = w.memoryBytes() - before;
    if (!record) {
      for (const [name, call] of [
        ['toRecording()', () => session.toRecording()],
        ['timeline()', () => session.timeline()],
        ['envelopesOf()', () => session.envelopesOf(0, 1)],
        ['diagnose()', () => session.diagnose()],
      ]) {
        assert.throws(call, (e) => e.code === 'invalid_value' && e.path === '/options/record' && e.message.includes(name), name);
      }
    }
    session.free();
  }
  t.diagnostic(`${lines.length} envelopes: wasm memory +${fmt(grown[true])} recording, +${fmt(grown[false])} with record: false`);
  assert.deepEqual(views[false], views[true]);
  assert.ok(grown[false] < grown[true] * 0.8, `record: false grew ${fmt(grown[false])}, recording ${fmt(grown[true])}`);
  const w = await freshInstance();
  assert.throws(() => new w.Session({ record: 'no' }), (e) => e.code === 'invalid_type' && e.path === '/options/record');
});
