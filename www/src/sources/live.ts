// Live runs: the page subscribes to a session's channel on a Reverb (or any
// Pusher-protocol) server with laravel-echo + pusher-js, exactly as a Laravel
// app's front end does, and follows it with stepline/echo's `subscribeToAgent`,
// the adapter the package gives every front end. Which events are agent events
// is the core's decision (`Session.ingestEvent`): instructor-php v2's
// `instructor.agent.event` or the configured name, any `agent.*` name (v1.22
// apps), and laravel/ai's stream events, broadcast under their own type on
// whatever channel the app chose; other events are counted and shown, not read.
// A live run is followed by a session of `stepline/devtools` from its first event (a
// socket's events cannot be read again), so connecting waits for that entry.
import Echo from 'laravel-echo';
import Pusher from 'pusher-js';
import { defaultEventName, isAgentEventName } from 'stepline';
import { loadDevtools } from '../devtools';
import { subscribeToAgent, type AgentRunState, type AgentSubscription } from 'stepline/echo';
import type { Panel } from '../panel';
import { describe, reconcileAt } from './recording';

/** The connection form's values (also read from the page URL). */
export interface LiveSettings {
  key: string;
  host: string;
  port: number;
  tls: boolean;
  /** The agent session id: the channel is `agent.{session}` unless `channel` names another. */
  session: string;
  /** The channel to follow when it is not `agent.{session}` (laravel/ai apps choose their own). */
  channel: string;
  /** Subscribe to `private-agent.{session}`, authorised by `authEndpoint`. */
  private: boolean;
  authEndpoint: string;
  /** Where the final state can be fetched: a slim snapshot, a full state, or a snapshot line. */
  finalStateUrl: string;
  /** The broadcast event name the app configured (`instructor.agents.broadcasting.event_name`); '' = the default. */
  eventName: string;
}

let echo: Echo<'reverb'> | null = null;
let run: AgentSubscription | null = null;

/** Leaves the current channel and closes the connection. */
export function disconnect(): void {
  run?.unsubscribe();
  run = null;
  echo?.disconnect();
  echo = null;
}

/** The header's source detail: the connection, and how many events were not agent events. */
function detailOf(state: AgentRunState): string {
  // A run that "never arrives" is most often a name mismatch: say what else arrived.
  const skipped = state.ignored === 0 ? '' : ` · ignored ${state.ignored} ${state.ignored === 1 ? 'event' : 'events'} under other names (last: ${state.lastIgnored})`;
  return `${state.subscribed ? 'subscribed' : state.connection}${skipped}`;
}

/** Connects and starts a new Session for the channel's events (stepline/echo's feed). */
export async function connect(panel: Panel, settings: LiveSettings): Promise<void> {
  disconnect();
  if (!settings.session && !settings.channel) {
    panel.dispatch({ type: 'error', error: 'Enter the session id (channel agent.{session}) or the channel to follow.' });
    return;
  }
  const eventName = settings.eventName || defaultEventName();
  try {
    // Asked once before connecting, so an impossible name (empty, `pusher:…`) is refused here.
    isAgentEventName(eventName, { eventName });
  } catch (error) {
    panel.dispatch({ type: 'error', error: `The event name cannot be used: ${describe(error)}` });
    return;
  }
  let Session;
  try {
    ({ Session } = await loadDevtools());
  } catch (error) {
    panel.dispatch({ type: 'error', error: `The devtools (stepline/devtools) could not be loaded: ${describe(error)}` });
    return;
  }
  // A connect made while the devtools loaded is left, as any new connect leaves the old.
  disconnect();
  const session = new Session({ sessionId: settings.session || null, staleAfterMs: panel.staleAfterMs });
  const channelName = settings.channel || `agent.${settings.session}`;
  const shown = settings.private ? `private-${channelName}` : channelName;
  panel.setSession(session, { source: { kind: 'live', label: `${shown} · ${eventName}`, detail: 'connecting…' }, finalStateUrl: settings.finalStateUrl });
  const where = `${settings.tls ? 'wss' : 'ws'}://${settings.host}:${settings.port} (TLS ${settings.tls ? 'on' : 'off'}, app key ${settings.key || '(none)'})`;

  echo = new Echo({
    broadcaster: 'reverb',
    key: settings.key,
    wsHost: settings.host,
    wsPort: settings.port,
    wssPort: settings.port,
    forceTLS: settings.tls,
    enabledTransports: settings.tls ? ['wss'] : ['ws'],
    authEndpoint: settings.authEndpoint,
    Pusher,
  });
  const following = subscribeToAgent(echo, { channel: channelName, private: settings.private, eventName }, session);
  run = following;
  let shownError: unknown = null;
  let shownUnreachable = false;
  let everSubscribed = false;
  following.subscribe(() => {
    if (panel.session !== session) return;
    const state = following.getSnapshot();
    if (state.error !== null && state.error !== shownError) {
      shownError = state.error;
      // An event the core refused is a SteplineError; a refused subscription is Pusher's status object.
      // An event the core refused is a SteplineError; a refused subscription is Pusher's status object.
      panel.dispatch({ type: 'error', error: state.error instanceof Error
        ? `An event could not be read: ${describe(state.error)}`
        : `Subscribing to ${shown} failed: ${JSON.stringify(state.error)}. Check that the channel is public or the auth endpoint ${settings.authEndpoint} authorises it.` });
    }
    if (state.subscribed) everSubscribed = true;
    // Never subscribed and the socket gave up or keeps retrying: the server was not reached.
    if (!everSubscribed && UNREACHABLE.has(String(state.connection)) && !shownUnreachable) {
      shownUnreachable = true;
      panel.dispatch({ type: 'error', error: `The Reverb server could not be reached: tried ${where}, connection ${state.connection}. `
        + 'Check that Reverb runs (php artisan reverb:start) on that host and port, that TLS matches its scheme (REVERB_SCHEME), and the app key (REVERB_APP_KEY).' });
    }
    const detail = detailOf(state);
    if (detail !== panel.source.detail) panel.dispatch({ type: 'source-detail', detail });
  });
}

/**
 * Fetches the final state and reconciles the stream with it: a slim
 * snapshot, a recording's snapshot line, or a stored agent state (the core
 * reads each; a stored state's error text says why a failed run failed).
 */
export async function fetchFinalState(panel: Panel, url: string): Promise<void> {
  const session = panel.session;
  if (!session) return;
  try {
    const response = await fetch(url, { cache: 'no-store' });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText} from ${url}`);
    reconcileAt(panel, session, (await response.json()) as object, 'Final state');
    panel.setTab('reconcile');
  } catch (error) {
    panel.dispatch({ type: 'error', error: `The final state could not be used: ${describe(error)}` });
  }
}

/** Pusher's connection states that mean the server was not reached. */
const UNREACHABLE = new Set<string>(['unavailable', 'failed', 'reconnecting']);

/** Settings from the page URL (`?source=live&key=…&port=…&session=…&channel=…&event=…&connect=1`). */
export function settingsFromUrl(params: URLSearchParams): LiveSettings {
  return {
    key: params.get('key') ?? '',
    host: params.get('host') ?? location.hostname,
    port: Number(params.get('port') ?? 8080),
    tls: params.get('tls') === '1' || params.get('tls') === 'true',
    session: params.get('session') ?? '',
    channel: params.get('channel') ?? '',
    private: params.get('private') === '1',
    authEndpoint: params.get('auth') ?? '/broadcasting/auth',
    finalStateUrl: params.get('final') ?? '',
    eventName: params.get('event') ?? defaultEventName(),
  };
}
