// Every producer's stream in the one panel, in headless Chromium: the same
// run (scripts/lib/dialects/run.mjs canonicalRun(): two tool steps, one tool
// failing, reasoning, non-ASCII text, a final answer) encoded as laravel/ai
// broadcasts, AG-UI events and AI SDK UI message chunks by each dialect's
// encoder, plus instructor-php v1.22's bundled run, opened by `?recording=`,
// as a JSON array dropped on the page, from the bundled-run picker, and live
// under laravel/ai's own event names. Each shows its dialect, steps, tools
// (the failed one failed), reasoning and the reason the run ended; screenshots
// at 1440 and 800 px go to test-results/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as agUi from '../../scripts/lib/dialects/ag-ui.mjs';
import * as aiSdk from '../../scripts/lib/dialects/ai-sdk.mjs';
import * as laravelAi from '../../scripts/lib/dialects/laravel-ai.mjs';
import { approvalRun, canonicalRun } from '../../scripts/lib/dialects/run.mjs';
import { DIALECTS, demoRecordings } from '../../scripts/demo-run-dialects.mjs';
import { openPage, screenshot } from './lib/browser.mjs';
import { panelFixture, stepsShown } from './lib/panel.mjs';

const env = panelFixture({ live: true });
const run = canonicalRun();
const failing = run.steps[0].tools.find((t) => t.error);
const finalAnswer = run.steps.at(-1).text;

/**
 * The end reason each producer states for the run, in its own words: laravel/ai's
 * `stream_end` reason and the AI SDK's `finish` finishReason (from their
 * encoders), AG-UI's RUN_FINISHED outcome (`success` when it names none).
 */
const END_REASONS = {
  'laravel-ai': laravelAi.streamEndReason(run.steps.at(-1).finishReason),
  'ai-sdk': aiSdk.finishReason(run.steps.at(-1).finishReason),
  'ag-ui': 'success',
};

const loaded = (page) => page.waitForFunction(() => window.stepline?.view && !window.stepline.loading && window.stepline.tools !== null && window.stepline.source.detail !== 'loading…');
const text = (page, selector) => page.textContent(selector).then((t) => t?.trim() ?? null);

/**
 * What every dialect's run must show: the dialect pill, 3 steps, step 1's two
 * tools (get_forecast failed with its error), its reasoning (collapsed until
 * opened), the final answer as step 3's text, status and the end reason.
 */
async function assertCanonicalRun(page, dialect) {
  assert.deepEqual(await page.$$eval('[data-testid=dialect]', (els) => els.map((e) => e.textContent)), [dialect], 'the dialect pill');
  assert.equal(await stepsShown(page), run.steps.length);
  assert.equal(await page.locator('[data-testid=step-row]').count(), run.steps.length);
  assert.equal(await text(page, '[data-testid=run-status]'), 'completed');
  assert.equal(await text(page, '[data-testid=run-end-reason]'), `ended: ${END_REASONS[dialect]}`, `${dialect}: the producer's end reason`);

  // Step 1: its tools, the failed one failed with the producer's error, and its reasoning.
  await page.click('[data-testid=step-row][data-step="1"]');
  assert.equal(await page.getAttribute('[data-testid=step-row][data-step="1"]', 'data-state'), 'failed');
  const tools = await page.$$eval('[data-testid=tool-run]', (rows) => rows.map((r) => ({
    name: r.querySelector('code').textContent, status: r.dataset.status, state: r.querySelector('[data-testid=tool-status]').textContent,
    error: r.querySelector('[data-testid=tool-error]')?.textContent ?? null, result: r.querySelector('[data-testid=tool-result]')?.textContent ?? null,
  })));
  assert.deepEqual(tools.map((t) => [t.name, t.status]), run.steps[0].tools.map((t) => [t.name, t.error ? 'failed' : 'succeeded']));
  const failed = tools.find((t) => t.name === failing.name);
  assert.equal(failed.state, 'failed');
  assert.ok(failed.error.includes(failing.error), `${dialect}: the tool's error is shown (${failed.error})`);
  assert.ok(tools.find((t) => t.name === 'get_weather').result.includes('sonnig'), `${dialect}: the tool's result is shown`);
  const reasoning = page.locator('[data-testid=step-reasoning]');
  assert.equal(await reasoning.getAttribute('open'), null, 'reasoning starts collapsed');
  await reasoning.locator('summary').click();
  assert.equal(await reasoning.locator('pre').textContent(), run.steps[0].reasoning);

  // Step 3: the final answer, non-ASCII intact.
  await page.click('[data-testid=step-row][data-step="3"]');
  assert.equal(await page.textContent('[data-testid=step-text]'), finalAnswer);
  assert.ok((await page.textContent('[data-testid=stream-text]')).endsWith(finalAnswer));
  await page.click('[data-testid=step-row][data-step="1"]');
}

