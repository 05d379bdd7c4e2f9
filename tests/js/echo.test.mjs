// stepline/echo through the built package: subscribeToAgent on a fake laravel-echo
// (tests/js/lib/fake-echo.mjs) fed the reference runs' envelopes as Echo hands them over.
// The feed must give the view a plain `session.ingest` of the same envelopes gives, count
// what is not an agent event, resync after a reconnect or a late subscribe and merge the
// result without loss or duplication, reconcile once the run ended, and stop for good
// when unsubscribed. Compares `executions` and `warnings`, not whole views: a resync
// legitimately counts duplicates in `counts`. Needs `npm run build`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import Echo from 'laravel-echo';
import { Session } from 'stepline';
import { createAgentFeed, registerRun, subscribeToAgent } from 'stepline/echo';
import initLive, { Session as LiveSession } from 'stepline/live';

import { longRun } from '../../scripts/long-run.mjs';
import { FakeEcho } from './lib/fake-echo.mjs';
import { v1Vectors } from './lib/vectors.mjs';

await initLive();

const EVENT = '.instructor.agent.event'; // laravel-echo's name for the transport's broadcast
const runs = v1Vectors('agent-runs.json');
const toolRun = runs.find((r) => r.name.startsWith('tool call then final answer'));
const turn = toolRun.expected[0];
const envelopes = turn.envelopes.map((e) => e.envelope);
const SESSION = envelopes[0].session_id;
const laravelAi = JSON.parse(readFileSync(new URL('../vectors/dialects/laravel-ai/canonical-per-step.json', import.meta.url), 'utf8')).events;

/** The view a session fed `events` with plain `ingest` has. */
function ingested(events) {
  const s = new Session();
  for (const e of events) s.ingest(e);
  return s.getSnapshot();
}

/** The parts of a view a resync must not change: what ran, and what was wrong with it. */
const essence = (view) => ({ executions: view.executions, warnings: view.warnings });

/** A promise with its resolve/reject outside, for resyncs the test answers when it wants. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

/** A resync the test answers by hand: each call queues its reason and a deferred. */
function manualResync() {
  const calls = [];
  const resync = (reason) => {
    const d = deferred();
    calls.push({ reason, ...d });
    return d.promise;
  };
  return { calls, resync };
}

/** Resolves once the run's state satisfies `predicate` (checked now and on every change). */
function until(run, predicate) {
  return new Promise((resolve) => {
    if (predicate(run.getSnapshot())) return resolve(run.getSnapshot());
    const stop = run.subscribe(() => {
      const state = run.getSnapshot();
      if (predicate(state)) {
        stop();
        resolve(state);
      }
    });
  });
}

/** A subscribed run on a fake Echo: the echo, its channel and the subscription. */
function follow(options = {}, session = new Session()) {
  const echo = new FakeEcho();
  const sessionId = options.sessionId ?? SESSION;
  const run = subscribeToAgent(echo, { ...options, sessionId }, session);
  const channel = echo.channels.get(options.private ? `private-agent.${sessionId}` : `agent.${sessionId}`);
  return { echo, run, channel, session };
}

test('a whole run delivered on agent.{sessionId} gives the view session.ingest of the same envelopes gives', () => {
  const { run, channel, echo } = follow();
  assert.deepEqual([...echo.channels.keys()], [`agent.${SESSION}`]);
  channel.succeed();
  for (const e of envelopes) channel.emit(EVENT, e);
  const state = run.getSnapshot();
  assert.deepEqual(essence(state.view), essence(ingested(envelopes)));
  assert.equal(state.view.counts.applied, envelopes.length);
  assert.equal(state.view.executions[0].ended, true);
  assert.deepEqual([state.subscribed, state.catchingUp, state.resyncs, state.ignored, state.error], [true, false, 0, 0, null]);
});

