// The in-page devtools overlay (`stepline/devtools-overlay`, issue 30) in the example
// apps (examples/react with its React wrapper, examples/vue with its Vue wrapper), built
// in development mode (where `import.meta.env.DEV` keeps the overlay in), in headless
// Chromium, following a live instructor run from real sockudo (scripts/long-run.mjs:
// 36 steps, every tenth step's first tool fails). For each framework:
//   - the collapsed badge shows the run's status and failure count as the run goes;
//   - opened, the overlay shows each step as it arrives, the failed tool's step marked,
//     and, once the run ended, the reconcile report of the final state it fetched from
//     the page's server (`final-state="/agents/{session}/state"`);
//   - "Download recording" gives a file the standalone panel (www/dist) opens to the
//     same view;
//   - the app's own Session is only read: its view is the one a Session fed the same
//     envelopes in Node gives.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { longRun } from '../../scripts/long-run.mjs';
import { servePanel } from '../../scripts/lib/panel-server.mjs';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';
import { distDir, launch, openPage, screenshot } from './lib/browser.mjs';
import { buildExample, eventLog, serveExample } from './lib/example-server.mjs';
import { openRecording } from './lib/panel.mjs';

const STEPS = 36;
// Generous: the machine may be busy (a wait, not a timed assertion).
const WAIT_MS = 30_000;
const OVERLAY = 'stepline-devtools';

let sockudo;
let pub;
let browser;
let panelServer;
const built = mkdtempSync(join(tmpdir(), 'stepline-overlay-'));
const servers = {};

before(async () => {
  sockudo = await startSockudo();
  pub = publisher(sockudo);
  browser = await launch();
  panelServer = await servePanel({ root: distDir });
  for (const name of ['react', 'vue']) servers[name] = await serveExample(await buildExample(name, join(built, name), { development: true }));
});
after(async () => {
  await browser?.close();
  await panelServer?.close();
  for (const server of Object.values(servers)) await server.close();
  await sockudo?.stop();
  rmSync(built, { recursive: true, force: true });
});

async function broadcast(log, envelopes) {
  for (const envelope of envelopes) {
    log.record(envelope);
    assert.equal(await pub.publish(envelope), 200);
  }
}

/** Inside the overlay's shadow root (Playwright's CSS selectors pierce open shadow roots). */
const inOverlay = (selector) => `${OVERLAY} ${selector}`;
const text = (page, selector) => page.locator(inOverlay(selector)).first().textContent();

/** Waits until the badge says `status` with `failures` failed tool calls. */
async function badgeSays(page, status, failures) {
  await page.waitForFunction(([tag, s, f]) => {
    const root = document.querySelector(tag)?.shadowRoot;
    return root?.querySelector('[data-testid=overlay-status]')?.textContent === s
      && root.querySelector('[data-testid=overlay-failures]')?.dataset.count === String(f);
  }, [OVERLAY, status, failures], { timeout: WAIT_MS });
}

