// The standalone panel shows a recording with the `stepline` entry and loads
// `stepline/devtools` after that first paint (issue 29; www/src/devtools.ts). Held back
// here, the bundled run renders whole while the views that need the devtools say they
// are loading; let through, the run moves to a devtools session with what the person
// chose kept (turn, step, tab), and the time slider, Raw, diagnostics, what-if and the
// OTLP export work.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { longRun } from '../../scripts/long-run.mjs';
import { openPage } from './lib/browser.mjs';
import { panelFixture, slideTo } from './lib/panel.mjs';

const env = panelFixture();

/**
 * The page with every request for the devtools entry's chunk held until `release()`;
 * `recording`: a recording text the page opens from `?recording=/held-run.jsonl`.
 */
async function openHeld(recording) {
  const page = await openPage(env.browser);
  if (recording) await page.route((url) => url.pathname === '/held-run.jsonl', (route) => route.fulfill({ status: 200, contentType: 'application/x-ndjson', body: recording }));
  const held = [];
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  // Vite's chunk of pkg/devtools.js (the dynamic import in www/src/devtools.ts).
  await page.route(/\/assets\/devtools-[^/]*\.js$/, async (route) => {
    held.push(route.request().url());
    await gate;
    await route.continue();
  });
  const wasm = [];
  page.on('response', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url()); });
  await page.goto(recording ? `${env.server.url}?recording=/held-run.jsonl` : env.server.url);
  return { page, held, release, wasm };
}

const rowKeys = (page) => page.$$eval('[data-testid=step-row]', (els) => els.map((e) => `${e.dataset.exec}:${e.dataset.step}`));

describe('the panel before and after stepline/devtools loads', () => {
  test('the bundled run renders in full while the devtools are held back', async () => {
    const { page, held, release, wasm } = await openHeld();
    await page.waitForFunction(() => window.stepline?.source.detail.includes('snapshots'));
    assert.deepEqual(await rowKeys(page), ['0:1', '0:2', '0:3', '0:4', '1:1', '1:2', '1:3', '1:4', '1:5']);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'stopped');
    // The reconciliation against each turn's final snapshot is the core's, there already.
    assert.equal(await page.evaluate(() => window.stepline.reconciliations.length), 2);
    assert.equal(held.length, 1, 'the devtools chunk was asked for after the first paint');
    assert.equal(await page.evaluate(() => window.stepline.tools), null);
    assert.equal(wasm.length, 1, `one wasm before the devtools: ${wasm.join(', ')}`);
    // What needs the devtools says it is loading, and nothing fails.
    assert.equal(await page.getAttribute('[data-testid=time]', 'data-devtools'), 'loading');
    assert.ok(await page.isDisabled('[data-testid=time-range]'));
    await page.click('[data-testid=step-row][data-exec="0"][data-step="2"]');
    await page.click('[data-testid=tab-raw]');
    assert.match(await page.textContent('[data-testid=raw] [data-testid=devtools-loading]'), /Loading the devtools \(stepline\/devtools\)/);
    await page.click('[data-testid=tab-diagnostics]');
    assert.match(await page.textContent('[data-testid=diagnostics] [data-testid=devtools-loading]'), /for the diagnostics/);
    release();
    await page.waitForFunction(() => window.stepline.tools !== null);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('once they load, the run moves to them with the selection kept, and every devtools view works', async () => {
    const { page, release, wasm } = await openHeld();
    await page.waitForFunction(() => window.stepline?.source.detail.includes('snapshots'));
    const before = await page.evaluate(() => JSON.stringify(window.stepline.view));
    await page.click('[data-testid=step-row][data-exec="1"][data-step="3"]');
    await page.click('[data-testid=tab-raw]');
    release();
    await page.waitForFunction(() => window.stepline.tools !== null);
    assert.equal(wasm.length, 2, 'the devtools wasm loaded');
    // The same run, read again by the devtools entry; the person's choices stand.
    assert.equal(await page.evaluate(() => JSON.stringify(window.stepline.view)), before);
    assert.deepEqual(await page.evaluate(() => window.stepline.selected), { exec: 1, step: 3 });
    assert.equal(await page.evaluate(() => window.stepline.tab), 'raw');
    assert.equal(await page.evaluate(() => window.stepline.reconciliations.length), 2);
    // Raw: the step's envelopes.
    await page.waitForSelector('[data-testid=raw-json]');
    assert.ok(JSON.parse(await page.textContent('[data-testid=raw-json]')).length > 0);
    // The time slider.
    assert.equal(await page.getAttribute('[data-testid=time]', 'data-devtools'), 'ready');
    const total = Number(await page.getAttribute('[data-testid=time-range]', 'max'));
    assert.ok(total > 30, `the run has ${total} envelopes`);
    await slideTo(page, 10);
    assert.equal(await page.evaluate(() => window.stepline.state.time.at), 10);
    await slideTo(page, total);
    // Diagnostics and what-if.
    await page.click('[data-testid=tab-diagnostics]');
    await page.waitForSelector('[data-testid=diagnostics] [data-testid=diagnostic], [data-testid=no-diagnostics]');
    await page.click('[data-testid=tab-whatif]');
    await page.click('[data-testid=whatif-run]');
    await page.waitForSelector('[data-testid=whatif-headline]');
    // The OTLP export.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-otlp]')]);
    const body = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(body.resourceSpans[0].scopeSpans[0].spans.filter((s) => s.name === 'invoke_agent').length, 2);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a 39-step recording, longer than its snapshot window, moves to the devtools whole: the same view, reconciled, and a timeline over every envelope', async () => {
    const { recording } = await longRun({ steps: 39 });
    const text = recording({ preset: 'standard' });
    const { page, release } = await openHeld(text);
    await page.waitForFunction(() => window.stepline?.view?.executions[0]?.steps.length === 39 && !window.stepline.loading);
    assert.equal(await page.evaluate(() => window.stepline.tools), null);
    const before = await page.evaluate(() => JSON.stringify(window.stepline.view));
    const reconciled = await page.evaluate(() => window.stepline.reconciliations.map((r) => [r.report.differences.length, r.report.window.outside_step_count]));
    assert.deepEqual(reconciled, [[0, 19]], 'consistent, 19 steps outside the standard window');
    await page.click('[data-testid=step-row][data-exec="0"][data-step="30"]');
    release();
    await page.waitForFunction(() => window.stepline.tools !== null);
    assert.equal(await page.evaluate(() => JSON.stringify(window.stepline.view)), before);
    assert.deepEqual(await page.evaluate(() => window.stepline.reconciliations.map((r) => [r.report.differences.length, r.report.window.outside_step_count])), [[0, 19]]);
    assert.deepEqual(await page.evaluate(() => window.stepline.selected), { exec: 0, step: 30 });
    // The timeline replays every envelope the recording holds (its event lines).
    const events = text.split('\n').filter((l) => l.trim() && !l.includes('"stepline_recording"') && !l.includes('"stepline_snapshot"')).length;
    assert.equal(Number(await page.getAttribute('[data-testid=time-range]', 'max')), events);
    await slideTo(page, Math.floor(events / 2));
    const half = await page.evaluate(() => window.stepline.view.executions[0].steps.length);
    assert.ok(half > 0 && half < 39, `half the envelopes show part of the run (${half} steps)`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