test('a feed lists its Session in the devtools registry (globalThis.__STEPLINE_DEVTOOLS__) while anything follows it, and tells the registry\'s listeners', () => {
  const registry = () => [...(globalThis.__STEPLINE_DEVTOOLS__?.runs ?? [])];
  const heard = [];
  const before = registry().length;
  const session = new LiveSession({ sessionId: SESSION });
  const feed = createAgentFeed(session, { sessionId: SESSION });
  assert.equal(registry().length, before, 'a feed nobody follows is not listed');
  const stop = feed.subscribe(() => {});
  const listed = registry().at(-1);
  assert.equal(listed.session, session);
  assert.equal(listed.label, `agent.${SESSION}`);
  assert.equal(listed.feed, feed);
  globalThis.__STEPLINE_DEVTOOLS__.listeners.add((type, run) => heard.push([type, run.label]));
  const view = session.getSnapshot();
  stop();
  assert.equal(registry().length, before, 'the last listener gone, the run is no longer listed');
  assert.equal(session.getSnapshot(), view, 'listing read nothing into the Session');
  // A page's own Session, listed by hand; the registry is one object per page.
  const unlist = registerRun({ session: new LiveSession(), label: 'by hand' });
  unlist();
  unlist();
  assert.deepEqual(heard, [['remove', `agent.${SESSION}`], ['add', 'by hand'], ['remove', 'by hand']]);
  assert.equal(globalThis.__STEPLINE_DEVTOOLS__.version, 1);
  feed.dispose();
});

test('a private run joins private-agent.{sessionId} and leaves that name on unsubscribe', () => {
  const { run, channel, echo } = follow({ private: true });
  assert.deepEqual([...echo.channels.keys()], [`private-agent.${SESSION}`]);
  channel.succeed();
  channel.emit(EVENT, envelopes[0]);
  assert.equal(run.getSnapshot().view.counts.applied, 1);
  run.unsubscribe();
  assert.deepEqual(echo.left, [`private-agent.${SESSION}`]);
});

test('events under other names are counted in ignored/lastIgnored and read nothing', () => {
  const { run, channel } = follow();
  channel.succeed();
  channel.emit(EVENT, envelopes[0]);
  const before = run.getSnapshot().view;
  channel.emit('.App\\Events\\OrderShipped', { id: 7 });
  channel.emit('.client-typing', { user: 1 });
  const state = run.getSnapshot();
  assert.equal(state.view, before, 'the view did not change');
  assert.equal(state.ignored, 2);
  assert.equal(state.lastIgnored, '.client-typing');
});

test('a configured eventName is read in place of the default name; other names are ignored', () => {
  const { run, channel } = follow({ eventName: 'acme.agent' });
  channel.succeed();
  channel.emit('.acme.agent', envelopes[0]);
  channel.emit(EVENT, envelopes[1]);
  channel.emit('.acme.other', envelopes[2]);
  const state = run.getSnapshot();
  assert.equal(state.view.counts.applied, 1, 'only the configured name is read once configured');
  assert.equal(state.ignored, 2);
});

test('a laravel/ai stream event broadcast under its own type is read by the full Session and ignored by the live one', () => {
  const events = laravelAi.slice(0, 6);
  const full = follow({ sessionId: 'chat-1' });
  full.channel.succeed();
  for (const e of events) full.channel.emit(`.${e.type}`, e);
  const fullState = full.run.getSnapshot();
  assert.equal(fullState.ignored, 0);
  assert.equal(fullState.view.executions[0].dialect, 'laravel-ai');
  assert.deepEqual(essence(fullState.view), essence(ingested(events)));

  const live = follow({ sessionId: 'chat-1' }, new LiveSession());
  live.channel.succeed();
  for (const e of events) live.channel.emit(`.${e.type}`, e);
  const liveState = live.run.getSnapshot();
  assert.equal(liveState.ignored, events.length, 'stepline/live reads no dialect but the envelopes');
  assert.equal(liveState.lastIgnored, `.${events.at(-1).type}`);
  assert.deepEqual(liveState.view.executions, []);
});

