// Hostile input against the built package: no panic, wasm trap or foreign exception is
// reachable from input. Every entry point that takes untrusted data gets a corpus of hostile
// values (100k-level nesting, 50 MB strings, out-of-range numbers, lone surrogates,
// `__proto__` keys, duplicate keys, BOMs, empty input, binary garbage, wrong types). Each
// call must either return a correct result or throw a SteplineError with a documented code
// and a string-or-null path; after every hostile call a fixed set of known-good calls must
// still give exactly the results they gave before any hostile input, and no prototype may
// have changed. Inputs that are known to break the wasm instance for good run in a child
// process (so the rest of this file keeps a healthy instance) and are marked `todo` with
// the reason until they are fixed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  SteplineError,
  EnvelopeEncoder,
  InferenceStreamAccumulator,
  RunLog,
  Session,
  decodeEnvelope,
  decodeEnvelopes,
  diagnose,
  evaluateContinuation,
  hasRole,
  isAssistant,
  isUser,
  normalizeInferenceResponse,
  parseAgentState,
  replayContinuation,
  resolveOutcome,
  restoreState,
  slimSnapshot,
  tryDecodeEnvelope,
  validateSnapshot,
} from 'stepline/devtools';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const vectorsDir = process.env.STEPLINE_VECTORS ?? join(repoRoot, 'tests', 'vectors', 'cognesy-v1.22');
const runs = JSON.parse(readFileSync(join(vectorsDir, 'agent-runs.json'), 'utf8'));
const run = (prefix) => runs.find((r) => r.name.startsWith(prefix));

/** The documented SteplineError codes (docs/reference/errors.md). */
const CODES = new Set(['invalid_json', 'too_large', 'too_deep', 'invalid_type', 'missing_field', 'invalid_value', 'invalid_timestamp', 'out_of_range', 'unknown_state_version']);
const NOW = '2026-01-20T12:00:00Z';
const MB = 1024 * 1024;

// Known-good inputs: a one-step reference run, its final state and slim snapshot.
const goodTurn = run('direct final answer').expected[0];
const GOOD_ENVELOPES = goodTurn.envelopes.map((e) => e.envelope);
const GOOD_STATE = goodTurn.finalState;
const GOOD_SLIM = goodTurn.slim;
const DEFAULTS = { defaults: { maxSteps: 1 } };
// A seed-000 envelope: decoding it normalises the usage, so the result pins real work.
const GOOD_ENVELOPE_TEXT = '{"type":"agent.step.completed","session_id":"s","payload":{"step_number":2,"usage":{"prompt":500,"completion":150,"total":650}}}';
const GOOD_DECODED = {
  type: 'agent.step.completed',
  session_id: 's',
  execution_id: null,
  timestamp: null,
  payload: { step_number: 2, usage: { input: 500, output: 150, cacheWrite: 0, cacheRead: 0, reasoning: 0 } },
};

/** The known-good calls, run before any hostile input and again after each one. */
function knownGood() {
  const session = new Session();
  try {
    for (const e of GOOD_ENVELOPES) session.ingest(e);
    const view = session.getSnapshot();
    return {
      decoded: decodeEnvelope(GOOD_ENVELOPE_TEXT),
      view: { counts: view.counts, status: view.status, usage: view.usage, executions: view.executions },
      reconciled: session.reconcile(GOOD_SLIM).consistent,
      state: parseAgentState(GOOD_STATE, { now: NOW }),
      slim: slimSnapshot(GOOD_STATE),
      outcome: evaluateContinuation(GOOD_STATE, DEFAULTS, { now: NOW }),
      validation: validateSnapshot(GOOD_SLIM),
    };
  } finally {
    session.free();
  }
}

const baseline = knownGood();

// What every prototype looked like before any hostile input.
const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype, Error: Error.prototype };
const protoSnapshot = () => Object.fromEntries(Object.entries(PROTOTYPES).map(([name, proto]) => [
  name,
  [Object.getPrototypeOf(proto), ...Reflect.ownKeys(proto).map((k) => [k, Object.getOwnPropertyDescriptor(proto, k)])],
]));
const protoBaseline = protoSnapshot();

function assertPrototypesUntouched(after) {
  assert.equal({}.polluted, undefined, `after ${after}: Object.prototype.polluted is set`);
  assert.equal([].polluted, undefined, `after ${after}: Array.prototype.polluted is set`);
  const now = protoSnapshot();
  for (const name of Object.keys(PROTOTYPES)) {
    assert.deepEqual(now[name], protoBaseline[name], `after ${after}: ${name}.prototype changed`);
  }
}

/** The instance still answers the known-good calls exactly as before. */
function assertUsable(after) {
  let now;
  try {
    now = knownGood();
  } catch (error) {
    assert.fail(`after ${after}: a known-good call threw ${describe(error)}`);
  }
  assert.deepEqual(now.decoded, GOOD_DECODED, `after ${after}: the known-good envelope decodes differently`);
  assert.deepEqual(now, baseline, `after ${after}: a known-good call gives a different result`);
  assertPrototypesUntouched(after);
}

function describe(error) {
  if (error instanceof SteplineError) return `SteplineError(${error.code} at ${error.path}): ${error.message}`;
  return `${error?.constructor?.name ?? typeof error}: ${String(error?.message ?? error).slice(0, 300)}`;
}

/** A SteplineError as the README documents it. */
function assertTypedError(error, label) {
  assert.ok(error instanceof SteplineError, `${label}: threw ${describe(error)}, not a SteplineError`);
  assert.ok(error instanceof Error, `${label}: the SteplineError is not an Error`);
  assert.ok(CODES.has(error.code), `${label}: undocumented code ${error.code}`);
  assert.ok(error.path === null || typeof error.path === 'string', `${label}: path ${error.path} is neither a string nor null`);
  assert.equal(typeof error.message, 'string', `${label}: no message`);
}

/** An error reported as data (`{code, path, message}`), e.g. in a batch result. */
function assertErrorData(error, label) {
  assert.ok(error && CODES.has(error.code), `${label}: undocumented code in ${JSON.stringify(error)}`);
  assert.ok(error.path === null || typeof error.path === 'string', `${label}: bad path in ${JSON.stringify(error)}`);
  assert.equal(typeof error.message, 'string', `${label}: no message in ${JSON.stringify(error)}`);
}

/**
 * Calls `fn` with a hostile input: it returns `{ value }` or `{ error }` (a typed
 * SteplineError), fails on anything else, and then checks the instance is still usable.
 */
function probe(label, fn) {
  let outcome;
  try {
    outcome = { value: fn() };
  } catch (error) {
    assertTypedError(error, label);
    outcome = { error };
  }
  assertUsable(label);
  return outcome;
}

// Result checks for entry points that report problems as data instead of throwing.
function checkTry(r) {
  assert.equal(typeof r.ok, 'boolean');
  if (r.ok) assert.equal(typeof r.envelope, 'object');
  else assertErrorData(r.error, 'tryDecodeEnvelope');
  return r;
}
function checkValidation(r) {
  assert.equal(typeof r.valid, 'boolean');
  assert.ok(Array.isArray(r.errors) && Array.isArray(r.warnings));
  for (const issue of [...r.errors, ...r.warnings]) {
    assert.equal(typeof issue.code, 'string');
    assert.equal(typeof issue.path, 'string');
  }
  assert.equal(r.valid, r.errors.length === 0);
  return r;
}
function checkBatch(r) {
  for (const { line, error } of r.errors) {
    assert.ok(Number.isInteger(line) && line >= 1, `bad line number ${line}`);
    assertErrorData(error, `line ${line}`);
  }
  return r;
}

/** Every error code an outcome carries: thrown, or reported as data by tryDecode/validate/batches. */
function failureCodes({ value, error }) {
  if (error) return new Set([error.code]);
  if (value?.ok === false) return new Set([value.error.code]);
  if (value?.valid === false) return new Set(value.errors.map((e) => e.code));
  if (Array.isArray(value?.errors)) return new Set(value.errors.map((e) => e.error.code));
  return new Set();
}
const show = (outcome) => (outcome.error ? describe(outcome.error) : `returned ${JSON.stringify(outcome.value)?.slice(0, 200)}`);

