// The public API through the built package, with data read from the vectors
// and fixtures on disk (the same files the Rust tests use).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  parseAgentState, normalizeInferenceResponse, InferenceStreamAccumulator,
  isUser, isAssistant, isTool, isSystem, isDeveloper, hasRole, SteplineError,
} from 'stepline';

const root = new URL('../../', import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const stateModel = JSON.parse(readFileSync(new URL('state-model.json', vectorsDir), 'utf8'));
const fixture = (name) => readFileSync(new URL(`tests/fixtures/openai/${name}`, root), 'utf8');
const NOW = '2026-01-20T12:00:00.250000+00:00';

function thrown(fn) {
  try { fn(); } catch (error) { return error; }
  assert.fail('expected a throw');
}

test('parseAgentState matches the reference toArray for every AgentState vector, plus derived step values', () => {
  const cases = stateModel.filter((c) => c.name.startsWith('AgentState roundtrip') && !c.expected.throws);
  assert.ok(cases.length >= 14);
  for (const c of cases) {
    const state = parseAgentState(c.input.data, { now: c.input.now });
    assert.equal(state.status, c.expected.status, c.name);
    assert.equal(state.stateInfo.startedAt, c.expected.stateInfo.startedAt, c.name);
    assert.equal(state.stateInfo.cumulativeExecutionSeconds, c.expected.stateInfo.cumulativeExecutionSeconds, c.name);
    assert.equal(state.executionStartedAt, null, c.name);
    assert.equal(state.steps.length, c.expected.steps.length, c.name);
    state.steps.forEach((step, i) => {
      const expected = c.expected.steps[i];
      assert.equal(step.stepType, expected.stepType);
      assert.deepEqual(step.inferenceResponse.toolCalls, expected.inferenceResponse.toolCalls);
      assert.deepEqual(step.requestedToolCalls, expected.inferenceResponse.toolCalls);
      assert.deepEqual(step.executedToolCalls, expected.toolExecutions.map((e) => ({ name: e.toolCall.name, arguments: e.toolCall.arguments, id: e.toolCall.id })));
      const u = expected.usage;
      assert.equal(step.usage.total, u.input + u.output + u.cacheWrite + u.cacheRead + u.reasoning);
      assert.equal(step.durationMs, null);
    });
  }
});

test('the canonical state reads with string and object input alike', () => {
  const c = stateModel[0];
  const fromObject = parseAgentState(c.input.data, { now: NOW });
  const fromText = parseAgentState(JSON.stringify(c.input.data), { now: NOW });
  assert.deepEqual(fromText, fromObject);
  assert.equal(fromObject.steps[0].finishReason, 'tool_calls');
  assert.equal(fromObject.steps[1].finishReason, 'stop');
  assert.equal(fromObject.steps[0].toolExecutions[0].durationMs, 1000);
  assert.equal(fromObject.stepResults[0].outcome.resolvedBy, 'Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck');
  assert.equal(fromObject.usage.total, 305);
});

test('reference throws are SteplineErrors with a code and a JSON pointer', () => {
  for (const c of stateModel.filter((c) => c.name.startsWith('AgentState roundtrip') && c.expected.throws)) {
    const error = thrown(() => parseAgentState(c.input.data, { now: c.input.now }));
    assert.ok(error instanceof SteplineError);
    assert.equal(error.code, 'invalid_value');
    assert.equal(error.path, '/status');
  }
});

test('each class of bad input gets its own code', () => {
  const cases = [
    ['{"agentId": ', 'invalid_json', null],
    [{ steps: 'x' }, 'invalid_type', '/steps'],
    [{ steps: [{ inferenceResponse: { content: 'x' } }] }, 'missing_field', '/steps/0/inferenceResponse/responseData'],
    [{ stateInfo: { startedAt: 'someday' } }, 'invalid_timestamp', '/stateInfo/startedAt'],
    [`{"metadata": ${'['.repeat(200)}${']'.repeat(200)}}`, 'too_deep', null],
    [undefined, 'invalid_type', null],
  ];
  for (const [input, code, path] of cases) {
    const error = thrown(() => parseAgentState(input));
    assert.ok(error instanceof SteplineError, String(error));
    assert.equal(error.code, code, JSON.stringify(input)?.slice(0, 40));
    assert.equal(error.path, path);
    assert.match(error.message, /expected/);
  }
});

test('cyclic objects and BigInts are rejected, not thrown as TypeErrors', () => {
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  assert.equal(thrown(() => parseAgentState(cyclic)).code, 'invalid_json');
  assert.equal(thrown(() => parseAgentState({ n: 1n })).code, 'invalid_json');
});

test('misspelt options are rejected with their path', () => {
  const error = thrown(() => parseAgentState({}, { nwo: NOW }));
  assert.equal(error.code, 'invalid_value');
  assert.equal(error.path, '/options/nwo');
});

test('__proto__ in a payload stays data and never touches prototypes', () => {
  const state = parseAgentState('{"metadata": {"__proto__": {"polluted": true}}}');
  assert.equal(Object.getPrototypeOf(state.metadata), Object.prototype);
  assert.ok(Object.hasOwn(state.metadata, '__proto__'));
  assert.equal({}.polluted, undefined);
});

test('normalizeInferenceResponse never turns tool arguments into content', () => {
  const n = normalizeInferenceResponse(fixture('tool-call-empty-content.json'), { now: NOW });
  assert.equal(n.response.content, '');
  assert.equal(n.assistantMessage, null);
  assert.equal(n.finishReason, 'tool_calls');
  assert.deepEqual(n.response.toolCalls, [{ name: 'search_entities', arguments: { query: 'dbplus', types: ['program'] }, id: 'call_Qm3xV8' }]);
  assert.deepEqual(n.response.usage, { input: 412, output: 23, cacheWrite: 0, cacheRead: 256, reasoning: 0 });
  const compat = normalizeInferenceResponse(fixture('tool-call-empty-content.json'), { compat: { toolArgsAsContent: true } });
  assert.equal(compat.response.content, '{"query":"dbplus","types":["program"]}');
});

test('real text next to tool calls is kept and appended', () => {
  const n = normalizeInferenceResponse(JSON.parse(fixture('tool-call-with-text.json')));
  assert.deepEqual(n.assistantMessage, { role: 'assistant', content: 'Let me look that up in the CRM first.' });
  assert.equal(n.response.toolCalls.length, 2);
  const plain = normalizeInferenceResponse(fixture('plain-answer.json'));
  assert.equal(plain.assistantMessage.content, 'The dbplus program has 3 open leads.');
  assert.equal(plain.response.usage.reasoning, 128);
});

test('the stream accumulator keeps argument fragments out of text deltas', () => {
  const acc = new InferenceStreamAccumulator({ now: NOW });
  let text = '';
  for (const line of fixture('streamed-tool-calls.sse').split('\n')) {
    const delta = acc.push(line);
    assert.ok(!delta.content.includes('{'), `leaked: ${delta.content}`);
    text += delta.content;
  }
  assert.equal(text, 'Checking the weather.');
  assert.equal(acc.content, 'Checking the weather.');
  assert.equal(acc.chunkCount, 12);
  const { response, assistantMessage } = acc.finish();
  assert.deepEqual(response.toolCalls.map((c) => c.arguments), [{ city: 'Paris', unit: 'c' }, { city: 'Oslo' }]);
  assert.equal(response.responseData.isStreamed, true);
  assert.equal(assistantMessage.content, 'Checking the weather.');
  acc.free();
});

test('role helpers read roles as the producer does', () => {
  const roles = stateModel.filter((c) => c.name.startsWith('MessageRole::fromString'));
  for (const c of roles) {
    const m = { role: c.input.role };
    assert.equal(isUser(m), c.expected.role === 'user', c.name);
    assert.equal(isSystem(m), c.expected.isSystem, c.name);
  }
  assert.ok(isAssistant({ role: 'assistant' }));
  assert.ok(isTool({ role: 'tool' }));
  assert.ok(isDeveloper({ role: 'developer' }) && isSystem({ role: 'developer' }));
  assert.ok(hasRole({ role: 'tool' }, ['user', 'tool']));
  assert.ok(!hasRole({ role: 'tool' }, 'user'));
  assert.equal(thrown(() => hasRole({ role: 'tool' }, 'robot')).path, '/roles/0');
});