test("resync('reconnect') is called on the second and later subscriptions only", async () => {
  const { calls, resync } = manualResync();
  const { run, channel } = follow({ resync });
  channel.succeed();
  for (const e of envelopes.slice(0, 3)) channel.emit(EVENT, e);
  assert.deepEqual(calls, [], 'the first subscription and a run seen from its start need no resync');
  channel.drop();
  channel.succeed();
  assert.deepEqual(calls.map((c) => c.reason), ['reconnect']);
  calls[0].resolve(envelopes.slice(0, 3));
  await until(run, (s) => !s.catchingUp);
  channel.drop();
  channel.succeed();
  assert.deepEqual(calls.map((c) => c.reason), ['reconnect', 'reconnect']);
});

test("resync('late') when the events seen before any resync leave steps missing, and not when they open the run", () => {
  const opened = manualResync();
  const first = follow({ resync: opened.resync });
  first.channel.succeed();
  for (const e of envelopes) first.channel.emit(EVENT, e);
  assert.deepEqual(opened.calls, []);

  const late = manualResync();
  const second = follow({ resync: late.resync });
  second.channel.succeed();
  second.channel.emit(EVENT, envelopes[6]); // step 2 started: step 1 is missing
  assert.deepEqual(late.calls.map((c) => c.reason), ['late']);
  for (const e of envelopes.slice(7)) second.channel.emit(EVENT, e);
  assert.equal(late.calls.length, 1, 'asked once');

  // A status event names no step, so no gap shows; but a run does not open with its
  // closing status (the first event seen decides, tests/js/echo-late.test.mjs).
  const later = manualResync();
  const third = follow({ resync: later.resync });
  third.channel.succeed();
  third.channel.emit(EVENT, envelopes[7]);
  assert.equal(envelopes[7].type, 'agent.status');
  assert.notEqual(envelopes[7].payload.status, 'processing');
  assert.deepEqual(later.calls.map((c) => c.reason), ['late']);
  third.channel.emit(EVENT, envelopes[8]);
  assert.equal(later.calls.length, 1, 'asked once');
});

test('a late subscriber shows the missing steps as missing while catching up, then the resync fills them: the uninterrupted view, the events it had counted as duplicates', async () => {
  const { calls, resync } = manualResync();
  const { run, channel } = follow({ resync });
  channel.succeed();
  const seen = envelopes.slice(6);
  for (const e of seen) channel.emit(EVENT, e);
  const pending = run.getSnapshot();
  assert.equal(pending.catchingUp, true);
  assert.deepEqual(pending.view.executions.at(-1).missing_steps, [1]);
  calls[0].resolve(envelopes); // the server's log: the whole run
  const done = await until(run, (s) => !s.catchingUp);
  assert.deepEqual(essence(done.view), essence(ingested(envelopes)));
  assert.deepEqual(done.view.executions.at(-1).missing_steps, []);
  assert.deepEqual(done.lastResync, { reason: 'late', applied: envelopes.length - seen.length, duplicates: seen.length, errors: 0 });
  assert.equal(done.resyncs, 1);
});

test('a resync that returns JSONL text is merged the same way', async () => {
  const { run, channel } = follow({ resync: async () => envelopes.map((e) => JSON.stringify(e)).join('\n') });
  channel.succeed();
  for (const e of envelopes.slice(6)) channel.emit(EVENT, e);
  const done = await until(run, (s) => s.resyncs === 1 && !s.catchingUp);
  assert.deepEqual(essence(done.view), essence(ingested(envelopes)));
  assert.equal(done.lastResync.duplicates, envelopes.length - 6);
});

