// Slim snapshots through the built package, checked against the reference vectors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { slimSnapshot, restoreState, validateSnapshot, snapshotSchema, SteplineError } from 'stepline';

const root = new URL('../../', import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const cases = JSON.parse(readFileSync(new URL('slim-serializer.json', vectorsDir), 'utf8'));

function thrown(fn) {
  try { fn(); } catch (error) { return error; }
  assert.fail('expected a throw');
}

test('compat mode reproduces every reference snapshot', () => {
  const serialize = cases.filter((c) => c.name.startsWith('serialize'));
  assert.equal(serialize.length, 36);
  for (const c of serialize) {
    const { snapshot, bytes, truncation } = slimSnapshot(c.input.state, { ...c.input.config, compat: true });
    assert.deepEqual(snapshot, c.expected, c.name);
    // `bytes` counts the core's compact encoding, where floats keep `.0` as PHP writes them;
    // JSON.stringify can only be shorter.
    assert.ok(Buffer.byteLength(JSON.stringify(snapshot)) <= bytes);
    assert.equal(truncation, null);
  }
});

test('by default truncation keeps whole characters and excluded results leave no trace', () => {
  const c = cases.find((c) => c.name === 'serialize [maxContentLength=10] short multibyte contents');
  const { snapshot } = slimSnapshot(c.input.state, c.input.config);
  assert.equal(snapshot.messages[1].content, '日本語...');
  assert.equal(snapshot.messages[2].content, 'Hello 👋...');
  const t = cases.find((c) => c.name === 'serialize [includeToolResults=false] tool calls conversation with 3 steps (completed)');
  const tool = slimSnapshot(t.input.state, t.input.config).snapshot.messages.filter((m) => m.role === 'tool');
  assert.ok(tool.length > 0);
  for (const m of tool) {
    assert.equal(m.content, '[tool result omitted]');
    assert.equal(m._metadata.result, undefined);
    assert.ok(!JSON.stringify(m).includes('temp'));
  }
});

test('presets and overrides', () => {
  const c = cases.find((c) => c.name === 'serialize [default] 65 messages');
  assert.equal(slimSnapshot(c.input.state, { preset: 'minimal' }).snapshot.messages.length, 20);
  assert.equal(slimSnapshot(c.input.state, { preset: 'minimal', maxMessages: 5 }).snapshot.messages.length, 5);
  assert.equal(slimSnapshot(c.input.state).snapshot.messages.length, 50);
  assert.equal(thrown(() => slimSnapshot(c.input.state, { preset: 'tiny' })).path, '/options/preset');
  assert.equal(thrown(() => slimSnapshot(c.input.state, { maxMesages: 5 })).path, '/options/maxMesages');
});

test('maxBytes fits the budget and says what it dropped', () => {
  const c = cases.find((c) => c.name === 'serialize [default] 65 messages');
  const full = slimSnapshot(c.input.state);
  const { snapshot, bytes, truncation } = slimSnapshot(c.input.state, { maxBytes: Math.floor(full.bytes / 4) });
  assert.ok(bytes <= full.bytes / 4);
  assert.ok(Buffer.byteLength(JSON.stringify(snapshot)) <= bytes);
  assert.equal(truncation.messagesDropped, 50 - snapshot.messages.length);
  assert.equal(typeof truncation.contentLimit, 'number');
  const e = thrown(() => slimSnapshot(c.input.state, { maxBytes: 10 }));
  assert.ok(e instanceof SteplineError);
  assert.equal(e.code, 'too_large');
});

test('restoreState matches every deserialize vector', () => {
  for (const c of cases.filter((c) => c.name.startsWith('deserialize'))) {
    const state = restoreState(c.input.snapshot, { now: c.input.now });
    assert.equal(state.agentId === c.expected.agentId || c.expected.agentId === '<uuid>', true, c.name);
    assert.deepEqual(state.messageStore, c.expected.messageStore, c.name);
    assert.equal(state.status, c.expected.status, c.name);
    assert.equal(state.stateInfo.startedAt, c.expected.stateInfo.startedAt, c.name);
    assert.equal(state.executionStartedAt, null);
    assert.deepEqual(state.steps, []);
  }
});

test('validateSnapshot accepts the reference snapshots and reports every problem of a broken one', () => {
  for (const c of cases.filter((c) => c.name.startsWith('serialize'))) {
    const r = validateSnapshot(c.expected);
    assert.equal(r.valid, true, `${c.name}: ${JSON.stringify(r.errors)}`);
  }
  const r = validateSnapshot({ agent_id: 'a', status: 'idle', step_count: '3', usage: {}, execution: {}, messages: 'none', surprise: 1 });
  assert.equal(r.valid, false);
  const paths = r.errors.map((e) => `${e.path} ${e.code}`);
  for (const p of ['/status invalid_enum', '/step_count wrong_type', '/execution/started_at missing_field', '/messages wrong_type']) {
    assert.ok(paths.includes(p), `${p} not in ${paths}`);
  }
  assert.deepEqual(r.warnings.map((w) => w.path), ['/surprise']);
  assert.deepEqual(validateSnapshot('{nope').errors.map((e) => e.code), ['invalid_json']);
});

test('snapshotSchema is a draft 2020-12 schema', () => {
  const s = snapshotSchema();
  assert.equal(s.$schema, 'https://json-schema.org/draft/2020-12/schema');
  // v1.22's statuses for a snapshot without state_version; v2's may also be pending, stopped or null.
  assert.deepEqual(s.then.properties.status.enum, ['in_progress', 'completed', 'failed']);
  assert.deepEqual(s.properties.status.enum, ['in_progress', 'completed', 'failed', 'pending', 'stopped', null]);
});
