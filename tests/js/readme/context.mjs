// What the README's examples leave out and a reader has: an Echo channel, a stored
// state, a provider response, a recording on disk. Built from the reference vectors
// and fixtures (tests/vectors, tests/fixtures), never from copies of the examples.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const vectorsDir = process.env.STEPLINE_VECTORS ?? join(root, 'tests', 'vectors', 'cognesy-v1.22');
const runs = JSON.parse(readFileSync(join(vectorsDir, 'agent-runs.json'), 'utf8'));

/** One turn of a recorded reference run (agent-runs.json), by the run's name. */
export function referenceTurn(name, turn = 0) {
  const run = runs.find((r) => r.name === name);
  assert.ok(run, `agent-runs.json has no run named ${JSON.stringify(name)}`);
  return run.expected[turn];
}

/** A reference run's envelopes (every turn), optionally under another session id. */
export function envelopesOf(name, sessionId) {
  referenceTurn(name);
  return runs.find((r) => r.name === name).expected
    .flatMap((turn) => turn.envelopes)
    .map(({ envelope }) => (sessionId ? { ...envelope, session_id: sessionId } : envelope));
}

/** An OpenAI fixture (tests/fixtures/openai). */
export function openaiFixture(file) {
  return readFileSync(join(root, 'tests', 'fixtures', 'openai', file), 'utf8');
}

/**
 * A stored state on its `n`th step: the reference's "steps limit" run (every step a
 * clean tool call, 150 tokens) with its first step repeated n times, so that only the
 * steps limit can stop it under the producer's default criteria.
 */
export function stateOnStep(n) {
  const state = structuredClone(referenceTurn('steps limit 2 with a driver that always calls tools [default]').finalState);
  const [step] = state.steps;
  const [result] = state.stepResults;
  state.steps = Array.from({ length: n }, () => structuredClone(step));
  state.stepResults = Array.from({ length: n }, () => structuredClone(result));
  state.currentStep = structuredClone(step);
  state.usage = Object.fromEntries(Object.entries(step.usage).map(([k, v]) => [k, v * n]));
  return state;
}

/** The Pusher event name instructor-php v2's Laravel transport broadcasts under. */
export const TRANSPORT_EVENT = 'instructor.agent.event';

/**
 * laravel-echo's `echo.channel(name).listen(event, callback)` and `.listenToAll(callback)`,
 * with `deliver` to play envelopes to a channel as the Pusher connection would: each
 * under a Pusher event name (`event`: a name or `(envelope) => name`; by default the
 * Laravel transport's), reaching the listeners Echo would call. As in Echo 2, `listen`
 * takes a name with a leading dot as is and puts any other in the `App\Events`
 * namespace; `listenToAll` skips `pusher:` events and hands the rest over with the
 * namespace cut off or, outside it, with a leading dot.
 */
export function fakeEcho() {
  const NAMESPACE = 'App\\Events';
  const listeners = [];
  const pusherName = (event) => (event.startsWith('.') || event.startsWith('\\') ? event.slice(1) : `${NAMESPACE}\\${event}`.replace(/\./g, '\\'));
  return {
    channel(name) {
      const channel = {
        listen(event, callback) {
          listeners.push({ name, wants: (e) => e === pusherName(event), callback: (e, data) => callback(data) });
          return channel;
        },
        listenToAll(callback) {
          listeners.push({
            name,
            wants: (e) => !e.startsWith('pusher:'),
            callback: (e, data) => callback(e.startsWith(NAMESPACE) ? e.slice(NAMESPACE.length + 1) : `.${e}`, data),
          });
          return channel;
        },
      };
      return channel;
    },
    deliver(name, envelopes, { event = TRANSPORT_EVENT } = {}) {
      for (const envelope of envelopes) {
        const pusherEvent = typeof event === 'function' ? event(envelope) : event;
        const targets = listeners.filter((l) => l.name === name && l.wants(pusherEvent));
        assert.ok(targets.length > 0 || pusherEvent.startsWith('pusher:'), `nothing listens on ${name} for the event ${pusherEvent}`);
        for (const { callback } of targets) callback(pusherEvent, envelope);
      }
    },
  };
}

/**
 * React as the examples meet it (./fake-react.js: hooks, effects, external stores, with
 * React's contract), written into the temporary folder as the package `react` (with
 * `react/jsx-runtime`), so the examples import it by name.
 */
export const FAKE_REACT = {
  'package.json': JSON.stringify({
    name: 'react', version: '0.0.0-readme-test', type: 'module',
    exports: { '.': { types: './index.d.ts', default: './index.js' }, './jsx-runtime': { types: './jsx-runtime.d.ts', default: './jsx-runtime.js' } },
  }),
  'index.js': readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fake-react.js'), 'utf8'),
  // Signatures as in @types/react 19.
  'index.d.ts': `
export function useSyncExternalStore<Snapshot>(
  subscribe: (onStoreChange: () => void) => () => void,
  getSnapshot: () => Snapshot,
  getServerSnapshot?: () => Snapshot,
): Snapshot;
export function useState<S>(initialState: S | (() => S)): [S, (value: S | ((previous: S) => S)) => void];
export function useRef<T>(initialValue: T): { current: T };
export function useMemo<T>(factory: () => T, deps: readonly unknown[]): T;
export function useCallback<T extends Function>(callback: T, deps: readonly unknown[]): T;
export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
export function useLayoutEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
export function __mount<P>(component: (props: P) => unknown, props?: P): { readonly output: unknown; unmount(): void };
export const __fake: { subscriptions: number; notifications: number; renders: number };
`,
  'jsx-runtime.js': `
export function jsx(type, props, key) { return { type, props, key: key ?? null }; }
export const jsxs = jsx;
export const Fragment = Symbol('Fragment');
`,
  'jsx-runtime.d.ts': `
export namespace JSX {
  interface Element { type: unknown; props: unknown; key: string | null }
  interface ElementChildrenAttribute { children: {} }
  interface IntrinsicAttributes { key?: string | number | null }
  interface IntrinsicElements { [name: string]: Record<string, unknown> }
}
export function jsx(type: unknown, props: unknown, key?: unknown): JSX.Element;
export const jsxs: typeof jsx;
export const Fragment: unique symbol;
`,
};

