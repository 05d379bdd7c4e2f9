// Shape checks of the producer's state, messages and slim snapshots: slim
// snapshots with every preset and option, validation of good and broken
// snapshots, provider normalisation and streaming, and the role helpers.
// Each call yields `[where, value]` (see tests/js/shapes.test.mjs).
import { readFileSync } from 'node:fs';

import { v1Vectors, v2Vectors, V2_NOW, withIds } from '../lib/vectors.mjs';

const fixture = (name) => readFileSync(new URL(`../../fixtures/openai/${name}`, import.meta.url), 'utf8');
const NOW = '2026-01-20T12:00:00Z';

/** Every stored state: each run's final state, and the state vectors of both corpora. */
function states(runs) {
  const list = runs.filter((r) => r.finalState).map((r) => [r.name, r.finalState]);
  for (const c of v1Vectors('slim-serializer.json')) {
    if (c.input?.state && c.name.startsWith('serialize ')) list.push([`v1.22 slim-serializer ${c.name}`, c.input.state]);
  }
  for (const c of v2Vectors('state-model.json')) {
    const state = c.input?.state ?? c.input?.data;
    if (state && typeof state === 'object' && !c.expected?.throws) list.push([`v2.7 state-model ${c.name}`, withIds(state)]);
  }
  return list;
}

/** Every option `slimSnapshot` reads, alone and together. */
const SLIM_OPTIONS = [
  undefined,
  { preset: 'minimal' },
  { preset: 'standard' },
  { preset: 'full' },
  { preset: 'full', maxMessages: 3, maxSteps: 2, maxContentLength: 40 },
  { includeToolResults: false, redactToolArgs: true },
  { includeSteps: false, includeContinuationTrace: true },
  { preset: 'full', compat: true, redactToolArgs: true, includeToolResults: false },
  { preset: 'full', maxBytes: 1500 },
  { maxBytes: 100000 },
];

/** Slim snapshots of every state under every option set; typed errors (too small a budget, a refused state) are skipped. */
function* slims(runs, stepline) {
  for (const [name, state] of states(runs)) {
    for (const opts of SLIM_OPTIONS) {
      let result;
      try {
        result = stepline.slimSnapshot(JSON.stringify(state), opts);
      } catch (error) {
        // A budget too small, or a state vector the producer itself refuses.
        if (error instanceof stepline.SteplineError) continue;
        throw error;
      }
      yield [`${name} ${JSON.stringify(opts ?? {})}`, result];
    }
  }
}

/** Snapshots with one thing wrong each, and ones with unknown or suspicious fields. */
function* brokenSnapshots(snapshot) {
  const edits = [
    ['missing agent_id', (s) => { delete s.agent_id; }],
    ['status not allowed', (s) => { s.status = 'paused'; }],
    ['negative step_count', (s) => { s.step_count = -1; }],
    ['usage.input a string', (s) => { s.usage.input = '5'; }],
    ['negative token count', (s) => { s.usage.output = -3; }],
    ['bad timestamp', (s) => { s.execution.started_at = 'yesterday'; }],
    ['unknown field', (s) => { s.extra = { note: 'kept' }; }],
    ['an api key in metadata', (s) => { s.metadata = { apiKey: 'sk-live-0123456789abcdefghijklmnop' }; }],
  ];
  for (const [name, edit] of edits) {
    const s = structuredClone(snapshot);
    edit(s);
    yield [name, s];
  }
}

/** The role strings of every message of every state, plus ones the producer reads as `user`. */
function messages(runs) {
  const list = [{ role: 'system' }, { role: 'developer' }, { role: 'user' }, { role: 'assistant' }, { role: 'tool' },
    { role: 'Assistant' }, { role: '' }, {}, { role: 42 }];
  for (const [, state] of states(runs).slice(0, 20)) {
    for (const section of state?.messageStore?.sections ?? []) list.push(...(section.messages ?? []));
  }
  return list;
}

const ROLE_HELPERS = ['isUser', 'isAssistant', 'isTool', 'isSystem', 'isDeveloper'];

