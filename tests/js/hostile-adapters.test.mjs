// Hostile input to the Laravel front-end entries (issue 28): stepline/echo's feed, and
// stepline/react's and stepline/vue's `useAgentRun`, given broken events on their channel
// and `resync` / `finalState` callbacks that throw, reject (with an Error or with any
// other value) or answer garbage. Each must surface a typed error in the feed's `error`
// state (an Error with a string `code`; the Session's own SteplineError for an event it
// refused), leave `catchingUp` false, never reject a promise nobody awaits, and keep the
// session working: the run's good envelopes, delivered afterwards, give the view a plain
// `session.ingest` of them gives. React runs on the README test's stand-in
// (tests/js/readme/fake-react.js, React's hook contract), Vue on its own runtime with a
// renderer onto plain objects, both on the real @laravel/echo-react / -vue and
// laravel-echo over the in-process pusher-js server (tests/js/readme/fake-pusher.mjs).
// Needs `npm run build`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { FAKE_REACT, until, vueTestRenderer } from './readme/context.mjs';
import { v1Vectors } from './lib/vectors.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(join(root, 'node_modules', '.stepline-hostile-adapters-'));
const react = join(work, 'node_modules', 'react');
mkdirSync(react, { recursive: true });
for (const [file, text] of Object.entries(FAKE_REACT)) writeFileSync(join(react, file), text);
after(() => rmSync(work, { recursive: true, force: true }));
register(pathToFileURL(join(root, 'tests', 'js', 'readme', 'resolve-hooks.mjs')), {
  data: {
    react: pathToFileURL(join(react, 'index.js')).href,
    'react/jsx-runtime': pathToFileURL(join(react, 'jsx-runtime.js')).href,
    'pusher-js': pathToFileURL(join(root, 'tests', 'js', 'readme', 'fake-pusher.mjs')).href,
  },
});

const { Session } = await import('stepline');
const { subscribeToAgent } = await import('stepline/echo');
const { FakeEcho } = await import('./lib/fake-echo.mjs');
const { server } = await import('./readme/fake-pusher.mjs');

const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

const EVENT = '.instructor.agent.event';
const run = v1Vectors('agent-runs.json').find((r) => r.name.startsWith('tool call then final answer'));
const envelopes = run.expected[0].envelopes.map((e) => e.envelope);
const SESSION = envelopes[0].session_id;

function plainView(events) {
  const s = new Session();
  for (const e of events) s.ingest(e);
  return s.getSnapshot();
}
const reference = plainView(envelopes);

/** Settles the event loop a few turns (promises the feed started, their handlers). */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The error state says what failed, typed. */
function assertTyped(error, what) {
  assert.ok(error instanceof Error, `${what}: the error state is an Error (got ${String(error)})`);
  assert.equal(typeof error.code, 'string', `${what}: the error has a code`);
  assert.ok(error.message.length > 0, `${what}: the error has a message`);
}

const deep = (n) => { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; };
const envelope = (patch) => ({ ...envelopes[1], ...patch });

/** Broken events an agent channel can carry, all structured-cloneable (they cross pusher). */
const BROKEN = [
  ['null data', null],
  ['a number', 42],
  ['unparseable text', '{"type":"agent.status",'],
  ['an empty string', ''],
  ['an array', [1, 2]],
  ['an empty object', {}],
  ['an envelope without a payload', envelope({ payload: undefined })],
  ['a step number as a string', envelope({ payload: { ...envelopes[1].payload, step_number: 'one' } })],
  ['a timestamp that is no date', envelope({ timestamp: 'yesterday' })],
  ['a lone surrogate in the type', envelope({ type: 'agent.\uD800' })],
  ['1,000-level nesting', envelope({ payload: deep(1_000) })],
  ['a 5 MB string as the type', envelope({ type: 'x'.repeat(5 * 1024 * 1024) })],
  ['__proto__ keys', JSON.parse('{"__proto__":{"polluted":1},"type":"agent.step.started","payload":{"__proto__":{"step_number":1}}}')],
];

/** Values no channel could carry (structured clone refuses them or runs out of stack), but a hand-fed feed or a custom connector can. */
const UNCLONEABLE = [
  ['100k-level nesting', envelope({ payload: deep(100_000) })],
  ['a throwing getter', Object.defineProperty(envelope({}), 'payload', { enumerable: true, get() { throw new Error('getter'); } })],
  ['a Proxy that throws on every trap', new Proxy({}, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); }, getOwnPropertyDescriptor() { throw new Error('trap'); } })],
  ['a BigInt step number', envelope({ payload: { ...envelopes[1].payload, step_number: 10n } })],
  ['a circular payload', (() => { const p = {}; p.self = p; return envelope({ payload: p }); })()],
];

