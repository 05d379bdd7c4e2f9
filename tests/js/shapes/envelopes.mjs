// Shape checks of the envelope functions and the encoder: each call yields
// `[where, value]` (see tests/js/shapes.test.mjs). The envelopes are every
// run's, the seed-000 and seed-003 fixtures', each again with what a newer
// producer adds (unknown fields, kept with warnings) and the encoder's
// truncation mark, and inputs that fail with each error code the decoder has.
// The encoder replays every envelopes.json case of both corpora under every
// preset, both dialects and three caps.
import { readFileSync } from 'node:fs';

import { v1Vectors, v2Vectors } from '../lib/vectors.mjs';

const fixture = (path) => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');

/** The seed dialects' recordings, as `[file, lines]`. */
const SEEDS = ['seed-000/failed-run.jsonl', 'seed-000/resumed-run.jsonl', 'seed-000/continued-step.jsonl', 'seed-003/annotated-run.jsonl', 'seed-003/cited-answer.jsonl', 'seed-003/failing-run.jsonl']
  .map((file) => [file, fixture(file).split('\n').filter((line) => line.trim())]);

/** Inputs `tryDecodeEnvelope` refuses, by the error code it gives. */
export const REFUSED = {
  invalid_json: '{"type":"agent.status",',
  too_large: `{"type":"agent.status","session_id":"s","payload":{"status":"${'x'.repeat(1 << 20)}"}}`,
  too_deep: `${'['.repeat(80)}${']'.repeat(80)}`,
  invalid_type: { type: 'agent.status', session_id: 7, payload: { status: 'processing' } },
  missing_field: { type: 'agent.step.started', session_id: 's', payload: {} },
  invalid_value: { event_type: 'agent.llm.completed', step_index: 1, annotations: { safety: [{ verdict: 'maybe', category: 'x' }] } },
  invalid_timestamp: { type: 'agent.status', session_id: 's', timestamp: 'soon', payload: { status: 'processing' } },
  out_of_range: { type: 'agent.step.started', session_id: 's', payload: { step_number: -1e20 } },
};

/**
 * Every envelope a user decodes, as `[where, envelope]`: as sent, and again with an unknown
 * payload field, an unknown top-level field and the encoder's `truncated` mark.
 */
/**
 * The normalised envelopes the foreign dialects translate into (issue 18), with every field
 * they carry: sent as envelopes too (a relay may forward a session's log).
 */
const NORMALISED = [
  { type: 'agent.llm.reasoning.delta', payload: { text_delta: 'Erst prüfen.', step_index: 1, step_id: 'st-1', annotations: { extra: { trace: 'a' } } } },
  { type: 'agent.tool.approval', payload: { tool_name: 'delete_file', tool_call_id: 'c1', approval: 'requested', approval_id: 'a1', reason: null, step_index: 1, step_id: 'st-1', annotations: { extra: { trace: 'a' } } } },
  { type: 'agent.tool.completed', payload: { tool_name: 'delete_file', tool_call_id: 'c1', success: true, result: { deleted: 1 }, step_index: 1 } },
  { type: 'agent.tool.output', payload: { tool_name: 'delete_file', tool_call_id: 'c1', text_delta: '50%', step_index: 1 } },
  { type: 'agent.run.interrupted', payload: { reason: 'tool_approval', data: { calls: ['c1'] }, step_index: 1 } },
  { type: 'agent.data', payload: { name: 'state', data: { n: 1 }, step_index: 1 } },
  { type: 'agent.run.completed', payload: { final_answer: 'done', reason: 'stop' } },
  { type: 'agent.run.failed', payload: { error: 'provider down', reason: 'error' } },
].map((e) => ({ session_id: 's', execution_id: 'e1', timestamp: '2026-11-20T10:00:00Z', ...e }));

export function* envelopes(runs) {
  const sent = [
    ...runs.flatMap((run) => run.envelopes.map((e, i) => [`${run.name} #${i}`, e])),
    ...NORMALISED.map((e) => [`normalised ${e.type}`, e]),
    ...SEEDS.flatMap(([file, lines]) => lines.map((line, i) => [`${file}:${i + 1}`, JSON.parse(line)])),
  ];
  for (const [where, e] of sent) {
    yield [where, e];
    if (e.event_type) {
      yield [`${where} with an unknown field`, { ...e, future_field: 1, truncated: true }];
      // The same event relayed in an envelope, with a relay's own field beside it.
      const { event_type: type, ...payload } = e;
      yield [`${where} relayed`, { type, session_id: 's', execution_id: null, timestamp: null, payload, relay: 'edge-1' }];
    } else yield [`${where} with unknown fields`, { ...e, relay: 'edge-1', payload: { ...e.payload, future_field: 1, truncated: true } }];
  }
}

/** The encoder's config in every preset, both dialects and three caps, for a case's own switches. */
function* configs(input) {
  for (const preset of [undefined, 'minimal', 'standard', 'default', 'debug']) {
    for (const dialect of [undefined, 'v1.22', 'v2']) {
      for (const maxMessageBytes of [undefined, 1000, null]) {
        const config = preset ? { preset } : { ...input.config };
        if (dialect) config.dialect = dialect;
        if (maxMessageBytes !== undefined) config.maxMessageBytes = maxMessageBytes;
        yield [`${preset ?? 'own'} ${dialect ?? 'default dialect'} cap ${maxMessageBytes}`, config];
      }
    }
  }
  yield ['compat', { ...input.config, compat: true }];
  yield ['compat +60', { ...input.config, compat: { utcOffsetMinutes: 60 } }];
}

