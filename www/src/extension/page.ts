// The extension's page script: runs in the inspected page's own JavaScript world
// at document_start (manifest `content_scripts`, `world: "MAIN"`), before the
// page's scripts, and finds the page's agent runs two ways:
//   - the stepline registry (`globalThis.__STEPLINE_DEVTOOLS__`, written by
//     stepline/echo's `registerRun`): Sessions cannot cross to the extension, so
//     each run's recording (`toRecording()`, append-only) is sent as lines, the
//     new ones on each change;
//   - the page's WebSockets: the constructor is wrapped so every socket's
//     incoming Pusher-protocol frames (`{event, channel, data}`) are read, and
//     agent events (protocol.ts `isForwarded`) on a channel no registry run
//     follows are sent as name, channel and data. pusher-js is usually bundled,
//     not global, so the socket is the one place every page's events pass.
// Nothing is sent while no extension panel listens except to the relay (the
// content script in its isolated world, relay.ts), which keeps it for one.
import type { DevtoolsRegistry, DevtoolsRun } from 'stepline/echo';
import { bareChannel, isForwarded, MARK, type PageMessage } from './protocol';

const post = (msg: PageMessage) => window.postMessage({ [MARK]: msg }, location.origin === 'null' ? '*' : location.origin);

// ---- the stepline registry -------------------------------------------------
/** Labels (channels) of the registry's runs: their socket events are not sent twice. */
const followed = new Set<string>();
let next = 0;
interface Watched { id: string; sent: number; stop: (() => void) | null }
/** By Session: one listed again (a component mounted twice) is the same run, read on from where it was. */
const watched = new WeakMap<object, Watched>();

function watch(run: DevtoolsRun): void {
  let w = watched.get(run.session);
  if (w?.stop) return;
  if (!w) {
    next += 1;
    w = { id: `r${next}`, sent: 0, stop: null };
    watched.set(run.session, w);
    if (run.label) followed.add(bareChannel(run.label));
    post({ type: 'run', id: w.id, origin: 'registry', label: run.label || `run ${next}` });
  }
  const state = w;
  let timer = 0;
  const sync = () => {
    timer = 0;
    let text: string;
    try {
      text = run.session.toRecording?.() ?? '';
    } catch (error) {
      post({ type: 'error', id: state.id, message: `its Session keeps no recording (${error instanceof Error ? error.message : String(error)}); make it without \`record: false\`` });
      return;
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (lines.length > state.sent) post({ type: 'lines', id: state.id, lines: lines.slice(state.sent) });
    state.sent = lines.length;
  };
  sync();
  // A burst of events is one message: the recording is read once the burst has been ingested.
  const unsubscribe = run.session.subscribe(() => {
    if (timer === 0) timer = window.setTimeout(sync, 16);
  });
  state.stop = () => {
    unsubscribe();
    if (timer !== 0) window.clearTimeout(timer);
    state.stop = null;
    try {
      sync();
    } catch { /* a freed Session: what was sent stays */ }
    post({ type: 'ended', id: state.id });
  };
}

function attach(registry: DevtoolsRegistry | undefined): void {
  if (!registry || typeof registry !== 'object' || !(registry.runs instanceof Set) || !(registry.listeners instanceof Set)) return;
  for (const run of registry.runs) watch(run);
  registry.listeners.add((type, run) => {
    if (type === 'add') watch(run);
    else if (![...registry.runs].some((r) => r.session === run.session)) watched.get(run.session)?.stop?.();
  });
}

// The registry is created by the page's first `registerRun` (`??=`), after this
// script: an accessor sees it arrive without creating it.
const KEY = '__STEPLINE_DEVTOOLS__';
const existing = (globalThis as { [KEY]?: DevtoolsRegistry })[KEY];
if (existing) {
  attach(existing);
} else {
  let value: DevtoolsRegistry | undefined;
  Object.defineProperty(globalThis, KEY, {
    configurable: true,
    enumerable: false,
    get: () => value,
    set: (v: DevtoolsRegistry | undefined) => {
      value = v;
      attach(v);
    },
  });
}

// ---- the page's WebSockets --------------------------------------------------
const seen = new Set<string>();

/** Reads one incoming frame; sends it when it is an agent event on a channel no registry run follows. */
function observe(raw: unknown): void {
  if (typeof raw !== 'string' || raw.charCodeAt(0) !== 123 /* { */) return;
  let frame: { event?: unknown; channel?: unknown; data?: unknown };
  try {
    frame = JSON.parse(raw) as typeof frame;
  } catch {
    return;
  }
  if (typeof frame.event !== 'string' || typeof frame.channel !== 'string' || !isForwarded(frame.event)) return;
  const channel = bareChannel(frame.channel);
  if (followed.has(channel)) return;
  let data = frame.data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch { /* kept as the string the server sent */ }
  }
  const id = `s:${frame.channel}`;
  if (!seen.has(id)) {
    seen.add(id);
    post({ type: 'run', id, origin: 'socket', label: frame.channel });
  }
  post({ type: 'event', id, name: frame.event, data });
}

const Native = window.WebSocket;
if (typeof Native === 'function') {
  const Observed = class WebSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (e: MessageEvent) => observe(e.data));
    }
  };
  window.WebSocket = Observed;
}
