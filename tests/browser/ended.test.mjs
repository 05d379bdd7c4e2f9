// Runs that ended look ended: a recording with its final state shows the
// state's ending (the core's reconciled view), not the stream's
// "processing", and a stored state's error says why; an answer that was
// never streamed is shown; what-if starts from the run's own recorded
// outcome; the downloaded recording re-opens with the same ending.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openPage, screenshot } from './lib/browser.mjs';
import { openRecording, panelFixture } from './lib/panel.mjs';

const runs = JSON.parse(readFileSync(new URL('../vectors/cognesy-v1.22/agent-runs.json', import.meta.url), 'utf8'));

/** The corpus writes generated ids as "<uuid>"; a stored state has real ones. */
let ids = 0;
const withIds = (v) => JSON.parse(JSON.stringify(v), (_, x) => (x === '<uuid>' ? `9e000000-0000-4000-8000-${String(++ids).padStart(12, '0')}` : x));

/**
 * A reference run's first turn as a recording: its envelopes, then its final
 * state in a snapshot line: the slim snapshot, or (`stored`) the stored
 * AgentState itself, as a person pastes it from their database.
 */
function recordingOf(prefix, keep = () => true, { stored = false } = {}) {
  const turn = runs.find((r) => r.name.startsWith(prefix)).expected[0];
  const lines = turn.envelopes.map((e) => e.envelope).filter(keep).map((e) => JSON.stringify(e));
  lines.push(JSON.stringify({ stepline_snapshot: stored ? withIds(turn.finalState) : turn.slim }));
  return lines.join('\n');
}
const THROWN = 'tool throws (exception escapes ToolExecutor), default policy';

const env = panelFixture();

async function open(name, text, width = 1440) {
  const page = await openPage(env.browser, { width });
  await openRecording(page, env, name, text);
  await page.waitForFunction((n) => window.stepline?.source.label === n && !window.stepline.loading && window.stepline.tools !== null, name);
  return page;
}