/** Asserts a feed's state after a broken event: refused with a typed error, nothing else changed. */
function assertRefused(state, before, what) {
  if (state.error !== before.error) {
    assertTyped(state.error, what);
    assert.ok(state.error.path === null || typeof state.error.path === 'string', `${what}: path`);
  } else {
    assert.equal(state.ignored, before.ignored + 1, `${what}: neither an error nor counted as ignored`);
  }
  assert.deepEqual(state.view.executions, before.view.executions, `${what}: the view changed`);
}

test('echo: broken events on the channel are refused with a typed error in the feed state; the run delivered afterwards shows as ingested', async () => {
  const echo = new FakeEcho();
  const sub = subscribeToAgent(echo, { sessionId: SESSION }, new Session());
  const channel = echo.channels.get(`agent.${SESSION}`);
  channel.succeed();
  for (const [what, data] of [...BROKEN, ...UNCLONEABLE]) {
    const before = sub.getSnapshot();
    // As laravel-echo's listenToAll calls the listener (no clone: a custom connector may hand anything).
    for (const listener of channel.listeners) assert.doesNotThrow(() => listener(EVENT, data), what);
    assertRefused(sub.getSnapshot(), before, what);
  }
  for (const e of envelopes) channel.emit(EVENT, e);
  await settle();
  assert.deepEqual(sub.getSnapshot().view.executions, reference.executions);
  assert.deepEqual(unhandled, []);
  sub.unsubscribe();
});

/** Callbacks that fail: `[what, callback]`, each failing its own way. */
const FAILING = [
  ['throws an Error', () => { throw new Error('log store down'); }],
  ['throws a string', () => { throw 'log store down'; }],
  ['rejects with undefined', () => Promise.reject(undefined)],
  ['rejects with null', () => Promise.reject(null)],
  ['rejects with an object', () => Promise.reject({ status: 500 })],
  ['resolves a circular value', () => { const v = []; v.push(v); return Promise.resolve(v); }],
  ['resolves a BigInt', () => Promise.resolve([1n])],
];

/** Resyncs that answer garbage: the log's lines are counted as errors, nothing applies. */
const GARBAGE_LOGS = [
  ['a number', () => 42],
  ['garbage text', () => 'not json\n{"type":'],
  ['an array of broken events', () => BROKEN.slice(0, 10).map(([, e]) => e)],
  ['an object', () => ({ events: envelopes })],
];

test('echo: a resync that throws, rejects with any value or answers garbage surfaces a typed error and leaves the session working', async () => {
  for (const [what, resync] of [...FAILING, ...GARBAGE_LOGS]) {
    const echo = new FakeEcho();
    const sub = subscribeToAgent(echo, { sessionId: SESSION, resync }, new Session());
    const channel = echo.channels.get(`agent.${SESSION}`);
    channel.succeed();
    channel.emit(EVENT, envelopes[0]);
    await assert.doesNotReject(sub.resync(), what);
    await settle();
    const state = sub.getSnapshot();
    assert.equal(state.catchingUp, false, what);
    assert.equal(state.resyncs, 1, what);
    assert.equal(state.lastResync.applied, 0, what);
    if (FAILING.some(([w]) => w === what)) {
      assertTyped(state.error, `resync ${what}`);
      assert.equal(state.error.code, 'resync_failed', what);
      assert.equal(typeof state.lastResync.error, 'string', what);
    } else {
      assert.ok(state.lastResync.errors > 0, `${what}: the log's bad lines are counted`);
    }
    for (const e of envelopes.slice(1)) channel.emit(EVENT, e);
    await settle();
    assert.deepEqual(sub.getSnapshot().view.executions, reference.executions, what);
    sub.unsubscribe();
  }
  assert.deepEqual(unhandled, []);
});

