// Envelopes through the built package: decoding every dialect, the encoder, the cap.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { decodeEnvelope, tryDecodeEnvelope, decodeEnvelopes, EnvelopeEncoder, channelFor, SteplineError } from 'stepline';

const root = new URL('../../', import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const runs = JSON.parse(readFileSync(new URL('agent-runs.json', vectorsDir), 'utf8'));
const cases = JSON.parse(readFileSync(new URL('envelopes.json', vectorsDir), 'utf8'));

test('every agent-run envelope decodes to itself, from objects and from JSONL', () => {
  const all = runs.flatMap((c) => c.expected.flatMap((t) => t.envelopes.map((e) => e.envelope)));
  assert.equal(all.length, 75);
  for (const e of all) assert.deepEqual(decodeEnvelope(e), e);
  const { envelopes, errors, warnings } = decodeEnvelopes(all.map((e) => JSON.stringify(e)).join('\n'));
  assert.equal(envelopes.length, 75);
  assert.deepEqual(errors, []);
  assert.deepEqual(warnings, []);
});

test('the encoder reproduces the reference adapter (compat) for every envelopes.json case', () => {
  const offsets = { 'Europe/Warsaw': 60, 'America/New_York': -300, 'Asia/Kolkata': 330 };
  for (const c of cases) {
    const config = { ...c.input.config, compat: { utcOffsetMinutes: offsets[c.input.phpDefaultTimezone] ?? 0 } };
    const enc = new EnvelopeEncoder({ sessionId: c.input.sessionId, executionId: c.input.executionId, config, now: c.input.now });
    const sent = [];
    for (const op of c.input.ops) {
      if (op.call === 'reset') enc.reset();
      else sent.push(...enc.push(op));
    }
    // Byte-cut strings that split a character show as U+FFFD on both sides.
    assert.deepEqual(sent, c.expected, c.name);
  }
});

test('seed-000 and seed-003 dialects normalise to the same model', () => {
  const seed = decodeEnvelope('{"type":"agent.step.completed","session_id":"s","payload":{"step_number":2,"usage":{"prompt":500,"completion":150,"total":650}}}');
  assert.deepEqual(seed.payload.usage, { input: 500, output: 150, cacheWrite: 0, cacheRead: 0, reasoning: 0 });
  const native = decodeEnvelope({ event_type: 'agent.llm.output_text.delta', step_index: 0, step_id: 'st', text_delta: 'Hi' });
  assert.equal(native.type, 'agent.llm.output_text.delta');
  assert.equal(native.session_id, null);
  assert.equal(native.payload.text_delta, 'Hi');
});

test('garbage is a typed error with a path; unknown types are warnings', () => {
  const bad = tryDecodeEnvelope({ type: 'agent.status', session_id: 7, payload: { status: 'x' } });
  assert.equal(bad.ok, false);
  assert.deepEqual([bad.error.code, bad.error.path], ['invalid_type', '/session_id']);
  assert.throws(() => decodeEnvelope('nope'), (e) => e instanceof SteplineError && e.code === 'invalid_json');
  assert.throws(() => decodeEnvelope({ type: 'agent.status', session_id: 's', timestamp: 'soon', payload: { status: 'x' } }), (e) => e.path === '/timestamp');
  const unknown = tryDecodeEnvelope({ type: 'agent.plan.updated', session_id: 's', payload: { plan: 1 } });
  assert.equal(unknown.ok, true);
  assert.deepEqual(unknown.warnings.map((w) => w.code), ['unknown_type']);
});

test('lone surrogates from JS strings are rejected cleanly; __proto__ stays data', () => {
  const r = tryDecodeEnvelope({ type: 'agent.stream.chunk', session_id: 's', payload: { content: 'a\ud800b' } });
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'invalid_json');
  // A JS string holding a lone surrogate (not an escape): rejected, not turned into U+FFFD.
  const raw = tryDecodeEnvelope('{"type":"agent.stream.chunk","session_id":"s","payload":{"content":"a\ud800b"}}');
  assert.equal(raw.ok, false);
  assert.match(raw.error.message, /surrogate/);
  const e = decodeEnvelope('{"type":"agent.status","session_id":"s","payload":{"status":"x","__proto__":{"polluted":true}}}');
  assert.ok(Object.hasOwn(e.payload.extra, '__proto__'));
  assert.equal({}.polluted, undefined);
});

