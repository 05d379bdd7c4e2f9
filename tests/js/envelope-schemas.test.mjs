// The per-type envelope schemas the package publishes (stepline/schemas/envelopes/<type>.schema.json,
// generated from the decoder's field table by `npm run gen`), checked with Ajv: every envelope of
// every run of both corpora, decoded, validates against its type's schema; so does every envelope
// the encoder sends for them, decoded (the encoder sends the producer's wire form, declared as
// `BroadcastEnvelope`: its payload is what the event gave, e.g. a partial `usage`). A payload field of the wrong type does not, and neither does an
// unknown field outside `extra`. Errors, thrown or returned, are the declared `ErrorInfo`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';

import { decodeEnvelope, decodeEnvelopes, tryDecodeEnvelope, EnvelopeEncoder, SteplineError } from 'stepline';

import { corpusRuns } from './lib/corpus.mjs';
import { bundle } from './lib/shapes.mjs';
import { REFUSED } from './shapes/envelopes.mjs';
import { v1Vectors, v2Vectors } from './lib/vectors.mjs';

const require = createRequire(import.meta.url);
const runs = await corpusRuns();
const KNOWN = bundle.$defs.Envelope.oneOf.map(({ $ref }) => bundle.$defs[$ref.split('/').pop()].properties.type.const);

const ajv = new Ajv2020({ allErrors: true, strict: true });
/** The published schema of each envelope type, loaded through the package's exports map. */
const validators = Object.fromEntries(KNOWN.map((type) => [type, ajv.compile(require(`stepline/schemas/envelopes/${type}.schema.json`))]));

function assertValid(envelope, where) {
  const validate = validators[envelope.type];
  assert.ok(validate, `${where}: no schema for ${envelope.type}`);
  assert.ok(validate(envelope), `${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
}

test('the package publishes one schema per known envelope type, and no other', () => {
  const dir = new URL('../../pkg/schemas/envelopes/', import.meta.url);
  assert.deepEqual(readdirSync(dir).sort(), KNOWN.map((t) => `${t}.schema.json`).sort());
  // v1.22's 7, seed 003's 8, and the 4 the foreign dialects translate into (issue 18).
  assert.equal(KNOWN.length, 19);
});

test('every envelope of every run of both corpora validates against its type\'s schema', () => {
  const seen = new Set();
  let n = 0;
  for (const run of runs) {
    for (const [i, e] of run.envelopes.entries()) {
      const decoded = decodeEnvelope(e);
      assertValid(decoded, `${run.name} #${i}`);
      seen.add(decoded.type);
      n++;
    }
    const batch = decodeEnvelopes(run.jsonl);
    assert.equal(batch.errorCount, 0, run.name);
    batch.envelopes.forEach((e, i) => assertValid(e, `${run.name} line ${i + 1}`));
  }
  assert.ok(n > 500, `${n} envelopes`);
  assert.ok(seen.size >= 6, [...seen].join(', '));
});

test('every envelope the encoder sends for the envelopes.json cases decodes to one that validates against its type\'s schema', () => {
  let n = 0;
  for (const [corpus, cases] of [['v1.22', v1Vectors('envelopes.json')], ['v2.7', v2Vectors('envelopes.json')]]) {
    for (const c of cases) {
      for (const config of [c.input.config, { preset: 'debug', dialect: corpus === 'v2.7' ? 'v2' : 'v1.22' }]) {
        const enc = new EnvelopeEncoder({ sessionId: c.input.sessionId, executionId: c.input.executionId, config, now: c.input.now });
        for (const op of c.input.ops) {
          if (op.call === 'reset') enc.reset();
          else if (op.call === 'onAgentStatusChanged') assertValid(decodeEnvelope(enc.status(op.args.status).envelope), c.name);
          else for (const { envelope } of enc.push(op)) { assertValid(decodeEnvelope(envelope), c.name); n++; }
        }
        enc.free();
      }
    }
  }
  assert.ok(n > 500, `${n} envelopes`);
});

