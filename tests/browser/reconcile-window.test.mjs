// A run longer than the slim snapshot's step window (20 steps with the
// default `standard` preset) in the panel: opened as a recording with a
// standard snapshot line, and live over sockudo with "Fetch final state"
// returning the full AgentState, which the page slims with the default
// preset. Either way the reconcile tab says consistent and how many steps
// were outside the window; the long run comes from scripts/long-run.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { longRun } from '../../scripts/long-run.mjs';
import { servePanel } from '../../scripts/lib/panel-server.mjs';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';
import { distDir, launch, openPage, screenshot } from './lib/browser.mjs';

const STEPS = 39;
const WINDOW_TEXT = "19 steps outside the snapshot's window (it lists steps 20–39): shown as streamed, not compared.";

let browser;
let server;

before(async () => {
  browser = await launch();
  server = await servePanel({ root: distDir });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** What the page shows of its reconciliation, and where the view's steps stand. */
const shown = (page) => page.evaluate(() => ({
  status: document.querySelector('[data-testid=reconcile-status]')?.textContent,
  window: document.querySelector('[data-testid=reconcile-window]')?.textContent,
  differences: document.querySelectorAll('[data-testid=difference]').length,
  steps: window.stepline.view.executions[0].steps.length,
}));

describe('a run longer than the snapshot window', () => {
  test(`a ${STEPS}-step recording with a standard snapshot line reconciles as consistent`, async () => {
    const { recording } = await longRun({ steps: STEPS });
    const page = await openPage(browser);
    await page.goto(server.url);
    await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading);
    await page.setInputFiles('[data-testid=file-input]', { name: 'long-run.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(recording({ preset: 'standard' })) });
    await page.waitForFunction(() => window.stepline?.source.kind === 'file' && !window.stepline.loading);
    await page.click('[data-testid=tab-reconcile]');
    await page.waitForSelector('[data-testid=reconcile-status]');
    assert.deepEqual(await shown(page), { status: 'consistent', window: WINDOW_TEXT, differences: 0, steps: STEPS });
    await screenshot(page, 'panel-long-run-window');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('live: Fetch final state slims a full state with the default preset', () => {
  let sockudo;
  let pub;
  before(async () => {
    sockudo = await startSockudo({ maxPayloadKb: 10 });
    pub = publisher(sockudo);
  });
  after(async () => {
    await sockudo?.stop();
  });

  test(`a ${STEPS}-step live run against its fetched full state is consistent`, async () => {
    const session = 'sess-live-long';
    const { envelopes, state } = await longRun({ steps: STEPS, sessionId: session });
    const params = new URLSearchParams({
      source: 'live', key: sockudo.key, host: '127.0.0.1', port: String(sockudo.port), tls: '0',
      session, final: `/final/${session}.json`, connect: '1',
    });
    const page = await openPage(browser);
    await page.goto(`${server.url}?${params}`);
    await page.waitForFunction(() => window.stepline?.source.detail === 'subscribed', null, { timeout: 20_000 });
    for (const envelope of envelopes) assert.equal(await pub.publish(envelope), 200);
    await page.waitForFunction((n) => window.stepline.view.counts.applied === n, envelopes.length, { timeout: 20_000 });

    server.setRoute(`/final/${session}.json`, () => ({ body: state }));
    await page.click('[data-testid=live-toggle]');
    await page.click('[data-testid=fetch-final]');
    await page.waitForSelector('[data-testid=reconcile-status]');
    assert.deepEqual(await shown(page), { status: 'consistent', window: WINDOW_TEXT, differences: 0, steps: STEPS });
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
