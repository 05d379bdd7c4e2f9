// The devtools panel in headless Chromium on the bundled run: the steps, tool
// runs, continuation trace, usage bars and the per-turn reconciliation are on
// the page, keyboard navigation works, and screenshots in both colour schemes
// land in test-results/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPage, screenshot } from './lib/browser.mjs';
import { panelFixture } from './lib/panel.mjs';

const env = panelFixture();

async function openBundled(colorScheme = 'light') {
  const page = await openPage(env.browser, { colorScheme });
  await page.goto(env.server.url);
  await page.waitForFunction(() => window.stepline?.source.detail.includes('snapshots') && window.stepline.tools !== null);
  return page;
}

const rows = (page) => page.$$eval('[data-testid=step-row]', (els) => els.map((e) => ({
  exec: Number(e.dataset.exec), step: Number(e.dataset.step), state: e.dataset.state, text: e.textContent,
})));

describe('the panel on the bundled run', () => {
  test('shows both turns with every step, its type, duration and tokens', async () => {
    const page = await openBundled();
    const all = await rows(page);
    assert.deepEqual(all.map((r) => `${r.exec}:${r.step}`), ['0:1', '0:2', '0:3', '0:4', '1:1', '1:2', '1:3', '1:4', '1:5']);
    assert.equal(all[1].state, 'failed', 'the step with the failed read_file is marked failed');
    assert.match(all[0].text, /tool_execution.*tool_calls.*query_metrics, search_logs.*3\.\d\d s.*3\.5k tok/);
    assert.match(all[3].text, /final_response.*stop.*no tools/);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'stopped');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a step shows its tool runs, trace rows and why the run went on', async () => {
    const page = await openBundled();
    await page.click('[data-testid=step-row][data-exec="0"][data-step="1"]');
    const tools = await page.$$eval('[data-testid=tool-run]', (els) => els.map((e) => e.textContent));
    assert.equal(tools.length, 2);
    assert.match(tools[0], /query_metrics.*checkout.*740 ms.*ok/);
    assert.match(tools[1], /search_logs.*1\.32 s/);
    const trace = await page.$$eval('[data-testid=trace-row]', (els) => els.map((e) => e.textContent));
    assert.deepEqual(trace.map((t) => t.split(/allow|request|forbid|stop/)[0]),
      ['StepsLimit', 'TokenUsageLimit', 'ExecutionTimeLimit', 'ErrorPolicyCriterion', 'FinishReasonCheck', 'ToolCallPresenceCheck']);
    assert.match(await page.textContent('[data-testid=why]'), /^Went on: ToolCallPresenceCheck requested another step/);

    await page.click('[data-testid=step-row][data-exec="0"][data-step="2"]');
    const failed = await page.textContent('[data-testid=tool-run]');
    assert.match(failed, /read_file.*ENOENT: no such file or directory.*failed/);
    assert.match(await page.textContent('[data-testid=trace]'), /Tool error, retrying \(1\/3\)/);

    await page.click('[data-testid=step-row][data-exec="1"][data-step="5"]');
    assert.equal(await page.textContent('[data-testid=why]'), 'Stopped (steps_limit) by StepsLimit: Step limit reached: 5/5.');
    assert.match(await page.textContent('[data-testid=stream-text]'), /Tests pass\. Running the full suite once more before asking for review\.\n\n$/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('usage bars: one per step of the selected turn, with its numbers', async () => {
    const page = await openBundled();
    await page.click('[data-testid=step-row][data-exec="0"][data-step="4"]');
    const bars = await page.$$eval('[data-testid=usage-bar]', (els) => els.map((e) => e.getAttribute('aria-label')));
    assert.equal(bars.length, 4);
    assert.equal(bars[0], 'Step 1: input 1840, output 96, cache write 1536, cache read 0, reasoning 64 (total 3536)');
    await page.click('[data-testid=step-row][data-exec="1"][data-step="1"]');
    assert.equal(await page.locator('[data-testid=usage-bar]').count(), 5);
    assert.equal(await page.locator('[data-testid=usage-bar] rect.seg').count() > 5 * 3, true, 'bars are stacked from their parts');
    await page.close();
  });

  test('each turn reconciles with its final snapshot', async () => {
    const page = await openBundled();
    await page.click('[data-testid=tab-reconcile]');
    const reports = await page.$$eval('[data-testid=reconcile-report]', (els) => els.map((e) => e.textContent));
    assert.equal(reports.length, 2);
    assert.deepEqual(await page.$$eval('[data-testid=reconcile-status]', (els) => els.map((e) => e.textContent)), ['consistent', 'consistent']);
    await page.click('[data-testid=tab-diagnostics]');
    await page.waitForSelector('[data-testid=no-diagnostics]');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('what-if: a lower step limit marks where turn 1 would have stopped', async () => {
    const page = await openBundled();
    await page.click('[data-testid=step-row][data-exec="0"][data-step="1"]');
    await page.click('[data-testid=tab-whatif]');
    assert.equal(await page.inputValue('input[name=maxSteps]'), '5', 'the limits the recording ran under are prefilled');
    await page.fill('input[name=maxSteps]', '3');
    await page.click('[data-testid=whatif-run]');
    assert.equal(await page.textContent('[data-testid=whatif-headline]'), 'Turn 1 would have stopped after step 3, 1 step earlier.');
    assert.equal(await page.getAttribute('[data-testid=whatif-mark]', 'title'), 'the what-if limits stop the run here');
    assert.equal(await page.$eval('[data-testid=whatif-mark]', (e) => e.closest('[data-testid=step-row]').dataset.step), '3');
    await page.selectOption('select[name=errorPolicy]', 'stopOnAnyError');
    await page.fill('input[name=maxSteps]', '20');
    await page.click('[data-testid=whatif-run]');
    assert.equal(await page.textContent('[data-testid=whatif-headline]'), 'Turn 1 would have stopped after step 2, 2 steps earlier.');
    await page.close();
  });

  test('the keyboard moves through steps and tabs', async () => {
    const page = await openBundled();
    await page.click('[data-testid=step-row][data-exec="0"][data-step="1"]');
    await page.focus('[data-testid=timeline]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.$eval('[data-testid=step-row][aria-selected=true]', (e) => `${e.dataset.exec}:${e.dataset.step}`), '0:3');
    await page.keyboard.press('End');
    assert.equal(await page.$eval('[data-testid=step-row][aria-selected=true]', (e) => `${e.dataset.exec}:${e.dataset.step}`), '1:5');
    await page.focus('[data-testid=tab-usage]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('[data-testid=tab-reconcile]', 'aria-selected'), 'true');
    await page.close();
  });

  test('screenshots in light and dark colour schemes', async () => {
    for (const scheme of ['light', 'dark']) {
      const page = await openBundled(scheme);
      await page.click('[data-testid=step-row][data-exec="0"][data-step="2"]');
      await page.click('[data-testid=tab-reconcile]');
      const path = await screenshot(page, `panel-bundled-${scheme}`);
      assert.ok(path.endsWith(`panel-bundled-${scheme}.png`));
      assert.deepEqual(page.problems, []);
      await page.close();
    }
  });
});