test('a payload field of the wrong type, or an unknown one outside `extra`, fails its type\'s schema', () => {
  const good = decodeEnvelope(runs[0].envelopes.find((e) => e.type === 'agent.step.completed'));
  assertValid(good, 'the original');
  const cases = {
    'step_number as a string': { ...good, payload: { ...good.payload, step_number: '1' } },
    'usage.input as a float': { ...good, payload: { ...good.payload, usage: { ...good.payload.usage, input: 1.5 } } },
    'has_tool_calls as a number': { ...good, payload: { ...good.payload, has_tool_calls: 1 } },
    'an unknown payload field outside extra': { ...good, payload: { ...good.payload, future_field: 1 } },
    'step_number missing': { ...good, payload: Object.fromEntries(Object.entries(good.payload).filter(([k]) => k !== 'step_number')) },
    'the type of another schema': { ...good, type: 'agent.step.started' },
  };
  for (const [what, bad] of Object.entries(cases)) {
    assert.equal(validators['agent.step.completed'](bad), false, what);
  }
  // The decoder refuses the same wrong type, with the path the schema names.
  assert.deepEqual((({ ok, error }) => [ok, error.code, error.path])(tryDecodeEnvelope(cases['step_number as a string'])),
    [false, 'invalid_type', '/payload/step_number']);
});

test('each error code the decoder gives is a declared SteplineErrorCode, thrown and returned as ErrorInfo', () => {
  const errorInfo = ajv.compile({ ...bundle, $id: 'errors', $ref: '#/$defs/ErrorInfo' });
  const codes = bundle.$defs.SteplineErrorCode.oneOf.map((c) => c.const);
  for (const [code, input] of Object.entries(REFUSED)) {
    const r = tryDecodeEnvelope(input);
    assert.equal(r.ok, false, code);
    assert.equal(r.error.code, code);
    assert.ok(errorInfo(r.error), `${code}: ${JSON.stringify(errorInfo.errors)}`);
    assert.ok(codes.includes(code));
    assert.throws(() => decodeEnvelope(input), (e) => e instanceof SteplineError && e.code === code && e.path === r.error.path && e.message === r.error.message);
  }
  const batch = decodeEnvelopes(Object.values(REFUSED).map((i) => (typeof i === 'string' ? i : JSON.stringify(i))).join('\n'));
  assert.deepEqual(batch.errors.map((e) => e.error.code), Object.keys(REFUSED));
  for (const { error } of batch.errors) assert.ok(errorInfo(error));
  // The encoder's own refusals.
  const thrownCode = (fn) => { try { fn(); } catch (e) { assert.ok(e instanceof SteplineError); return [e.code, e.path]; } return null; };
  assert.deepEqual(thrownCode(() => new EnvelopeEncoder({})), ['missing_field', '/options/sessionId']);
  assert.deepEqual(thrownCode(() => new EnvelopeEncoder({ sessionId: 's', config: { preset: 'loud' } })), ['invalid_value', '/options/config/preset']);
  assert.deepEqual(thrownCode(() => new EnvelopeEncoder({ sessionId: 's', config: { compat: { utcOffsetMinutes: 1e9 } } })), ['out_of_range', '/options/config/compat/utcOffsetMinutes']);
  assert.deepEqual(thrownCode(() => new EnvelopeEncoder({ sessionId: 's', config: { includeToolArgs: 'yes' } })), ['invalid_type', '/options/config/includeToolArgs']);
  const enc = new EnvelopeEncoder({ sessionId: 's' });
  assert.deepEqual(thrownCode(() => enc.push('{')), ['invalid_json', null]);
  assert.deepEqual(thrownCode(() => enc.push({ args: {} })), ['missing_field', '/event']);
  enc.free();
});

test('an unknown envelope type is kept with a warning, outside the declared union', () => {
  const r = tryDecodeEnvelope({ type: 'agent.plan.updated', session_id: 's', payload: { plan: 1 } });
  assert.equal(r.ok, true);
  assert.deepEqual(r.warnings.map((w) => [w.code, w.path]), [['unknown_type', '/type']]);
  assert.deepEqual(r.envelope.payload, { plan: 1 });
  assert.equal(KNOWN.includes(r.envelope.type), false);
});
