// A run longer than the slim snapshot's step window (20 steps with the
// default `standard` preset) in the panel: opened as a recording with a
// standard snapshot line (the reconcile tab says consistent and how many
// steps were outside the window), and live over sockudo with "Fetch final
// state" returning the stored AgentState, which the core reads whole: every
// step is compared, none is outside. The long run comes from scripts/long-run.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { longRun } from '../../scripts/long-run.mjs';
import { openPage, screenshot } from './lib/browser.mjs';
import { liveUrl, openRecording, panelFixture, withSockudo } from './lib/panel.mjs';

const STEPS = 39;
const WINDOW_TEXT = "19 steps outside the snapshot's window (it lists steps 20–39): shown as streamed, not compared.";

const env = panelFixture();

/** What the page shows of its reconciliation, and where the view's steps stand. */
const shown = (page) => page.evaluate(() => ({
  status: document.querySelector('[data-testid=reconcile-status]')?.textContent,
  window: document.querySelector('[data-testid=reconcile-window]')?.textContent ?? null,
  differences: document.querySelectorAll('[data-testid=difference]').length,
  steps: window.stepline.view.executions[0].steps.length,
}));

describe('a run longer than the snapshot window', () => {
  test(`a ${STEPS}-step recording with a standard snapshot line reconciles as consistent`, async () => {
    const { recording } = await longRun({ steps: STEPS });
    const page = await openPage(env.browser);
    await openRecording(page, env, 'long-run.jsonl', recording({ preset: 'standard' }));
    await page.waitForFunction(() => window.stepline?.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null);
    await page.click('[data-testid=tab-reconcile]');
    await page.waitForSelector('[data-testid=reconcile-status]');
    assert.deepEqual(await shown(page), { status: 'consistent', window: WINDOW_TEXT, differences: 0, steps: STEPS });
    await screenshot(page, 'panel-long-run-window');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('live: Fetch final state reads the stored state whole', () => {
  const live = withSockudo();

  test(`a ${STEPS}-step live run against its fetched stored state is consistent, every step compared`, async () => {
    const session = 'sess-live-long';
    const { envelopes, state } = await longRun({ steps: STEPS, sessionId: session });
    const page = await openPage(env.browser);
    await page.goto(liveUrl({ server: env.server, sockudo: live.sockudo }, session));
    await page.waitForFunction(() => window.stepline?.source.detail === 'subscribed', null, { timeout: 20_000 });
    for (const envelope of envelopes) assert.equal(await live.pub.publish(envelope), 200);
    await page.waitForFunction((n) => window.stepline.view.counts.applied === n, envelopes.length, { timeout: 20_000 });

    env.server.setRoute(`/final/${session}.json`, () => ({ body: state }));
    await page.click('[data-testid=live-toggle]');
    await page.click('[data-testid=fetch-final]');
    await page.waitForSelector('[data-testid=reconcile-status]');
    assert.deepEqual(await shown(page), { status: 'consistent', window: null, differences: 0, steps: STEPS });
    const compared = await page.evaluate(() => window.stepline.state.reconciliations.at(-1).report.window);
    assert.deepEqual([compared.listed, compared.first_step, compared.last_step, compared.outside_step_count], [STEPS, 1, STEPS, 0]);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
