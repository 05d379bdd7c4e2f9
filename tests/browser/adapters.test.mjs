// stepline/react and stepline/vue in the example pages (examples/react, examples/vue),
// built with Vite, in headless Chromium: real laravel-echo + pusher-js inside the pages
// (through @laravel/echo-react / @laravel/echo-vue), real sockudo, an instructor run
// published under `instructor.agent.event` (scripts/long-run.mjs: 36 steps, tools, a
// failing tool every tenth step, streamed text), and the run's event log served by the
// page's own origin for the adapters' resync. For each framework:
//   - uninterrupted, the page shows the whole run: its view is the reference;
//   - sockudo stopped mid-run and a new one started on the same port: the events
//     broadcast meanwhile are lost, the adapter resyncs after pusher-js reconnects,
//     and the view ends equal to the reference;
//   - a page opened after the run started shows the steps it missed as missing and
//     "catching up…" while the event log's answer is held, then fills them.
// Views are compared by `executions` and `warnings`: `counts` legitimately differ
// after a resync (the log repeats events the page already had: duplicates).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { longRun } from '../../scripts/long-run.mjs';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';
import { launch, openPage, screenshot } from './lib/browser.mjs';
import { buildExample, eventLog, serveExample } from './lib/example-server.mjs';

const STEPS = 36;
const EXECUTION = 'exec-adapters';
// pusher-js backs off between reconnect attempts; a reconnect can take many seconds.
const RECONNECT_MS = 60_000;
const WAIT_MS = 20_000;

let sockudo;
let pub;
let browser;
const built = mkdtempSync(join(tmpdir(), 'stepline-examples-'));
const servers = {};

before(async () => {
  sockudo = await startSockudo();
  pub = publisher(sockudo);
  browser = await launch({ panel: false });
  for (const name of ['react', 'vue']) servers[name] = await serveExample(await buildExample(name, join(built, name)));
});
after(async () => {
  await browser?.close();
  for (const server of Object.values(servers)) await server.close();
  await sockudo?.stop();
  rmSync(built, { recursive: true, force: true });
});

/** The run, for a session of its own (a channel of its own), and its event log. */
async function run(name, test) {
  const sessionId = `sess-adapters-${name}-${test}`;
  const { envelopes } = await longRun({ steps: STEPS, sessionId, executionId: EXECUTION });
  const log = eventLog();
  servers[name].addLog(sessionId, log);
  return { sessionId, envelopes, log };
}

/**
 * What the backend does for each event: stores it in the log, then broadcasts it.
 * `lost: true` while the server is down: the broadcast fails, the log keeps it.
 */
async function broadcast(log, envelopes, { lost = false } = {}) {
  for (const envelope of envelopes) {
    log.record(envelope);
    if (lost) await assert.rejects(pub.publish(envelope));
    else assert.equal(await pub.publish(envelope), 200);
  }
}

async function openExample(name, sessionId) {
  const page = await openPage(browser);
  const params = new URLSearchParams({ key: sockudo.key, host: sockudo.host, port: String(sockudo.port), tls: '0', session: sessionId });
  await page.goto(`${servers[name].url}?${params}`);
  await page.waitForFunction(() => window.__agentRun?.subscribed === true, null, { timeout: WAIT_MS });
  return page;
}

const state = (page) => page.evaluate(() => window.__agentRun);
const comparable = (view) => ({ executions: view.executions, warnings: view.warnings });

/** Waits until the run ended, no resync is running and no step is missing. */
function whole(page) {
  return page.waitForFunction(() => {
    const s = window.__agentRun;
    const run = s?.view.executions.at(-1);
    return run?.ended && !s.catchingUp && run.missing_step_count === 0 && run.missing_chunk_count === 0;
  }, null, { timeout: RECONNECT_MS });
}

