// Issue 31: a new user following only docs/getting-started/laravel-reverb.md for React +
// Reverb + instructor-php v2.x reaches a page that shows a live run. The page's JavaScript
// is read from the docs page, never copied: its React block becomes the component of a
// Vite app, built as a Laravel app builds it (the connection from VITE_REVERB_* in .env,
// which `configureEcho` reads), with `<AgentRun />` rendered and the run's `sessionId` in
// scope as the page says. No PHP runs: the producer's broadcasts are a v2.7 reference run
// (tests/vectors/instructor-php-v2.7), published as its Laravel transport does
// (`instructor.agent.event` on `agent.{sessionId}`) through sockudo's HTTP API, and the
// events route of step 3 is served from what was published.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Session } from 'stepline';
import { build } from 'vite';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';
import { launch, openPage, root } from './lib/browser.mjs';
import { eventLog, serveExample } from './lib/example-server.mjs';

const PAGE = 'docs/getting-started/laravel-reverb.md';
const RUN = 'tool call then answer [debug]';
const WAIT_MS = 30_000;

/** The page's jsx blocks, as tests/js/readme.test.mjs reads them. */
function jsxBlocks(file) {
  return [...readFileSync(join(root, file), 'utf8').matchAll(/^```jsx\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** A v2.7 reference run under `sessionId` (its `<uuid>` placeholders made valid uuids). */
function v2Run(sessionId) {
  const runs = JSON.parse(readFileSync(join(root, 'tests', 'vectors', 'instructor-php-v2.7', 'agent-runs.json'), 'utf8'));
  const run = runs.find((r) => r.name === RUN);
  let n = 0;
  const turns = JSON.parse(JSON.stringify(run.expected), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++n).padStart(12, '0')}` : v));
  return turns.flatMap((t) => t.envelopes).map(({ envelope }) => ({ ...envelope, session_id: sessionId }));
}

/** Resolves once sockudo reports `channel` occupied (Pusher HTTP API), within WAIT_MS. */
async function untilSubscribed(pub, channel) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const res = await pub.pusher.get({ path: `/channels/${channel}` });
    if ((await res.json()).occupied) return;
    if (Date.now() > deadline) throw new Error(`${channel} had no subscriber after ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let sockudo;
let browser;
let server;
// Inside node_modules, so the app resolves stepline, react and @laravel/echo-react as installed.
const app = mkdtempSync(join(root, 'node_modules', '.stepline-getting-started-'));

before(async () => {
  sockudo = await startSockudo();
  browser = await launch({ panel: false });
  const blocks = jsxBlocks(PAGE);
  assert.equal(blocks.length, 1, `${PAGE} has one React block (the page)`);
  mkdirSync(join(app, 'src'));
  writeFileSync(join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
  // Step 4's "connection from VITE_REVERB_*", as a Laravel app's .env holds them for Reverb.
  writeFileSync(join(app, '.env'), [
    `VITE_REVERB_APP_KEY=${sockudo.key}`, `VITE_REVERB_HOST=${sockudo.host}`, `VITE_REVERB_PORT=${sockudo.port}`, 'VITE_REVERB_SCHEME=http', '',
  ].join('\n'));
  writeFileSync(join(app, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><div id="root"></div><script type="module" src="/src/main.jsx"></script></body></html>\n');
  writeFileSync(join(app, 'src', 'AgentRun.jsx'), blocks[0]);
  // "with the run's sessionId in scope": the page's block reads a free `sessionId`.
  writeFileSync(join(app, 'src', 'session.js'), "globalThis.sessionId = new URL(location.href).searchParams.get('session');\n");
  writeFileSync(join(app, 'src', 'main.jsx'), [
    "import './session.js';",
    "import { createRoot } from 'react-dom/client';",
    "import { AgentRun } from './AgentRun.jsx';",
    "createRoot(document.getElementById('root')).render(<AgentRun />);",
    '',
  ].join('\n'));
  await build({ root: app, configFile: false, logLevel: 'warn', build: { outDir: join(app, 'dist'), target: 'es2022' } });
  server = await serveExample(join(app, 'dist'));
});

after(async () => {
  await browser?.close();
  await server?.close();
  await sockudo?.stop();
  rmSync(app, { recursive: true, force: true });
});

test('the Getting started page, followed literally, shows a live instructor-php v2 run over Reverb (sockudo)', async () => {
  const sessionId = 'sess-getting-started';
  const envelopes = v2Run(sessionId);
  const log = eventLog();
  server.addLog(sessionId, log);
  const pub = publisher(sockudo);

  const page = await openPage(browser);
  await page.goto(`${server.url}?session=${sessionId}`);
  await page.waitForFunction(() => /Waiting for the agent/.test(document.body.textContent), null, { timeout: WAIT_MS });
  // The page says so once connected; its channel is joined a moment later. Asked of the
  // server, as a backend would: events sent before the join would rightly make the page
  // resync as a late one.
  await untilSubscribed(pub, `agent.${sessionId}`);
  for (const envelope of envelopes) {
    log.record(envelope);
    assert.equal(await pub.publish(envelope), 200);
  }
  await page.waitForFunction(() => /Stopped: /.test(document.body.textContent), null, { timeout: WAIT_MS });
  // What the page shows is the run as the package reads it from the same broadcasts.
  const shown = await page.$$eval('section li', (items) => items.map((li) => li.textContent));
  const session = new Session({ sessionId });
  for (const envelope of envelopes) session.ingest(envelope);
  const run = session.getSnapshot().executions.at(-1);
  assert.ok(run.steps.length >= 2 && run.steps.some((step) => step.tools.length > 0), 'the run has a tool step and an answer');
  assert.deepEqual(shown, run.steps.map((step) => `${step.type}: ${step.tools.map((tool) => `${tool.name} (${tool.status})`).join(', ')}`));
  assert.equal(await page.textContent('section p:last-child'), `Stopped: ${run.end_reason ?? run.status}`);
  session.free();
  assert.equal(log.requests, 0, 'subscribed before the run: no resync needed');
  assert.deepEqual(page.problems, []);
  await page.close();
});
