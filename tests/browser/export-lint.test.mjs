// The panel's OpenTelemetry export, its step explanation from the core, and
// the payload lint in the Diagnostics tab, in Chromium; every control used
// here is reached by keyboard alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openPage, screenshot } from './lib/browser.mjs';
import { panelFixture } from './lib/panel.mjs';

const env = panelFixture();
const LONG = 30_000;
const DEMO = readFileSync(new URL('../../www/public/demo-run.jsonl', import.meta.url), 'utf8').trimEnd();

async function bundled(opts) {
  const page = await openPage(env.browser, opts);
  await page.goto(env.server.url);
  await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
  return page;
}

/** Presses Tab until the element matching `selector` has focus (keyboard only). */
async function tabTo(page, selector) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  assert.fail(`${selector} is not reachable with Tab`);
}

describe('Download OTLP', () => {
  test('by keyboard: the downloaded JSON holds the run as invoke_agent → chat → execute_tool spans', async () => {
    const page = await bundled();
    assert.equal(await page.getAttribute('[data-testid=export-otlp]', 'title') !== null, true);
    assert.match(await page.textContent('[data-testid=export-otlp]'), /Download OTLP/);
    await tabTo(page, '[data-testid=export-otlp]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    assert.match(download.suggestedFilename(), /\.otlp\.json$/);
    const body = JSON.parse(readFileSync(await download.path(), 'utf8'));
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const op = (s) => s.attributes.find((a) => a.key === 'gen_ai.operation.name')?.value.stringValue;
    const runs = spans.filter((s) => op(s) === 'invoke_agent');
    const chats = spans.filter((s) => op(s) === 'chat');
    const tools = spans.filter((s) => op(s) === 'execute_tool');
    assert.ok(runs.length >= 1 && chats.length >= 1 && tools.length >= 1, `${runs.length} runs, ${chats.length} chats, ${tools.length} tools`);
    const ids = new Set(chats.map((s) => s.spanId));
    assert.ok(tools.every((t) => ids.has(t.parentSpanId)), 'each tool span nests in an inference span');
    assert.ok(chats.every((c) => runs.some((r) => r.spanId === c.parentSpanId)), 'each inference span nests in the run span');
    // The same spans as the package API gives for the session shown.
    assert.equal(spans.length, await page.evaluate(() => window.stepline.session.exportOtlp().resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length));
    await screenshot(page, 'export-otlp-1440');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('the step explanation is the core\'s', () => {
  test('the "why" line is step.explanation, word for word', async () => {
    const page = await bundled();
    await page.waitForSelector('[data-testid=why]');
    const expected = await page.evaluate(() => {
      const { view, selected } = window.stepline;
      const steps = view.executions[selected.exec].steps;
      // `step: null` selects the execution's last step.
      return (selected.step === null ? steps.at(-1) : steps.find((s) => s.number === selected.step))?.explanation;
    });
    assert.ok(expected, 'the selected step has an explanation');
    assert.equal((await page.textContent('[data-testid=why]')).trim(), expected);
    await page.close();
  });
});

/** The demo run with one tool result padded so its envelope line is `bytes` long. */
function withEnvelopeOf(bytes) {
  const lines = DEMO.split('\n');
  const i = lines.findIndex((l) => l.includes('"agent.tool.completed"'));
  const e = JSON.parse(lines[i]);
  e.payload.result_summary = '';
  const base = JSON.stringify(e).length;
  e.payload.result_summary = 'x'.repeat(bytes - base);
  lines[i] = JSON.stringify(e);
  assert.equal(Buffer.byteLength(lines[i]), bytes);
  return { text: lines.join('\n') + '\n', step: e.payload.step_number ?? null };
}

describe('payload lint', () => {
  for (const width of [1440, 800]) {
    test(`a 9.9 KB envelope shows as near Reverb's limit in Diagnostics, with its index, type and step (${width} px)`, async () => {
      const { text } = withEnvelopeOf(9_900);
      const page = await bundled({ width });
      await page.setInputFiles('[data-testid=file-input]', { name: 'big-envelope.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
      await page.waitForFunction(() => window.stepline.source.label === 'big-envelope.jsonl' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: LONG });
      await tabTo(page, '[role=tab][aria-selected=true]');
      // Arrow keys move between tabs; stop at Diagnostics.
      for (let i = 0; i < 6 && (await page.getAttribute('[data-testid=tab-diagnostics]', 'aria-selected')) !== 'true'; i++) {
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('Enter');
      }
      assert.equal(await page.getAttribute('[data-testid=tab-diagnostics]', 'aria-selected'), 'true');
      const near = page.locator('[data-testid=diagnostic][data-code=envelope_near_size_limit]');
      await near.first().waitFor({ timeout: LONG });
      const shown = await near.first().textContent();
      assert.match(shown, /envelope \d+ \(agent\.tool\.completed, step \d+\)/);
      assert.match(shown, /9,?900/);
      await near.first().scrollIntoViewIfNeeded();
      await screenshot(page, `payload-lint-${width}`);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  }
});
