// Payload lint through the built package, as the panel's Diagnostics tab asks for it
// (session.diagnose()): a reference run with its tool envelope grown to 9.9 KB, to just
// over 10 KB, marked truncated, or carrying an API key. Sizes are the lines' as received.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Session } from 'stepline/devtools';
import { v1Vectors } from './lib/vectors.mjs';

const run = v1Vectors('agent-runs.json').find((r) => r.name.startsWith('tool call then final answer'));
const TOOL_STARTED = 2;
const envelopes = () => structuredClone(run.expected.flatMap((turn) => turn.envelopes.map((e) => e.envelope)));

/** The run with its tool envelope's line exactly `bytes` long (UTF-8). */
function withToolLineOf(bytes) {
  const list = envelopes();
  list[TOOL_STARTED].payload.args.query = '';
  const base = Buffer.byteLength(JSON.stringify(list[TOOL_STARTED]));
  list[TOOL_STARTED].payload.args.query = 'x'.repeat(bytes - base);
  return list;
}

function diagnosed(list) {
  const session = new Session();
  try {
    assert.equal(session.ingestJsonl(list.map((e) => JSON.stringify(e)).join('\n')).errorCount, 0);
    return session.diagnose();
  } finally {
    session.free();
  }
}

test('a 9.9 KB envelope is a near-limit warning naming its size, index, type and step', () => {
  const found = diagnosed(withToolLineOf(9_900)).filter((d) => d.code === 'envelope_near_size_limit');
  assert.equal(found.length, 1);
  assert.equal(found[0].severity, 'warning');
  assert.equal(found[0].path, '/envelopes/2');
  assert.deepEqual(found[0].evidence, { index: 2, type: 'agent.tool.started', step: 1, bytes: 9_900, limit: 10_000 });
});

test('an envelope over 10,000 bytes is an error, not a near-limit warning', () => {
  const codes = diagnosed(withToolLineOf(10_001)).map((d) => d.code);
  assert.ok(codes.includes('envelope_over_size_limit'), codes.join());
  assert.ok(!codes.includes('envelope_near_size_limit'), codes.join());
});

test('a payload the encoder shortened is reported as a truncated text', () => {
  const list = envelopes();
  list[TOOL_STARTED].payload.truncated = true;
  const found = diagnosed(list).filter((d) => d.code === 'text_truncated');
  assert.deepEqual(found.map((d) => d.path), ['/envelopes/2/payload/truncated']);
});

test('an API key in a payload is reported without its value', () => {
  const key = `sk-${'A1b2C3d4'.repeat(5)}`;
  const list = envelopes();
  list[TOOL_STARTED].payload.args.api_key = key;
  const found = diagnosed(list).filter((d) => d.code === 'secret_in_payload');
  assert.equal(found.length, 1);
  assert.equal(found[0].path, '/envelopes/2/payload/args/api_key');
  assert.equal(found[0].evidence.redacted, '[redacted]');
  assert.ok(!JSON.stringify(found[0]).includes('A1b2C3d4'), 'no part of the key is shown');
});