function withSession(fn) {
  const session = new Session();
  try {
    return fn(session);
  } finally {
    session.free();
  }
}
function withLog(fn) {
  const log = new RunLog();
  try {
    return fn(log);
  } finally {
    log.free();
  }
}
function withEncoder(fn) {
  const encoder = new EnvelopeEncoder({ sessionId: 's', executionId: 'e', now: NOW, config: { preset: 'debug' } });
  try {
    return fn(encoder);
  } finally {
    encoder.free();
  }
}

/** Entry points that take a JSON string or any JS value. */
const VALUE_ENTRIES = {
  'decodeEnvelope(x)': (x) => decodeEnvelope(x),
  'tryDecodeEnvelope(x)': (x) => checkTry(tryDecodeEnvelope(x)),
  'Session#ingest(x)': (x) => withSession((s) => {
    const r = s.ingest(x);
    s.getSnapshot();
    return r;
  }),
  'Session#reconcile(x)': (x) => withSession((s) => {
    for (const e of GOOD_ENVELOPES) s.ingest(e);
    return s.reconcile(x);
  }),
  'RunLog#ingest(x)': (x) => withLog((log) => {
    const r = log.ingest(x);
    log.summary();
    return r;
  }),
  'RunLog#addSnapshot(id, x)': (x) => withLog((log) => {
    log.addSnapshot('s', x);
    return log.save();
  }),
  'parseAgentState(x)': (x) => parseAgentState(x, { now: NOW }),
  'parseAgentState(state, x)': (x) => parseAgentState(GOOD_STATE, x),
  'slimSnapshot(x)': (x) => slimSnapshot(x),
  'slimSnapshot(state, x)': (x) => slimSnapshot(GOOD_STATE, x),
  'validateSnapshot(x)': (x) => checkValidation(validateSnapshot(x)),
  'restoreState(x)': (x) => restoreState(x, { now: NOW }),
  'evaluateContinuation(x, criteria)': (x) => evaluateContinuation(x, DEFAULTS, { now: NOW }),
  'evaluateContinuation(state, x)': (x) => evaluateContinuation(GOOD_STATE, x, { now: NOW }),
  'evaluateContinuation(state, criteria, x)': (x) => evaluateContinuation(GOOD_STATE, DEFAULTS, x),
  'replayContinuation(x, criteria)': (x) => replayContinuation(x, DEFAULTS, { now: NOW }),
  'replayContinuation(state, x)': (x) => replayContinuation(GOOD_STATE, x, { now: NOW }),
  'resolveOutcome(x)': (x) => resolveOutcome(x),
  'diagnose(x)': (x) => diagnose(x),
  'diagnose({ envelopes: [x] })': (x) => diagnose({ envelopes: [x] }),
  'new EnvelopeEncoder(x)': (x) => new EnvelopeEncoder(x).free(),
  'EnvelopeEncoder#push(x)': (x) => withEncoder((enc) => enc.push(x)),
  'normalizeInferenceResponse(x)': (x) => normalizeInferenceResponse(x, { now: NOW }),
  'InferenceStreamAccumulator#push(x)': (x) => {
    const acc = new InferenceStreamAccumulator();
    try {
      return acc.push(x);
    } finally {
      acc.free();
    }
  },
};

/** Entry points typed `string` (JSONL and recordings). */
const TEXT_ENTRIES = {
  'decodeEnvelopes(x)': (x) => checkBatch(decodeEnvelopes(x)),
  'Session#ingestJsonl(x)': (x) => withSession((s) => {
    const r = checkBatch(s.ingestJsonl(x));
    s.getSnapshot();
    return r;
  }),
  'RunLog#ingestJsonl(x)': (x) => withLog((log) => checkBatch(log.ingestJsonl(x))),
  'Session.fromRecording(x)': (x) => {
    const s = Session.fromRecording(x);
    try {
      return s.getSnapshot();
    } finally {
      s.free();
    }
  },
  'RunLog.load(x)': (x) => {
    const log = RunLog.load(x);
    try {
      return log.summary();
    } finally {
      log.free();
    }
  },
};

/**
 * slimSnapshot parses JSON text with the engine's JSON.parse and reads only the fields it
 * keeps, so a hostile token in a field it never reads (an envelope's step_number) is rightly
 * ignored; the fields it does keep are pinned by their own test below.
 */
const READS_ONLY_WHAT_IT_KEEPS = ['slimSnapshot(x)'];

/** Runs every corpus item through every entry point; returns the outcomes by label. */
function sweep(corpus, entries, check = () => {}) {
  const outcomes = new Map();
  for (const [itemName, item] of Object.entries(corpus)) {
    const input = typeof item === 'function' ? item() : item;
    for (const [entryName, entry] of Object.entries(entries)) {
      const label = `${entryName} with ${itemName}`;
      const outcome = probe(label, () => entry(input));
      check(outcome, { label, itemName, entryName });
      outcomes.set(label, outcome);
    }
  }
  return outcomes;
}

// ---------------------------------------------------------------------------------------
// Corpus builders

