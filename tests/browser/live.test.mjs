// A live run end to end with real components: stepline's demo run published
// through the Pusher HTTP API (the `pusher` package) to sockudo, a real
// Pusher-protocol server standing in for Reverb, and received in headless
// Chromium by laravel-echo + pusher-js inside the panel. The page shows each
// step as it arrives, reconciles with the final snapshot it fetches, and names
// an envelope that was withheld (this second run goes over a private channel
// authorised by the page's auth endpoint).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Session } from '../../pkg/index.mjs';
import { demoRun } from '../../scripts/demo-run.mjs';
import { generateEnvelopes } from '../../bench/generate-envelopes.mjs';
import { openPage, screenshot } from './lib/browser.mjs';
import { liveUrl, panelFixture, stepsShown } from './lib/panel.mjs';

const env = panelFixture({ live: true, auth: true });


/** Opens the panel in live mode on `session` and waits until it is subscribed. */
async function openLive(session, { privateChannel = false } = {}) {
  const page = await openPage(env.browser);
  await page.goto(liveUrl(env, session, privateChannel ? { private: '1' } : {}));
  await page.waitForFunction(() => window.stepline?.source.detail === 'subscribed', null, { timeout: 20_000 });
  return page;
}

async function fetchFinal(page) {
  await page.click('[data-testid=live-toggle]');
  await page.click('[data-testid=fetch-final]');
  await page.waitForSelector('[data-testid=reconcile-status]');
}

