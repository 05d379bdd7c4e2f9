// The panel behind instructor-php v2's Laravel transport: every envelope on
// `agent.{session_id}` under one event name, `instructor.agent.event` unless
// the app configured another (v2.7 quirk 17 in
// tests/vectors/instructor-php-v2.7/README.md), published through the Pusher
// HTTP API to sockudo (our Reverb) and received by laravel-echo + pusher-js in
// the panel in headless Chromium.
// v1.22 apps' `agent.*` names still arrive; an app's other events on the
// channel are ignored and counted. The run is the bundled demo run.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demoRun } from '../../scripts/demo-run.mjs';
import { openPage } from './lib/browser.mjs';
import { liveUrl, panelFixture, stepsShown } from './lib/panel.mjs';

const env = panelFixture({ live: true });

const TRANSPORT_EVENT = 'instructor.agent.event';
const CUSTOM_EVENT = 'acme.agent.broadcast';

const subscribed = (page) => page.waitForFunction(() => window.stepline?.source.detail.startsWith('subscribed'), null, { timeout: 20_000 });
const applied = (page, n) => page.waitForFunction((k) => window.stepline.view?.counts.applied === k, n, { timeout: 10_000 });

/** Publishes every envelope (`eventName`: a name or `(envelope) => name`), checking each was accepted. */
async function publishAll(envelopes, eventName) {
  for (const envelope of envelopes) {
    const name = typeof eventName === 'function' ? eventName(envelope) : eventName;
    assert.equal(await env.pub.publish(envelope, name === undefined ? {} : { eventName: name }), 200);
  }
}

/** The whole run is on the page: every envelope applied, none rejected, 9 steps, ended `stopped`. */
async function assertWholeRun(page, envelopes) {
  await applied(page, envelopes.length);
  assert.deepEqual(await page.evaluate(() => window.stepline.view.counts), { applied: envelopes.length, duplicates: 0, rejected: 0 });
  assert.equal(await stepsShown(page), 9);
  assert.equal(await page.textContent('[data-testid=run-status]'), 'stopped');
}

describe('the Laravel transport (instructor-php v2) over laravel-echo + pusher-js from sockudo', () => {
  test('by default the panel reads instructor.agent.event: the run shows and reconciles as consistent', async () => {
    const session = 'sess-transport-1';
    const page = await openPage(env.browser);
    await page.goto(liveUrl(env, session));
    await subscribed(page);
    assert.equal(await page.inputValue('[data-testid=live-form] input[name=event]'), TRANSPORT_EVENT);
    const { envelopes, snapshots } = await demoRun({ sessionId: session });
    // The publisher's default is the transport's name, as instructor-php v2 sends it.
    await publishAll(envelopes, undefined);
    await assertWholeRun(page, envelopes);
    assert.equal(await page.evaluate(() => window.stepline.source.detail), 'subscribed');

    env.server.setRoute(`/final/${session}.json`, () => ({ body: snapshots.at(-1).snapshot }));
    await page.click('[data-testid=live-toggle]');
    await page.click('[data-testid=fetch-final]');
    await page.waitForSelector('[data-testid=reconcile-status]');
    assert.equal(await page.textContent('[data-testid=reconcile-status]'), 'consistent');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('a configured event name entered in the form replaces the default', async () => {
    const session = 'sess-transport-2';
    const page = await openPage(env.browser);
    // Without connect=1 the form opens, filled from the URL; the event name is typed in.
    const url = new URL(liveUrl(env, session));
    url.searchParams.delete('connect');
    await page.goto(url.href);
    await page.waitForSelector('[data-testid=live-form]:not([hidden])');
    await page.fill('[data-testid=live-form] input[name=event]', CUSTOM_EVENT);
    await page.click('[data-testid=live-form] button[type=submit]');
    await subscribed(page);
    const { envelopes } = await demoRun({ sessionId: session });
    // The default name is not read when the app configured another (the producer sends one name).
    await publishAll(envelopes.slice(0, 1), TRANSPORT_EVENT);
    await publishAll(envelopes, CUSTOM_EVENT);
    await assertWholeRun(page, envelopes);
    assert.equal(await page.evaluate(() => window.stepline.source.detail),
      'subscribed · ignored 1 event under other names (last: .instructor.agent.event)');
    assert.match(await page.textContent('[data-testid=source]'), new RegExp(`agent\\.${session} · ${CUSTOM_EVENT.replaceAll('.', '\\.')}`));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('agent.* event names (v1.22 apps named events after the type) still arrive, also beside an event= setting', async () => {
    const session = 'sess-transport-3';
    const page = await openPage(env.browser);
    await page.goto(liveUrl(env, session, { event: CUSTOM_EVENT }));
    await subscribed(page);
    assert.equal(await page.inputValue('[data-testid=live-form] input[name=event]'), CUSTOM_EVENT);
    const { envelopes } = await demoRun({ sessionId: session });
    assert.ok(envelopes.some((e) => e.type === 'agent.step.started'));
    await publishAll(envelopes, (envelope) => envelope.type);
    await assertWholeRun(page, envelopes);
    assert.equal(await page.evaluate(() => window.stepline.source.detail), 'subscribed');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('other events on the channel are ignored and counted, never read as envelopes', async () => {
    const session = 'sess-transport-4';
    const page = await openPage(env.browser);
    await page.goto(liveUrl(env, session));
    await subscribed(page);
    const { envelopes } = await demoRun({ sessionId: session });
    // Envelope-shaped payloads for this very session: ingested, each would count.
    const decoys = envelopes.slice(0, 3);
    for (const name of ['pusher:fake', 'App\\Events\\OrderShipped', 'agent', 'instructor.agent.event.v2']) await publishAll(decoys, name);
    await publishAll(envelopes, TRANSPORT_EVENT);
    await assertWholeRun(page, envelopes);
    // Echo itself drops `pusher:` events; the rest reach the panel and are counted
    // (names as Echo's listenToAll gives them: App\Events' namespace cut off, others dotted).
    assert.equal(await page.evaluate(() => window.stepline.source.detail),
      'subscribed · ignored 9 events under other names (last: .instructor.agent.event.v2)');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test('an event name no backend could send is refused before connecting', async () => {
    const page = await openPage(env.browser);
    await page.goto(liveUrl(env, 'sess-transport-5', { event: 'pusher:subscription_succeeded' }));
    await page.waitForSelector('[data-testid=error]:not([hidden])');
    assert.match(await page.textContent('[data-testid=error]'), /event name cannot be used: .*pusher:/);
    assert.equal(await page.evaluate(() => window.stepline.source.kind), 'none');
    await page.close();
  });
});