const nestedText = (open, close, inner, depth) => open.repeat(depth) + inner + close.repeat(depth);
function nestedArray(depth) {
  let v = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
function nestedObject(depth) {
  let v = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}
/** A valid envelope whose payload holds `inner` (JSON text). */
const envelopeWith = (inner) => `{"type":"agent.status","session_id":"s","payload":{"status":"processing","extra_field":${inner}}}`;

/** Deterministic pseudo-random bytes (no Math.random: failures must reproduce). */
function garbage(length, seed) {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += String.fromCharCode(x % 256);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Deep nesting

test('100k-level nesting, as text and as objects, is a too_deep or invalid_json SteplineError from every entry point', () => {
  const DEPTH = 100_000;
  const deepArrays = nestedText('[', ']', '', DEPTH);
  const deepObjects = nestedText('{"a":', '}', '1', DEPTH);
  const corpus = {
    'arrays nested 100k deep (text)': deepArrays,
    'objects nested 100k deep (text)': deepObjects,
    'unclosed 100k [ (text)': '['.repeat(DEPTH),
    'an envelope holding 100k-deep arrays (text)': envelopeWith(deepArrays),
    'arrays nested 100k deep (object)': nestedArray(DEPTH),
    'objects nested 100k deep (object)': nestedObject(DEPTH),
    'an envelope holding 100k-deep objects (object)': { type: 'agent.status', session_id: 's', payload: { status: 'processing', extra_field: nestedObject(DEPTH) } },
  };
  sweep(corpus, VALUE_ENTRIES, (outcome, { label, itemName, entryName }) => {
    const codes = failureCodes(outcome);
    // A string inside `{ envelopes: [x] }` is simply not an envelope object.
    const expected = entryName.includes('envelopes: [x]') && itemName.endsWith('(text)') ? 'invalid_type' : null;
    assert.ok(codes.has('too_deep') || codes.has('invalid_json') || codes.has(expected), `${label}: ${show(outcome)}`);
  });
  // Text entry points report it per line.
  for (const [name, text] of Object.entries({ 'arrays nested 100k deep': deepArrays, 'an envelope holding them': envelopeWith(deepArrays) })) {
    const { value } = probe(`decodeEnvelopes with ${name}`, () => checkBatch(decodeEnvelopes(text)));
    assert.deepEqual(value.errors.map((e) => [e.line, e.error.code]), [[1, 'too_deep']], name);
    const ingested = probe(`Session#ingestJsonl with ${name}`, () => withSession((s) => checkBatch(s.ingestJsonl(text))));
    assert.deepEqual(ingested.value.errors.map((e) => [e.line, e.error.code]), [[1, 'too_deep']], name);
  }
  sweep({ 'arrays nested 100k deep': deepArrays, 'objects nested 100k deep': deepObjects }, TEXT_ENTRIES);
});

test('nesting just inside the limit (64 levels) is accepted as data and one level more is too_deep', () => {
  const inner = (depth) => nestedText('[', ']', '1', depth);
  // The envelope itself and its payload take two levels.
  const ok = probe('decodeEnvelope at the limit', () => decodeEnvelope(envelopeWith(inner(62))));
  assert.ok(ok.value, 'an envelope nested 64 levels deep is accepted');
  assert.deepEqual(ok.value.payload.extra.extra_field, JSON.parse(inner(62)));
  const over = probe('decodeEnvelope over the limit', () => decodeEnvelope(envelopeWith(inner(63))));
  assert.equal(over.error?.code, 'too_deep');
});

// ---------------------------------------------------------------------------------------
// 50 MB strings (time-boxed: the heaviest inputs go to a few entry points only)

test('50 MB strings are rejected as too_large/invalid_json or processed exactly, at every kind of entry point', (t) => {
  const big = 'x'.repeat(50 * MB);
  const timed = (label, fn) => {
    const started = performance.now();
    const outcome = probe(label, fn);
    t.diagnostic(`${label}: ${(performance.now() - started).toFixed(0)} ms`);
    return outcome;
  };
  // Not JSON at all.
  assert.equal(timed('decodeEnvelope(50 MB of x)', () => decodeEnvelope(big)).error?.code, 'too_large');
  // A JSON string literal of 50 MB: under the 64 MiB state limit, so it parses and is the wrong type.
  const literal = `"${big}"`;
  assert.equal(timed('validateSnapshot(50 MB string literal)', () => validateSnapshot(literal)).value?.valid, false);
  // An envelope with 50 MB of content: over the 1 MiB envelope limit.
  const hugeChunk = `{"type":"agent.stream.chunk","session_id":"s","payload":{"content":"${big}","chunk_index":0}}`;
  assert.equal(timed('Session#ingest(50 MB chunk)', () => withSession((s) => s.ingest(hugeChunk))).error?.code, 'too_large');
  for (const [name, entry] of Object.entries(TEXT_ENTRIES)) {
    const { value, error } = timed(`${name} with a 50 MB line`, () => entry(hugeChunk));
    if (error) assert.equal(error.code, 'too_large', name);
    else if (value.errors) assert.deepEqual(value.errors.map((e) => [e.line, e.error.code]), [[1, 'too_large']], name);
  }
  // A state whose first message holds 50 MB: parsed whole, slimmed to the preset's cut.
  const state = structuredClone(GOOD_STATE);
  state.messageStore.sections[0].messages[0].content = big;
  const stateText = JSON.stringify(state);
  const parsed = timed('parseAgentState(state with a 50 MB message)', () => parseAgentState(stateText, { now: NOW }));
  assert.equal(parsed.value.messageStore.sections[0].messages[0].content.length, big.length);
  const slim = timed('slimSnapshot(state with a 50 MB message)', () => slimSnapshot(stateText));
  assert.equal(slim.value.snapshot.messages[0].content, `${'x'.repeat(2000)}...`);
});

test('a 50 MB string is rejected by decodeEnvelope and Session#ingest as too_large before it is copied', (t) => {
  const big = 'x'.repeat(50 * MB);
  for (const [name, fn] of [['decodeEnvelope', () => decodeEnvelope(big)], ['Session#ingest', () => withSession((s) => s.ingest(big))]]) {
    const started = performance.now();
    const { error } = probe(name, fn);
    // Reported, not asserted: speed is for the benchmarks, not for tests.
    t.diagnostic(`${name}: refused 50 MB in ${(performance.now() - started).toFixed(0)} ms`);
    assert.equal(error?.code, 'too_large');
  }
});

// ---------------------------------------------------------------------------------------
// Numbers

test('numbers JSON cannot carry (1e999, -1e999, NaN, Infinity) are invalid_json in text and never values', () => {
  const places = {
    'envelope step_number': (n) => `{"type":"agent.step.started","session_id":"s","payload":{"step_number":${n}}}`,
    'chunk_index': (n) => `{"type":"agent.stream.chunk","session_id":"s","payload":{"content":"a","chunk_index":${n}}}`,
    'state usage': (n) => `{"usage":{"input":${n}}}`,
    'snapshot step_count': (n) => JSON.stringify(GOOD_SLIM).replace(/"step_count":\d+/, `"step_count":${n}`),
    'criteria max': (n) => `[{"kind":"steps_limit","max":${n}}]`,
    'slim maxBytes': (n) => `{"maxBytes":${n}}`,
  };
  for (const literal of ['1e999', '-1e999', 'NaN', 'Infinity', '-Infinity']) {
    const corpus = Object.fromEntries(Object.entries(places).map(([where, make]) => [`${literal} as ${where}`, make(literal)]));
    sweep(corpus, VALUE_ENTRIES, (outcome, { label, entryName }) => {
      if (READS_ONLY_WHAT_IT_KEEPS.includes(entryName)) return;
      const expected = entryName.includes('envelopes: [x]') ? 'invalid_type' : 'invalid_json';
      assert.ok(failureCodes(outcome).has(expected), `${label}: ${show(outcome)}`);
    });
  }
});

test('NaN and Infinity inside objects become null as in JSON.stringify: a typed error where a number is required', () => {
  for (const n of [NaN, Infinity, -Infinity]) {
    const { error } = probe(`decodeEnvelope step_number ${n}`, () => decodeEnvelope({ type: 'agent.step.started', session_id: 's', payload: { step_number: n } }));
    assert.equal(error?.code, 'missing_field');
    assert.equal(error.path, '/payload/step_number');
    const crit = probe(`criteria max ${n}`, () => evaluateContinuation(GOOD_STATE, [{ kind: 'steps_limit', max: n }], { now: NOW }));
    assertTypedError(crit.error, `criteria max ${n}`);
    const opts = probe(`slim maxBytes ${n}`, () => slimSnapshot(GOOD_STATE, { maxBytes: n }));
    assert.ok(opts.error || opts.value.truncation === null, `slim maxBytes ${n}: null must mean no budget or an error`);
  }
});

test('integers beyond 2^53 and 1e30 are typed errors or the nearest double, never another value', () => {
  const step = (n) => `{"type":"agent.step.started","session_id":"s","payload":{"step_number":${n}}}`;
  for (const [literal, nearest] of [['9007199254740993', 9007199254740992], ['9223372036854775807', 9223372036854775807], ['-9223372036854775808', -9223372036854775808]]) {
    const { value, error } = probe(`step_number ${literal}`, () => decodeEnvelope(step(literal)));
    if (error) assert.ok(['out_of_range', 'invalid_type'].includes(error.code), describe(error));
    else assert.equal(value.payload.step_number, nearest, literal);
  }
  for (const literal of ['1e30', '18446744073709551616', '-1e30', '1.5']) {
    const { error } = probe(`step_number ${literal}`, () => decodeEnvelope(step(literal)));
    assert.ok(['out_of_range', 'invalid_type'].includes(error?.code), `${literal}: ${error ? describe(error) : 'accepted'}`);
    assert.equal(error.path, '/payload/step_number');
  }
  // Steps, chunks and usage at the ends of i64 in a live session: no overflow, no trap.
  const s = new Session();
  try {
    for (const n of ['9223372036854775807', '-9223372036854775808', '0', '1']) {
      probe(`ingest step ${n}`, () => s.ingest(step(n)));
      probe(`ingest chunk ${n}`, () => s.ingest(`{"type":"agent.stream.chunk","session_id":"s","payload":{"content":"c","chunk_index":${n}}}`));
    }
    probe('ingest i64::MAX usage twice', () => {
      for (const n of [2, 3]) s.ingest(`{"type":"agent.step.completed","session_id":"s","payload":{"step_number":${n},"usage":{"input":9223372036854775807,"output":9223372036854775807}}}`);
    });
    const view = s.getSnapshot();
    const exec = view.executions[0];
    assert.ok(exec.missing_steps.length <= 1000 && exec.missing_chunks.length <= 1000, 'gap lists stay capped');
    // The chunk at -2^63 is refused (a position counts from 0): three of the four keep their text.
    assert.equal(exec.text, 'ccc');
    assert.ok(view.usage.input >= 9223372036854775807 - 1e4, 'usage saturates instead of wrapping negative');
    assertUsable('extreme numbers in a session');
  } finally {
    s.free();
  }
});

test('-0 as JSON text reads as the integer 0, as JSON.parse and the object form do', () => {
  const text = '{"type":"agent.step.started","session_id":"s","payload":{"step_number":-0}}';
  const fromObject = probe('-0 object', () => decodeEnvelope(JSON.parse(text)));
  assert.equal(fromObject.value.payload.step_number, 0);
  const fromText = probe('-0 text', () => decodeEnvelope(text));
  assert.deepEqual(fromText.value, fromObject.value);
});

test('whole numbers outside the integer range in options are out_of_range, not "expected a whole number"', () => {
  for (const [key, n] of [['maxBytes', 1e300], ['maxContentLength', 2 ** 63], ['maxMessages', 2 ** 64]]) {
    const { error } = probe(`slimSnapshot ${key}=${n}`, () => slimSnapshot(GOOD_STATE, { [key]: n }));
    assert.equal(error?.code, 'out_of_range', `${key}: ${error && describe(error)}`);
  }
});

test('slimSnapshot reads out-of-range numbers and lone surrogates in the fields it keeps as parseAgentState does', () => {
  for (const [name, input] of [
    ['usage.input 1e999 (text)', '{"usage":{"input":1e999,"output":5}}'],
    ['cumulativeExecutionSeconds 1e999 (text)', '{"stateInfo":{"cumulativeExecutionSeconds":1e999}}'],
    ['cumulativeExecutionSeconds Infinity (object)', { stateInfo: { cumulativeExecutionSeconds: Infinity } }],
    ['a lone surrogate in agentId (object)', { agentId: 'a\ud800' }],
    ['an escaped lone surrogate in agentId (text)', '{"agentId":"a\\ud800"}'],
    ['a raw lone surrogate in agentId (text)', '{"agentId":"a\udc00"}'],
    ['a lone surrogate in a top-level key (object)', { ['k\udbff']: 1 }],
    ['an escaped lone surrogate in a kept message (text)', '{"messageStore":{"sections":[{"name":"messages","messages":[{"role":"user","content":"\\ud800"}]}]}}'],
    ['Infinity in kept usage (object)', { usage: { input: Infinity } }],
  ]) {
    const parsed = probe(`parseAgentState with ${name}`, () => parseAgentState(input, { now: NOW }));
    const slim = probe(`slimSnapshot with ${name}`, () => slimSnapshot(input));
    assert.deepEqual(failureCodes(slim), failureCodes(parsed), `${name}: slimSnapshot ${show(slim)}; parseAgentState ${show(parsed)}`);
  }
});

// ---------------------------------------------------------------------------------------
// Lone surrogates

test('lone surrogates (raw in JS strings, escaped in JSON text, inside objects) are invalid_json everywhere a value is taken', () => {
  const chunk = (content) => ({ type: 'agent.stream.chunk', session_id: 's', payload: { content, chunk_index: 0 } });
  const corpus = {
    'raw \\ud800 in JSON text': JSON.stringify(chunk('a')).replace('"a"', '"a\ud800b"'),
    'raw \\udc00 at the end of JSON text': `${JSON.stringify(chunk('a'))}\udc00`,
    'escaped "\\ud800" in JSON text': JSON.stringify(chunk('a')).replace('"a"', '"a\\ud800b"'),
    'escaped "\\udfff\\ud800" (reversed pair)': JSON.stringify(chunk('a')).replace('"a"', '"\\udfff\\ud800"'),
    'a lone surrogate in an object': chunk('a\ud800b'),
    'a lone surrogate as an object key': { type: 'agent.status', session_id: 's', payload: { status: 'x', ['k\udbff']: 1 } },
  };
  sweep(corpus, VALUE_ENTRIES, (outcome, { label, entryName }) => {
    if (READS_ONLY_WHAT_IT_KEEPS.includes(entryName)) return;
    const codes = failureCodes(outcome);
    const wrapped = entryName.includes('envelopes: [x]') && codes.has('invalid_type');
    assert.ok(codes.has('invalid_json') || wrapped, `${label}: ${show(outcome)}`);
  });
  // A well-formed pair is data.
  const pair = probe('a surrogate pair', () => decodeEnvelope(chunk('🚀 \ud83d\ude80')));
  assert.equal(pair.value.payload.content, '🚀 🚀');
});

test('text-only entry points reject lone surrogates as ingest does instead of turning them into U+FFFD', () => {
  const line = '{"type":"agent.stream.chunk","session_id":"s\ud800","payload":{"content":"a\udc00","chunk_index":0}}';
  assert.equal(probe('Session#ingest', () => withSession((s) => s.ingest(line))).error?.code, 'invalid_json');
  for (const [name, entry] of Object.entries(TEXT_ENTRIES)) {
    const { value, error } = probe(name, () => entry(line));
    const rejected = error?.code === 'invalid_json' || value?.errors?.[0]?.error.code === 'invalid_json';
    assert.ok(rejected, `${name} accepted it: ${JSON.stringify(value)?.slice(0, 200)}`);
  }
});

// ---------------------------------------------------------------------------------------
// __proto__, constructor, prototype

const PROTO_JSON = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}';
const protoObject = () => JSON.parse(PROTO_JSON); // `__proto__` is an own key here, not the prototype.

/** `obj[key]` is an own, enumerable, writable data property and `obj` is a plain object. */
function assertOwnData(obj, key, label) {
  assert.equal(Object.getPrototypeOf(obj), Object.prototype, `${label}: the prototype was replaced`);
  const d = Object.getOwnPropertyDescriptor(obj, key);
  assert.ok(d, `${label}: ${key} is not an own property`);
  assert.ok('value' in d && d.enumerable, `${label}: ${key} is not an enumerable data property`);
}

test('__proto__, constructor and prototype keys in input stay own data properties of the output and never reach a prototype', () => {
  // Envelopes: unknown payload and top-level fields are kept in `extra`.
  for (const [form, input] of [
    ['text', `{"type":"agent.status","session_id":"s","payload":{"status":"x",${PROTO_JSON.slice(1, -1)}},${PROTO_JSON.slice(1, -1)}}`],
    ['object', JSON.parse(`{"type":"agent.status","session_id":"s","payload":{"status":"x",${PROTO_JSON.slice(1, -1)}},${PROTO_JSON.slice(1, -1)}}`)],
  ]) {
    const { value: e } = probe(`decodeEnvelope (${form})`, () => decodeEnvelope(input));
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      assertOwnData(e.extra, key, `envelope extra (${form})`);
      assertOwnData(e.payload.extra, key, `payload extra (${form})`);
    }
    assert.deepEqual(e.payload.extra.__proto__, { polluted: true });
    assert.equal(e.payload.status, 'x');
  }

  // A live session: tool args, tool names, foreign session ids, across several patched snapshots.
  withSession((s) => {
    s.ingest('{"type":"agent.status","session_id":"mine","payload":{"status":"processing"}}');
    s.ingest(`{"type":"agent.tool.started","session_id":"mine","payload":{"tool_name":"__proto__","tool_call_id":"c1","args":${PROTO_JSON}}}`);
    const first = s.getSnapshot();
    s.ingest('{"type":"agent.status","session_id":"__proto__","payload":{"status":"x"}}');
    s.ingest('{"type":"agent.status","session_id":"constructor","payload":{"status":"x"}}');
    s.ingest(`{"type":"agent.tool.completed","session_id":"mine","payload":{"tool_name":"__proto__","tool_call_id":"c1","success":true}}`);
    const view = s.getSnapshot();
    assert.notEqual(view, first);
    const tool = view.executions[0].steps[0].tools[0];
    assert.equal(tool.name, '__proto__');
    assert.equal(tool.status, 'succeeded');
    for (const key of ['__proto__', 'constructor', 'prototype']) assertOwnData(tool.args, key, 'tool args');
    assertOwnData(view.rejected_sessions, '__proto__', 'rejected_sessions');
    assert.deepEqual(Object.entries(view.rejected_sessions), [['__proto__', 1], ['constructor', 1]]);
    const collected = s.collect();
    assertOwnData(collected.turns[0].tool_results[0].call.arguments, '__proto__', 'collect() arguments');
    const recorded = Session.fromRecording(s.toRecording());
    try {
      assert.deepEqual(recorded.getSnapshot().executions, view.executions);
    } finally {
      recorded.free();
    }
  });

  // A run log keyed by user strings: sessions, statuses and tool names named like prototype members.
  withLog((log) => {
    log.ingest('{"type":"agent.tool.started","session_id":"__proto__","payload":{"tool_name":"__proto__"}}');
    log.ingest('{"type":"agent.tool.completed","session_id":"__proto__","payload":{"tool_name":"__proto__","success":false}}');
    log.ingest('{"type":"agent.tool.started","session_id":"hasOwnProperty","payload":{"tool_name":"constructor"}}');
    log.ingest('{"type":"agent.status","session_id":"__proto__","payload":{"status":"__proto__"}}');
    const summary = log.summary();
    assertOwnData(summary.tool_calls, '__proto__', 'summary.tool_calls');
    assertOwnData(summary.tool_calls, 'constructor', 'summary.tool_calls');
    assertOwnData(summary.by_status, '__proto__', 'summary.by_status');
    assert.deepEqual(summary.tool_calls.__proto__, { count: 1, failed: 1 });
    assert.deepEqual(log.sessions().map((v) => v.session_id), ['__proto__', 'hasOwnProperty']);
  });

  // States and snapshots: metadata maps are user data.
  const state = { ...structuredClone(GOOD_STATE), metadata: protoObject() };
  for (const [form, input] of [['object', state], ['text', JSON.stringify(state)]]) {
    const parsed = probe(`parseAgentState (${form})`, () => parseAgentState(input, { now: NOW })).value;
    assertOwnData(parsed.metadata, '__proto__', `parseAgentState metadata (${form})`);
    const { snapshot } = probe(`slimSnapshot (${form})`, () => slimSnapshot(input)).value;
    assertOwnData(snapshot.metadata, '__proto__', `slimSnapshot metadata (${form})`);
    assert.deepEqual(snapshot.metadata.__proto__, { polluted: true });
    const restored = probe(`restoreState (${form})`, () => restoreState(snapshot, { now: NOW })).value;
    assertOwnData(restored.metadata, '__proto__', `restoreState metadata (${form})`);
  }
  const validation = probe('validateSnapshot with prototype keys', () => checkValidation(validateSnapshot(protoObject()))).value;
  assert.deepEqual(validation.warnings.map((w) => w.path), ['/__proto__', '/constructor', '/prototype']);

  // Continuation contexts and the encoder's argument pass-through.
  const outcome = probe('resolveOutcome with a __proto__ context', () => resolveOutcome(`[{"decision":"stop","context":${PROTO_JSON}}]`)).value;
  assertOwnData(outcome.evaluations[0].context, '__proto__', 'evaluation context');
  const sent = probe('EnvelopeEncoder#push with __proto__ args', () => withEncoder((enc) => enc.push(JSON.parse(`{"event":"ToolCallStarted","args":{"tool":"__proto__","args":${PROTO_JSON}}}`)))).value;
  assertOwnData(sent.at(-1).envelope.payload.args, '__proto__', 'encoded tool args');

  // The generic corpus through every entry point, as text and as an object.
  sweep({ 'prototype keys (text)': PROTO_JSON, 'prototype keys (object)': protoObject() }, VALUE_ENTRIES);
  sweep({ 'prototype keys (text)': PROTO_JSON }, TEXT_ENTRIES);
  assertPrototypesUntouched('the prototype-key corpus');
});