describe('live over laravel-echo + pusher-js from sockudo', () => {
  test('each step shows as it arrives; the fetched final state reconciles as consistent', async () => {
    const session = 'sess-live-1';
    const page = await openLive(session);
    const { envelopes, snapshots } = await demoRun({ sessionId: session });
    let started = 0;
    let marked = false;
    for (const [sent, envelope] of envelopes.entries()) {
      // Once turn 1's first step is complete on the page, tag its row: an
      // unchanged step must keep its DOM node while the rest streams in.
      if (!marked && envelope.type === 'agent.step.started' && envelope.payload.step_number === 2) {
        await page.waitForFunction((n) => window.stepline.view.counts.applied === n, sent);
        await page.$eval('[data-testid=step-row][data-exec="0"][data-step="1"]', (el) => { el.dataset.marker = 'kept'; });
        marked = true;
      }
      assert.equal(await env.pub.publish(envelope), 200);
      if (envelope.type === 'agent.step.started') {
        started += 1;
        // The new step is on the page before the next event is sent.
        await page.waitForFunction((n) => window.stepline.view.executions.reduce((k, e) => k + e.steps.length, 0) === n, started, { timeout: 10_000 });
        const turn = await page.evaluate(() => window.stepline.view.executions.length - 1);
        await page.waitForSelector(`[data-testid=step-row][data-exec="${turn}"][data-step="${envelope.payload.step_number}"]`);
      }
    }
    await page.waitForFunction((n) => window.stepline.view.counts.applied === n, envelopes.length, { timeout: 10_000 });
    assert.equal(await stepsShown(page), 9);
    assert.equal(await page.getAttribute('[data-testid=step-row][data-exec="0"][data-step="1"]', 'data-marker'), 'kept',
      'the row of a step that did not change was not re-rendered');
    assert.equal(await page.textContent('[data-testid=run-status]'), 'stopped');

    env.server.setRoute(`/final/${session}.json`, () => ({ body: snapshots.at(-1).snapshot }));
    await fetchFinal(page);
    assert.equal(await page.textContent('[data-testid=reconcile-status]'), 'consistent');
    await screenshot(page, 'panel-live');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a run published by 16 concurrent batch requests arrives reordered across steps, and the page shows the in-order view', async (t) => {
    // Several queue workers or batched broadcasts: Pusher HTTP `triggerBatch`
    // (at most 10 events a request, each under the 10 KB message limit), 16
    // requests in flight at once, so envelopes overtake each other across
    // step boundaries. v1.22 tool events carry no step number: only their
    // timestamps place them.
    const session = 'sess-live-3';
    const page = await openLive(session);
    const envelopes = generateEnvelopes({ envelopes: 4_000, sessionId: session, seed: 3 });
    const batches = [];
    for (let i = 0; i < envelopes.length; i += 10) {
      batches.push(envelopes.slice(i, i + 10).map((e) => ({ channel: `agent.${session}`, name: e.type, data: JSON.stringify(e) })));
    }
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const res = await env.pub.pusher.triggerBatch(batches[next++]);
        assert.equal(res.status, 200);
        await res.text();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    try {
      await page.waitForFunction((n) => window.stepline.view.counts.applied === n, envelopes.length, { timeout: 60_000 });
    } catch (error) {
      // Say how far the page got and what the connection did, not only that time ran out.
      const state = await page.evaluate(() => ({ counts: window.stepline.view.counts, source: window.stepline.source.detail }));
      const log = env.sockudo.output().split('\n').filter((l) => /WARN|ERROR|slow consumer|disconnect/i.test(l)).slice(-5);
      throw new Error(`${error.message}\npage: ${JSON.stringify(state)}\nsockudo: ${log.join(' | ') || '(no warnings)'}\nproblems: ${page.problems.join(' | ') || '(none)'}`);
    }

    const inOrder = new Session();
    for (const e of envelopes) inOrder.ingest(e);
    const expected = inOrder.getSnapshot();
    inOrder.free();
    const shown = await page.evaluate(() => ({
      executions: window.stepline.view.executions,
      counts: window.stepline.view.counts,
      arrival: window.stepline.session.toRecording(),
    }));
    assert.deepEqual(shown.counts, { applied: envelopes.length, duplicates: 0, rejected: 0 }, 'all arrived, none lost');
    // The page saw them out of order: tool events before their own step's start.
    const arrived = shown.arrival.split('\n').filter((l) => l.startsWith('{"type"')).map((l) => JSON.parse(l));
    const startedAt = new Map();
    let early = 0;
    let step = 0;
    const stepOfSent = new Map(envelopes.map((e) => {
      if (e.type === 'agent.step.started') step = e.payload.step_number;
      return [e.timestamp + e.type, step];
    }));
    for (const [i, e] of arrived.entries()) {
      if (e.type === 'agent.step.started') startedAt.set(e.payload.step_number, i);
      else if (e.type.startsWith('agent.tool.') && !startedAt.has(stepOfSent.get(e.timestamp + e.type))) early += 1;
    }
    t.diagnostic(`${early} tool events arrived before their step started`);
    assert.ok(early > 0, 'the concurrent batches reordered tool events across step boundaries');
    const tools = shown.executions[0].steps.flatMap((s) => s.tools);
    assert.ok(tools.length > 500 && tools.every((x) => x.attribution === 'timestamp'));
    assert.deepEqual(shown.executions, JSON.parse(JSON.stringify(expected.executions)));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a withheld envelope on a private channel is named by the report', async () => {
    const session = 'sess-live-2';
    const page = await openLive(session, { privateChannel: true });
    const { envelopes, snapshots } = await demoRun({ sessionId: session });
    // The second turn's agent.step.started of step 3 never goes out.
    const turn2 = envelopes.findIndex((e, i) => i > 0 && e.type === 'agent.status' && e.payload.status === 'processing');
    const withheld = envelopes.findIndex((e, i) => i > turn2 && e.type === 'agent.step.started' && e.payload.step_number === 3);
    const sent = envelopes.filter((_, i) => i !== withheld);
    for (const envelope of sent) assert.equal(await env.pub.publish(envelope, { private: true }), 200);
    await page.waitForFunction((n) => window.stepline.view.counts.applied === n, sent.length, { timeout: 10_000 });

    const snapshot = snapshots.at(-1).snapshot;
    env.server.setRoute(`/final/${session}.json`, () => ({ body: { stepline_snapshot: snapshot } }));
    await fetchFinal(page);
    const differences = await page.$$eval('[data-testid=difference]', (els) => els.map((e) => `${e.dataset.kind}: ${e.querySelector('button, span:not(.pill)')?.textContent}`));
    // The same core in Node, fed the same envelopes, says the same.
    const expected = new Session();
    for (const envelope of sent) expected.ingest(envelope);
    const report = expected.reconcile(snapshot);
    expected.free();
    assert.deepEqual(differences, report.differences.map((d) => `${d.kind}: ${d.message}`));
    assert.ok(differences.includes('lost_event: agent.step.started of step 3 never arrived'), differences.join('\n'));
    assert.notEqual(await page.textContent('[data-testid=reconcile-status]'), 'consistent');
    // The difference links to its step.
    await page.click('[data-testid=difference][data-kind=lost_event] button');
    assert.equal(await page.$eval('[data-testid=step-row][aria-selected=true]', (e) => `${e.dataset.exec}:${e.dataset.step}`), '1:3');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('after the final state is fetched, a step whose streamed tools differ shows the final state\'s tools', async () => {
    // Seed 002 (docs/seeds/002-event-serialization-system-design.md): the final
    // response is canonical, interim completions are replaced, not merged.
    const session = 'sess-live-4';
    const page = await openLive(session);
    const { envelopes, snapshots } = await demoRun({ sessionId: session });
    // In the last turn, step 2's tool is streamed as `lint_code`; the final state has `run_tests`.
    const lastTurn = envelopes.findLastIndex((e) => e.type === 'agent.status' && e.payload.status === 'processing');
    const stepStart = envelopes.findIndex((e, i) => i > lastTurn && e.type === 'agent.step.started' && e.payload.step_number === 2);
    const stepEnd = envelopes.findIndex((e, i) => i > stepStart && e.type === 'agent.step.completed');
    const sent = envelopes.map((e, i) => (i > stepStart && i < stepEnd && e.type.startsWith('agent.tool.')
      ? { ...e, payload: { ...e.payload, tool_name: 'lint_code' } } : e));
    for (const envelope of sent) assert.equal(await env.pub.publish(envelope), 200);
    await page.waitForFunction((n) => window.stepline.view.counts.applied === n, sent.length, { timeout: 10_000 });
    const toolsOf = () => page.evaluate(() => window.stepline.view.executions.at(-1).steps.find((s) => s.number === 2).tools.map((t) => t.name));
    assert.deepEqual(await toolsOf(), ['lint_code'], 'as streamed');

    const snapshot = snapshots.at(-1).snapshot;
    env.server.setRoute(`/final/${session}.json`, () => ({ body: snapshot }));
    await fetchFinal(page);
    const kinds = await page.$$eval('[data-testid=difference]', (els) => els.map((e) => e.dataset.kind));
    assert.ok(kinds.includes('tool_call_missing') && kinds.includes('tool_call_unexpected'), kinds.join(', '));
    assert.deepEqual(await toolsOf(), snapshot.steps.find((s) => s.step_number === 2).tool_calls.map((c) => c.name),
      'the final state\'s tools, not the interim one');
    // The step's detail lists them too.
    await page.click('[data-testid=step-row][data-exec="1"][data-step="2"]');
    const rows = await page.$$eval('[data-testid=tool-run]', (els) => els.map((e) => e.textContent));
    assert.ok(rows.some((r) => r.includes('run_tests')) && !rows.some((r) => r.includes('lint_code')), rows.join('\n'));
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
