// Recordings opened as files, in headless Chromium: every string from events
// renders as text (XSS payloads in every field the panel shows), and a
// 100,000-event recording loads with progress and keeps the DOM small.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { generateRecordingText } from '../../bench/generate-envelopes.mjs';
import { openPage, screenshot } from './lib/browser.mjs';
import { openRecording, panelFixture } from './lib/panel.mjs';

const PAYLOADS = [
  '<img src=x onerror="window.__xss=(window.__xss||0)+1">',
  '"><script>window.__xss=(window.__xss||0)+1</script>',
  '<svg onload="window.__xss=(window.__xss||0)+1"></svg>',
];
const [IMG, SCRIPT, SVG] = PAYLOADS;

/** A v1.22-dialect run whose every free-text field carries markup. */
function hostileRecording() {
  const base = { session_id: 'sess-xss', execution_id: `exec ${SVG}`, timestamp: '2026-01-20T12:00:00.000Z' };
  const env = (type, payload, at) => JSON.stringify({ type, ...base, ...(at ? { timestamp: at } : {}), payload });
  return [
    env('agent.status', { status: 'processing', previous_status: 'idle' }),
    env('agent.step.started', { step_number: 1, message_count: 1, available_tools: 1 }),
    env('agent.stream.chunk', { content: `Answer: ${IMG} `, is_complete: false, chunk_index: 0 }),
    env('agent.stream.chunk', { content: SCRIPT, is_complete: false, chunk_index: 1 }),
    env('agent.tool.started', { tool_name: IMG, tool_call_id: null, args: { q: SCRIPT, [SVG]: 1 } }),
    env('agent.tool.completed', { tool_name: IMG, tool_call_id: null, success: false, error: SVG, duration_ms: 12, result_summary: null }, '2026-01-20T12:00:00.500Z'),
    env('agent.continuation', {
      step_number: 1, should_continue: false, stop_reason: IMG, resolved_by: SCRIPT,
      evaluations: [{ criterion: `Criteria\\${SVG}`, decision: 'forbid', reason: IMG }, { criterion: SCRIPT, decision: 'allow', reason: SVG }],
    }, '2026-01-20T12:00:01.000Z'),
    env('agent.step.completed', { step_number: 1, has_tool_calls: true, errors: 1, finish_reason: SCRIPT, usage: { input: 1, output: 2, cacheWrite: 0, cacheRead: 0, reasoning: 0 }, duration_ms: 1000 }, '2026-01-20T12:00:01.000Z'),
    env('agent.status', { status: SVG, previous_status: 'processing' }, '2026-01-20T12:00:01.000Z'),
  ].join('\n');
}

/**
 * The reference run "tool call then final answer" as a recording: a broken
 * line after the second envelope, and the final snapshot with the tool-call
 * arguments copied into the assistant's content (seed 004's leak).
 */
function recordingWithABrokenLine() {
  const runs = JSON.parse(readFileSync(new URL('../vectors/cognesy-v1.22/agent-runs.json', import.meta.url), 'utf8'));
  const turn = runs.find((r) => r.name.startsWith('tool call then final answer')).expected[0];
  const lines = turn.envelopes.map((e) => JSON.stringify(e.envelope));
  lines.splice(2, 0, lines[2].slice(0, 50));
  const slim = structuredClone(turn.slim);
  slim.messages[1].content = slim.messages[1]._metadata.tool_calls[0].function.arguments;
  lines.push(JSON.stringify({ stepline_snapshot: slim }));
  return lines.join('\n');
}

const env = panelFixture();