// ---------------------------------------------------------------------------------------
// Duplicate keys, BOMs, empty input, binary garbage

test('duplicate keys: the last one wins, exactly as when the text goes through JSON.parse first', () => {
  const texts = {
    'duplicate type': '{"type":"agent.status","type":"agent.step.started","session_id":"s","payload":{"status":"x","step_number":2}}',
    'duplicate session_id': '{"type":"agent.status","session_id":"a","session_id":"b","payload":{"status":"x"}}',
    'duplicate payload field': '{"type":"agent.stream.chunk","session_id":"s","payload":{"content":"a","content":"b","chunk_index":0,"chunk_index":1}}',
    'duplicate payload': '{"type":"agent.status","session_id":"s","payload":{"status":"x"},"payload":{"status":"y"}}',
  };
  for (const [name, text] of Object.entries(texts)) {
    const fromText = probe(`decodeEnvelope(${name})`, () => decodeEnvelope(text));
    const fromObject = probe(`decodeEnvelope(JSON.parse(${name}))`, () => decodeEnvelope(JSON.parse(text)));
    assert.deepEqual(fromText, fromObject, name);
    const jsonl = probe(`decodeEnvelopes(${name})`, () => decodeEnvelopes(text)).value;
    assert.deepEqual(jsonl.envelopes, [fromObject.value], name);
  }
  const state = JSON.stringify(GOOD_STATE).replace('"status":', '"status":"failed","status":');
  assert.deepEqual(
    probe('parseAgentState with a duplicate status', () => parseAgentState(state, { now: NOW })).value,
    probe('parseAgentState(JSON.parse(...))', () => parseAgentState(JSON.parse(state), { now: NOW })).value,
  );
  const slimText = JSON.stringify(GOOD_SLIM).replace('"step_count":', '"step_count":"many","step_count":');
  assert.deepEqual(validateSnapshot(slimText), validateSnapshot(JSON.parse(slimText)));
  sweep(texts, VALUE_ENTRIES);
});

