// The DevTools extension (issue 30; extension/, www/src/extension/, built by
// scripts/build-extension.mjs) loaded unpacked into Debian's Chromium (headless, a
// persistent context: extensions need one), its id read from its service worker. Its
// panel page, opened as chrome-extension://<id>/panel.html and pointed at the app's
// tab, must list the run the app follows and show its steps live, for:
//   (a) examples/react, which follows the run with stepline (found through the page's
//       registry, `__STEPLINE_DEVTOOLS__`; its production build: the extension needs
//       nothing in the app);
//   (b) a plain laravel-echo + pusher-js page without stepline
//       (tests/browser/fixtures/plain-echo), found by observing the page's socket.
// For both, "Download recording" gives a file the standalone panel (www/dist) opens to
// the same view; pausing the recording keeps what arrives out; and no extension page
// requests anything but chrome-extension:// URLs. The package is a zip whose manifest
// is the built one, asking for no permission.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build } from 'vite';
import { chromium } from 'playwright-core';
import { buildExtension, builtManifest, extensionDir, extensionZip } from '../../scripts/build-extension.mjs';
import { unzip } from '../../scripts/lib/zip.mjs';
import { longRun } from '../../scripts/long-run.mjs';
import { servePanel } from '../../scripts/lib/panel-server.mjs';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';
import { distDir, resultsDir, root } from './lib/browser.mjs';
import { buildExample, eventLog, serveExample } from './lib/example-server.mjs';
import { openRecording } from './lib/panel.mjs';

const STEPS = 12;
// Generous: the machine may be busy (a wait, not a timed assertion).
const WAIT_MS = 30_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let sockudo;
let pub;
let context;
let extensionId;
let panelServer;
let react;
let plain;
const built = mkdtempSync(join(tmpdir(), 'stepline-extension-'));
/** Requests made by the extension's own pages (their frame is a chrome-extension:// page). */
const extensionRequests = [];

before(async () => {
  await buildExtension();
  sockudo = await startSockudo();
  pub = publisher(sockudo);
  context = await chromium.launchPersistentContext(join(built, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    colorScheme: 'light',
    acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
  });
  const worker = context.serviceWorkers()[0] ?? await context.waitForEvent('serviceworker', { timeout: WAIT_MS });
  extensionId = new URL(worker.url()).host;
  context.on('request', (request) => {
    let from = '';
    try {
      from = request.frame().url();
    } catch { /* a service worker's request: no frame */ from = request.serviceWorker()?.url() ?? ''; }
    if (from.startsWith('chrome-extension://')) extensionRequests.push(request.url());
  });
  panelServer = await servePanel({ root: distDir });
  react = await serveExample(await buildExample('react', join(built, 'react')));
  const fixture = join(root, 'tests', 'browser', 'fixtures', 'plain-echo');
  await build({ root: fixture, configFile: false, logLevel: 'warn', base: './', build: { outDir: join(built, 'plain'), emptyOutDir: true } });
  plain = await servePanel({ root: join(built, 'plain') });
});
after(async () => {
  await context?.close();
  await panelServer?.close();
  await react?.close();
  await plain?.close();
  await sockudo?.stop();
  rmSync(built, { recursive: true, force: true });
});

async function openPage(url) {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') page.problems.push(`console error: ${message.text()}`);
  });
  if (url) await page.goto(url);
  return page;
}

/** The extension's panel page, connected to the tab showing `appUrl` (picked from its tab list). */
async function openExtensionPanel(appUrl) {
  const panel = await openPage(`chrome-extension://${extensionId}/panel.html`);
  await panel.waitForFunction(() => window.steplineExtension !== undefined, null, { timeout: WAIT_MS });
  const tabs = await panel.evaluate(() => window.steplineExtension.listTabs());
  const tab = tabs.find((t) => t.url === appUrl);
  assert.ok(tab, `the app's tab is listed (${JSON.stringify(tabs)})`);
  await panel.selectOption('[data-testid=ext-tabs]', String(tab.tabId));
  await panel.waitForFunction((id) => window.steplineExtension.tabId === id, tab.tabId);
  return panel;
}