test('a resync asked for during a resync is coalesced into one more run, and its result is not lost', async () => {
  const { calls, resync } = manualResync();
  const { run, channel } = follow({ resync });
  channel.succeed();
  for (const e of envelopes.slice(0, 2)) channel.emit(EVENT, e);
  channel.drop();
  channel.succeed(); // reconnect 1: resync in flight
  channel.drop();
  channel.succeed(); // reconnect 2 while it runs
  channel.drop();
  channel.succeed(); // reconnect 3 while it runs
  assert.equal(calls.length, 1, 'one resync in flight at a time');
  calls[0].resolve(envelopes.slice(0, 5)); // the log when the first fetch ran
  await until(run, (s) => s.resyncs === 1);
  await new Promise((resolve) => setImmediate(resolve)); // the feed's loop takes the next reason
  assert.equal(calls.length, 2, 'the two requests made meanwhile became one more run');
  assert.equal(run.getSnapshot().catchingUp, true);
  calls[1].resolve(envelopes); // the log when the second fetch ran: the rest of the run
  const done = await until(run, (s) => !s.catchingUp);
  assert.equal(calls.length, 2);
  assert.equal(done.resyncs, 2);
  assert.deepEqual(essence(done.view), essence(ingested(envelopes)));
  assert.deepEqual(done.lastResync, { reason: 'reconnect', applied: envelopes.length - 5, duplicates: 5, errors: 0 });
});

test('a throwing resync sets error and lastResync.error, keeps the view and stops catching up', async () => {
  const { run, channel } = follow({ resync: async () => { throw new Error('HTTP 503 from /agents/events'); } });
  channel.succeed();
  for (const e of envelopes.slice(0, 4)) channel.emit(EVENT, e);
  const before = run.getSnapshot().view;
  channel.drop();
  channel.succeed();
  const done = await until(run, (s) => s.resyncs === 1 && !s.catchingUp);
  assert.equal(done.view, before, 'the view is the one it had');
  assert.equal(done.error.message, 'HTTP 503 from /agents/events');
  assert.deepEqual(done.lastResync, { reason: 'reconnect', applied: 0, duplicates: 0, errors: 0, error: 'HTTP 503 from /agents/events' });
});

test('finalState: once the run ended, its snapshot is fetched once, the report is session.reconcile of it, and the session keeps it', async () => {
  let asked = 0;
  const finalState = async () => {
    asked += 1;
    return turn.slim;
  };
  const { run, channel, session } = follow({ finalState });
  channel.succeed();
  for (const e of envelopes.slice(0, 7)) channel.emit(EVENT, e);
  assert.equal(asked, 0, 'not before the run ended');
  for (const e of envelopes.slice(7)) channel.emit(EVENT, e);
  const done = await until(run, (s) => s.report !== null);
  const expected = new Session();
  for (const e of envelopes) expected.ingest(e);
  assert.deepEqual(done.report, expected.reconcile(turn.slim));
  assert.equal(done.report.consistent, true);
  assert.deepEqual(session.recordedSnapshots(), [turn.slim], 'kept for toRecording()');
  assert.equal(asked, 1);
});

test('finalState with a stepline/live Session is a TypeError: the live build has no reconcile', () => {
  const echo = new FakeEcho();
  assert.throws(() => subscribeToAgent(echo, { sessionId: SESSION, finalState: () => turn.slim }, new LiveSession()), (e) => {
    assert.ok(e instanceof TypeError);
    assert.match(e.message, /cannot reconcile/);
    return true;
  });
  assert.throws(() => createAgentFeed(new LiveSession(), { finalState: () => turn.slim }), TypeError);
  assert.deepEqual([...echo.channels.keys()], [], 'no channel was joined');
});

test('getSnapshot returns the same object between changes and a new one after any change', () => {
  const { run, channel, echo } = follow();
  const steps = [
    ['the subscription', () => channel.succeed()],
    ['an event', () => channel.emit(EVENT, envelopes[0])],
    ['an ignored event', () => channel.emit('.App\\Events\\OrderShipped', {})],
    ['the connection', () => echo.setStatus('reconnecting')],
    ['a refused subscription', () => channel.refuse({ status: 403 })],
  ];
  for (const [what, change] of steps) {
    const before = run.getSnapshot();
    assert.equal(run.getSnapshot(), before, `no change before ${what}: same object`);
    change();
    const after = run.getSnapshot();
    assert.notEqual(after, before, `${what} made a new state`);
    assert.equal(run.getSnapshot(), after);
  }
  const state = run.getSnapshot();
  echo.setStatus('reconnecting'); // the status it already has
  assert.equal(run.getSnapshot(), state, 'a status that did not change keeps the object');
  assert.deepEqual([state.connection, state.error, state.ignored, state.view.counts.applied], ['reconnecting', { status: 403 }, 1, 1]);
});