test('echo: a finalState that throws, rejects with any value or answers garbage surfaces a typed error, no report, and the session goes on', async () => {
  const garbage = [['a number', () => 42], ['garbage text', () => '{"nope'], ['null', () => null]];
  for (const [what, finalState] of [...FAILING, ...garbage]) {
    const echo = new FakeEcho();
    const session = new Session();
    const sub = subscribeToAgent(echo, { sessionId: SESSION, finalState }, session);
    const channel = echo.channels.get(`agent.${SESSION}`);
    channel.succeed();
    for (const e of envelopes) channel.emit(EVENT, e);
    await settle();
    const state = sub.getSnapshot();
    assert.equal(state.report, null, what);
    assertTyped(state.error, `finalState ${what}`);
    assert.deepEqual(state.view.executions, reference.executions, what);
    // The session still takes the next turn.
    const next = { ...envelopes[0], execution_id: 'exec-next' };
    channel.emit(EVENT, next);
    assert.equal(sub.getSnapshot().view.executions.length, reference.executions.length + 1, what);
    sub.unsubscribe();
  }
  assert.deepEqual(unhandled, []);
});

test('react: useAgentRun fed broken events and failing resync/finalState keeps rendering, with a typed error in its state', async () => {
  const { __mount } = await import('react');
  const { configureEcho } = await import('@laravel/echo-react');
  const { useAgentRun } = await import('stepline/react');
  server.reset();
  configureEcho({ broadcaster: 'reverb', key: 'app-key' });
  const sessionId = 'sess-hostile-react';
  const states = [];
  const session = new Session({ sessionId });
  const Run = () => {
    const state = useAgentRun(session, {
      sessionId,
      resync: () => Promise.reject(undefined),
      finalState: () => { throw 'no state'; },
    });
    states.push(state);
    return state.view.executions.length;
  };
  const page = __mount(Run);
  const channel = `agent.${sessionId}`;
  await until(() => server.subscribers(channel) === 1, 'subscribed');
  for (const [what, data] of BROKEN) {
    const before = states.at(-1);
    server.broadcast(channel, 'instructor.agent.event', data);
    assertRefused(states.at(-1), before, `react ${what}`);
  }
  const own = envelopes.map((e) => ({ ...e, session_id: sessionId }));
  server.broadcast(channel, 'instructor.agent.event', own[1]); // not an opening event: a late resync, which rejects
  await until(() => states.at(-1).resyncs === 1 && !states.at(-1).catchingUp, 'the failed resync');
  assertTyped(states.at(-1).error, 'react resync');
  for (const e of own) server.broadcast(channel, 'instructor.agent.event', e);
  await until(() => states.at(-1).error?.code === 'final_state_failed', 'the failed final state');
  assertTyped(states.at(-1).error, 'react finalState');
  assert.deepEqual(states.at(-1).view.executions, plainView(own).executions);
  assert.equal(page.output, 1);
  page.unmount();
  await settle();
  assert.equal(server.subscribers(channel), 0);
  assert.deepEqual(unhandled, []);
});

test('vue: useAgentRun fed broken events and failing resync/finalState keeps its ref current, with a typed error in it', async () => {
  const { createRenderer, defineComponent, h } = await import('vue');
  const { configureEcho } = await import('@laravel/echo-vue');
  const { useAgentRun } = await import('stepline/vue');
  server.reset();
  configureEcho({ broadcaster: 'reverb', key: 'app-key' });
  const sessionId = 'sess-hostile-vue';
  let run;
  const Run = defineComponent({
    setup() {
      run = useAgentRun(new Session({ sessionId }), {
        sessionId,
        resync: () => { throw new Error('log store down'); },
        finalState: () => Promise.reject(null),
      });
      return () => h('p', String(run.value.view.executions.length));
    },
  });
  const rootNode = { tag: 'root', props: {}, children: [] };
  const app = vueTestRenderer(createRenderer).createApp(Run);
  app.mount(rootNode);
  const channel = `agent.${sessionId}`;
  await until(() => server.subscribers(channel) === 1, 'subscribed');
  for (const [what, data] of BROKEN) {
    const before = run.value;
    server.broadcast(channel, 'instructor.agent.event', data);
    assertRefused(run.value, before, `vue ${what}`);
  }
  const own = envelopes.map((e) => ({ ...e, session_id: sessionId }));
  server.broadcast(channel, 'instructor.agent.event', own[1]);
  await until(() => run.value.resyncs === 1 && !run.value.catchingUp, 'the failed resync');
  assertTyped(run.value.error, 'vue resync');
  for (const e of own) server.broadcast(channel, 'instructor.agent.event', e);
  await until(() => run.value.error?.code === 'final_state_failed', 'the failed final state');
  assert.deepEqual(run.value.view.executions, plainView(own).executions);
  app.unmount();
  await settle();
  assert.equal(server.subscribers(channel), 0);
  assert.deepEqual(unhandled, []);
});
