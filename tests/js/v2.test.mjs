// instructor-php v2.7 through the built package: parseAgentState recognises a
// v2 state (and never reads it as an empty v1.22 one), the API key stays out of
// its output, and EnvelopeEncoder reproduces v2's broadcaster with
// `config.dialect: "v2"`. Data from tests/vectors/instructor-php-v2.7.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseAgentState, EnvelopeEncoder, decodeEnvelope, tryDecodeEnvelope, decodeEnvelopes, Session, SteplineError } from 'stepline';
import { V2_NOW as NOW, thrown, v2Vectors, withIds } from './lib/vectors.mjs';

const runs = v2Vectors('agent-runs.json');
const envelopeCases = v2Vectors('envelopes.json');

test('every v2 final state reads as v2 with the runs\' derived values', () => {
  let count = 0;
  for (const run of runs) {
    run.expected.forEach((turn, i) => {
      const state = parseAgentState(withIds(turn.finalState), { now: NOW });
      assert.equal(state.stateVersion, 'v2', `${run.name} turn ${i}`);
      for (const [key, value] of Object.entries(turn.derived)) {
        assert.deepEqual(state.derived[key], value, `${run.name} turn ${i}: derived.${key}`);
      }
      count += 1;
    });
  }
  assert.ok(count >= 42);
});

test('a state mixing v1.22 and v2 keys is refused, not read as an empty state', () => {
  const error = thrown(() => parseAgentState({ execution: null, steps: [], status: 'completed' }));
  assert.ok(error instanceof SteplineError);
  assert.equal(error.code, 'unknown_state_version');
  assert.match(error.message, /both/);
});

test('a stored API key never reaches parseAgentState\'s output', () => {
  const key = 'sk-live-SEEDED-7d1e4b';
  const state = withIds(runs[0].expected[0].finalState);
  state.llmConfig = { ...state.llmConfig, apiKey: key };
  const parsed = parseAgentState(JSON.stringify(state), { now: NOW });
  assert.equal(JSON.stringify(parsed).includes(key), false);
  assert.equal(parsed.llmConfig.apiKey, '[redacted]');
});

test('the encoder in the v2 dialect reproduces AgentEventBroadcaster for the UTC envelopes.json cases', () => {
  let checked = 0;
  for (const c of envelopeCases) {
    if (c.input.phpDefaultTimezone || c.invalid_utf8) continue; // timestamps and byte cuts: fixed on purpose
    // Steps started without a message count were built from the harness's own state.
    if (c.input.ops.some((op) => op.event === 'AgentStepStarted' && op.args.messageCount === undefined)) continue;
    // compat: the producer's own broadcasts, without seed 000's adapter fields
    // (step_count, tool_call_id, result_summary) stepline writes by default.
    const config = { ...c.input.config, dialect: 'v2', compat: true };
    const enc = new EnvelopeEncoder({ sessionId: c.input.sessionId, executionId: c.input.executionId, config, now: c.input.now });
    const sent = [];
    c.input.ops.forEach((op) => {
      if (op.call === 'reset') enc.reset();
      else if (op.call === 'onAgentStatusChanged') {
        const { status, ...details } = op.args;
        sent.push(enc.status(status, details));
      } else sent.push(...enc.push(op));
    });
    assert.deepEqual(sent, c.expected, c.name);
    for (const { envelope } of sent) decodeEnvelope(envelope);
    checked += 1;
  }
  assert.ok(checked >= 20, `only ${checked} cases`);
});

test('v2\'s continuation payload decodes into the one vocabulary', () => {
  const decoded = decodeEnvelope({
    type: 'agent.continuation', session_id: 's', execution_id: 'e', timestamp: NOW,
    payload: { step_number: 2, should_stop: true, stop_reason: null, resolved_by: '' },
  });
  assert.equal(decoded.payload.should_stop, true);
  assert.equal(decoded.payload.should_continue, false);
  assert.equal(decoded.payload.stop_reason, null);
});

test('decoding says the dialect: v2\'s own envelopes are "v2", shapes both versions send "instructor"', () => {
  const turn = runs.find((r) => r.name === 'driver exception on first inference [debug]').expected[0];
  const lines = turn.envelopes.map((e) => JSON.stringify(e.envelope));
  const { dialects, envelopes } = decodeEnvelopes(lines.join('\n'));
  assert.equal(dialects.length, envelopes.length);
  turn.envelopes.forEach(({ envelope }, i) => {
    const own = 'should_stop' in envelope.payload || 'error_message' in envelope.payload
      || (envelope.type === 'agent.step.completed' && envelope.payload.finish_reason === null);
    assert.equal(dialects[i], own ? 'v2' : 'instructor', `${i}: ${lines[i]}`);
    assert.equal(tryDecodeEnvelope(lines[i]).dialect, dialects[i]);
  });
});

test('a Session shows a v2 run the way it ended: completed then the closing stopped, raw frames out of the text', () => {
  const ended = (name) => {
    const s = new Session();
    s.ingestJsonl(runs.find((r) => r.name === name).expected[0].envelopes.map((e) => JSON.stringify(e.envelope)).join('\n'));
    return s.getSnapshot().executions[0];
  };
  const done = ended('plain final answer [debug]');
  assert.equal(done.status, 'completed');
  assert.equal(done.closing_status, 'stopped');
  assert.equal(done.dialect, 'v2');
  const failed = ended('driver exception on first inference [debug]');
  assert.deepEqual([failed.status, failed.error_message, failed.steps.map((s) => [s.number, s.attempt_failed])],
    ['failed', 'Upstream LLM unavailable (503)', [[1, true]]]);
  assert.equal(ended('steps limit 2 reached (model always calls tools) [standard]').never_ran_step, 3);
  const real = ended('real driver: streamed answer, several text deltas [standard]');
  assert.deepEqual([real.text, real.provider_frames], ['One, two, three.', 7]);
});