test('a real U+FFFD in text is kept, and a lone surrogate next to one is still refused, in objects, text and JSONL', () => {
  // Strings are copied first and their UTF-16 checked only when the copy holds U+FFFD (what a lone
  // surrogate becomes in UTF-8), so both halves of that shortcut are pinned here.
  const text = (content) => JSON.stringify({ type: 'agent.stream.chunk', session_id: 's', payload: { content, chunk_index: 0 } });
  for (const content of ['\ufffd', 'a\ufffdb', '\ufffd\ufffd🚀']) {
    assert.equal(decodeEnvelope(text(content)).payload.content, content);
    assert.equal(decodeEnvelopes(`${text(content)}\n`).envelopes[0].payload.content, content);
  }
  for (const content of ['\ufffd\ud800', '\udc00\ufffd', 'a\ufffdb\ud83d']) {
    const raw = text('').replace('"content":""', `"content":"${content}"`);
    const r = tryDecodeEnvelope(raw);
    assert.equal(r.ok, false, JSON.stringify(content));
    assert.match(r.error.message, /surrogate/);
    // A JSONL batch is one string: a lone surrogate anywhere refuses the batch.
    assert.throws(() => decodeEnvelopes(`${text('ok')}\n${raw}\n`), (e) => e instanceof SteplineError && /surrogate/.test(e.message));
  }
});

test('the cap splits huge chunks and shortens huge texts', () => {
  const enc = new EnvelopeEncoder({ sessionId: 's', executionId: 'e', config: { preset: 'debug' } });
  const text = 'Zażółć 🚀 "q"\n'.repeat(5000);
  const chunks = enc.push({ event: 'StreamEventReceived', args: { content: text } });
  assert.ok(chunks.length > 5);
  assert.equal(chunks.map((c) => c.envelope.payload.content).join(''), text);
  for (const c of chunks) assert.ok(Buffer.byteLength(JSON.stringify(c.envelope)) <= 10000);
  const wide = new EnvelopeEncoder({ sessionId: 's', config: { preset: 'debug', maxArgLength: 1000000 } });
  const [tool] = wide.push({ event: 'ToolCallStarted', args: { tool: 't', args: { q: 'x'.repeat(50000) } } });
  assert.equal(tool.envelope.payload.truncated, true);
  assert.ok(Buffer.byteLength(JSON.stringify(tool.envelope)) <= 10000);
  assert.equal(channelFor('s'), 'agent.s');
  assert.equal(enc.status('failed', { error: 'x' }).envelope.payload.previous_status, 'idle');
  assert.equal(enc.currentStatus, 'failed');
});

test('config.maxMessageBytes sets the cap, null turns it off, below 256 is refused', () => {
  const event = { event: 'StreamEventReceived', args: { content: 'y'.repeat(3000) } };
  const small = new EnvelopeEncoder({ sessionId: 's', config: { preset: 'debug', maxMessageBytes: 1000 } });
  const pieces = small.push(event);
  assert.ok(pieces.length >= 3, `${pieces.length} chunks`);
  for (const p of pieces) assert.ok(Buffer.byteLength(JSON.stringify(p.envelope)) <= 1000);
  const uncapped = new EnvelopeEncoder({ sessionId: 's', config: { preset: 'debug', maxMessageBytes: null } });
  assert.equal(uncapped.push({ event: 'StreamEventReceived', args: { content: 'y'.repeat(30000) } }).length, 1);
  assert.throws(() => new EnvelopeEncoder({ sessionId: 's', config: { maxMessageBytes: 100 } }),
    (e) => e instanceof SteplineError && e.code === 'invalid_value' && e.path === '/options/config/maxMessageBytes');
});

test('push({ at }) stamps the event with its own time', () => {
  const enc = new EnvelopeEncoder({ sessionId: 's', config: { preset: 'debug' }, now: '2026-01-20T12:00:00Z' });
  const [started] = enc.push({ event: 'AgentStepStarted', args: { stepNumber: 1 }, at: '2026-01-20T12:00:05.250Z' }).slice(-1);
  assert.equal(started.envelope.timestamp, '2026-01-20T12:00:05.250Z');
  const [fixed] = enc.push({ event: 'AgentStepStarted', args: { stepNumber: 2 } });
  assert.equal(fixed.envelope.timestamp, '2026-01-20T12:00:00.000Z');
  assert.throws(() => enc.push({ event: 'AgentStepStarted', args: {}, at: 'not a date' }), (e) => e.code === 'invalid_timestamp' && e.path === '/at');
  assert.throws(() => enc.push({ event: 'AgentStepStarted', agrs: {} }), (e) => e.code === 'invalid_value');
});
