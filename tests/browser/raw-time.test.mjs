// The Raw tab follows the time slider: moved back to envelope i, the selected
// step's envelopes and conversation are those a session fed the recording's
// first i envelopes holds (computed here in Node with the same package, not
// hard-coded); a step that had not started by then says so; back at the end
// the whole step shows again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Session } from 'stepline/devtools';
import { screenshot } from './lib/browser.mjs';
import { openDemo, panelFixture, slideTo } from './lib/panel.mjs';

const env = panelFixture();
const RECORDING = readFileSync(new URL('../../www/public/demo-run.jsonl', import.meta.url), 'utf8');
const LINES = RECORDING.split('\n');

/** The bundled run's session in Node, fed the recording's first `lines` lines (the header is line 0). */
function nodeSession(lines) {
  const s = new Session();
  s.ingestJsonl(LINES.slice(0, lines).join('\n'));
  return s;
}

/** How many envelopes a session's timeline holds (the slider's unit). */
function envelopeCount(s) {
  const t = s.timeline();
  const n = t.length;
  t.free();
  return n;
}

const demo = (demoId = 'instructor', opts) => openDemo(env, demoId, opts);


/** The envelopes the Raw tab shows (its JSON), or null when it shows none. */
const shownEnvelopes = (page) => page.evaluate(() => {
  const pre = document.querySelector('[data-testid=raw] [data-testid=raw-json]');
  return pre ? JSON.parse(pre.textContent) : null;
});
const shownRoles = (page) => page.$$eval('[data-testid=raw] .msg', (items) => items.map((m) => m.dataset.role));

describe('the Raw tab shows the selected step as it stood at the time slider', () => {
  test('middle: the envelopes and messages of the first i envelopes; a later step says it had not started; the end shows all', async () => {
    const page = await demo();
    const total = Number(await page.getAttribute('[data-testid=time-range]', 'max'));
    const whole = nodeSession(LINES.length);
    assert.equal(envelopeCount(whole), total, 'the slider counts the envelopes the core replays');
    await page.click('[data-testid=tab-raw]');
    await page.waitForSelector('[data-testid=raw-json]');

    // The middle of the run. Before the recording's first snapshot line, line k is envelope k
    // (line 0 is the header): checked, not assumed.
    const middle = Math.floor(total / 2);
    const prefix = nodeSession(1 + middle);
    assert.equal(envelopeCount(prefix), middle, `the first ${1 + middle} lines hold ${middle} envelopes`);
    await slideTo(page, middle);
    // The selection follows the prefix: its last turn, its latest step.
    const { exec, step } = await page.evaluate(() => {
      const e = window.stepline.selected.exec;
      return { exec: e, step: window.stepline.view.executions[e].steps.at(-1).number };
    });
    await page.waitForSelector(`[data-testid=raw] h3:text-is("Conversation · step ${step}")`);
    const then = prefix.envelopesOf(exec, step);
    const all = whole.envelopesOf(exec, step);
    assert.ok(then && all);
    assert.ok(then.envelopes.length < all.envelopes.length, `the step is mid-way at ${middle}: ${then.envelopes.length} of ${all.envelopes.length}`);
    assert.deepEqual(await shownEnvelopes(page), then.envelopes, 'Raw shows only what had arrived');
    assert.match(await page.textContent('[data-testid=raw] h3:has-text("Envelopes as received")'), new RegExp(`\\(${then.envelopes.length}\\)$`));
    assert.deepEqual(await shownRoles(page), then.messages.map((m) => m.role), 'the conversation as it stood');
    assert.equal(await page.textContent('[data-testid=raw-time]'), `As it stood after envelope ${middle} of ${total} (the time slider).`);
    await screenshot(page, 'raw-time-middle-1440');
    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, 'raw-time-middle-800');
    await page.setViewportSize({ width: 1440, height: 900 });

    // The same step selected, and the slider moved to just before it started
    // (the first position whose view holds it, found with the core's timeline in Node).
    await page.evaluate(([e, n]) => window.stepline.select(e, n), [exec, step]);
    const timeline = whole.timeline();
    let started = 0;
    while (!timeline.viewAt(started).executions[exec]?.steps.some((x) => x.number === step)) started += 1;
    timeline.free();
    assert.ok(started > 0 && started <= middle, `step ${step} starts at envelope ${started}`);
    await slideTo(page, started - 1);
    await page.waitForSelector('[data-testid=raw-empty]');
    assert.equal(await page.textContent('[data-testid=raw-empty]'),
      `Step ${step} had not started by envelope ${started - 1} of ${total}. Move the slider forward or back to the end to see it.`);
    assert.equal(await shownEnvelopes(page), null);
    assert.equal(await page.textContent('[data-testid=no-step]'),
      `Step ${step} had not started by envelope ${started - 1} of ${total}. Move the slider forward or back to the end to see it.`, 'the step detail says so too');
    await page.setViewportSize({ width: 800, height: 900 });
    await screenshot(page, 'raw-time-not-started-800');
    await page.setViewportSize({ width: 1440, height: 900 });
    // One envelope later it had: its first envelope only.
    await slideTo(page, started);
    await page.waitForSelector('[data-testid=raw-json]');
    const first = nodeSession(1 + started);
    assert.deepEqual(await shownEnvelopes(page), first.envelopesOf(exec, step).envelopes);
    first.free();
    assert.equal((await shownEnvelopes(page)).length, 1);

    // Back to the end: the whole step.
    await page.click('[data-testid=time-end]');
    await page.waitForFunction(() => window.stepline.state.time === null);
    await page.waitForFunction((n) => JSON.parse(document.querySelector('[data-testid=raw-json]')?.textContent ?? '[]').length === n, all.envelopes.length);
    assert.deepEqual(await shownEnvelopes(page), all.envelopes);
    assert.deepEqual(await shownRoles(page), all.messages.map((m) => m.role));
    assert.equal(await page.isVisible('[data-testid=raw-time]'), false);
    assert.deepEqual(page.problems, []);
    prefix.free();
    whole.free();
    await page.close();
  });
});