/**
 * Replays every envelopes.json case of both corpora (under `only` configs, or every one of
 * `configs`): `[where, encoder, op]` per op.
 */
function* encoderOps(stepline, only) {
  for (const [corpus, cases] of [['v1.22', v1Vectors('envelopes.json')], ['v2.7', v2Vectors('envelopes.json')]]) {
    for (const c of cases) {
      for (const [label, config] of only ? only.map((o) => [JSON.stringify(o), o]) : configs(c.input)) {
        const enc = new stepline.EnvelopeEncoder({ sessionId: c.input.sessionId, executionId: c.input.executionId, config, now: c.input.now });
        for (const [i, op] of c.input.ops.entries()) yield [`${corpus} ${c.name} [${label}] op ${i}`, enc, op];
        enc.free();
      }
    }
  }
}

/** `name` → a generator of `[where, returned value]` over the corpus. */
export const calls = {
  async *decodeEnvelope({ stepline, runs }) {
    for (const [where, e] of envelopes(runs)) {
      yield [where, stepline.decodeEnvelope(e)];
      yield [`${where} as text`, stepline.decodeEnvelope(JSON.stringify(e))];
    }
    // What the encoder sends, as a UI receives it.
    for (const [where, enc, op] of encoderOps(stepline, [{ preset: 'debug' }, { preset: 'debug', dialect: 'v2' }])) {
      if (op.call === 'reset') enc.reset();
      else if (!op.call) for (const { envelope } of enc.push(op)) yield [`${where}: sent`, stepline.decodeEnvelope(envelope)];
    }
  },
  async *tryDecodeEnvelope({ stepline, runs }) {
    for (const [where, e] of envelopes(runs)) yield [where, stepline.tryDecodeEnvelope(e)];
    for (const [code, input] of Object.entries(REFUSED)) yield [`refused: ${code}`, stepline.tryDecodeEnvelope(input)];
  },
  async *decodeEnvelopes({ stepline, runs }) {
    for (const run of runs) yield [run.name, stepline.decodeEnvelopes(run.jsonl)];
    for (const [file, lines] of SEEDS) yield [file, stepline.decodeEnvelopes(lines.join('\n'))];
    const mixed = [...envelopes(runs.slice(0, 2))].map(([, e]) => JSON.stringify(e));
    const refused = Object.values(REFUSED).map((input) => (typeof input === 'string' ? input : JSON.stringify(input)));
    yield ['a batch with unknown fields and failing lines', stepline.decodeEnvelopes(`\ufeff${[...mixed, ...refused].join('\n')}\n`)];
  },
  async *'EnvelopeEncoder.push'({ stepline }) {
    for (const [where, enc, op] of encoderOps(stepline)) {
      if (op.call === 'reset') enc.reset();
      else if (!op.call) {
        yield [where, enc.push(op)];
        yield [`${where} as text, at its own time`, enc.push(JSON.stringify({ ...op, at: '2026-01-20T12:00:01Z' }))];
      }
    }
  },
  async *'EnvelopeEncoder.status'({ stepline }) {
    for (const [where, enc, op] of encoderOps(stepline)) {
      if (op.call === 'onAgentStatusChanged') {
        const { status, ...details } = op.args;
        yield [where, enc.status(status, details)];
      }
    }
    const enc = new stepline.EnvelopeEncoder({ sessionId: 's', executionId: 'e', now: 1768910400250 });
    yield ['status without details', enc.status('processing')];
    yield ['status with an error', enc.status('failed', { error: 'Tool search failed', lastResponse: null })];
    enc.free();
  },
  async *'EnvelopeEncoder.currentStatus'({ stepline }) {
    for (const [where, enc, op] of encoderOps(stepline)) {
      if (op.call === 'reset') enc.reset('exec-2');
      else if (!op.call) enc.push(op);
      yield [where, enc.currentStatus];
    }
  },
  async *channelFor({ stepline, runs }) {
    for (const run of runs) yield [run.name, stepline.channelFor(run.envelopes[0].session_id)];
  },
  async *isAgentEventName({ stepline }) {
    for (const name of ['.instructor.agent.event', 'instructor.agent.event', 'agent.step.started', 'pusher:subscription_succeeded', 'App\\Events\\OrderShipped']) {
      yield [name, stepline.isAgentEventName(name)];
      yield [`${name} under a configured name`, stepline.isAgentEventName(name, { eventName: 'app.agent' })];
    }
  },
  async *defaultEventName({ stepline }) {
    yield ['the default', stepline.defaultEventName()];
  },
  async *'SteplineError.code'({ stepline }) {
    for (const [where, error] of thrownErrors(stepline)) yield [where, error.code];
  },
  async *'SteplineError.path'({ stepline }) {
    for (const [where, error] of thrownErrors(stepline)) yield [where, error.path];
  },
};

/** What the envelope functions throw, for each error code they have. */
function* thrownErrors(stepline) {
  const thrown = (fn) => { try { fn(); } catch (error) { return error; } throw new Error('expected a throw'); };
  for (const [code, input] of Object.entries(REFUSED)) yield [`decodeEnvelope: ${code}`, thrown(() => stepline.decodeEnvelope(input))];
  yield ['EnvelopeEncoder without a session', thrown(() => new stepline.EnvelopeEncoder({}))];
  yield ['EnvelopeEncoder with an unknown preset', thrown(() => new stepline.EnvelopeEncoder({ sessionId: 's', config: { preset: 'loud' } }))];
}

/** Exports whose result is not data, and why. */
export const notData = {
  'EnvelopeEncoder.reset': 'returns nothing (starts a new execution)',
  'EnvelopeEncoder.free': 'releases the wasm memory',
};