describe('runs that ended look ended', () => {
  test('a run whose driver threw, opened with its stored state, shows failed with the error, not processing', async () => {
    // The reference's exception path: the producer broadcasts no failure, only the final state says failed and why.
    const page = await open('thrown.jsonl', recordingOf(THROWN, undefined, { stored: true }));
    assert.equal(await page.textContent('[data-testid=run-status]'), 'failed');
    assert.equal(await page.textContent('[data-testid=run-from-final]'), 'from the final state');
    assert.equal(await page.textContent('[data-testid=run-error]'), 'Connection refused');
    assert.equal(await page.locator('[data-testid=run-stale]').count(), 0);
    assert.equal(await page.locator('pre.stream.streaming').count(), 0, 'no blinking cursor');
    assert.equal(await page.locator('[data-testid=turn-from-final]').count(), 1);
    await page.click('[data-testid=step-row][data-step="1"]');
    const undecided = await page.textContent('[data-testid=undecided]');
    assert.match(undecided, /^Never decided: the run ended \(failed\)/);
    // Not running: the run ended; and failed, as the final state counts its error (seed 001: a
    // failed tool execution makes the step `error`), which the panel takes from the core's reconciled step.
    assert.equal(await page.textContent('.step-head .pill'), 'failed', 'a step of an ended run is not running');
    assert.equal(await page.textContent('[data-testid=tool-status]'), 'incomplete', 'nor is its tool that never completed');
    assert.equal(await page.textContent('[data-testid=find-count]'), '1 step', 'counted as one, not "1 steps"');
    assert.match(await page.textContent('header'), /1 turn · 1 step(?!s)/);
    await screenshot(page, 'ended-thrown-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, 'ended-thrown-800');

    // What-if starts from the recorded outcome: never finished, not "stopped (completed)".
    await page.click('[data-testid=tab-whatif]');
    await page.click('[data-testid=whatif-run]');
    const recorded = await page.textContent('[data-testid=whatif-recorded]');
    assert.match(recorded, /^As recorded: /);
    assert.doesNotMatch(recorded, /stopped \(completed\)/i);
    await screenshot(page, 'ended-whatif-800');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('with only its slim snapshot, the thrown run says which step counted the error and that the text is not kept', async () => {
    const page = await open('thrown-slim.jsonl', recordingOf(THROWN));
    assert.equal(await page.textContent('[data-testid=run-status]'), 'failed');
    assert.equal(await page.textContent('[data-testid=run-error]'),
      'failed with 1 error in step 1; the final snapshot keeps no error text (a stored agent state does)');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('Download recording, then re-open it: the same ending, from the same final state', async () => {
    const page = await open('thrown.jsonl', recordingOf(THROWN, undefined, { stored: true }));
    const shown = (p) => p.evaluate(() => [...document.querySelectorAll('[data-testid=run-status], [data-testid=run-error], [data-testid=run-from-final], [data-testid=turn-from-final]')]
      .map((el) => `${el.dataset.testid}: ${el.textContent}`));
    const before = await shown(page);
    assert.ok(before.includes('run-error: Connection refused'), before.join(' | '));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
    const text = readFileSync(await download.path(), 'utf8');
    assert.equal(text.match(/"stepline_snapshot"/g).length, 1, 'the final state is in the recording');
    assert.ok(!text.includes('"agentId"'), 'written slim, not the whole stored state');
    assert.match(text, /"error":"Connection refused"/);
    await page.setInputFiles('[data-testid=file-input]', { name: 'thrown-again.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
    await page.waitForFunction(() => window.stepline.source.label === 'thrown-again.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.deepEqual(await shown(page), before);
    await screenshot(page, 'ended-reopened-1440');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('an answer that was not streamed is shown from the final state', async () => {
    const page = await open('unstreamed.jsonl', recordingOf('direct final answer (1 step)', (e) => e.type !== 'agent.stream.chunk'));
    await page.waitForFunction(() => document.querySelector('[data-testid=stream-text]')?.textContent !== '');
    assert.equal(await page.textContent('[data-testid=stream-text]'), 'It is sunny, 21°C.');
    assert.match(await page.textContent('[data-testid=stream-title]'), /^Final answer · turn 1 · from the final state/);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'completed');
    await screenshot(page, 'ended-unstreamed-1440');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('keyboard only: the what-if form is reached and submitted without a mouse', async () => {
    const page = await open('thrown.jsonl', recordingOf('tool throws (exception escapes ToolExecutor), default policy'));
    await page.focus('[data-testid=tab-whatif]');
    await page.keyboard.press('Enter');
    await page.focus('.whatif-form input[name=maxSteps]');
    assert.ok(await page.$eval('.whatif-form input[name=maxSteps]', (el) => el.labels.length > 0), 'the limit has a label');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=whatif-recorded]');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('the live region announces step changes and the run end, not each of 200 chunks', async () => {
    const base = { session_id: 'sess-live-region', execution_id: 'exec-1' };
    const at = (ms) => new Date(Date.UTC(2026, 0, 20, 12, 0, 0, ms)).toISOString();
    const start = [
      { ...base, type: 'agent.status', timestamp: at(0), payload: { status: 'processing', previous_status: 'idle' } },
      { ...base, type: 'agent.step.started', timestamp: at(1), payload: { step_number: 1, message_count: 1, available_tools: 0 } },
    ];
    const page = await open('live-region.jsonl', start.map((l) => JSON.stringify(l)).join('\n'));
    const said = await page.evaluate(async ({ base, n }) => {
      const region = document.querySelector('[data-testid=announcer]');
      const messages = [];
      new MutationObserver(() => messages.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const session = window.stepline.session;
      const t = (ms) => new Date(Date.UTC(2026, 0, 20, 12, 0, 1, ms)).toISOString();
      // One chunk per rendered frame: every chunk renders, as it would live.
      for (let i = 0; i < n; i += 1) {
        session.ingest({ ...base, type: 'agent.stream.chunk', timestamp: t(i), payload: { content: `word${i} `, is_complete: false, chunk_index: i } });
        await frame();
      }
      session.ingest({ ...base, type: 'agent.step.completed', timestamp: t(n), payload: { step_number: 1, has_tool_calls: false, errors: 0, finish_reason: 'stop', usage: { input: 1, output: n, cacheWrite: 0, cacheRead: 0, reasoning: 0 }, duration_ms: 900 } });
      await frame();
      session.ingest({ ...base, type: 'agent.status', timestamp: t(n + 1), payload: { status: 'completed', previous_status: 'processing' } });
      await frame();
      return { messages, text: document.querySelector('[data-testid=stream-text]').textContent };
    }, { base, n: 200 });
    assert.ok(said.text.startsWith('word0 word1 '), 'the chunks rendered');
    assert.ok(said.text.includes('word199'), 'every chunk rendered');
    assert.deepEqual(said.messages, ['Turn 1, step 1 completed.', 'Turn 1 ended: completed after step 1.']);
    assert.equal(await page.getAttribute('[data-testid=stream-text]', 'aria-live'), null, 'the streamed text is not a live region');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`every pill and badge has AA contrast (4.5:1) in the ${colorScheme} scheme`, async () => {
      const page = await openPage(env.browser, { colorScheme });
      await openRecording(page, env, 'thrown.jsonl', recordingOf('tool throws (exception escapes ToolExecutor), default policy'));
      await page.waitForFunction(() => window.stepline?.source.label === 'thrown.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
      const seen = [];
      for (const open of [() => page.goto(env.server.url), null]) {
        if (open) {
          await open();
          await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null);
        }
        for (const tab of ['usage', 'reconcile', 'diagnostics', 'whatif']) {
          await page.click(`[data-testid=tab-${tab}]`);
          if (tab === 'whatif') await page.click('[data-testid=whatif-run]');
          seen.push(...await page.$$eval('.pill, .badge, .kind', (els) => {
            const rgba = (c) => {
              const m = c.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
              return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 };
            };
            const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
            // The colour behind an element: its own background over its ancestors', down to the page.
            const background = (el) => {
              const layers = [];
              for (let n = el; n; n = n.parentElement) layers.push(rgba(getComputedStyle(n).backgroundColor));
              return layers.reverse().reduce((under, top) => over(top, under), { r: 255, g: 255, b: 255, a: 1 });
            };
            const lum = ({ r, g, b }) => {
              const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
              return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
            };
            return els.filter((el) => el.getClientRects().length > 0 && el.textContent.trim() !== '').map((el) => {
              const bg = background(el);
              const fg = over(rgba(getComputedStyle(el).color), bg);
              const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
              return { what: `${el.className}: ${el.textContent.trim().slice(0, 30)}`, ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100 };
            });
          }));
        }
      }
      assert.ok(seen.length > 10, `pills were found (${seen.length})`);
      const low = [...new Map(seen.filter((p) => p.ratio < 4.5).map((p) => [p.what, p])).values()];
      assert.deepEqual(low, [], 'every pill reaches 4.5:1');
      await page.close();
    });
  }

  test('800 px: the find bar takes two rows, no label is cut and no header overlaps another', async () => {
    const page = await open('thrown.jsonl', recordingOf('tool throws (exception escapes ToolExecutor), default policy'), 800);
    for (const tab of ['usage', 'reconcile', 'diagnostics', 'whatif']) {
      await page.click(`[data-testid=tab-${tab}]`);
      if (tab === 'whatif') await page.click('[data-testid=whatif-run]');
      const layout = await page.evaluate(() => {
        const box = (el) => el.getBoundingClientRect();
        const visible = (el) => el.getClientRects().length > 0;
        // Items of one row share their vertical centre (align-items: center).
        const rows = new Set([...document.querySelectorAll('.find > *')].filter(visible).map((el) => Math.round((box(el).top + box(el).bottom) / 2 / 8)));
        // A control or label whose text does not fit its box is cut.
        const cut = [...document.querySelectorAll('button, label, .pill, .badge, h2, h3, [role=tab], select')]
          .filter((el) => visible(el) && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== 'visible')
          .map((el) => el.textContent.trim().slice(0, 40));
        const heads = [...document.querySelectorAll('header, .timeline h2, .step-head, [role=tablist]')].filter(visible).map(box);
        const overlaps = [];
        heads.forEach((a, i) => heads.slice(i + 1).forEach((b) => {
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps.push([i, i + 1]);
        }));
        return { findRows: rows.size, cut, overlaps, wide: document.documentElement.scrollWidth > innerWidth };
      });
      assert.ok(layout.findRows <= 2, `the find bar takes ${layout.findRows} rows`);
      assert.deepEqual(layout.cut, [], `no cut labels on ${tab}`);
      assert.deepEqual(layout.overlaps, [], `no overlapping headers on ${tab}`);
      assert.equal(layout.wide, false, 'no horizontal scroll');
      await screenshot(page, `ended-800-${tab}`);
    }
    await page.close();
  });

  test('keyboard only: Tab reaches every control, each has an accessible name, and the tabs answer Home/End', async () => {
    const page = await open('thrown.jsonl', recordingOf('tool throws (exception escapes ToolExecutor), default policy'));
    await page.focus('[data-testid=tab-whatif]');
    await page.keyboard.press('Enter');
    await page.click('[data-testid=whatif-run]');
    await page.focus('[data-testid=tab-reconcile]');
    await page.keyboard.press('Enter');
    // Every control a mouse can use on this page, in the order Tab visits them.
    const controls = await page.$$eval('button, input, select, a[href], [tabindex="0"]', (els) => els
      .filter((el) => el.getClientRects().length > 0 && !el.disabled && el.tabIndex >= 0 && !el.closest('[hidden]'))
      .map((el) => { el.dataset.kbd = String(Math.random()); return el.dataset.kbd; }));
    const reached = new Set();
    const unnamed = [];
    await page.evaluate(() => document.activeElement?.blur());
    for (let i = 0; i < controls.length * 2 + 10; i += 1) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return null;
        const name = el.getAttribute('aria-label') || (el.labels?.[0]?.textContent ?? '') || el.getAttribute('aria-labelledby') && document.getElementById(el.getAttribute('aria-labelledby'))?.textContent || el.textContent || el.title || el.placeholder;
        return { id: el.dataset.kbd ?? null, name: (name ?? '').trim(), what: el.outerHTML.slice(0, 80) };
      });
      if (!at) continue;
      if (at.id) reached.add(at.id);
      if (!at.name) unnamed.push(at.what);
    }
    const missed = controls.filter((c) => !reached.has(c));
    const missedHtml = await page.$$eval('[data-kbd]', (els, ids) => els.filter((el) => ids.includes(el.dataset.kbd)).map((el) => el.outerHTML.slice(0, 80)), missed);
    assert.deepEqual(missedHtml, [], 'Tab reaches every control');
    assert.deepEqual([...new Set(unnamed)], [], 'every control has an accessible name');
    // The tabs: arrows, Home and End move between them (the README's keys).
    await page.focus('[data-testid=tab-reconcile]');
    await page.keyboard.press('End');
    const lastTab = await page.$$eval('[role=tab]', (tabs) => tabs.at(-1).dataset.testid);
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), lastTab);
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'tab-usage');
    // The find bar's filter works without a mouse.
    await page.focus('[data-testid=find-failed]');
    await page.keyboard.press('Space');
    assert.equal(await page.evaluate(() => window.stepline.find.failedOnly), true);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