async function broadcast(envelopes, log) {
  for (const envelope of envelopes) {
    log?.record(envelope);
    assert.equal(await pub.publish(envelope), 200);
  }
}

/** Sends the run step by step; each step is on the extension's panel before the next is sent. */
async function followLive(panel, envelopes, log) {
  const startOf = (n) => envelopes.findIndex((e) => e.type === 'agent.step.started' && e.payload.step_number === n);
  for (let n = 1; n <= STEPS; n += 1) {
    await broadcast(envelopes.slice(n === 1 ? 0 : startOf(n), n === STEPS ? envelopes.length : startOf(n + 1)), log);
    await panel.waitForSelector(`[data-testid=step-row][data-step="${n}"]`, { timeout: WAIT_MS });
  }
  await panel.waitForFunction((k) => window.stepline.view?.counts.applied === k, envelopes.length, { timeout: WAIT_MS });
}

/** "Download recording" on the extension's panel; the standalone panel opens the file to the same view. */
async function exportOpensTheSame(panel) {
  const summary = await panel.textContent('[data-testid=summary]');
  const shown = await panel.evaluate(() => window.stepline.view.executions.map((e) => e.steps.map((s) => s.tools.map((t) => t.status))));
  const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('[data-testid=export]')]);
  const recording = readFileSync(await download.path(), 'utf8');
  const standalone = await openPage();
  await openRecording(standalone, { server: panelServer }, download.suggestedFilename(), recording);
  await standalone.waitForFunction(() => window.stepline.source.kind === 'file' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: WAIT_MS });
  assert.equal(await standalone.textContent('[data-testid=summary]'), summary);
  assert.deepEqual(await standalone.evaluate(() => window.stepline.view.executions.map((e) => e.steps.map((s) => s.tools.map((t) => t.status)))), shown);
  assert.deepEqual(standalone.problems, []);
  await standalone.close();
  return recording;
}