/**
 * A v2.7 reference run (tests/vectors/instructor-php-v2.7) under `sessionId`: its
 * envelopes in broadcast order and its final `AgentState::toArray()`, with the
 * recording's `<uuid>` placeholders given distinct valid uuids.
 */
export function v2Run(name, sessionId) {
  const v2 = JSON.parse(readFileSync(join(root, 'tests', 'vectors', 'instructor-php-v2.7', 'agent-runs.json'), 'utf8'));
  const run = v2.find((r) => r.name === name);
  assert.ok(run, `the v2.7 agent-runs.json has no run named ${JSON.stringify(name)}`);
  let n = 0;
  const uuids = (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++n).padStart(12, '0')}` : v);
  const turns = JSON.parse(JSON.stringify(run.expected), uuids);
  return {
    envelopes: turns.flatMap((t) => t.envelopes).map(({ envelope }) => ({ ...envelope, session_id: sessionId })),
    finalState: turns.at(-1).finalState,
  };
}

/**
 * The Laravel app of the README's routes, in this process: `broadcast(n)` sends the
 * run's next n envelopes as instructor-php's transport does (`instructor.agent.event`
 * on `agent.{sessionId}`, through the fake pusher-js server, to whoever is subscribed
 * now) after storing each, as the README's transport decorator does; `fetch` answers
 * `GET /agents/{sessionId}/events` (the stored log, in order) and
 * `GET /agents/{sessionId}/state` (the persisted AgentState, once the run ended) with
 * what those routes return, and 404 otherwise. `requests` lists the paths asked for.
 */
export function laravelApp(server, runName, sessionId) {
  const { envelopes, finalState } = v2Run(runName, sessionId);
  const stored = [];
  const requests = [];
  let held = null; // while set, requests wait: what the page shows meanwhile can be seen
  const json = (value) => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });
  return {
    envelopes,
    finalState,
    stored,
    requests,
    get remaining() {
      return envelopes.length - stored.length;
    },
    broadcast(n = envelopes.length - stored.length) {
      for (const envelope of envelopes.slice(stored.length, stored.length + n)) {
        stored.push(envelope);
        server.broadcast(`agent.${sessionId}`, TRANSPORT_EVENT, envelope);
      }
    },
    /** Requests wait until `release()`. */
    hold() {
      let release;
      held = { promise: new Promise((resolve) => { release = resolve; }), release };
    },
    release() {
      held?.release();
      held = null;
    },
    async fetch(url) {
      const path = String(url);
      requests.push(path);
      if (held) await held.promise;
      if (path === `/agents/${sessionId}/events`) return json(stored);
      if (path === `/agents/${sessionId}/state` && stored.length === envelopes.length) return json(finalState);
      return new Response('Not Found', { status: 404 });
    },
  };
}

/** What an uninterrupted page shows: every envelope of the run, once, in order. */
export async function uninterruptedView(envelopes, sessionId) {
  const { Session } = await import('stepline');
  const session = new Session({ sessionId });
  for (const envelope of envelopes) session.ingest(envelope);
  return session.getSnapshot();
}

/** Waits (bounded in turns of the event loop, not in time) until `condition()` holds. */
export async function until(condition, what) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(condition(), `never happened: ${what}`);
}

export { default as Pusher, server as pusherServer } from './fake-pusher.mjs';

/** The text a rendered tree shows: React elements (the fake jsx runtime), Vue's test nodes, strings. */
export function textOf(node) {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if ('children' in node && Array.isArray(node.children)) return node.children.map(textOf).join(''); // Vue test node
  if ('text' in node) return node.text;
  return textOf(node.props?.children);
}

/** A Vue renderer onto plain objects (`{ tag, props, children }`, text nodes `{ text }`): Vue's own runtime, no DOM. */
export function vueTestRenderer(createRenderer) {
  const remove = (child) => {
    const parent = child.parent;
    if (parent) parent.children.splice(parent.children.indexOf(child), 1);
    child.parent = null;
  };
  return createRenderer({
    createElement: (tag) => ({ tag, props: {}, children: [], parent: null }),
    createText: (text) => ({ text, parent: null }),
    createComment: (text) => ({ text: '', comment: text, parent: null }),
    setText: (node, text) => { node.text = text; },
    setElementText: (node, text) => {
      for (const child of node.children) child.parent = null;
      node.children = text ? [{ text, parent: node }] : [];
    },
    insert: (child, parent, anchor) => {
      if (child.parent) remove(child);
      const at = anchor ? parent.children.indexOf(anchor) : -1;
      if (at < 0) parent.children.push(child);
      else parent.children.splice(at, 0, child);
      child.parent = parent;
    },
    remove,
    parentNode: (node) => node.parent,
    nextSibling: (node) => (node.parent ? node.parent.children[node.parent.children.indexOf(node) + 1] ?? null : null),
    patchProp: (node, key, _previous, next) => { node.props[key] = next; },
  });
}
