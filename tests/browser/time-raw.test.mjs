// The time slider, the waterfall and the raw/conversation views in Chromium:
// the slider replays the run as it arrived (start: empty, middle: the steps
// a session fed the first i lines holds, end: the full view) and follows new
// envelopes unless moved; the waterfall draws parallel tool calls overlapping
// and selects steps by click and Enter, and says when a run has no time axis;
// the raw view shows a step's conversation, the final answer and its
// envelopes, and "Copy as JSON" copies exactly them. Every control is used by
// keyboard alone in the last suite.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openPage, screenshot } from './lib/browser.mjs';
import { openDemo, panelFixture, slideTo } from './lib/panel.mjs';

const env = panelFixture();
const LONG = 30_000;
const RECORDING = readFileSync(new URL('../../www/public/demo-run.jsonl', import.meta.url), 'utf8');

const demo = (demoId = 'instructor', opts) => openDemo(env, demoId, opts);

const status = (page) => page.textContent('[data-testid=time-status]');
const stepRows = (page) => page.locator('[data-testid=step-row]').count();
/** The steps of the view shown, without what depends on the clock. */
const shownSteps = (page) => page.evaluate(() => JSON.stringify(window.stepline.view.executions.map((e) => e.steps)));


/** Presses Tab until the element matching `selector` has focus (keyboard only). */
async function tabTo(page, selector, limit = 200) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