describe('a recording of each dialect', () => {
  const recordings = demoRecordings(run);

  for (const dialect of Object.keys(DIALECTS)) {
    test(`${dialect}: opened by ?recording=, shows its dialect, steps, tools, reasoning and end reason`, async () => {
      env.server.setRoute(`/recordings/${dialect}.jsonl`, () => ({ type: 'application/x-ndjson', body: recordings[dialect] }));
      for (const width of [1440, 800]) {
        const page = await openPage(env.browser, { width });
        await page.goto(`${env.server.url}?recording=/recordings/${dialect}.jsonl`);
        await loaded(page);
        assert.equal(await page.evaluate(() => window.stepline.error), null);
        await assertCanonicalRun(page, dialect);
        await screenshot(page, width === 1440 ? `dialect-${dialect}` : `dialect-${dialect}-800`);
        assert.deepEqual(page.problems, []);
        await page.close();
      }
    });
  }

  test('instructor v1.22: the bundled run shows its dialect, its failed tool and how it ended', async () => {
    const page = await openPage(env.browser, { width: 800 });
    await page.goto(env.server.url);
    await loaded(page);
    assert.deepEqual(await page.$$eval('[data-testid=dialect]', (els) => els.map((e) => e.textContent)), ['v1.22']);
    assert.ok(await stepsShown(page) > 0);
    assert.equal(await text(page, '[data-testid=run-status]'), 'stopped');
    const failedStep = await page.getAttribute('[data-testid=step-row][data-state=failed]', 'data-step');
    await page.click(`[data-testid=step-row][data-exec="0"][data-step="${failedStep}"]`);
    assert.equal(await page.locator('[data-testid=tool-run][data-status=failed]').count(), 1);
    assert.equal(await page.locator('[data-testid=step-reasoning]').count(), 0, 'v1.22 streams no reasoning');
    await screenshot(page, 'dialect-v1.22-800');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a JSON array of AG-UI events dropped on the page opens like its JSONL', async () => {
    const events = agUi.encode(structuredClone(run));
    const page = await openPage(env.browser);
    await page.goto(env.server.url);
    await loaded(page);
    const json = JSON.stringify(events, null, 2);
    const dataTransfer = await page.evaluateHandle((content) => {
      const dt = new DataTransfer();
      dt.items.add(new File([content], 'ag-ui-run.json', { type: 'application/json' }));
      return dt;
    }, json);
    await page.dispatchEvent('body', 'drop', { dataTransfer });
    await page.waitForFunction(() => window.stepline.source.label === 'ag-ui-run.json' && !window.stepline.loading && window.stepline.tools !== null);
    await loaded(page);
    assert.match(await page.textContent('[data-testid=source-detail]'), /JSON array/);
    assert.equal(await page.evaluate(() => window.stepline.error), null);
    await assertCanonicalRun(page, 'ag-ui');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a bad element of a JSON array is named by its position; the rest still shows', async () => {
    const events = aiSdk.encode(structuredClone(run));
    const broken = [...events.slice(0, 3), { type: 'text-delta', id: 7 }, ...events.slice(3)];
    env.server.setRoute('/recordings/broken.json', () => ({ body: JSON.stringify(broken) }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/recordings/broken.json`);
    await loaded(page);
    assert.match(await page.textContent('[data-testid=error]'), /^1 event could not be read\. event 4: /);
    assert.equal(await stepsShown(page), run.steps.length);
    await page.close();
  });

  test('a gap in a stream is shown: a text delta whose start never arrived (AI SDK)', async () => {
    const chunks = [
      { type: 'start', messageId: 'msg-gap' },
      { type: 'start-step' },
      { type: 'text-delta', id: 'txt-never-started', delta: 'Grüße' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'stop' },
    ];
    env.server.setRoute('/recordings/gap.jsonl', () => ({ body: chunks.map((c) => JSON.stringify(c)).join('\n') }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/recordings/gap.jsonl`);
    await loaded(page);
    assert.match(await text(page, '[data-testid=warning-count]'), /^\d+ warnings?$/);
    await page.click('[data-testid=warning-count]');
    const gaps = await page.$$eval('[data-testid=stream-warning][data-code=gap]', (els) => els.map((e) => e.textContent));
    assert.ok(gaps.some((g) => g.includes('text-delta')), `a gap names the chunk: ${gaps}`);
    await screenshot(page, 'dialect-gap');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('the picker opens the bundled run of each producer', async () => {
    const page = await openPage(env.browser);
    await page.goto(env.server.url);
    await loaded(page);
    for (const [id, dialect] of [['laravel-ai', 'laravel-ai'], ['ag-ui', 'ag-ui'], ['ai-sdk', 'ai-sdk'], ['instructor', 'v1.22']]) {
      await page.selectOption('[data-testid=demo-picker]', id);
      await page.waitForFunction((want) => window.stepline.demo === want && window.stepline.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, id);
      await loaded(page);
      assert.deepEqual(await page.$$eval('[data-testid=dialect]', (els) => els.map((e) => e.textContent)), [dialect]);
      if (id === 'ai-sdk') {
        // The AI SDK demo streams message metadata and a data part: the run data section lists them.
        const names = await page.$$eval('[data-testid=run-data-name]', (els) => els.map((e) => e.textContent));
        assert.ok(names.length > 0, 'run data entries are shown');
        await screenshot(page, 'dialect-ai-sdk-demo');
      }
    }
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('approvals are visible states', () => {
  test('a call awaiting approval, a denied and an approved call say so (AI SDK chunks)', async () => {
    const chunks = [
      { type: 'start', messageId: 'msg-approval' },
      { type: 'start-step' },
      { type: 'tool-input-available', toolCallId: 'call_ls', toolName: 'list_files', input: { dir: '/tmp' } },
      { type: 'tool-approval-request', approvalId: 'appr_0', toolCallId: 'call_ls' },
      { type: 'tool-output-available', toolCallId: 'call_ls', output: ['ö.txt'] },
      { type: 'tool-input-available', toolCallId: 'call_rm', toolName: 'delete_file', input: { path: '/tmp/ö.txt' } },
      { type: 'tool-approval-request', approvalId: 'appr_1', toolCallId: 'call_rm' },
      { type: 'tool-input-available', toolCallId: 'call_mail', toolName: 'send_mail', input: { to: 'a@b.c' } },
      { type: 'tool-approval-request', approvalId: 'appr_2', toolCallId: 'call_mail' },
      { type: 'tool-output-denied', toolCallId: 'call_mail' },
    ];
    env.server.setRoute('/recordings/approval.jsonl', () => ({ body: chunks.map((c) => JSON.stringify(c)).join('\n') }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/recordings/approval.jsonl`);
    await loaded(page);
    const rows = await page.$$eval('[data-testid=tool-run]', (els) => els.map((r) => [r.querySelector('code').textContent, r.dataset.approval,
      r.querySelector('[data-testid=tool-status]').textContent, r.querySelector('[data-testid=tool-approval]')?.textContent ?? null]));
    assert.deepEqual(rows, [
      ['list_files', 'approved', 'ok', 'approved'],
      ['delete_file', 'requested', 'awaiting approval', null],
      ['send_mail', 'denied', 'denied', null],
    ]);
    assert.match(await page.textContent('[data-testid=step-row][data-step="1"]'), /1 awaiting approval/);
    await screenshot(page, 'dialect-approvals');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('approvals in every dialect that carries them', () => {
  const approvals = approvalRun();
  const gated = approvals.steps[0].tools;

  /** The step-1 tool rows as [name, data-approval, state word]. */
  const toolRows = (page) => page.$$eval('[data-testid=tool-run]', (els) => els.map((r) => [r.querySelector('code').textContent, r.dataset.approval, r.querySelector('[data-testid=tool-status]').textContent]));

  for (const [dialect, encode] of Object.entries(DIALECTS)) {
    test(`${dialect}: an approved call ran, a denied call says denied`, async () => {
      const events = encode(structuredClone(approvals));
      env.server.setRoute(`/recordings/approvals-${dialect}.jsonl`, () => ({ body: events.map((e) => JSON.stringify(e)).join('\n') }));
      const page = await openPage(env.browser);
      await page.goto(`${env.server.url}?recording=/recordings/approvals-${dialect}.jsonl`);
      await loaded(page);
      assert.equal(await page.evaluate(() => window.stepline.error), null);
      // laravel/ai and AG-UI pause the run for the decision and resume it as a new
      // run: the calls are decided in the last turn that shows them.
      const turn = await page.evaluate(() => window.stepline.view.executions.findLastIndex((e) => e.steps[0]?.tools.length > 0));
      await page.click(`[data-testid=step-row][data-exec="${turn}"][data-step="1"]`);
      assert.deepEqual(await toolRows(page), gated.map((t) => [t.name, t.approval, t.approval === 'approved' ? 'ok' : 'denied']));
      await screenshot(page, `dialect-${dialect}-approvals`);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  }

  test('laravel-ai: a run paused at its tool_approval_request shows both calls awaiting approval', async () => {
    const events = laravelAi.encode(structuredClone(approvals));
    const cut = events.findIndex((e) => e.type === 'tool_approval_request');
    assert.ok(cut > 0);
    env.server.setRoute('/recordings/paused.jsonl', () => ({ body: events.slice(0, cut + 1).map((e) => JSON.stringify(e)).join('\n') }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/recordings/paused.jsonl`);
    await loaded(page);
    await page.click('[data-testid=step-row][data-step="1"]');
    assert.deepEqual(await toolRows(page), gated.map((t) => [t.name, 'requested', 'awaiting approval']));
    assert.match(await page.textContent('[data-testid=step-row][data-step="1"]'), /2 awaiting approval/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe('live: laravel/ai broadcasts under their own event names', () => {
  test('a run broadcast on the app\'s channel shows as it arrives; other events are counted, not read', async () => {
    const channel = 'chat.4711';
    const page = await openPage(env.browser);
    const params = new URLSearchParams({ source: 'live', key: env.sockudo.key, host: '127.0.0.1', port: String(env.sockudo.port), tls: '0', channel, connect: '1' });
    await page.goto(`${env.server.url}?${params}`);
    await page.waitForFunction(() => window.stepline?.source.detail === 'subscribed', null, { timeout: 20_000 });
    const events = laravelAi.encode(structuredClone(run));
    // The app's own event on the same channel: not an agent event.
    assert.equal(await env.pub.publish({ order: 42 }, { channel, eventName: 'App\\Events\\OrderShipped' }), 200);
    for (const event of events) {
      assert.equal(await env.pub.publish(event, { channel, eventName: laravelAi.eventName(event) }), 200);
    }
    // The run is complete on the page once its last stream_end arrived (one per provider step).
    await page.waitForFunction(({ reason, steps }) => {
      const e = window.stepline.view.executions.at(-1);
      return e?.end_reason === reason && e.steps.length === steps && e.status === 'completed';
    }, { reason: END_REASONS['laravel-ai'], steps: run.steps.length }, { timeout: 15_000 });
    // Echo hands the app's event over without its App\Events namespace.
    await page.waitForFunction(() => / · ignored 1 event under other names \(last: \.?OrderShipped\)/.test(window.stepline.source.detail));
    await assertCanonicalRun(page, 'laravel-ai');
    await screenshot(page, 'dialect-laravel-ai-live');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
