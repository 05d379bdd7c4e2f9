// Today's producer live: an instructor-php v2.7 run (scripts/demo-run-v2.mjs:
// the v2 envelope dialect as a wiretapped broadcaster over a real streaming
// driver sends it, raw provider frames among the stream chunks) published
// through sockudo under instructor-php v2's Laravel event name
// `instructor.agent.event`, received by laravel-echo + pusher-js in the panel
// in headless Chromium. The panel shows both turns, their steps, the status
// the run completed with and the streamed text without provider JSON; "Fetch
// final state" fetches the whole v2 AgentState, which the page slims itself
// (www/src/sources/live.ts) before reconciling: consistent, any difference
// only one the producer causes by design (a named cause). The state's
// llmConfig holds a seeded API key that must appear nowhere on the page.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { demoRunV2 } from '../../scripts/demo-run-v2.mjs';
import { servePanel } from '../../scripts/lib/panel-server.mjs';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';
import { reconcileCauses } from '../../pkg/index.mjs';
import { distDir, launch, openPage } from './lib/browser.mjs';

const TRANSPORT_EVENT = 'instructor.agent.event';
// A fixed start: the run's dates (and so its durations) are the same every time.
const START_MS = Date.parse('2026-11-20T09:30:00.000Z');

let sockudo;
let browser;
let server;
let pub;

before(async () => {
  sockudo = await startSockudo({ maxPayloadKb: 10 });
  pub = publisher(sockudo);
  browser = await launch();
  server = await servePanel({ root: distDir });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await sockudo?.stop();
});

function liveUrl(session) {
  const params = new URLSearchParams({
    source: 'live', key: sockudo.key, host: '127.0.0.1', port: String(sockudo.port), tls: '0',
    session, final: `/final/${session}.json`, connect: '1',
  });
  return `${server.url}?${params}`;
}

/** A step's streamed text as the model produced it: the state's inference content. */
const textOf = (state) => state.execution.stepExecutions.map((s) => s.step.inferenceResponse.content).join('');

describe('an instructor-php v2.7 run, live under instructor.agent.event', () => {
  test('the panel shows its turns, steps, completed status and clean text; the fetched v2 state reconciles as consistent; the API key never shows', async () => {
    const session = 'sess-v2-live-1';
    const apiKey = `sk-proj-${randomBytes(16).toString('hex')}`;
    const { envelopes, finalStates, finalState } = await demoRunV2({ sessionId: session, executionId: 'exec-v2-live-1', startMs: START_MS, apiKey });
    // The stream is what a real app sends: raw provider frames among the chunks.
    const frames = envelopes.filter((e) => e.type === 'agent.stream.chunk' && e.payload.content.startsWith('{"id":"chatcmpl-'));
    assert.ok(frames.length > 10, `${frames.length} raw frames`);
    assert.equal(finalState.llmConfig.apiKey, apiKey);

    const page = await openPage(browser);
    await page.goto(liveUrl(session));
    await page.waitForFunction(() => window.stepline?.source.detail.startsWith('subscribed'), null, { timeout: 20_000 });
    assert.equal(await page.inputValue('[data-testid=live-form] input[name=event]'), TRANSPORT_EVENT);
    for (const envelope of envelopes) assert.equal(await pub.publish(envelope, { eventName: TRANSPORT_EVENT }), 200);
    await page.waitForFunction((n) => window.stepline.view?.counts.applied === n, envelopes.length, { timeout: 10_000 });
    assert.deepEqual(await page.evaluate(() => window.stepline.view.counts), { applied: envelopes.length, duplicates: 0, rejected: 0 });

    const shown = await page.evaluate(() => window.stepline.view.executions.map((e) => ({
      status: e.status, steps: e.steps.map((s) => [s.number, s.type]), text: e.text,
    })));
    assert.deepEqual(shown.map((e) => e.steps), [
      [[1, 'tool_execution'], [2, 'tool_execution'], [3, 'final_response']],
      [[1, 'tool_execution'], [2, 'final_response']],
    ]);
    assert.deepEqual(shown.map((e) => e.status), ['completed', 'completed']);
    assert.deepEqual(shown.map((e) => e.text), finalStates.map(textOf));
    assert.equal(await page.textContent('[data-testid=run-status]'), 'completed');
    const pageText = () => page.evaluate(() => document.body.innerText);
    assert.ok(!(await pageText()).includes('chat.completion.chunk'), 'no provider JSON on the page');

    server.setRoute(`/final/${session}.json`, () => ({ body: finalState }));
    await page.click('[data-testid=live-toggle]');
    await page.click('[data-testid=fetch-final]');
    await page.waitForSelector('[data-testid=reconcile-status]');
    const report = await page.evaluate(() => window.stepline.reconciliations.at(-1).report);
    const named = new Set(reconcileCauses().map((c) => c.name));
    assert.deepEqual(report.differences.filter((d) => !named.has(d.cause)), [], 'every difference names a cause');
    assert.equal(report.view.state_status, 'completed');
    assert.equal(await page.textContent('[data-testid=reconcile-status]'), 'consistent');
    // The page slimmed the fetched state itself: a v2 snapshot, without llmConfig.
    assert.equal(await page.evaluate(() => window.stepline.lastSnapshot.state_version), 'v2');

    for (const text of [await pageText(), await page.content(), await page.evaluate(() => JSON.stringify({ view: window.stepline.view, snapshot: window.stepline.lastSnapshot, reconciliations: window.stepline.reconciliations }))]) {
      assert.ok(!text.includes(apiKey), 'the seeded API key appears nowhere');
    }
    // Every tab's text, not only the one open.
    for (const tab of await page.$$eval('[data-testid^=tab-]', (els) => els.map((e) => e.dataset.testid))) {
      await page.click(`[data-testid=${tab}]`);
      assert.ok(!(await pageText()).includes(apiKey), `${tab}: no API key`);
    }
    // What if: a v2 turn is not re-read under v1.22's continuation criteria.
    await page.click('[data-testid=tab-whatif]');
    await page.click('[data-testid=whatif-run]');
    assert.match(await page.textContent('[data-testid=whatif-v2]'), /instructor-php v2\.x.*replayGuards/);
    assert.equal(await page.$('[data-testid=whatif-headline]'), null);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