test('a leading BOM is a typed error or ignored, never a crash; blank and empty input are typed errors', () => {
  const envelope = JSON.stringify(GOOD_ENVELOPES[0]);
  const corpus = {
    'BOM + envelope': `\ufeff${envelope}`,
    'BOM + state': `\ufeff${JSON.stringify(GOOD_STATE)}`,
    'BOM alone': '\ufeff',
    'empty string': '',
    'spaces and newlines': ' \n\t\r\n ',
    'NUL': '\u0000',
  };
  sweep(corpus, VALUE_ENTRIES, ({ error, value }, { label, itemName, entryName }) => {
    if (itemName.startsWith('BOM +') && value && entryName.startsWith('decodeEnvelope')) {
      assert.deepEqual(value, decodeEnvelope(envelope), `${label}: a BOM that is ignored must change nothing`);
    }
    // (An empty line is a valid SSE line for the stream accumulator.)
    if (itemName === 'empty string' && !entryName.startsWith('InferenceStreamAccumulator')) {
      assert.ok(failureCodes({ error, value }).size > 0, `${label}: empty input was accepted: ${show({ error, value })}`);
    }
  });
  sweep(corpus, TEXT_ENTRIES);
  // Blank JSONL is nothing at all, not an error.
  assert.deepEqual(probe('decodeEnvelopes(blank)', () => decodeEnvelopes('\n\n  \n')).value, { envelopes: [], errors: [], errorCount: 0, warnings: [], dialects: [] });
});

test('JSONL and recordings read a leading BOM the same way everywhere', () => {
  const text = `\ufeff${GOOD_ENVELOPES.map((e) => JSON.stringify(e)).join('\n')}\n`;
  const batch = probe('decodeEnvelopes with a BOM', () => decodeEnvelopes(text)).value;
  assert.deepEqual(batch.errors, []);
  assert.equal(batch.envelopes.length, GOOD_ENVELOPES.length);
  const ingested = probe('Session#ingestJsonl with a BOM', () => withSession((s) => s.ingestJsonl(text))).value;
  assert.deepEqual(ingested.errors, []);
  assert.equal(ingested.applied, GOOD_ENVELOPES.length);
});