test('the connection status follows Echo, and a dropped connection is no longer subscribed', () => {
  const { run, channel, echo } = follow();
  assert.equal(run.getSnapshot().connection, 'connecting');
  echo.setStatus('connected');
  channel.succeed();
  assert.deepEqual([run.getSnapshot().connection, run.getSnapshot().subscribed], ['connected', true]);
  echo.setStatus('reconnecting');
  assert.deepEqual([run.getSnapshot().connection, run.getSnapshot().subscribed], ['reconnecting', false]);
});

test('unsubscribe stops listening, leaves the channel, and drops a resync result that arrives later', async () => {
  const { calls, resync } = manualResync();
  const { run, channel, echo, session } = follow({ resync });
  let notified = 0;
  run.subscribe(() => { notified += 1; });
  channel.succeed();
  for (const e of envelopes.slice(6)) channel.emit(EVENT, e); // late: a resync is in flight
  assert.equal(calls.length, 1);
  const view = session.getSnapshot();
  const state = run.getSnapshot();
  const count = notified;
  run.unsubscribe();
  assert.deepEqual(echo.left, [`agent.${SESSION}`]);
  assert.equal(channel.listeners.size, 0, 'no listenToAll callback remains');
  assert.equal(channel.subscription.bound, 0, 'no pusher binding remains');
  assert.equal(echo.statusListeners.size, 0, 'no connection listener remains');
  channel.emit(EVENT, envelopes[0]);
  calls[0].resolve(envelopes);
  await calls[0].promise;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(session.getSnapshot(), view, 'nothing reached the session');
  assert.equal(run.getSnapshot(), state);
  assert.equal(notified, count, 'no listener was called');
  run.unsubscribe(); // a second call is harmless
  assert.deepEqual(echo.left, [`agent.${SESSION}`]);
});

test('a 39-step run (longer than any snapshot window) with a reconnect gap in the middle ends equal to the uninterrupted run', async () => {
  const { envelopes: long } = await longRun({ steps: 39 });
  const a = Math.floor(long.length / 3);
  const b = Math.floor((2 * long.length) / 3);
  const { calls, resync } = manualResync();
  const { run, channel, echo } = follow({ sessionId: long[0].session_id, resync });
  echo.setStatus('connected');
  channel.succeed();
  for (const e of long.slice(0, a)) channel.emit(EVENT, e);
  echo.setStatus('disconnected');
  channel.drop(); // long[a..b) are broadcast while the page is offline
  echo.setStatus('connected');
  channel.succeed();
  assert.deepEqual(calls.map((c) => c.reason), ['reconnect']);
  for (const e of long.slice(b)) channel.emit(EVENT, e); // live again before the log arrives
  assert.equal(run.getSnapshot().catchingUp, true);
  assert.ok(run.getSnapshot().view.executions[0].missing_step_count > 0, 'the gap shows as missing steps');
  calls[0].resolve(long.slice(0, b)); // the log as the server had it when fetched
  const done = await until(run, (s) => !s.catchingUp);
  const expected = ingested(long);
  assert.equal(expected.executions[0].steps.length, 39);
  assert.deepEqual(essence(done.view), essence(expected));
  assert.equal(done.lastResync.duplicates, a);
  assert.equal(done.lastResync.applied, b - a);
});

test("a real laravel-echo with the 'null' broadcaster (tests, SSR): subscribing, reading its status and unsubscribing work, though its channel has no stopListeningToAll", () => {
  const echo = new Echo({ broadcaster: 'null' });
  const run = subscribeToAgent(echo, { sessionId: SESSION }, new Session());
  assert.equal(run.getSnapshot().connection, 'connected');
  assert.equal(typeof echo.channel(`agent.${SESSION}`).stopListeningToAll, 'undefined');
  run.unsubscribe();
  assert.equal(run.getSnapshot().connection, 'connected');
});
