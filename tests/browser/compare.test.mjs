// The Compare tab in Chromium: the run on screen beside a second recording. The
// core pairs the steps and finds the divergence (`compareRuns`); the page must
// show exactly what the same call in Node reports: no divergence against the
// run itself, and against a copy whose first tool call failed, the step where
// that happened. Loading another run clears the comparison; the file input is
// reachable and named for the keyboard.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { compareRuns, Session } from 'stepline/devtools';

import { openPage, screenshot } from './lib/browser.mjs';
import { panelFixture } from './lib/panel.mjs';

const env = panelFixture();
const LONG = 30_000;
const DEMO = readFileSync(new URL('../../www/public/demo-run.jsonl', import.meta.url), 'utf8');

/** The demo run with its first tool completion failed (the copy to compare with). */
function withFailedTool(text) {
  let done = false;
  return text.split('\n').map((line) => {
    if (done || !line.includes('"agent.tool.completed"')) return line;
    done = true;
    const e = JSON.parse(line);
    e.payload = { ...e.payload, success: false, error: 'timed out' };
    return JSON.stringify(e);
  }).join('\n');
}

/** What the core says in Node for the demo run against `other`. */
function expected(other) {
  const a = Session.fromRecording(DEMO);
  const b = Session.fromRecording(other);
  try {
    return compareRuns(a, b);
  } finally {
    a.free();
    b.free();
  }
}

async function openCompare(opts) {
  const page = await openPage(env.browser, opts);
  await page.goto(`${env.server.url}?demo=instructor`);
  await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
  await page.click('[data-testid=tab-compare]');
  await page.waitForSelector('[data-testid=compare-file]', { timeout: LONG });
  return page;
}

const compareWith = (page, name, text) =>
  page.setInputFiles('[data-testid=compare-file]', { name, mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });

describe('the Compare tab shows the core\'s comparison of two runs', () => {
  test('against itself: every step the same, no divergence, no deltas', async () => {
    const report = expected(DEMO);
    assert.equal(report.divergence, null);
    const page = await openCompare();
    await compareWith(page, 'same.jsonl', DEMO);
    await page.waitForSelector('[data-testid=compare-summary]', { timeout: LONG });
    assert.match(await page.textContent('[data-testid=compare-summary]'), /^same steps with same\.jsonl/);
    const rows = await page.$$eval('[data-testid=compare-row]', (trs) => trs.map((tr) => tr.dataset.differs));
    assert.deepEqual(rows, report.steps.map(() => ''));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('against a copy whose first tool failed: the divergence the core finds, marked; screenshots at 1440 and 800 px', async () => {
    const other = withFailedTool(DEMO);
    const report = expected(other);
    assert.ok(report.divergence, 'the copy diverges');
    const at = `${report.divergence.execution + 1}.${report.divergence.step}`;
    const page = await openCompare();
    await compareWith(page, 'failed-tool.jsonl', other);
    await page.waitForSelector('[data-testid=compare-summary]', { timeout: LONG });
    assert.match(await page.textContent('[data-testid=compare-summary]'), new RegExp(`^diverges at step ${at.replace('.', '\\.')} with failed-tool\\.jsonl`));
    const marked = await page.$$eval('tr.diverges th', (ths) => ths.map((th) => th.textContent));
    assert.deepEqual(marked, [at]);
    assert.match(await page.textContent('tr.diverges'), new RegExp(`diverges: ${report.divergence.differs.join(', ')}`));
    await screenshot(page, 'compare-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await page.locator('[data-testid=compare]').scrollIntoViewIfNeeded();
    await screenshot(page, 'compare-800');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('loading another run clears the comparison; the file input is reached and named by keyboard', async () => {
    const page = await openCompare();
    await compareWith(page, 'same.jsonl', DEMO);
    await page.waitForSelector('[data-testid=compare-summary]', { timeout: LONG });
    await page.setInputFiles('[data-testid=file-input]', { name: 'again.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(DEMO) });
    await page.waitForFunction(() => window.stepline.source.label.includes('again.jsonl') && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
    await page.waitForFunction(() => window.stepline.state.comparison === null, null, { timeout: LONG });
    assert.equal(await page.locator('[data-testid=compare-summary]').count(), 0, 'no comparison of the previous run is left');
    await page.focus('[data-testid=tab-compare]');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    let reached = false;
    for (let i = 0; i < 10 && !reached; i += 1) {
      reached = await page.evaluate(() => document.activeElement?.dataset.testid === 'compare-file');
      if (!reached) await page.keyboard.press('Tab');
    }
    assert.ok(reached, 'Tab reaches the file input');
    const name = await page.evaluate(() => document.activeElement.labels?.[0]?.textContent.trim());
    assert.match(name ?? '', /Second run to compare/);
    await page.close();
  });
});