/** What the page shows: step numbers, placeholders, tools, status and text, read from the DOM. */
function shown(page) {
  return page.evaluate(() => {
    const all = (selector) => [...document.querySelectorAll(selector)];
    return {
      steps: all('[data-testid=step]').map((li) => Number(li.dataset.step)),
      missing: all('[data-testid=missing-step]').map((li) => Number(li.dataset.step)),
      missingText: all('[data-testid=missing-step]').map((li) => li.textContent.trim()),
      failedTools: all('[data-testid=tool].failed').map((li) => li.textContent.trim()),
      status: document.querySelector('[data-testid=run-status]')?.textContent,
      stop: all('[data-testid=stop-reason] div').map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]),
      connection: document.querySelector('[data-testid=connection]')?.textContent,
      catchingUp: document.querySelector('[data-testid=catching-up]') !== null,
      text: document.querySelector('[data-testid=text]')?.textContent,
    };
  });
}

async function screenshots(page, name) {
  await screenshot(page, `adapters-${name}-1440`);
  await page.setViewportSize({ width: 800, height: 900 });
  await screenshot(page, `adapters-${name}-800`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

for (const name of ['react', 'vue']) {
  describe(`examples/${name}: useAgentRun from stepline/${name}`, () => {
    let reference;

    test('an uninterrupted run shows every step, its tools, the failed ones, the streamed text and the stop reason', async () => {
      const { sessionId, envelopes, log } = await run(name, 'whole');
      const page = await openExample(name, sessionId);
      await broadcast(log, envelopes);
      await whole(page);
      const { view, resyncs, connection } = await state(page);
      const execution = view.executions.at(-1);
      assert.equal(resyncs, 0, 'nothing was missed: no resync');
      assert.equal(log.requests, 0);
      assert.equal(connection, 'connected');
      assert.equal(view.counts.applied, envelopes.length);
      assert.equal(execution.status, 'completed');
      assert.equal(execution.steps.length, STEPS);

      const dom = await shown(page);
      assert.deepEqual(dom.steps, Array.from({ length: STEPS }, (_, i) => i + 1));
      assert.deepEqual(dom.missing, []);
      assert.equal(dom.catchingUp, false);
      assert.equal(dom.status, 'completed');
      assert.equal(dom.connection, 'connected');
      // Every tenth step's first tool fails (scripts/long-run.mjs): each failure broadcast is shown with its error.
      const failures = envelopes.filter((e) => e.type === 'agent.tool.completed' && !e.payload.success);
      assert.equal(failures.length, 3);
      assert.deepEqual(dom.failedTools, failures.map((e) => `${e.payload.tool_name} failed — ${e.payload.error}`));
      assert.equal(dom.text, execution.text);
      assert.ok(dom.text.startsWith('Step 1: asking query_metrics.') && dom.text.endsWith(`All ${STEPS} steps done: the pool size halved at the deploy.`));
      // The last step's continuation said stop, with the producer's reason.
      assert.deepEqual(dom.stop, [['continuation', 'completed']]);
      await screenshots(page, `${name}-whole`);
      assert.deepEqual(page.problems, []);
      reference = comparable(view);
      await page.close();
    });

    test('sockudo stopped mid-run and restarted on the same port: after the reconnect the resync fills what was lost, and the view equals the uninterrupted one', async () => {
      assert.ok(reference, 'the uninterrupted run ran first');
      const { sessionId, envelopes, log } = await run(name, 'reconnect');
      const page = await openExample(name, sessionId);
      const [before, during, afterwards] = [envelopes.slice(0, 120), envelopes.slice(120, 240), envelopes.slice(240)];
      await broadcast(log, before);
      await page.waitForFunction((n) => window.__agentRun.view.counts.applied === n, before.length, { timeout: WAIT_MS });

      const { appId, key, secret, port } = sockudo;
      await sockudo.stop();
      await page.waitForFunction(() => window.__agentRun.connection !== 'connected', null, { timeout: WAIT_MS });
      assert.notEqual((await shown(page)).connection, 'connected', 'the page says the connection is down');
      await screenshots(page, `${name}-disconnected`);
      await broadcast(log, during, { lost: true });
      sockudo = await startSockudo({ appId, key, secret, port });
      // pusher-js reconnects and subscribes again; the adapter asks for the log.
      await page.waitForFunction(() => window.__agentRun.connection === 'connected' && window.__agentRun.subscribed && window.__agentRun.resyncs >= 1, null, { timeout: RECONNECT_MS });
      await broadcast(log, afterwards);
      await whole(page);

      const { view, lastResync, resyncs, error } = await state(page);
      assert.equal(error, null);
      assert.equal(lastResync.reason, 'reconnect');
      assert.ok(log.requests >= 1);
      // The events broadcast while the server was down came from the log, not the socket;
      // the ones the page had already received counted as duplicates.
      assert.equal(resyncs, 1);
      assert.deepEqual([lastResync.applied, lastResync.duplicates], [during.length, before.length]);
      assert.deepEqual(comparable(view), reference);
      assert.deepEqual(view.counts, { applied: envelopes.length, duplicates: before.length, rejected: 0 });
      const dom = await shown(page);
      assert.equal(dom.steps.length, STEPS);
      assert.deepEqual(dom.missing, []);
      assert.equal(dom.connection, 'connected');
      await screenshots(page, `${name}-reconnected`);
      assert.deepEqual(page.problems.filter((p) => !isReconnectNoise(p)), []);
      await page.close();
    });

    test('a page opened after the run started shows the missed steps as missing while catching up, then fills them from the event log', async () => {
      assert.ok(reference, 'the uninterrupted run ran first');
      const { sessionId, envelopes, log } = await run(name, 'late');
      // The first 12 steps are broadcast before anyone listens (Reverb keeps no history).
      const cut = envelopes.findIndex((e) => e.type === 'agent.step.started' && e.payload.step_number === 13);
      await broadcast(log, envelopes.slice(0, cut));
      const release = log.hold();
      const page = await openExample(name, sessionId);
      await broadcast(log, envelopes.slice(cut));
      await page.waitForFunction((n) => window.__agentRun.view.counts.applied === n, envelopes.length - cut, { timeout: WAIT_MS });

      const held = await state(page);
      const execution = held.view.executions.at(-1);
      assert.equal(held.catchingUp, true);
      assert.equal(log.requests, 1, 'the first event asked for the log');
      assert.deepEqual(execution.missing_steps, Array.from({ length: 12 }, (_, i) => i + 1), 'the steps broadcast before the page subscribed');
      let dom = await shown(page);
      assert.deepEqual(dom.missing, execution.missing_steps, 'a placeholder for each missing step');
      assert.equal(dom.missingText[0], `step ${execution.missing_steps[0]} — missing, catching up…`);
      assert.equal(dom.catchingUp, true);
      assert.ok(dom.text.startsWith('Step 13: '), 'the text streamed since the page subscribed');
      await screenshots(page, `${name}-late-missing`);

      release();
      await whole(page);
      const { view, lastResync, resyncs } = await state(page);
      assert.equal(resyncs, 1);
      assert.equal(lastResync.reason, 'late');
      assert.equal(lastResync.applied, cut, 'the resync applied exactly what the page missed');
      assert.deepEqual(comparable(view), reference);
      assert.deepEqual(view.counts, { applied: envelopes.length, duplicates: envelopes.length - cut, rejected: 0 });
      dom = await shown(page);
      assert.deepEqual(dom.missing, []);
      assert.equal(dom.catchingUp, false);
      assert.deepEqual(dom.steps, Array.from({ length: STEPS }, (_, i) => i + 1));
      assert.ok(dom.text.startsWith('Step 1: '), 'the text from the start');
      await screenshots(page, `${name}-late-filled`);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  });
}

/**
 * Chromium logs each refused WebSocket connection while sockudo is down (pusher-js tries
 * ws, then wss: Laravel's `enabledTransports: ['ws', 'wss']`); nothing else may fail.
 */
function isReconnectNoise(problem) {
  return /^console error: WebSocket connection to 'wss?:\/\/127\.0\.0\.1:\d+\/app\/[^']*' failed/.test(problem);
}