describe('the time slider replays the run as it arrived', () => {
  test('start: empty; middle: the steps of the first i lines; end: the full view', async () => {
    const page = await demo();
    const full = await shownSteps(page);
    const total = Number(await page.getAttribute('[data-testid=time-range]', 'max'));
    assert.equal(total, 105, 'one position per envelope of the bundled run');
    assert.match(await status(page), /^105 envelopes · the end$/);

    await slideTo(page, 0);
    assert.equal(await status(page), 'replaying envelope 0 of 105');
    assert.equal(await page.evaluate(() => window.stepline.view.executions.length), 0);
    assert.equal(await stepRows(page), 0, 'the timeline is empty at the start');
    assert.equal(await page.isVisible('[data-testid=time-end]'), true, 'a way back to the end is offered');

    // The first 40 envelope lines (the recording's first snapshot is line 62).
    const middle = 40;
    await slideTo(page, middle);
    assert.equal(await status(page), `replaying envelope ${middle} of 105`);
    const fresh = await page.evaluate(([text, i]) => {
      const lines = text.split('\n');
      const Session = window.stepline.session.constructor;
      const session = new Session();
      session.ingestJsonl(lines.slice(0, 1 + i).join('\n'));
      const steps = JSON.stringify(session.getSnapshot().executions.map((e) => e.steps));
      session.free();
      return steps;
    }, [RECORDING, middle]);
    assert.equal(await shownSteps(page), fresh, 'the view at envelope i is the view of a session fed the first i lines');
    const rows = await stepRows(page);
    assert.ok(rows > 0 && rows < 9, `some steps, not all: ${rows}`);
    assert.match(await page.textContent('[data-testid=run-status]'), /running|processing/, 'the header reads the prefix too');
    await screenshot(page, 'time-slider-middle-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, 'time-slider-middle-800');
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.click('[data-testid=time-end]');
    assert.equal(await page.evaluate(() => window.stepline.state.time), null);
    assert.equal(await shownSteps(page), full);
    assert.equal(await stepRows(page), 9);
    assert.match(await status(page), /the end/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('new envelopes move the end: followed at the end, kept when the slider was moved', async () => {
    const page = await openPage(env.browser);
    await page.goto(env.server.url);
    await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
    const lines = RECORDING.split('\n');
    // Half the run as a file, then the rest arrives into the same session (as a live run's events do).
    await page.setInputFiles('[data-testid=file-input]', { name: 'half.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.slice(0, 31).join('\n')) });
    await page.waitForFunction(() => window.stepline.source.label === 'half.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    await page.waitForFunction(() => document.querySelector('[data-testid=time-range]').max === '30');
    const feed = (from, to) => page.evaluate(([text]) => window.stepline.session.ingestJsonl(text), [lines.slice(from, to).join('\n')]);
    await feed(31, 41);
    await page.waitForFunction(() => document.querySelector('[data-testid=time-range]').max === '40');
    assert.equal(await page.inputValue('[data-testid=time-range]'), '40', 'at the end, the slider follows it');
    assert.match(await status(page), /^40 envelopes/);

    await slideTo(page, 10);
    await feed(41, 51);
    await page.waitForFunction(() => document.querySelector('[data-testid=time-range]').max === '50');
    assert.equal(await page.inputValue('[data-testid=time-range]'), '10', 'moved by the user, it stays');
    assert.equal(await status(page), 'replaying envelope 10 of 50');
    await page.close();
  });
});

describe('the waterfall puts steps and tool calls on a time axis', () => {
  test('parallel tool calls overlap; click and Enter select the step', async () => {
    const page = await demo('ag-ui');
    await page.click('[data-testid=tab-waterfall]');
    await page.waitForSelector('[data-testid=wf-step-1]');
    assert.match(await page.textContent('[data-testid=waterfall-axis]'), /^0 ms → \d+ ms/);
    const tools = page.locator('[data-testid=wf-tool][data-step="1"]');
    assert.equal(await tools.count(), 2, 'step 1 of the run calls two tools');
    const [a, b] = [await tools.nth(0).locator('.wf-bar').boundingBox(), await tools.nth(1).locator('.wf-bar').boundingBox()];
    assert.ok(a.x < b.x + b.width && b.x < a.x + a.width, `the two tools' bars overlap in time: ${JSON.stringify([a, b])}`);
    assert.notEqual(a.y, b.y, 'each tool call has its own row');
    assert.match(await tools.nth(1).getAttribute('aria-label'), /^Tool get_forecast \(step 1\) · \d+ ms · failed$/);

    await page.click('[data-testid=wf-step-2]');
    assert.deepEqual(await page.evaluate(() => window.stepline.selected), { exec: 0, step: 2 });
    await page.focus('[data-testid=wf-step-1]');
    await page.keyboard.press('Enter');
    assert.deepEqual(await page.evaluate(() => window.stepline.selected), { exec: 0, step: 1 });
    assert.equal(await page.getAttribute('[data-testid=wf-step-1]', 'aria-current'), 'true');
    await screenshot(page, 'waterfall-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, 'waterfall-800');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a run without timestamps keeps the order and says there is no time axis', async () => {
    const page = await demo('ai-sdk');
    await page.click('[data-testid=tab-waterfall]');
    await page.waitForSelector('[data-testid=wf-step-1]');
    assert.match(await page.textContent('[data-testid=waterfall-axis]'), /No time axis: .*frozen clock.*in order/);
    const order = await page.$$eval('.wf-row', (rows) => rows.map((r) => r.textContent));
    assert.deepEqual(order, ['Step 1', '↳ get_weather', '↳ get_forecast', 'Step 2', '↳ convert_units', 'Step 3']);
    await screenshot(page, 'waterfall-untimed-1440');
    await page.close();
  });
});

describe('the raw and conversation views of the selected step', () => {
  test('conversation, final answer and envelopes; "Copy as JSON" copies exactly them', async () => {
    const page = await demo();
    await page.evaluate(() => window.stepline.select(1, 1));
    await page.click('[data-testid=tab-raw]');
    await page.waitForSelector('[data-testid=conversation]');
    const expected = await page.evaluate(() => window.stepline.session.envelopesOf(1, 1));
    assert.equal(expected.input_message_count, 11);
    assert.equal(await page.textContent('[data-testid=input-messages]'),
      'Input: 11 messages in the context (the stream carries their count, not their text).');
    const roles = await page.$$eval('.msg', (items) => items.map((m) => m.dataset.role));
    assert.deepEqual(roles, expected.messages.map((m) => m.role));
    assert.ok(roles.includes('tool_call') && roles.includes('tool_result'), `tool calls and results shown: ${roles}`);
    // v1.22 sends no final answer: the core's final output (the latest streamed text) stands in, said as such.
    assert.equal(await page.evaluate(() => window.stepline.view.executions[1].final_answer), null);
    const output = await page.evaluate(() => window.stepline.session.collect().final_output);
    assert.ok(output.length > 0);
    assert.equal(await page.textContent('[data-testid=raw-final-answer]'), output);
    assert.match(await page.textContent('[data-testid=raw-final-answer-source]'), /no final answer was sent/);

    // The async clipboard, captured.
    await page.evaluate(() => {
      window.copied = null;
      navigator.clipboard.writeText = async (text) => { window.copied = text; };
    });
    await page.click('[data-testid=copy-json]');
    await page.waitForFunction(() => window.copied !== null);
    assert.deepEqual(JSON.parse(await page.evaluate(() => window.copied)), expected.envelopes);
    assert.equal(await page.textContent('[data-testid=copy-status]'), `Copied ${expected.envelopes.length} envelopes.`);
    await screenshot(page, 'raw-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, 'raw-800');

    // Without the async clipboard (refused): the selected-textarea fallback copies the same text.
    await page.evaluate(() => {
      window.copied = null;
      navigator.clipboard.writeText = async () => { throw new Error('not allowed'); };
      document.execCommand = (command) => { window.copied = command === 'copy' ? document.activeElement.value : null; return true; };
    });
    await page.click('[data-testid=copy-json]');
    await page.waitForFunction(() => window.copied !== null);
    assert.deepEqual(JSON.parse(await page.evaluate(() => window.copied)), expected.envelopes);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a streamed final answer is shown as streamed', async () => {
    const page = await demo('ag-ui');
    await page.click('[data-testid=tab-raw]');
    await page.waitForSelector('[data-testid=conversation]');
    const answer = await page.evaluate(() => window.stepline.view.executions[0].final_answer);
    assert.ok(answer, 'the AG-UI demo streams its answer');
    assert.equal(await page.textContent('[data-testid=raw-final-answer]'), answer);
    assert.equal(await page.textContent('[data-testid=raw-final-answer-source]'), 'as streamed');
    await page.close();
  });
});

describe('keyboard alone', () => {
  test('slider keys and buttons, the waterfall and raw tabs, a waterfall row, Copy as JSON', async () => {
    const page = await demo();
    await tabTo(page, '[data-testid=time-range]');
    assert.equal(await page.getAttribute('[data-testid=time-range]', 'aria-label'), 'Envelopes replayed (time)');
    await page.keyboard.press('Home');
    assert.equal(await status(page), 'replaying envelope 0 of 105');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await status(page), 'replaying envelope 2 of 105');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'time-forward');
    await page.keyboard.press('Enter');
    assert.equal(await status(page), 'replaying envelope 3 of 105');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'time-back');
    await page.keyboard.press('Space');
    assert.equal(await status(page), 'replaying envelope 2 of 105');
    await tabTo(page, '[data-testid=time-end]');
    await page.keyboard.press('Enter');
    assert.match(await status(page), /^105 envelopes · the end$/);

    await tabTo(page, '[role=tab][aria-selected=true]');
    await page.keyboard.press('End');
    const lastTab = await page.$$eval('[role=tab]', (tabs) => tabs.at(-1).dataset.testid.replace(/^tab-/, ''));
    assert.equal(await page.evaluate(() => window.stepline.tab), lastTab);
    // Back along the tabs to the waterfall, by arrow keys only.
    for (let i = 0; i < 10 && (await page.evaluate(() => window.stepline.tab)) !== 'waterfall'; i += 1) await page.keyboard.press('ArrowLeft');
    assert.equal(await page.evaluate(() => window.stepline.tab), 'waterfall');
    await tabTo(page, '[data-testid=wf-step-2]');
    await page.keyboard.press('Enter');
    // The bundled run has two turns; the last one is selected on load.
    assert.deepEqual(await page.evaluate(() => window.stepline.selected), { exec: 1, step: 2 });
    for (const id of ['wf-step-1', 'wf-tool']) {
      assert.ok(await page.locator(`[data-testid=${id}]`).first().getAttribute('aria-label'), `${id} has an accessible name`);
    }

    await tabTo(page, '[role=tab][aria-selected=true]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => window.stepline.tab), 'raw');
    await page.evaluate(() => {
      window.copied = null;
      navigator.clipboard.writeText = async (text) => { window.copied = text; };
    });
    await tabTo(page, '[data-testid=copy-json]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.copied !== null);
    assert.deepEqual(JSON.parse(await page.evaluate(() => window.copied)), (await page.evaluate(() => window.stepline.session.envelopesOf(1, 2))).envelopes);
    await page.close();
  });
});
