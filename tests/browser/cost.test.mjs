// The Usage tab's cost in Chromium: a price table typed into the form is
// priced by the core (`session.cost`) per step and per run, kept in
// localStorage across a reload, an unknown model shows the core's "no price
// for model X" (never $0), a table that is not JSON is an alert; the last
// suite uses every control by keyboard alone; a v2 stored state's own price
// table (llmConfig.pricing) is offered, and a state without one says why.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { pricesFromState, Session } from 'stepline/devtools';
import { openPage, screenshot } from './lib/browser.mjs';
import { openRecording, panelFixture } from './lib/panel.mjs';

const env = panelFixture();
const LONG = 30_000;
const TABLE = '{ "gpt-4o": { "input": 2.5, "output": 10, "cacheRead": 1.25 } }';

async function demo(opts) {
  const page = await openPage(env.browser, opts);
  await page.goto(`${env.server.url}?demo=instructor`);
  await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
  await page.waitForSelector('[data-testid=cost]', { timeout: LONG });
  return page;
}

/** Step 1's usage priced by hand from the view's numbers (the expectation, not the panel's code). */
const expectedFirstStep = (page) => page.evaluate(() => {
  const u = window.stepline.view.executions[window.stepline.selected.exec].steps[0].usage;
  const total = (u.input * 2.5 + u.output * 10 + u.cacheRead * 1.25 + u.cacheWrite * 2.5 + u.reasoning * 2.5) / 1e6;
  return Math.round(total * 1e6) / 1e6;
});

const stepCell = (page, n) => page.textContent(`[data-testid=cost-steps] tr[data-step="${n}"] td:nth-child(2)`);

async function apply(page, table, model = '') {
  await page.fill('[data-testid=cost-model]', model);
  await page.fill('[data-testid=cost-table]', table);
  await page.click('[data-testid=cost-apply]');
}

describe('the Usage tab prices the run with a price table', () => {
  test('per step and per run, kept across a reload; screenshots at 1440 and 800 px', async () => {
    const page = await demo();
    assert.match(await page.textContent('[data-testid=cost-result]'), /Set a price table/);
    await apply(page, TABLE);
    await page.waitForSelector('[data-testid=cost-steps]', { timeout: LONG });
    const steps = await page.evaluate(() => window.stepline.view.executions[window.stepline.selected.exec].steps.length);
    assert.equal(await page.locator('[data-testid=cost-steps] tbody tr').count(), steps, 'one row per step of the selected turn');
    const first = await expectedFirstStep(page);
    assert.ok(first > 0, 'the bundled run reports usage on step 1');
    assert.equal(await stepCell(page, 1), `$${first.toFixed(6)}`);
    assert.match(await page.textContent('[data-testid=cost-run]'), /^Run: \$\d+\.\d+ \(gpt-4o\)$/);
    await screenshot(page, 'cost-usage-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await page.locator('[data-testid=cost]').scrollIntoViewIfNeeded();
    await screenshot(page, 'cost-usage-800');

    await page.reload();
    await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
    await page.waitForSelector('[data-testid=cost-steps]', { timeout: LONG });
    assert.equal(await page.inputValue('[data-testid=cost-table]'), TABLE, 'the table is kept in localStorage');
    assert.equal(await stepCell(page, 1), `$${first.toFixed(6)}`);
    await page.close();
  });

  test('a model without a price says so instead of $0; a bad table is an alert', async () => {
    const page = await demo();
    await apply(page, TABLE, 'claude');
    await page.waitForSelector('[data-testid=cost-steps]', { timeout: LONG });
    assert.equal(await page.textContent('[data-testid=cost-run]'), 'Run: no price for model claude');
    assert.equal(await stepCell(page, 1), 'no price for model claude');
    assert.doesNotMatch(await page.textContent('[data-testid=cost-result]'), /\$0/);
    await apply(page, '{ "gpt-4o": { "input": -1 } }');
    const alert = await page.waitForSelector('[data-testid=cost-error][role=alert]', { timeout: LONG });
    assert.match(await alert.textContent(), /non-negative.*\/prices\/gpt-4o\/input/);
    await page.close();
  });
});

describe('keyboard only', () => {
  test('Tab reaches the model, the table and Apply, each with an accessible name', async () => {
    const page = await demo();
    for (const [id, name] of [['cost-model', 'Model'], ['cost-table', 'Price table (JSON, USD per 1,000,000 tokens)']]) {
      assert.equal(await page.evaluate((i) => document.getElementById(i).labels[0].textContent, id), name);
    }
    const tabTo = async (selector) => {
      for (let i = 0; i < 300; i++) {
        if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await tabTo('[data-testid=cost-model]');
    await page.keyboard.type('gpt-4o');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'cost-table');
    await page.keyboard.type('{"gpt-4o": {"input": 2.5, "output": 10}}');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Apply prices');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=cost-steps]', { timeout: LONG });
    assert.match(await page.textContent('[data-testid=cost-run]'), /^Run: \$\d/);
    await page.close();
  });
});

describe('the price table a v2 stored state carries', () => {
  const runs = JSON.parse(readFileSync(new URL('../vectors/instructor-php-v2.7/agent-runs.json', import.meta.url), 'utf8'));
  const turn = runs.find((r) => r.name === 'tool call then answer [debug]').expected[0];
  let ids = 0;
  const stored = (pricing) => {
    const state = JSON.parse(JSON.stringify(turn.finalState), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++ids).padStart(12, '0')}` : v));
    return { ...state, llmConfig: { ...state.llmConfig, pricing } };
  };
  const recording = (state) => [...turn.envelopes.map((e) => JSON.stringify(e.envelope)), JSON.stringify({ stepline_snapshot: state })].join('\n');

  test('is offered, and using it prices the run as session.cost with pricesFromState does', async () => {
    const state = stored({ input: 3, output: 15 });
    const session = new Session();
    for (const e of turn.envelopes) session.ingest(e.envelope);
    const expected = session.cost(pricesFromState(state).prices).cost;
    assert.ok(expected > 0, 'the run has priced tokens');
    const page = await openPage(env.browser, { width: 800 });
    await openRecording(page, env, 'priced.jsonl', recording(state));
    await page.waitForFunction(() => window.stepline.source.label === 'priced.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    await page.click('[data-testid=tab-usage]');
    assert.equal(await page.textContent('[data-testid=cost-use-state]'), "Use the final state's prices (fake-model)");
    await page.focus('[data-testid=cost-use-state]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=cost-run]');
    assert.equal(await page.textContent('[data-testid=cost-run]'), `Run: $${expected.toFixed(6)} (fake-model)`);
    assert.equal(await page.inputValue('[data-testid=cost-model]'), 'fake-model');
    await screenshot(page, 'cost-state-prices-800');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a state without prices says why, and offers nothing', async () => {
    const page = await openPage(env.browser);
    await openRecording(page, env, 'unpriced.jsonl', recording(stored([])));
    await page.waitForFunction(() => window.stepline.source.label === 'unpriced.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    await page.click('[data-testid=tab-usage]');
    assert.match(await page.textContent('[data-testid=cost-offer-none]'), /^The final state carries no prices: llmConfig\.pricing is empty/);
    assert.equal(await page.locator('[data-testid=cost-use-state]').count(), 0);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