test('binary garbage (random bytes, control characters, replacement characters) is a typed error everywhere', () => {
  const corpus = {
    '4 KB of random bytes': garbage(4096, 1),
    'random bytes after a valid prefix': `{"type":"agent.status","session_id":"s","payload":{"status":"${garbage(512, 2)}`,
    'C0 controls inside a string': `{"type":"agent.status","session_id":"s","payload":{"status":"a${'\u0001\u0002\u001f'}b"}}`,
    'invalid UTF-8 decoded as U+FFFD': new TextDecoder().decode(new Uint8Array([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d])),
    'a gzip header': '\u001f\u008b\u0008\u0000\u0000\u0000\u0000\u0000',
    'a Buffer of bytes': Buffer.from([0, 1, 2, 255]),
    'a Uint8Array of JSON bytes': new TextEncoder().encode(JSON.stringify(GOOD_ENVELOPES[0])),
    'an ArrayBuffer': new ArrayBuffer(16),
  };
  sweep(corpus, VALUE_ENTRIES, ({ error, value }, { label, itemName, entryName }) => {
    if (!entryName.startsWith('validateSnapshot') && !entryName.startsWith('tryDecode') && typeof corpus[itemName] === 'string') {
      assert.ok(error, `${label}: garbage was accepted: ${JSON.stringify(value)?.slice(0, 200)}`);
    }
  });
  sweep(Object.fromEntries(Object.entries(corpus).filter(([, v]) => typeof v === 'string')), TEXT_ENTRIES);
});

// ---------------------------------------------------------------------------------------
// Wrong types

test('wrong JS types in every value and options slot are typed errors, never TypeErrors or traps', () => {
  const cyclic = { type: 'agent.status' };
  cyclic.self = cyclic;
  const corpus = {
    undefined,
    null: null,
    'the number 0': 0,
    NaN,
    true: true,
    'a symbol': Symbol('x'),
    'a bigint': 10n,
    'a function': () => 1,
    'an empty array': [],
    'an array of envelopes': GOOD_ENVELOPES,
    'a Date': new Date(0),
    'a Map': new Map([['type', 'agent.status']]),
    'a RegExp': /x/,
    'a Promise': Promise.resolve(1),
    'a cyclic object': cyclic,
    'a null-prototype object': Object.assign(Object.create(null), GOOD_ENVELOPES[0]),
    'a frozen envelope': Object.freeze(structuredClone(GOOD_ENVELOPES[0])),
    'an Error': new Error('x'),
    'an object whose toJSON throws': { toJSON() { throw new Error('toJSON'); } },
    'an object whose toJSON returns undefined': { toJSON() { return undefined; } },
    'an object with a throwing getter': { get type() { throw new Error('getter'); } },
    'a revoked Proxy': (() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; })(),
    'a String object': new String(JSON.stringify(GOOD_ENVELOPES[0])),
    'wrong field types': { type: 7, session_id: [], execution_id: {}, timestamp: true, payload: 'x', steps: 'x', messages: 5, usage: [] },
  };
  // slimSnapshot and the criteria slots read the JS value itself (a state walker; a search for continueWhen
  // functions): throwing getters and Proxy traps reach them too, and come back as typed errors. (Many
  // repetitions of those, which a leak of the wasm stack would show, run in a child process further down.)
  sweep(corpus, VALUE_ENTRIES);
});

test('the encoder never emits an envelope its own decoder rejects: ill-typed event fields are typed errors', () => {
  const events = [
    { event: 'AgentStepStarted', args: { stepNumber: 'x' } },
    { event: 'AgentStepStarted', args: { stepNumber: 1.5 } },
    { event: 'AgentStepStarted', args: { stepNumber: 1, messageCount: 'many', availableTools: {} } },
    { event: 'AgentStepCompleted', args: { stepNumber: 1, usage: { input: 1e300, output: -5 } } },
    { event: 'AgentStepCompleted', args: { stepNumber: 1, hasToolCalls: 'yes', errors: 'x', finishReason: 5 } },
    { event: 'ToolCallStarted', args: { tool: 5, args: 'x' } },
    { event: 'ToolCallCompleted', args: { tool: {}, success: 'no', error: 7 } },
    { event: 'ContinuationEvaluated', args: { stepNumber: 'x', shouldContinue: 'maybe' } },
  ];
  const rejected = [];
  for (const event of events) {
    const { value: sent } = probe(`push ${JSON.stringify(event)}`, () => withEncoder((enc) => enc.push(event)));
    for (const { envelope } of sent ?? []) {
      const r = tryDecodeEnvelope(envelope);
      if (!r.ok) rejected.push(`${event.event} ${JSON.stringify(event.args)} -> ${r.error.code} at ${r.error.path}`);
    }
  }
  assert.deepEqual(rejected, []);
});

