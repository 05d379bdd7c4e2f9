// Live runs: the page subscribes to a session's channel on a Reverb (or any
// Pusher-protocol) server with laravel-echo + pusher-js, exactly as a Laravel
// app's front end does, and feeds every agent event into a Session. Which
// events are agent events is the core's decision (isAgentEventName, given the
// name and the data): instructor-php v2's `instructor.agent.event` or the
// configured name, any `agent.*` name (v1.22 apps), and laravel/ai's stream
// events, broadcast under their own type (`stream_start`, `text_delta`, …,
// `stream_end`) on whatever channel the app chose; other events are counted
// and shown, not read.
import Echo from 'laravel-echo';
import Pusher from 'pusher-js';
import { defaultEventName, isAgentEventName, Session, slimSnapshot } from 'stepline';
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

/** Leaves the current channel and closes the connection. */
export function disconnect(): void {
  echo?.disconnect();
  echo = null;
}

/** Connects and starts a new Session for the channel's events. */
export function connect(panel: Panel, settings: LiveSettings): void {
  disconnect();
  if (!settings.session && !settings.channel) {
    panel.error = 'Enter the session id (channel agent.{session}) or the channel to follow.';
    panel.render();
    return;
  }
  const eventName = settings.eventName || defaultEventName();
  try {
    // Asked once before connecting, so an impossible name (empty, `pusher:…`) is refused here.
    isAgentEventName(eventName, { eventName });
  } catch (error) {
    panel.error = `The event name cannot be used: ${describe(error)}`;
    panel.render();
    return;
  }
  const session = new Session({ sessionId: settings.session || null, staleAfterMs: panel.staleAfterMs });
  const channelName = settings.channel || `agent.${settings.session}`;
  const shown = settings.private ? `private-${channelName}` : channelName;
  panel.setSession(session, { kind: 'live', label: `${shown} · ${eventName}`, detail: 'connecting…' });
  panel.finalStateUrl = settings.finalStateUrl;

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
  // The connection state, and how many events arrived under names that carry
  // no envelope: a run that "never arrives" is most often a name mismatch.
  let state = 'connecting…';
  let ignored = 0;
  let lastIgnored = '';
  const showDetail = () => {
    if (panel.session !== session) return;
    const skipped = ignored === 0 ? '' : ` · ignored ${ignored} ${ignored === 1 ? 'event' : 'events'} under other names (last: ${lastIgnored})`;
    panel.source = { ...panel.source, detail: `${state}${skipped}` };
    panel.render();
  };
  const connection = echo.connector.pusher.connection;
  connection.bind('state_change', ({ current }: { current: string }) => {
    state = current;
    showDetail();
  });
  const channel = settings.private ? echo.private(channelName) : echo.channel(channelName);
  channel.subscribed(() => {
    state = 'subscribed';
    showDetail();
  });
  channel.error((status: unknown) => {
    panel.error = `Subscribing to ${shown} failed: ${JSON.stringify(status)}`;
    panel.render();
  });
  // listenToAll hands over every event name with its data, whatever the
  // Echo namespace; the event's own `type` is what stepline reads.
  channel.listenToAll((event: string, data: unknown) => {
    let agentEvent = false;
    try {
      agentEvent = isAgentEventName(event, { eventName, data });
    } catch {
      // Data that is not JSON (a cyclic object) is no agent event: counted below.
    }
    if (!agentEvent) {
      ignored += 1;
      lastIgnored = event;
      showDetail();
      return;
    }
    try {
      session.ingest(data as object);
    } catch (error) {
      panel.error = `An event could not be read: ${describe(error)}`;
      panel.render();
    }
  });
}

/**
 * Fetches the final state and reconciles the stream with it. Accepts a slim
 * snapshot, a recording's snapshot line, or a full AgentState (slimmed here).
 */
export async function fetchFinalState(panel: Panel, url: string): Promise<void> {
  const session = panel.session;
  if (!session) return;
  try {
    const response = await fetch(url, { cache: 'no-store' });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText} from ${url}`);
    const value = (await response.json()) as Record<string, unknown>;
    const snapshot = 'stepline_snapshot' in value
      ? value.stepline_snapshot as object
      : 'agentId' in value ? slimSnapshot(value).snapshot : value;
    reconcileAt(panel, session, snapshot, 'Final state');
    panel.tab = 'reconcile';
  } catch (error) {
    panel.error = `The final state could not be used: ${describe(error)}`;
  }
  panel.render();
}

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