/** `name` → a generator of `[where, returned value]` over the corpus. */
export const calls = {
  async *slimSnapshot({ stepline, runs }) {
    yield* slims(runs, stepline);
  },

  async *validateSnapshot({ stepline, runs }) {
    let n = 0;
    for (const [where, { snapshot }] of slims(runs, stepline)) {
      yield [where, stepline.validateSnapshot(snapshot)];
      if (n++ % 7 === 0) {
        yield [`${where} as text`, stepline.validateSnapshot(JSON.stringify(snapshot))];
        for (const [name, broken] of brokenSnapshots(snapshot)) yield [`${where} ${name}`, stepline.validateSnapshot(broken)];
      }
    }
    for (const run of runs.filter((r) => r.slim)) yield [`${run.name} recorded slim`, stepline.validateSnapshot(run.slim)];
    for (const bad of ['{not json', '[1, 2]', 'null', 42, undefined]) yield [`not a snapshot: ${String(bad)}`, stepline.validateSnapshot(bad)];
  },

  async *snapshotSchema({ stepline }) {
    yield ['the schema', stepline.snapshotSchema()];
  },

  async *normalizeInferenceResponse({ stepline }) {
    for (const name of ['plain-answer.json', 'tool-call-empty-content.json', 'tool-call-with-text.json']) {
      yield [name, stepline.normalizeInferenceResponse(fixture(name), { now: NOW })];
      yield [`${name} as an object`, stepline.normalizeInferenceResponse(JSON.parse(fixture(name)), { provider: 'openai' })];
      yield [`${name} compat`, stepline.normalizeInferenceResponse(fixture(name), { now: Date.parse(NOW), compat: { toolArgsAsContent: true } })];
    }
  },

  async *'InferenceStreamAccumulator.push'({ stepline }) {
    const acc = new stepline.InferenceStreamAccumulator({ now: V2_NOW });
    for (const [i, line] of fixture('streamed-tool-calls.sse').split('\n').entries()) yield [`line ${i + 1}`, acc.push(line)];
    acc.free();
    const objects = new stepline.InferenceStreamAccumulator();
    yield ['a chunk object', objects.push({ choices: [{ index: 0, delta: { content: 'Hi' } }] })];
    yield ['a chunk as JSON text', objects.push('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')];
    objects.free();
  },

  async *'InferenceStreamAccumulator.finish'({ stepline }) {
    const acc = new stepline.InferenceStreamAccumulator({ now: NOW, compat: { toolArgsAsContent: false } });
    yield ['empty', acc.finish()];
    for (const line of fixture('streamed-tool-calls.sse').split('\n')) acc.push(line);
    yield ['streamed tool calls', acc.finish()];
    acc.free();
  },

  async *'InferenceStreamAccumulator.content'({ stepline }) {
    const acc = new stepline.InferenceStreamAccumulator();
    for (const line of fixture('streamed-tool-calls.sse').split('\n')) {
      acc.push(line);
      yield ['after a line', acc.content];
    }
    acc.free();
  },

  async *'InferenceStreamAccumulator.chunkCount'({ stepline }) {
    const acc = new stepline.InferenceStreamAccumulator();
    for (const line of fixture('streamed-tool-calls.sse').split('\n')) {
      acc.push(line);
      yield ['after a line', acc.chunkCount];
    }
    acc.free();
  },

  ...Object.fromEntries(ROLE_HELPERS.map((name) => [name, async function* ({ stepline, runs }) {
    for (const [i, message] of messages(runs).entries()) yield [`message ${i}`, stepline[name](message)];
  }])),

  async *hasRole({ stepline, runs }) {
    for (const [i, message] of messages(runs).entries()) {
      yield [`message ${i} one role`, stepline.hasRole(message, 'assistant')];
      yield [`message ${i} roles`, stepline.hasRole(message, ['user', 'system'])];
    }
  },

  async *parseAgentState({ stepline, runs }) {
    for (const [name, state] of parsedStates(runs)) {
      let parsed;
      try {
        parsed = stepline.parseAgentState(state, { now: NOW });
      } catch (error) {
        // A state vector the reader refuses (a mixed or unknown release).
        if (error instanceof stepline.SteplineError) continue;
        throw error;
      }
      yield [name, parsed];
      yield [`${name} as text`, stepline.parseAgentState(JSON.stringify(state), { now: Date.parse(NOW) })];
    }
  },

  async *restoreState({ stepline, runs }) {
    let n = 0;
    for (const [where, { snapshot }] of slims(runs, stepline)) {
      // Every preset of every state would repeat the same shapes many times over.
      if (n++ % 3 !== 0) continue;
      yield [where, stepline.restoreState(snapshot, { now: NOW })];
    }
    for (const run of runs.filter((r) => r.slim)) yield [`${run.name} recorded slim`, stepline.restoreState(run.slim)];
  },
};

/** Every state `parseAgentState` reads: the corpus states, the v1.22 state-model vectors, a v2 state with a key. */
function* parsedStates(runs) {
  yield* states(runs);
  for (const c of v1Vectors('state-model.json')) {
    const state = c.input?.data ?? c.input?.state;
    if (state && typeof state === 'object' && !c.expected?.throws && !c.expected?.error) yield [`v1.22 state-model ${c.name}`, state];
  }
  const v1 = states(runs).find(([, state]) => state?.steps?.length > 0);
  if (v1) {
    const [name, state] = v1;
    const annotations = {
      safety: [{ verdict: 'review', category: 'pii' }],
      citations: [{ label: 'docs', url: 'https://example.com', provider_ref: { id: 1 } }],
      extra: { reviewer: 'ui' },
    };
    yield [`${name} with annotations`, { ...state, steps: state.steps.map((s, i) => (i === 0 ? { ...s, annotations } : s)) }];
  }
  for (const [name, state] of states(runs)) {
    if ('execution' in (state ?? {})) {
      yield [`${name} with an llmConfig`, { ...state, llmConfig: { apiKey: 'sk-live-0123456789abcdefghijklmnop', model: 'gpt-4o' } }];
      return;
    }
  }
}

/** Exports whose result is not data, and why. */
export const notData = {
  'InferenceStreamAccumulator.free': 'releases the wasm memory',
};