// Not a timing test: at the old cost (the square of the statuses on every
// ingest) 3,000 statuses took minutes; the timeout only catches a hang.
test('3,000 re-sent status envelopes ingest without stalling (no per-ingest cost in the statuses seen)', () => {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { Session } from 'stepline/devtools';
    const s = new Session();
    const at = (i) => new Date(Date.UTC(2026, 0, 20, 12) + i).toISOString();
    for (let i = 0; i < 3000; i++) s.ingest({ type: 'agent.status', session_id: 's', execution_id: 'e', timestamp: at(i), payload: { status: 'processing', previous_status: 'processing' } });
    process.stdout.write(JSON.stringify(s.getSnapshot().counts));
  `], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.error?.code, undefined, 'ingesting 3,000 status envelopes did not finish within a minute');
  assert.deepEqual(JSON.parse(child.stdout), { applied: 3000, duplicates: 0, rejected: 0 });
});

// ---------------------------------------------------------------------------------------
// Callbacks that fight back

test('a throwing, non-boolean or re-entrant continueWhen predicate gives an outcome, not an exception', () => {
  const when = (fn) => [{ kind: 'response_content_check', continueWhen: fn }];
  const threw = probe('continueWhen throws an Error', () => evaluateContinuation(GOOD_STATE, when(() => { throw new Error('boom'); }), { now: NOW })).value;
  assert.equal(threw.shouldContinue, false);
  assert.equal(threw.stopReason, 'error');
  assert.match(threw.evaluations[0].reason, /boom/);
  probe('continueWhen throws a number', () => evaluateContinuation(GOOD_STATE, when(() => { throw 42; }), { now: NOW }));
  probe('continueWhen returns an object', () => evaluateContinuation(GOOD_STATE, when(() => ({})), { now: NOW }));
  const nested = probe('continueWhen calls stepline again', () => evaluateContinuation(
    GOOD_STATE,
    when(() => evaluateContinuation(GOOD_STATE, DEFAULTS, { now: NOW }).shouldContinue),
    { now: NOW },
  )).value;
  assert.equal(typeof nested.shouldContinue, 'boolean');
  probe('replay with a throwing predicate', () => replayContinuation(GOOD_STATE, when(() => { throw new Error('x'); })));
});

test('a throwing subscribe listener neither stops ingest nor breaks the session', () => {
  withSession((s) => {
    s.subscribe(() => { throw new Error('listener'); });
    s.subscribe(() => { throw new SteplineError('invalid_value', '/x', 'fake'); });
    for (const e of GOOD_ENVELOPES) probe('ingest with throwing listeners', () => s.ingest(e));
    assert.deepEqual(s.getSnapshot().executions, baseline.view.executions);
  });
});

test('a subscribe listener can read getSnapshot() while it is being notified', () => {
  withSession((s) => {
    const seen = [];
    s.subscribe(() => {
      try {
        seen.push(s.getSnapshot().counts.applied);
      } catch (error) {
        seen.push(describe(error));
      }
    });
    for (const e of GOOD_ENVELOPES) s.ingest(e);
    assert.deepEqual(seen, [1, 2, 3, 4]);
  });
});

// ---------------------------------------------------------------------------------------
// Inputs that break the instance for good: each runs in its own process.

/**
 * Runs `body` in a fresh Node process that imports stepline (so a broken instance
 * cannot take this file's instance down), then makes a known-good call there.
 * Returns `{ hostile: [outcomes], after }` where an outcome is `{ ok }` or
 * `{ threw: { name, code, message } }`.
 */
function inFreshProcess(body, { timeout = 45_000 } = {}) {
  const script = `
    import * as stepline from 'stepline/devtools';
    const { SteplineError } = stepline;
    const attempt = (fn) => {
      try { fn(); return { ok: true }; }
      catch (e) { return { threw: { name: e?.constructor?.name ?? typeof e, code: e?.code ?? null, message: String(e?.message ?? e).slice(0, 160), typed: e instanceof SteplineError } }; }
    };
    const hostile = [];
    ${body}
    const after = attempt(() => {
      const d = stepline.decodeEnvelope(${JSON.stringify(GOOD_ENVELOPE_TEXT)});
      if (JSON.stringify(d) !== ${JSON.stringify(JSON.stringify(GOOD_DECODED))}) throw new Error('wrong result ' + JSON.stringify(d));
    });
    process.stdout.write(JSON.stringify({ hostile, after }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8', timeout, maxBuffer: 16 * MB });
  assert.equal(child.error, undefined, `the child process failed: ${child.error}`);
  assert.equal(child.status, 0, `the child process exited with ${child.status}: ${child.stderr.slice(-2000)}`);
  return JSON.parse(child.stdout);
}

/** Every hostile outcome is a result or a typed error, and the instance still works afterwards. */
function assertSurvived({ hostile, after }, label) {
  const foreign = hostile.filter((o) => o.threw && !o.threw.typed);
  const summary = [...new Set(foreign.map((o) => `${o.threw.name}: ${o.threw.message}`))].slice(0, 3);
  assert.deepEqual(after, { ok: true }, `${label}: afterwards the instance is broken (${JSON.stringify(after)}); first foreign errors: ${summary.join(' | ')}`);
  assert.equal(foreign.length, 0, `${label}: ${foreign.length} calls threw non-SteplineErrors: ${summary.join(' | ')}`);
}

test('criteria nested deeper than the JSON limit are too_deep, at the limit as in text, and leave the instance working', () => {
  // Each `{kind: 'all', criteria: [...]}` level is two levels of JSON (an object and an array).
  const nest = (levels, inner = [{ kind: 'steps_limit', max: 3 }]) => {
    let criteria = inner;
    for (let i = 0; i < levels; i++) criteria = [{ kind: 'all', criteria }];
    return criteria;
  };
  // The object form is read by a walker (it looks for continueWhen functions), the text form by the
  // JSON reader: both put the limit in the same place. 31 levels nest 64 deep, 32 levels 66.
  for (const levels of [30, 31, 32, 33]) {
    const asObject = probe(`${levels} levels (object)`, () => evaluateContinuation(GOOD_STATE, nest(levels), { now: NOW }));
    const asText = probe(`${levels} levels (text)`, () => evaluateContinuation(GOOD_STATE, JSON.stringify(nest(levels)), { now: NOW }));
    assert.deepEqual(failureCodes(asObject), failureCodes(asText), `${levels} levels: object ${show(asObject)}; text ${show(asText)}`);
    assert.deepEqual([...failureCodes(asObject)], levels <= 31 ? [] : ['too_deep'], `${levels} levels: ${show(asObject)}`);
  }
  // With a continueWhen function inside (only the object form can carry one), and 10,000 levels deep.
  const predicate = [{ kind: 'response_content_check', continueWhen: () => true }];
  assert.deepEqual(failureCodes(probe('31 levels around a function', () => evaluateContinuation(GOOD_STATE, nest(30, predicate), { now: NOW }))), new Set());
  const deep = probe('10,000 levels', () => evaluateContinuation(GOOD_STATE, nest(10_000), { now: NOW })).error;
  assert.equal(deep?.code, 'too_deep', describe(deep));
  assert.equal(deep.path, `/criteria${'/0/criteria'.repeat(32)}`, 'the path of the first array past the limit');

  // Many calls in a fresh process: a leak of the wasm stack per call would break the instance.
  const outcome = inFreshProcess(`
    const state = ${JSON.stringify(GOOD_STATE)};
    const nest = ${nest.toString()};
    const deep = nest(10000);
    const seen = new Map();
    for (let round = 0; round < 10000; round++) {
      const criteria = round % 1000 === 0 ? nest(10000) : deep;
      for (const o of [
        attempt(() => stepline.evaluateContinuation(state, criteria, { now: '${NOW}' })),
        ...(round % 10 === 0 ? [attempt(() => stepline.replayContinuation(state, criteria, { now: '${NOW}' }))] : []),
      ]) seen.set(JSON.stringify(o), o);
    }
    hostile.push(...seen.values());
  `);
  assertSurvived(outcome, 'deep criteria');
  assert.deepEqual(outcome.hostile.map((o) => o.threw?.code), ['too_deep']);
});

test('user objects that throw while being read (getters, Proxy traps, revoked proxies) give typed errors and leave the instance working', () => {
  const trap = () => new Proxy({}, { ownKeys() { throw new Error('ownKeys'); }, getOwnPropertyDescriptor() { throw new Error('gOPD'); }, get() { throw new Error('get'); } });
  const revoked = () => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; };
  const throwingArray = () => new Proxy([], { get() { throw new Error('get'); } });
  const getter = (key) => ({ [key]: 1, get boom() { throw new Error('getter'); } });
  // Each call gives a typed error naming what was thrown, at the path of the value being read.
  const cases = [
    ['slimSnapshot(a Proxy whose traps throw)', () => slimSnapshot(trap()), 'invalid_value', null, /Error: ownKeys/],
    ['slimSnapshot(a revoked Proxy)', () => slimSnapshot(revoked()), 'invalid_value', null, /revoked/],
    ['slimSnapshot({ messageStore: a revoked Proxy })', () => slimSnapshot({ messageStore: revoked() }), 'invalid_value', '/messageStore', /revoked/],
    ['slimSnapshot({ get agentId() { throw } })', () => slimSnapshot({ get agentId() { throw new Error('getter'); } }), 'invalid_value', '/agentId', /Error: getter/],
    ['slimSnapshot(messages holding a throwing Proxy array)', () => slimSnapshot({ messageStore: { sections: [{ name: 'messages', messages: throwingArray() }] } }), 'invalid_value', '/messageStore/sections/0/messages', /Error: get/],
    ['slimSnapshot(a message with a throwing getter)', () => slimSnapshot({ messageStore: { sections: [{ name: 'messages', messages: [getter('role')] }] } }), 'invalid_value', '/messageStore/sections/0/messages/0', /Error: getter/],
    ['evaluateContinuation(a spec with a throwing getter)', () => evaluateContinuation(GOOD_STATE, [{ kind: 'all', criteria: [], get boom() { throw new Error('getter'); } }], { now: NOW }), 'invalid_value', '/criteria/0/boom', /Error: getter/],
    ['evaluateContinuation(a revoked Proxy spec)', () => evaluateContinuation(GOOD_STATE, [revoked()], { now: NOW }), 'invalid_value', '/criteria/0/continueWhen', /revoked/],
    ['evaluateContinuation(a throwing Proxy list)', () => evaluateContinuation(GOOD_STATE, throwingArray(), { now: NOW }), 'invalid_value', '/criteria', /Error: get/],
    ['evaluateContinuation(a nested throwing Proxy list)', () => evaluateContinuation(GOOD_STATE, [{ kind: 'all', criteria: throwingArray() }], { now: NOW }), 'invalid_value', '/criteria/0/criteria', /Error: get/],
    ['evaluateContinuation(a throwing getter beside continueWhen)', () => evaluateContinuation(GOOD_STATE, [{ kind: 'response_content_check', continueWhen: () => true, get boom() { throw new Error('getter'); } }], { now: NOW }), 'invalid_value', '/criteria/0/boom', /Error: getter/],
    ['evaluateContinuation(defaults with a throwing getter)', () => evaluateContinuation(GOOD_STATE, { get defaults() { throw new Error('getter'); } }, { now: NOW }), 'invalid_value', '/criteria', /Error: getter/],
    ['evaluateContinuation(a state with a throwing toJSON)', () => evaluateContinuation({ toJSON() { throw new Error('toJSON'); } }, DEFAULTS, { now: NOW }), 'invalid_value', null, /Error: toJSON/],
    ['replayContinuation(a spec with a throwing getter)', () => replayContinuation(GOOD_STATE, [{ kind: 'all', criteria: [], get boom() { throw new Error('getter'); } }]), 'invalid_value', '/criteria/0/boom', /Error: getter/],
    ['parseAgentState(an object with a throwing getter)', () => parseAgentState({ get agentId() { throw new Error('getter'); } }, { now: NOW }), 'invalid_value', null, /Error: getter/],
    ['restoreState(a revoked Proxy)', () => restoreState(revoked(), { now: NOW }), 'invalid_value', null, /revoked/],
    ['resolveOutcome(a throwing Proxy list)', () => resolveOutcome(throwingArray()), 'invalid_value', null, /Error: get/],
    ['hasRole(message, a throwing Proxy list)', () => hasRole({ role: 'user' }, throwingArray()), 'invalid_value', '/roles', /Error: get/],
    ['hasRole(message, a revoked Proxy)', () => hasRole({ role: 'user' }, revoked()), 'invalid_value', '/roles', /revoked/],
    ['hasRole(message, a list with a throwing item)', () => hasRole({ role: 'user' }, new Proxy(['user', 'tool'], { get(t, k) { if (k === '1') throw new Error('item'); return t[k]; } })), 'invalid_value', '/roles/1', /Error: item/],
  ];
  for (const [label, fn, code, path, message] of cases) {
    const { error } = probe(label, fn);
    assert.equal(error?.code, code, `${label}: ${error ? describe(error) : 'no error'}`);
    assert.equal(error.path, path, `${label}: ${describe(error)}`);
    assert.match(error.message, message, label);
  }
  // A message whose role cannot be read is a typed error, as an unreadable roles list is for hasRole
  // (it used to count as user, a silently wrong answer); a missing or unknown role still counts as user.
  const unreadable = { get role() { throw new Error('role'); } };
  for (const [label, fn, message] of [
    ['isUser(a throwing role getter)', () => isUser(unreadable), /Error: role/],
    ['isAssistant(a throwing role getter)', () => isAssistant(unreadable), /Error: role/],
    ['hasRole(a throwing role getter, user)', () => hasRole(unreadable, 'user'), /Error: role/],
    ['isUser(a revoked Proxy)', () => isUser(revoked()), /revoked/],
  ]) {
    const { error } = probe(label, fn);
    assert.equal(error?.code, 'invalid_value', `${label}: ${error ? describe(error) : 'no error'}`);
    assert.equal(error.path, '/role', `${label}: ${describe(error)}`);
    assert.match(error.message, message, label);
  }
  assert.deepEqual([isUser({}), isUser({ role: 5 }), isAssistant({ role: 'robot' })], [true, true, false]);
  validateSnapshot(trap());
  assertUsable('throwing user objects');

  // 10,000 of each in a fresh process: before the fix, slimSnapshot broke the instance after ~249 calls,
  // the criteria after ~1,820 and hasRole after ~5,041 (the wasm stack leaked on every call).
  const outcome = inFreshProcess(`
    const trap = ${trap.toString()};
    const revoked = ${revoked.toString()};
    const throwingArray = ${throwingArray.toString()};
    const state = ${JSON.stringify(GOOD_STATE)};
    const cases = [
      () => stepline.slimSnapshot(trap()),
      () => stepline.slimSnapshot({ messageStore: revoked() }),
      () => stepline.slimSnapshot({ get agentId() { throw new Error('getter'); } }),
      () => stepline.evaluateContinuation(state, [{ kind: 'all', criteria: [], get boom() { throw new Error('getter'); } }], { now: '${NOW}' }),
      () => stepline.evaluateContinuation(state, [revoked()], { now: '${NOW}' }),
      () => stepline.replayContinuation(state, [{ kind: 'all', criteria: throwingArray() }]),
      () => stepline.parseAgentState(trap()),
      () => stepline.hasRole({ role: 'user' }, throwingArray()),
      () => stepline.hasRole({ role: 'user' }, revoked()),
      () => stepline.isUser(revoked()),
    ];
    for (const fn of cases) {
      const seen = new Map();
      for (let i = 0; i < 10000; i++) {
        const o = attempt(fn);
        seen.set(JSON.stringify(o), o);
      }
      hostile.push(...seen.values());
    }
  `, { timeout: 120_000 });
  assertSurvived(outcome, 'throwing user objects');
  // isUser(a revoked Proxy), last, is a typed error too since its role cannot be read.
  assert.deepEqual(outcome.hostile.map((o) => o.threw?.code ?? 'ok'), Array(10).fill('invalid_value'));
});

test('string-typed entry points given non-strings throw typed errors, without trapping or leaking wasm memory', () => {
  const outcome = inFreshProcess(`
    const wrong = [5, true, Symbol('x'), {}, null, undefined, ['a'], { length: 3 }];
    const enc = new stepline.EnvelopeEncoder({ sessionId: 's' });
    const log = new stepline.RunLog();
    const session = new stepline.Session();
    for (const x of wrong) {
      hostile.push(attempt(() => stepline.decodeEnvelopes(x)));
      hostile.push(attempt(() => session.ingestJsonl(x)));
      hostile.push(attempt(() => log.ingestJsonl(x)));
      hostile.push(attempt(() => stepline.Session.fromRecording(x)));
      hostile.push(attempt(() => stepline.RunLog.load(x)));
      hostile.push(attempt(() => stepline.channelFor(x)));
      hostile.push(attempt(() => stepline.isAgentEventName(x)));
      if (x != null) hostile.push(attempt(() => stepline.isAgentEventName('agent.status', { eventName: x })));
      hostile.push(attempt(() => enc.status(x)));
      if (x != null) hostile.push(attempt(() => enc.reset(x)));
      hostile.push(attempt(() => log.addSnapshot(x, ${JSON.stringify(JSON.stringify(GOOD_SLIM))})));
    }
  `);
  assertSurvived(outcome, 'non-strings to string parameters');
});

test('calls made close to the JS stack limit fail cleanly and leave the instance working', {
  todo: 'a RangeError (stack exhausted) raised inside the wasm, e.g. when it calls back into JS, unwinds the Rust frames '
    + 'without restoring the shadow stack pointer or releasing RefCell/object borrows (panic = "abort", no unwinding): '
    + 'a recursive caller that hits the limit while calling decodeEnvelope/ingest leaves every export throwing '
    + '"RuntimeError: unreachable" or "memory access out of bounds"; a limitation of wasm-bindgen\'s model worth documenting',
}, () => {
  const outcome = inFreshProcess(`
    const env = ${JSON.stringify(GOOD_ENVELOPES[0])};
    const text = JSON.stringify(env);
    const session = new stepline.Session();
    let n = 0;
    const dive = (depth) => {
      const r = attempt(() => { stepline.decodeEnvelope(depth % 2 ? env : text); session.ingest(env); });
      if (r.threw && n++ < 200) hostile.push(r);
      return dive(depth + 1) + 1;
    };
    for (let i = 0; i < 20; i++) { try { dive(0); } catch {} }
    hostile.splice(0, hostile.length, ...hostile.filter((o) => o.threw.name !== 'RangeError'));
  `);
  assertSurvived(outcome, 'calls at the stack limit');
});

test('a revoked Proxy given where a string is expected is a typed error, 5,000 times over', () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  for (let i = 0; i < 5000; i++) {
    const { error } = probe('decodeEnvelopes(revoked proxy)', () => decodeEnvelopes(proxy));
    assert.equal(error?.code, 'invalid_type');
  }
});