describe('the DevTools extension', () => {
  test('npm run build packs it as a zip whose manifest is the built one and asks for no permission', () => {
    const entries = unzip(readFileSync(extensionZip));
    assert.deepEqual(JSON.parse(entries.get('manifest.json').toString('utf8')), builtManifest());
    const files = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
    assert.deepEqual([...entries.keys()].sort(), files(extensionDir).map((f) => relative(extensionDir, f).split(sep).join('/')).sort());
    for (const [name, bytes] of entries) assert.ok(bytes.equals(readFileSync(join(extensionDir, name))), `${name} in the zip is the built file`);
    const manifest = builtManifest();
    assert.equal(manifest.manifest_version, 3);
    assert.deepEqual(manifest.permissions, []);
    assert.equal(manifest.host_permissions, undefined);
    assert.equal(manifest.optional_permissions, undefined);
    assert.deepEqual(manifest.content_scripts.map((c) => [c.js, c.world, c.run_at]), [[['relay.js'], 'ISOLATED', 'document_start'], [['page.js'], 'MAIN', 'document_start']]);
    // No remote code: every script the manifest and pages name is in the package.
    for (const name of ['worker.js', 'devtools.js', 'panel.js', 'page.js', 'relay.js', 'panel.html', 'devtools.html']) assert.ok(entries.has(name), name);
    assert.ok(existsSync(join(root, 'scripts', 'build.mjs')) && readFileSync(join(root, 'scripts', 'build.mjs'), 'utf8').includes('buildExtension('), 'npm run build builds it');
  });

  test('(a) a stepline page (examples/react): its run is listed from the registry once, its steps show live, and the recording opens in the standalone panel to the same view', async () => {
    const sessionId = 'sess-ext-react';
    const { envelopes } = await longRun({ steps: STEPS, sessionId, executionId: 'exec-ext-react' });
    const log = eventLog();
    react.addLog(sessionId, log);
    const params = new URLSearchParams({ key: sockudo.key, host: sockudo.host, port: String(sockudo.port), tls: '0', session: sessionId });
    const appUrl = `${react.url}?${params}`;
    const app = await openPage(appUrl);
    await app.waitForFunction(() => window.__agentRun?.subscribed === true, null, { timeout: WAIT_MS });
    assert.equal(await app.evaluate(() => typeof window.stepline), 'undefined');

    const panel = await openExtensionPanel(appUrl);
    await panel.waitForFunction(() => window.steplineExtension.runs.length === 1, null, { timeout: WAIT_MS });
    await followLive(panel, envelopes, log);
    // One run, from the registry: its socket events (the same channel) are not listed again.
    assert.deepEqual(await panel.evaluate(() => window.steplineExtension.runs.map((r) => [r.label, r.origin])), [[`agent.${sessionId}`, 'registry']]);
    assert.equal(await panel.textContent('[data-testid=run-status]'), 'completed');
    assert.match(await panel.textContent('[data-testid=summary]'), new RegExp(`${STEPS} steps`));
    assert.equal(await panel.getAttribute('[data-testid=step-row][data-step="10"]', 'data-state'), 'failed', 'the failed tool\'s step is marked');
    // The panel's run is the app's: the same executions as the app's own Session.
    const appView = await app.evaluate(() => window.__agentRun.view.executions);
    assert.deepEqual(await panel.evaluate(() => window.stepline.view.executions), appView);

    for (const width of [1440, 800]) {
      await panel.setViewportSize({ width, height: 900 });
      await panel.screenshot({ path: join(resultsDir, `extension-${width}.png`) });
    }
    await panel.setViewportSize({ width: 1440, height: 900 });
    await exportOpensTheSame(panel);
    assert.deepEqual(panel.problems, []);
    assert.deepEqual(app.problems, []);
    await panel.close();
    await app.close();
  });

  test('(b) a plain laravel-echo + pusher-js page without stepline: its run is found on its socket, shown live, exported; paused, what arrives is not kept', async () => {
    const sessionId = 'sess-ext-plain';
    const { envelopes } = await longRun({ steps: STEPS, sessionId, executionId: 'exec-ext-plain' });
    const params = new URLSearchParams({ key: sockudo.key, host: sockudo.host, port: String(sockudo.port), session: sessionId });
    const appUrl = `${plain.url}?${params}`;
    const app = await openPage(appUrl);
    await app.waitForFunction(() => window.__plainRun?.subscribed === true, null, { timeout: WAIT_MS });
    assert.equal(await app.evaluate(() => globalThis.__STEPLINE_DEVTOOLS__), undefined, 'the page does not use stepline');

    const panel = await openExtensionPanel(appUrl);
    assert.deepEqual(await panel.evaluate(() => window.steplineExtension.runs), []);
    await followLive(panel, envelopes);
    assert.deepEqual(await panel.evaluate(() => window.steplineExtension.runs.map((r) => [r.label, r.origin, r.messages])), [[`agent.${sessionId}`, 'socket', envelopes.length]]);
    // The page got every event too: observing takes nothing away from it.
    assert.equal(await app.evaluate(() => window.__plainRun.received), envelopes.length);
    assert.equal(await panel.textContent('[data-testid=run-status]'), 'completed');
    assert.equal(await panel.getAttribute('[data-testid=step-row][data-step="10"]', 'data-state'), 'failed');
    // The view is the one the same events give a Session in Node.
    const stepline = await import('stepline');
    const reference = new stepline.Session({ sessionId });
    for (const envelope of envelopes) reference.ingestEvent('instructor.agent.event', envelope);
    assert.deepEqual(await panel.evaluate(() => window.stepline.view.executions), JSON.parse(JSON.stringify(reference.getSnapshot().executions)));
    await exportOpensTheSame(panel);

    // Paused: a second turn's events reach the page, not the panel; recording again, later ones do.
    const { envelopes: again } = await longRun({ steps: 2, sessionId, executionId: 'exec-ext-plain-2' });
    await panel.click('[data-testid=ext-record]');
    assert.equal(await panel.getAttribute('[data-testid=ext-record]', 'aria-pressed'), 'false');
    const half = again.findIndex((e) => e.type === 'agent.step.started' && e.payload.step_number === 2);
    await broadcast(again.slice(0, half));
    await app.waitForFunction((k) => window.__plainRun.received === k, envelopes.length + half, { timeout: WAIT_MS });
    await panel.waitForFunction((k) => window.steplineExtension.dropped === k, half, { timeout: WAIT_MS });
    assert.equal(await panel.evaluate(() => window.stepline.view.counts.applied), envelopes.length);
    await panel.click('[data-testid=ext-record]');
    await broadcast(again.slice(half));
    await panel.waitForFunction((k) => window.stepline.view.counts.applied === k, envelopes.length + again.length - half, { timeout: WAIT_MS });
    assert.match(await panel.textContent('[data-testid=ext-status]'), new RegExp(`${half} messages not kept while paused`));
    assert.deepEqual(panel.problems, []);
    assert.deepEqual(app.problems, []);
    await panel.close();
    await app.close();
  });

  test('(c) it follows the tab across a reload: the old run stays listed as ended; a run first seen while paused is listed once recording again', async () => {
    const sessionId = 'sess-ext-reload';
    const params = new URLSearchParams({ key: sockudo.key, host: sockudo.host, port: String(sockudo.port), session: sessionId });
    const appUrl = `${plain.url}?${params}`;
    const app = await openPage(appUrl);
    await app.waitForFunction(() => window.__plainRun?.subscribed === true, null, { timeout: WAIT_MS });
    const panel = await openExtensionPanel(appUrl);
    const { envelopes: first } = await longRun({ steps: 2, sessionId, executionId: 'exec-ext-reload-1' });
    await broadcast(first);
    await panel.waitForFunction((k) => window.stepline.view?.counts.applied === k, first.length, { timeout: WAIT_MS });

    // Paused, then the page reloads: its new socket's first events are not kept, though its run is named.
    await panel.click('[data-testid=ext-record]');
    await app.reload();
    await app.waitForFunction(() => window.__plainRun?.subscribed === true, null, { timeout: WAIT_MS });
    await panel.waitForFunction(() => window.steplineExtension.runs.length === 1 && window.steplineExtension.runs[0].ended, null, { timeout: WAIT_MS });
    const { envelopes: second } = await longRun({ steps: 2, sessionId, executionId: 'exec-ext-reload-2' });
    const half = second.findIndex((e) => e.type === 'agent.step.started' && e.payload.step_number === 2);
    await broadcast(second.slice(0, half));
    await panel.waitForFunction((k) => window.steplineExtension.dropped === k, half, { timeout: WAIT_MS });
    assert.equal(await panel.evaluate(() => window.steplineExtension.runs.length), 1);

    await panel.click('[data-testid=ext-record]');
    await broadcast(second.slice(half));
    // The second run is listed at its first kept message: wait for all of them, not the listing.
    await panel.waitForFunction((k) => window.steplineExtension.runs.length === 2 && window.steplineExtension.runs[1].messages === k,
      second.length - half, { timeout: WAIT_MS });
    assert.deepEqual(await panel.evaluate(() => window.steplineExtension.runs.map((r) => [r.label, r.origin, r.ended, r.messages])),
      [[`agent.${sessionId}`, 'socket', true, first.length], [`agent.${sessionId}`, 'socket', false, second.length - half]]);
    // The new run is shown (the old one ended): step 2 of the second turn, without its missing start.
    await panel.waitForFunction((k) => window.stepline.view?.counts.applied === k, second.length - half, { timeout: WAIT_MS });
    assert.deepEqual(panel.problems, []);
    await panel.close();
    await app.close();
  });

  test('the extension\'s pages request nothing but their own chrome-extension:// files', () => {
    assert.ok(extensionRequests.some((url) => url.startsWith(`chrome-extension://${extensionId}/`)), 'the watch saw the panel load its own files');
    assert.deepEqual(extensionRequests.filter((url) => !url.startsWith(`chrome-extension://${extensionId}/`)), []);
  });
});
