// Seed 004's leak and seed 000's usage through the built package: redaction
// removes tool-call arguments the driver copied into assistant content,
// diagnose finds them in snapshots, and restoreState keeps seed-form usage.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { diagnose, restoreState, slimSnapshot, SteplineError } from 'stepline/devtools';

const root = new URL('../../', import.meta.url);
const runs = JSON.parse(readFileSync(new URL('tests/vectors/cognesy-v1.22/agent-runs.json', root), 'utf8'));
const seedSnapshot = JSON.parse(readFileSync(new URL('tests/fixtures/seed/000-snapshot.json', root), 'utf8'));

/** The run's final state with the assistant's content set to its call's arguments (seed 004). */
function leakingState() {
  const state = structuredClone(runs.find((r) => r.name.startsWith('tool call then final answer')).expected[0].finalState);
  const message = state.messageStore.sections[0].messages.find((m) => m._metadata?.tool_calls);
  message.content = message._metadata.tool_calls[0].function.arguments;
  return { state, args: message.content };
}

test('redactToolArgs removes arguments copied into content; compat keeps the reference leak', () => {
  const { state, args } = leakingState();
  for (const preset of ['minimal', 'standard', 'full']) {
    const { snapshot } = slimSnapshot(state, { preset, redactToolArgs: true });
    assert.ok(!JSON.stringify(snapshot).includes('query'), preset);
    assert.equal(snapshot.messages[1].content, '');
  }
  const compat = slimSnapshot(state, { redactToolArgs: true, compat: true }).snapshot;
  assert.equal(compat.messages[1].content, args);
  const found = diagnose({ snapshot: compat });
  assert.deepEqual(found.map((d) => [d.code, d.severity, d.path, d.evidence.match]), [
    ['tool_args_in_content', 'warning', '/snapshot/messages/1/content', 'redacted'],
  ]);
});

test('restoreState maps seed 000 usage {prompt, completion, total} and refuses a total it cannot keep', () => {
  const state = restoreState(seedSnapshot);
  assert.deepEqual(state.usage, { input: 1200, output: 600, cacheWrite: 0, cacheRead: 0, reasoning: 0, total: 1800 });
  const wrong = { ...seedSnapshot, usage: { prompt: 1200, completion: 600, total: 1900 } };
  assert.throws(() => restoreState(wrong), (e) => e instanceof SteplineError && e.code === 'invalid_value' && e.path === '/usage/total');
});
