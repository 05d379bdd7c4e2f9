// The panel's state (www/src/state.ts) in Chromium: results belong to the
// run they were computed for, a failed load keeps the run on screen and says
// what to do, find and next-failure work on a 7,000-step run, deep links
// restore the selection and tab, and a downloaded recording re-opens as the
// same view.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { longRun } from '../../scripts/long-run.mjs';
import { openPage, screenshot } from './lib/browser.mjs';
import { panelFixture } from './lib/panel.mjs';

const env = panelFixture();
const LONG = 30_000;

/** The bundled run, loaded. */
async function bundled(opts) {
  const page = await openPage(env.browser, opts);
  await page.goto(env.server.url);
  await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
  return page;
}

const banner = (page) => page.textContent('[data-testid=error]');
// The streamed view (state.view): the downloaded recording carries no snapshot lines, so the final-state endings are not in it.
const executions = (page) => page.evaluate(() => JSON.stringify(window.stepline.state.view.executions));

describe('a load that fails keeps the run on screen and says what to do', () => {
  test('an empty file: "… is empty", the bundled run stays', async () => {
    const page = await bundled();
    const before = await executions(page);
    await page.setInputFiles('[data-testid=file-input]', { name: 'empty.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from('\n  \n') });
    await page.waitForSelector('[data-testid=error]:not([hidden])');
    assert.match(await banner(page), /empty\.jsonl is empty/);
    assert.equal(await page.evaluate(() => window.stepline.source.kind), 'bundled');
    assert.equal(await executions(page), before, 'the previous run is still the one shown');
    await page.close();
  });

  test('a foreign format names the formats stepline reads', async () => {
    const page = await bundled();
    const csv = 'name,age\nann,3\nbob,4\n';
    await page.setInputFiles('[data-testid=file-input]', { name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.waitForSelector('[data-testid=error]:not([hidden])');
    const text = await banner(page);
    assert.match(text, /people\.csv: none of its 3 lines could be read/);
    for (const format of ['instructor-php v1.22 or v2', 'recordings', 'JSON arrays', 'laravel/ai', 'AG-UI', 'AI SDK UI message stream']) {
      assert.ok(text.includes(format), `names ${format}: ${text}`);
    }
    assert.doesNotMatch(text, /at null/);
    assert.equal(await page.evaluate(() => window.stepline.source.kind), 'bundled');
    await page.close();
  });

  test('one bad line among good ones: "1 line could not be read", never "at null"', async () => {
    const good = readFileSync(new URL('../../www/public/demo-run.jsonl', import.meta.url), 'utf8').trimEnd();
    const page = await bundled();
    await page.setInputFiles('[data-testid=file-input]', { name: 'one-bad.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${good}\n{not json\n`) });
    await page.waitForFunction(() => window.stepline.source.label === 'one-bad.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    const text = await banner(page);
    assert.match(text, /^1 line could not be read\. line \d+: /);
    assert.doesNotMatch(text, /at null|1 lines/);
    await page.close();
  });

  test('an unreachable recording URL says what was tried', async () => {
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/nowhere.jsonl`);
    await page.waitForSelector('[data-testid=error]:not([hidden])', { timeout: LONG });
    assert.match(await banner(page), /The recording \/nowhere\.jsonl could not be fetched: the server answered 404.*Check the address/);
    await page.close();
  });

  test('an unreachable Reverb host: host:port, TLS and what to check', async () => {
    const page = await openPage(env.browser);
    page.problems = [];
    // Port 9 (discard) on loopback: nothing listens, the socket is refused.
    await page.goto(`${env.server.url}?source=live&key=app-key&host=127.0.0.1&port=9&tls=0&session=s1&connect=1`);
    await page.waitForFunction(() => /could not be reached/.test(window.stepline?.error ?? ''), null, { timeout: 90_000 });
    const text = await banner(page);
    assert.match(text, /tried ws:\/\/127\.0\.0\.1:9 \(TLS off, app key app-key\)/);
    assert.match(text, /reverb:start.*REVERB_SCHEME.*REVERB_APP_KEY/);
    await page.close();
  });
});

describe('results belong to their run', () => {
  test('a new recording resets what-if, its marks and its limits, and the diagnostics', async () => {
    const page = await bundled();
    await page.click('[data-testid=tab-whatif]');
    await page.fill('input[name=maxSteps]', '2');
    await page.click('[data-testid=whatif-run]');
    await page.waitForSelector('[data-testid=whatif-mark]');
    await page.click('[data-testid=tab-diagnostics]');
    await page.waitForFunction(() => window.stepline.diagnostics !== null);
    const { recording } = await longRun({ steps: 5 });
    await page.setInputFiles('[data-testid=file-input]', { name: 'five.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(recording({ preset: 'standard' })) });
    await page.waitForFunction(() => window.stepline.source.label === 'five.jsonl');
    const after = await page.evaluate(() => ({ whatIf: window.stepline.whatIf, diagnostics: window.stepline.diagnostics, criteria: window.stepline.criteria }));
    assert.equal(after.whatIf, null, 'no what-if result of the previous run');
    assert.equal(await page.locator('[data-testid=whatif-mark]').count(), 0);
    assert.equal(after.criteria.maxSteps, 20, 'the limits are the defaults again, not the 2 typed for the previous run');
    // The diagnostics tab is shown: it recomputes for the new run (or shows nothing), never the old list.
    await page.waitForFunction(() => window.stepline.diagnostics !== null);
    const reconciled = await page.evaluate(() => window.stepline.reconciliations.map((r) => r.label));
    assert.deepEqual(reconciled, ['Turn 1'], 'only the new recording\'s snapshot');
    await page.close();
  });
});

describe('find on a 7,000-step run', () => {
  test('search, the failed filter and next/previous failure', async () => {
    const { recording } = await longRun({ steps: 7000 });
    const text = recording({ preset: 'standard' });
    env.server.setRoute('/long.jsonl', () => ({ type: 'application/x-ndjson', body: text }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/long.jsonl`);
    await page.waitForFunction(() => window.stepline?.source.label === '/long.jsonl' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: 120_000 });
    assert.equal(await page.textContent('[data-testid=find-count]'), '7,000 steps');

    await page.check('[data-testid=find-failed]');
    await page.waitForFunction(() => /of 7,000 steps/.test(document.querySelector('[data-testid=find-count]').textContent));
    const failedCount = await page.textContent('[data-testid=find-count]');
    assert.match(failedCount, /^\d[\d,]* of 7,000 steps$/);
    const states = await page.$$eval('[data-testid=step-row]', (els) => els.map((e) => e.dataset.state));
    assert.ok(states.length > 0 && states.every((s) => s === 'failed'), 'only failed steps are listed');
    await screenshot(page, 'find-failed-7000');
    await page.uncheck('[data-testid=find-failed]');

    // read_file is called by every step k with k % 3 === 2 (scripts/long-run.mjs): 2,333 of them.
    await page.fill('[data-testid=find-text]', 'READ_file');
    await page.waitForFunction(() => document.querySelector('[data-testid=find-count]').textContent === '2,333 of 7,000 steps');
    const texts = await page.$$eval('[data-testid=step-row]', (els) => els.map((e) => e.textContent));
    assert.ok(texts.length > 0 && texts.every((t) => t.includes('read_file')), 'only steps calling read_file are listed');
    await page.fill('[data-testid=find-text]', '');

    // From the first step: n goes to the first failed step, again to the next, p back.
    await page.focus('[data-testid=timeline]');
    await page.keyboard.press('Home');
    await page.keyboard.press('n');
    const first = await page.evaluate(() => window.stepline.selected.step);
    await page.keyboard.press('n');
    const second = await page.evaluate(() => window.stepline.selected.step);
    assert.ok(first > 1 && second > first, `${first} then ${second}`);
    await page.keyboard.press('p');
    assert.equal(await page.evaluate(() => window.stepline.selected.step), first);
    await page.keyboard.press('F8');
    assert.equal(await page.evaluate(() => window.stepline.selected.step), second);
    assert.equal(await page.$eval(`[data-testid=step-row][data-step="${second}"]`, (e) => e.dataset.state), 'failed', 'the failure is on screen');
    assert.equal(await page.getAttribute('[data-testid=timeline]', 'aria-activedescendant'), `step-0-${second}`);
    await page.click('[data-testid=next-failure]');
    assert.ok(await page.evaluate(() => window.stepline.selected.step) > second);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('deep links and export', () => {
  test('the URL keeps the step and tab, and opening it restores them', async () => {
    const page = await bundled();
    await page.click('[data-testid=step-row][data-exec="0"][data-step="2"]');
    await page.click('[data-testid=tab-reconcile]');
    const url = page.url();
    assert.match(url, /exec=0/);
    assert.match(url, /step=2/);
    assert.match(url, /tab=reconcile/);
    const again = await openPage(env.browser);
    await again.goto(url);
    await again.waitForFunction(() => window.stepline?.view && !window.stepline.loading && window.stepline.tools !== null && window.stepline.selected.step === 2, null, { timeout: LONG });
    assert.deepEqual(await again.evaluate(() => ({ ...window.stepline.selected, tab: window.stepline.tab })), { exec: 0, step: 2, tab: 'reconcile' });
    assert.equal(await again.getAttribute('[data-testid=tab-reconcile]', 'aria-selected'), 'true');
    await page.close();
    await again.close();
  });

  test('Download recording, then re-open it: the same view, reconciled with the same final states', async () => {
    const page = await bundled();
    const before = await executions(page);
    const reconciled = (p) => p.evaluate(() => JSON.stringify(window.stepline.state.reconciliations.map((r) => [r.exec, r.label, r.report])));
    const reports = await reconciled(page);
    assert.equal(JSON.parse(reports).length, 2, 'the bundled run holds two final snapshots');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
    assert.match(download.suggestedFilename(), /\.jsonl$/);
    const text = readFileSync(await download.path(), 'utf8');
    await page.setInputFiles('[data-testid=file-input]', { name: 'again.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
    await page.waitForFunction(() => window.stepline.source.label === 'again.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.equal(await executions(page), before);
    assert.equal(await reconciled(page), reports, 'its snapshot lines were written back where they arrived');
    assert.match(await page.textContent('[data-testid=source-detail]'), /2 final snapshots/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