for (const name of ['react', 'vue']) {
  describe(`the devtools overlay in examples/${name} (stepline/devtools-overlay/${name})`, () => {
    test('the badge follows the live run; opened, the overlay shows steps as they arrive, the failed tool, the reconcile report, and a recording the standalone panel opens to the same view', async () => {
      const sessionId = `sess-overlay-${name}`;
      const { envelopes, state: finalState } = await longRun({ steps: STEPS, sessionId, executionId: 'exec-overlay' });
      const log = eventLog();
      servers[name].addLog(sessionId, log);
      servers[name].addFinalState(sessionId, finalState);

      const page = await openPage(browser);
      const params = new URLSearchParams({ key: sockudo.key, host: sockudo.host, port: String(sockudo.port), tls: '0', session: sessionId });
      await page.goto(`${servers[name].url}?${params}`);
      await page.waitForFunction(() => window.__agentRun?.subscribed === true, null, { timeout: WAIT_MS });
      // The adapter listed the run in the page's registry; the overlay, collapsed, is its badge.
      assert.deepEqual(await page.evaluate(() => [...globalThis.__STEPLINE_DEVTOOLS__.runs].map((r) => r.label)), [`agent.${sessionId}`]);
      await badgeSays(page, 'waiting', 0);
      assert.equal(await page.evaluate(() => typeof window.stepline), 'undefined');

      // Up to step 12's start: step 10's first tool failed.
      const startOf = (n) => envelopes.findIndex((e) => e.type === 'agent.step.started' && e.payload.step_number === n);
      await broadcast(log, envelopes.slice(0, startOf(12)));
      await badgeSays(page, 'processing', 1);

      await page.click(inOverlay('[data-testid=overlay-badge]'));
      await page.waitForSelector(inOverlay('[data-testid=step-row][data-step="11"]'), { timeout: WAIT_MS });
      assert.equal(await page.getAttribute(inOverlay('[data-testid=step-row][data-step="10"]'), 'data-state'), 'failed', 'the failed tool\'s step is marked');
      assert.equal(await page.getAttribute(inOverlay('[data-testid=step-row][data-step="9"]'), 'data-state'), 'ok');

      // Each later step is on the overlay before the next one is sent.
      for (let n = 12; n <= STEPS; n += 1) {
        const upTo = n === STEPS ? envelopes.length : startOf(n + 1);
        await broadcast(log, envelopes.slice(startOf(n), upTo));
        await page.waitForSelector(inOverlay(`[data-testid=step-row][data-step="${n}"]`), { timeout: WAIT_MS });
      }
      await page.waitForFunction(() => window.__agentRun.view.executions.at(-1)?.ended === true, null, { timeout: WAIT_MS });
      assert.equal(await text(page, '[data-testid=run-status]'), 'completed');

      // Once the run ended, the overlay fetched the final state and reconciled with it.
      await page.click(inOverlay('[data-testid=tab-reconcile]'));
      await page.waitForSelector(inOverlay('[data-testid=reconcile-status]'), { timeout: WAIT_MS });
      assert.equal(await text(page, '[data-testid=reconcile-status]'), 'consistent');
      const overlaySummary = await text(page, '[data-testid=summary]');
      assert.match(overlaySummary, new RegExp(`${STEPS} steps`));
      if (name === 'react') {
        for (const width of [1440, 800]) {
          await page.setViewportSize({ width, height: 900 });
          await screenshot(page, `overlay-${width}`);
        }
        await page.setViewportSize({ width: 1440, height: 900 });
      }

      // The recording, downloaded from the overlay, opens in the standalone panel to the same view.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(inOverlay('[data-testid=export]'))]);
      const recording = readFileSync(await download.path(), 'utf8');
      const standalone = await openPage(browser);
      await openRecording(standalone, { server: panelServer }, download.suggestedFilename(), recording);
      await standalone.waitForFunction(() => window.stepline.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: WAIT_MS });
      assert.equal(await standalone.textContent('[data-testid=summary]'), overlaySummary);
      await standalone.click('[data-testid=tab-reconcile]');
      assert.equal(await standalone.textContent('[data-testid=reconcile-status]'), 'consistent');
      const reopened = await standalone.evaluate(() => window.stepline.view.executions.map((e) => e.steps.map((s) => s.tools.map((t) => t.status))));
      assert.equal(reopened[0].length, STEPS);
      assert.equal(reopened.flat(2).filter((s) => s === 'failed').length, 3);
      assert.deepEqual(standalone.problems, []);
      await standalone.close();

      // Collapsed again, the badge has the ended run: completed, three failed tools.
      await page.click(inOverlay('[data-testid=overlay-collapse]'));
      await badgeSays(page, 'completed', 3);

      // The app's Session was only read: its view is what the same envelopes give in Node.
      const stepline = await import('stepline');
      const reference = new stepline.Session({ sessionId });
      for (const envelope of envelopes) reference.ingest(envelope);
      const appView = await page.evaluate(() => window.__agentRun.view);
      assert.deepEqual(appView.executions, JSON.parse(JSON.stringify(reference.getSnapshot().executions)));
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  });
}
