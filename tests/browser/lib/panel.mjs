// The set-up the panel tests share: Chromium and the panel served from
// www/dist for the whole file, sockudo and a publisher for the live ones, and
// the panel's live-mode URL. Each file used to declare these itself.
import { after, before } from 'node:test';
import { servePanel } from '../../../scripts/lib/panel-server.mjs';
import { authorizer, publisher } from '../../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../../scripts/lib/sockudo.mjs';
import { distDir, launch, openPage } from './browser.mjs';

/**
 * Starts sockudo (our Reverb, 10 KB messages) and its publisher before the
 * tests of the enclosing suite and stops it after them. The returned object's
 * `sockudo` and `pub` are set once the `before` hook has run.
 */
export function withSockudo() {
  const live = { sockudo: undefined, pub: undefined };
  before(async () => {
    live.sockudo = await startSockudo({ maxPayloadKb: 10 });
    live.pub = publisher(live.sockudo);
  });
  after(async () => {
    await live.sockudo?.stop();
  });
  return live;
}

/**
 * Registers the file's hooks: headless Chromium and the panel served from
 * www/dist, and with `{ live: true }` sockudo and a publisher first (with
 * `auth: true` the panel server also authorises private channels). Returns an
 * object whose `browser`, `server` and (live) `sockudo`, `pub` are set once
 * the `before` hook has run; `after` closes them in that order.
 */
export function panelFixture({ live = false, auth = false } = {}) {
  const env = { browser: undefined, server: undefined, sockudo: undefined, pub: undefined };
  before(async () => {
    if (live) {
      env.sockudo = await startSockudo({ maxPayloadKb: 10 });
      env.pub = publisher(env.sockudo);
    }
    env.browser = await launch();
    env.server = await servePanel({ root: distDir, ...(auth ? { auth: authorizer(env.sockudo) } : {}) });
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
    await env.sockudo?.stop();
  });
  return env;
}

/**
 * The live-mode URL of the panel `server` for `session` on `sockudo`, fetching
 * the final state from `/final/<session>.json` (`extra`: more parameters,
 * e.g. `{ event }` or `{ private: '1' }`).
 */
export function liveUrl({ server, sockudo }, session, extra = {}) {
  const params = new URLSearchParams({
    source: 'live', key: sockudo.key, host: '127.0.0.1', port: String(sockudo.port), tls: '0',
    session, final: `/final/${session}.json`, connect: '1', ...extra,
  });
  return `${server.url}?${params}`;
}

/** How many steps the page's view holds, over every execution. */
export const stepsShown = (page) => page.evaluate(() => window.stepline.view.executions.reduce((n, e) => n + e.steps.length, 0));

/** Opens a file in the panel the way a user does, once the bundled run has loaded. */
export async function openRecording(page, { server }, name, text) {
  await page.goto(server.url);
  await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null);
  await page.setInputFiles('[data-testid=file-input]', { name, mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
}

/** Opens a bundled run (`?demo=<id>`) and waits until it has loaded. */
export async function openDemo({ browser, server }, demoId = 'instructor', opts) {
  const page = await openPage(browser, opts);
  await page.goto(`${server.url}?demo=${demoId}`);
  await page.waitForFunction(() => window.stepline?.source.kind === 'bundled' && !window.stepline.loading && window.stepline.tools !== null, null, { timeout: 30_000 });
  return page;
}

/**
 * Moves the time slider the way its input does (keyboard suites use keys)
 * and waits until the panel stands there (the end is `time: null`).
 */
export async function slideTo(page, i) {
  await page.evaluate((at) => {
    const range = document.querySelector('[data-testid=time-range]');
    range.value = String(at);
    range.dispatchEvent(new Event('input', { bubbles: true }));
  }, i);
  await page.waitForFunction((at) => (window.stepline.state.time?.at ?? Number(document.querySelector('[data-testid=time-range]').max)) === at, i);
}