describe('recordings opened from files', () => {
  test('a failed turn shows why it ended, and a turn that never ended shows stale', async () => {
    const fixture = (path) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
    // Turn 1 fails with the producer's error message; turn 2 resumes (seed 000's
    // in_progress after completed) and then falls silent, with no final status.
    const text = fixture('seed-000/failed-run.jsonl') + fixture('seed-000/resumed-run.jsonl');
    const page = await openPage(env.browser);
    await openRecording(page, env, 'ended.jsonl', text);
    await page.waitForFunction(() => window.stepline?.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'in_progress', 'stale is not a status');
    assert.equal(await page.textContent('[data-testid=run-stale]'), 'stale');
    assert.equal(await page.locator('[data-testid=run-error]').count(), 0, 'the resumed turn has no error');
    assert.equal(await page.textContent('[data-testid=turn-error]'), 'Driver threw: connection reset by peer');
    assert.equal(await page.locator('[data-testid=turn-stale]').count(), 1, 'only the turn that never ended');
    await screenshot(page, 'panel-ended');
    // When the failed turn is the latest, its reason shows in the header too.
    await page.setInputFiles('[data-testid=file-input]', { name: 'failed.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(fixture('seed-000/failed-run.jsonl')) });
    await page.waitForFunction(() => window.stepline?.source.label === 'failed.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.equal(await page.textContent('[data-testid=run-status]'), 'failed');
    assert.equal(await page.textContent('[data-testid=run-error]'), 'Driver threw: connection reset by peer');
    assert.equal(await page.locator('[data-testid=run-stale]').count(), 0);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('markup in events renders as text, never as HTML', async () => {
    const page = await openPage(env.browser);
    await openRecording(page, env, `run ${IMG}.jsonl`, hostileRecording());
    await page.waitForFunction(() => window.stepline?.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null);
    await page.click('[data-testid=step-row][data-step="1"]');
    for (const tab of ['usage', 'reconcile', 'diagnostics', 'whatif']) await page.click(`[data-testid=tab-${tab}]`);
    await page.click('[data-testid=whatif-run]');

    const text = await page.textContent('body');
    for (const payload of [IMG, SCRIPT]) assert.ok(text.includes(payload), `the page shows ${payload} as text`);
    assert.ok((await page.textContent('[data-testid=tool-run]')).includes(SVG), 'the tool error shows as text');
    assert.ok((await page.textContent('[data-testid=trace]')).includes(IMG), 'the trace reason shows as text');
    assert.ok((await page.textContent('[data-testid=source]')).includes(`run ${IMG}.jsonl`), 'the file name shows as text');
    assert.equal(await page.locator('img').count(), 0, 'no <img> element was created');
    assert.equal(await page.locator('body script').count(), 0, 'no <script> element was created');
    assert.equal(await page.locator('svg[onload]').count(), 0, 'no <svg onload> was created');
    assert.equal(await page.evaluate(() => window.__xss), undefined, 'no payload ran');
    assert.deepEqual(page.problems, []);
    await screenshot(page, 'panel-xss');
    await page.close();
  });

  test('a real-driver v2 run shows clean streamed text and names the raw provider frames', async () => {
    // instructor-php v2.7 wiretapped with Polyglot's real OpenAI driver: every SSE
    // frame's raw JSON went out as a stream chunk between the text deltas.
    const runs = JSON.parse(readFileSync(new URL('../vectors/instructor-php-v2.7/agent-runs.json', import.meta.url), 'utf8'));
    const turn = runs.find((r) => r.name === 'real driver: streamed answer, several text deltas [standard]').expected[0];
    const text = turn.envelopes.map((e) => JSON.stringify(e.envelope)).join('\n');
    const frames = turn.envelopes.filter((e) => e.envelope.payload.content?.startsWith('{"id":"chatcmpl-')).length;
    const page = await openPage(env.browser);
    await openRecording(page, env, 'real-driver.jsonl', text);
    await page.waitForFunction(() => window.stepline?.source.label === 'real-driver.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.equal(await page.textContent('[data-testid=stream-text]'), turn.derived.finalResponse.trimEnd());
    assert.match(await page.textContent('[data-testid=stream-title]'), new RegExp(`${frames} raw provider frames left out`));
    assert.equal(await page.textContent('[data-testid=run-status]'), 'completed', 'completed, then the closing stopped');
    await page.click('[data-testid=tab-diagnostics]');
    await page.waitForSelector('[data-testid=diagnostic][data-code=raw_provider_frames_in_stream]');
    const found = await page.textContent('[data-testid=diagnostic][data-code=raw_provider_frames_in_stream]');
    assert.match(found, new RegExp(`${frames} stream chunks of this run are raw openai stream frames`));
    assert.match(found, /\/envelopes\/2\/payload\/content/);
    assert.deepEqual(page.problems, []);
    await screenshot(page, 'panel-raw-provider-frames');
    await page.close();
  });

  test('a recording with a broken line still shows its diagnostics', async () => {
    const page = await openPage(env.browser);
    await openRecording(page, env, 'broken-line.jsonl', recordingWithABrokenLine());
    await page.waitForFunction(() => window.stepline?.source.label === 'broken-line.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.match(await page.textContent('[data-testid=source]'), /1 bad lines/);
    await page.click('[data-testid=tab-diagnostics]');
    await page.waitForSelector('[data-testid=diagnostic]');
    const found = await page.$$eval('[data-testid=diagnostic]', (els) => els.map((e) => [e.dataset.code, e.textContent]));
    assert.deepEqual(found.map(([code]) => code), ['tool_args_in_content']);
    assert.match(found[0][1], /\/snapshot\/messages\/1\/content/);
    assert.equal(await page.locator('[data-testid=diagnostics] .error').count(), 0, 'the tab did not fail');
    // The panel keeps the stream once: in its session, not as lines of its own.
    assert.equal(await page.evaluate(() => 'envelopeLines' in window.stepline), false);
    assert.deepEqual(page.problems, []);
    await screenshot(page, 'panel-diagnostics-broken-line');
    await page.close();
  });

  test('a recording dropped on the page opens with its snapshot reconciled', async () => {
    const page = await openPage(env.browser);
    await page.goto(env.server.url);
    await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null);
    const text = await (await fetch(`${env.server.url}demo-run.jsonl`)).text();
    // A drop as the browser delivers it: a DataTransfer holding one File.
    await page.evaluate((content) => {
      const data = new DataTransfer();
      data.items.add(new File([content], 'dropped-run.jsonl', { type: 'application/x-ndjson' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, text);
    await page.waitForFunction(() => window.stepline?.source.label === 'dropped-run.jsonl' && !window.stepline.loading && window.stepline.tools !== null);
    assert.equal(await page.locator('[data-testid=step-row]').count(), 9);
    await page.click('[data-testid=tab-reconcile]');
    assert.deepEqual(await page.$$eval('[data-testid=reconcile-status]', (els) => els.map((e) => e.textContent)), ['consistent', 'consistent']);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('streamed text past the session\'s text limit is cut, and the panel says how much was dropped', async () => {
    // 40 chunks of 256 KiB: 10 MiB of text against the default limit of 8 MiB.
    const base = { session_id: 'sess-big-text', execution_id: 'exec-1' };
    const at = (ms) => new Date(Date.UTC(2026, 0, 20, 12, 0, 0, ms)).toISOString();
    const lines = [
      { ...base, type: 'agent.status', timestamp: at(0), payload: { status: 'processing', previous_status: 'idle' } },
      { ...base, type: 'agent.step.started', timestamp: at(1), payload: { step_number: 1, message_count: 1, available_tools: 0 } },
      ...Array.from({ length: 40 }, (_, i) => ({ ...base, type: 'agent.stream.chunk', timestamp: at(2 + i), payload: { content: 'z'.repeat(256 * 1024), chunk_index: i } })),
    ];
    env.server.setRoute('/big-text.jsonl', () => ({ type: 'application/x-ndjson', body: lines.map((l) => JSON.stringify(l)).join('\n') }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/big-text.jsonl`);
    await page.waitForFunction(() => window.stepline?.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: 60_000 });
    const exec = await page.evaluate(() => {
      const e = window.stepline.view.executions[0];
      return { length: e.text.length, truncated: e.text_truncated, dropped: e.text_dropped_bytes };
    });
    assert.deepEqual(exec, { length: 8 * 1024 * 1024, truncated: true, dropped: 2 * 1024 * 1024 });
    assert.match(await page.textContent('[data-testid=stream-title]'), /cut at the text limit, 2,097,152 bytes dropped/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a 100,000-event recording loads with progress and stays virtualised', async () => {
    const text = generateRecordingText({ envelopes: 100_000, header: true });
    env.server.setRoute('/big.jsonl', () => ({ type: 'application/x-ndjson', body: text }));
    const page = await openPage(env.browser);
    await page.goto(`${env.server.url}?recording=/big.jsonl`);
    // The progress bar is shown while the batches go in.
    await page.waitForSelector('[role=progressbar]:not([hidden])', { timeout: 60_000 });
    await page.waitForFunction(() => window.stepline?.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: 120_000 });
    const state = await page.evaluate(() => ({
      applied: window.stepline.view.counts.applied,
      steps: window.stepline.view.executions.reduce((n, e) => n + e.steps.length, 0),
      rows: document.querySelectorAll('[data-testid=step-row]').length,
      nodes: document.querySelectorAll('*').length,
    }));
    assert.equal(state.applied, 100_000);
    assert.ok(state.steps > 5_000, `${state.steps} steps`);
    assert.ok(state.rows < 100, `only the visible rows are in the DOM (${state.rows} of ${state.steps})`);
    assert.ok(state.nodes < 3_000, `${state.nodes} elements`);
    // Still responsive: the keyboard reaches the last step and the detail follows.
    await page.focus('[data-testid=timeline]');
    await page.keyboard.press('End');
    const last = await page.$eval('[data-testid=step-row][aria-selected=true]', (e) => Number(e.dataset.step));
    assert.equal(last, state.steps);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
