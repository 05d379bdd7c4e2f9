// The panel's two package entries. `stepline` (sessions, reconcile, every producer's
// dialect) shows a run at once; `stepline/devtools`, the whole API in a wasm of its own
// (the time slider's timeline, the Raw tab's envelopes, cost, OTLP export, compare,
// diagnostics, what-if), loads after the first paint and never delays it. A wasm module
// cannot call into another one's sessions, so the run shown moves to a devtools Session
// when that entry arrives (Panel.moveTo); until then the views that need it say so.
// The overlay and the extension are built with `stepline` resolved to
// `stepline/devtools` (scripts/build-overlay.mjs, scripts/build-extension.mjs): one
// wasm, whose sessions are devtools ones from the start.
import init, { Session as CoreSession, type SessionOptions } from 'stepline';

/** The `stepline/devtools` entry, once loaded. */
export type Devtools = typeof import('stepline/devtools');
/** A session of the devtools entry: every method, the devtools ones included. */
export type DevtoolsSession = InstanceType<Devtools['Session']>;
/** A session of either entry: what the panel shows. */
export type AnySession = CoreSession | DevtoolsSession;

let loaded: Devtools | null = null;
let loading: Promise<Devtools> | null = null;

/** Starts the `stepline` entry: what the first paint needs. */
export async function startCore(): Promise<void> {
  await init();
}

/** The devtools entry, loaded and started (at most once, however often it is asked for). */
export function loadDevtools(): Promise<Devtools> {
  loading ??= import('stepline/devtools').then(async (devtools) => {
    await devtools.default();
    loaded = devtools;
    return devtools;
  });
  return loading;
}

/** The devtools entry if it has loaded, else null (nothing is started). */
export function devtoolsNow(): Devtools | null {
  return loaded;
}

/** `session` as a devtools session (it has the devtools' methods), or null while it is the `stepline` entry's. */
export function asDevtools(session: AnySession | null): DevtoolsSession | null {
  return session !== null && 'timeline' in session ? session : null;
}

/** A new session of the devtools entry once it has loaded, else of `stepline`'s. */
export function newSession(options: SessionOptions): AnySession {
  return loaded ? new loaded.Session(options) : new CoreSession(options);
}
