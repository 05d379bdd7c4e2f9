// The panel shows the values the seeds fix, as the core gives them: a step
// whose inference failed is marked failed and found by the failure
// navigation (seed 001 rule 1, docs/seeds/001-agent-steps-refactor-plan.md),
// a step's duration comes from the final state's stored timing (seed 000,
// docs/seeds/000-slim-serialization-and-adapter.md), and each turn shows its
// duration and the user's message (seed 002 §4.1,
// docs/seeds/002-event-serialization-system-design.md).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openPage, screenshot } from './lib/browser.mjs';
import { openRecording, panelFixture } from './lib/panel.mjs';

const runs = JSON.parse(readFileSync(new URL('../vectors/cognesy-v1.22/agent-runs.json', import.meta.url), 'utf8'));

/** The corpus writes generated ids as "<uuid>"; a stored state has real ones. */
let ids = 0;
const withIds = (v) => JSON.parse(JSON.stringify(v), (_, x) => (x === '<uuid>' ? `9e000000-0000-4000-8000-${String(++ids).padStart(12, '0')}` : x));

/**
 * The reference's two-step run (its clock frozen: every envelope at
 * 12:00:00.250) with its last envelope 1.25 s later, then its stored final
 * state in which step 2's inference failed ("Model overloaded": the stream
 * had counted no error) and step 1's result stores its start and completion
 * 2.5 s apart (the stream said 0 ms).
 */
function recording() {
  const turn = runs.find((r) => r.name === 'tool call then final answer [debug]').expected[0];
  const envelopes = turn.envelopes.map((e) => structuredClone(e.envelope));
  envelopes.at(-1).timestamp = '2026-01-20T12:00:01.500Z';
  const state = withIds(turn.finalState);
  const failure = [{ message: 'Model overloaded', class: 'RuntimeException' }];
  for (const step of [state.steps[1], state.stepResults[1].step]) {
    step.errors = failure;
    step.inferenceResponse.finishReason = 'error';
  }
  state.stepResults[0].step.stepInfo.id = state.steps[0].stepInfo.id;
  state.stepResults[0].startedAt = '2026-01-20T11:59:57.000+00:00';
  state.stepResults[0].completedAt = '2026-01-20T11:59:59.500+00:00';
  return [...envelopes.map((e) => JSON.stringify(e)), JSON.stringify({ stepline_snapshot: state })].join('\n');
}

const env = panelFixture();

describe('the panel shows the seeds\' fixed values', () => {
  test('a failed inference step, the stored step duration, the turn\'s duration and user message', async () => {
    const page = await openPage(env.browser, { width: 800 });
    await openRecording(page, env, 'seed-fixes.jsonl', recording());
    await page.waitForFunction(() => window.stepline?.source.label === 'seed-fixes.jsonl' && !window.stepline.loading && window.stepline.tools !== null);

    // (1) Seed 001 rule 1: the failed inference is an error step, marked failed.
    const row2 = page.locator('[data-testid=step-row][data-step="2"]');
    assert.equal(await row2.getAttribute('data-state'), 'failed');
    assert.equal(await row2.locator('.badge').textContent(), 'error');
    assert.equal(await page.locator('[data-testid=step-row][data-step="1"]').getAttribute('data-state'), 'ok');
    // ...and the failure navigation and the Failed filter find it.
    await page.click('[data-testid=step-row][data-step="1"]');
    await page.click('[data-testid=next-failure]');
    assert.deepEqual(await page.evaluate(() => window.stepline.selected), { exec: 0, step: 2 });
    assert.equal(await page.textContent('.step-head .pill'), 'failed');
    await page.check('[data-testid=find-failed]');
    assert.equal(await page.textContent('[data-testid=find-count]'), '1 of 2 steps');
    await page.uncheck('[data-testid=find-failed]');

    // (2) Seed 000: step 1's duration is the final state's (2.5 s), not the stream's 0 ms.
    assert.equal(await page.locator('[data-testid=step-row][data-step="1"] .dur').textContent(), '2.50 s');
    await page.click('[data-testid=step-row][data-step="1"]');
    assert.match(await page.textContent('.detail .facts'), /Duration2\.50 s/);

    // (3) Seed 002: the turn's duration and the user's message, from the core.
    assert.equal(await page.textContent('[data-testid=turn-duration]'), '1.25 s');
    assert.equal(await page.textContent('[data-testid=turn-user-message]'), '“What is the weather in Paris?”');
    const shown = await page.evaluate(() => window.stepline.view.executions[0]);
    assert.equal(shown.user_message, 'What is the weather in Paris?');
    assert.equal(shown.duration_ms, 1250);

    await screenshot(page, 'seed-fixes-800');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a stream alone leaves the user message unknown and says so with the execution id', async () => {
    const page = await openPage(env.browser, { width: 800 });
    const streamOnly = recording().split('\n').slice(0, -1).join('\n');
    await openRecording(page, env, 'stream-only.jsonl', streamOnly);
    await page.waitForFunction(() => window.stepline?.source.label === 'stream-only.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.equal(await page.locator('[data-testid=turn-user-message]').count(), 0);
    assert.equal(await page.textContent('[data-testid=turn-duration]'), '1.25 s');
    // Without the final state, the stream's own values: no error, 0 ms.
    assert.equal(await page.locator('[data-testid=step-row][data-step="2"]').getAttribute('data-state'), 'ok');
    assert.equal(await page.locator('[data-testid=step-row][data-step="1"] .dur').textContent(), '0 ms');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
