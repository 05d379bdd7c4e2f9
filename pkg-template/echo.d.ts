// `stepline/echo`: a live agent run over Laravel Echo, framework-free. Type-only imports:
// this entry loads no wasm; it feeds the Session you pass (from `stepline/live` or `stepline`).
import type { ConnectionStatus } from 'laravel-echo';
import type { Envelope, IngestBatchResult, IngestResult, ReconcileReport, SessionView, SlimSnapshot } from './web/stepline.js';

/** What the feed needs of a Session: either build's `Session` has it. */
export interface AgentSession {
  ingestEvent(name: string, data: unknown, options?: { eventName?: string | null } | null): IngestResult | null;
  ingestJsonl(text: string): IngestBatchResult;
  getSnapshot(): SessionView;
  subscribe(listener: () => void): () => void;
  /** Only the full package's Session (`stepline`) has it; `finalState` needs it. */
  ingestFinalState?(state: SlimSnapshot | object | string): ReconcileReport;
}

/**
 * Why a resync was asked for: `"late"` (the first event this page saw was not a run's
 * opening one, or events seen before any resync left steps or chunks missing: it
 * subscribed after the run started), `"reconnect"` (the channel was
 * subscribed again after the connection dropped), `"manual"` (`resync()` was called).
 */
export type ResyncReason = 'late' | 'reconnect' | 'manual';

/** Where a run is broadcast and how its events are named. */
export interface AgentChannelOptions {
  /** The agent session id: the channel is `agent.{sessionId}`. */
  sessionId?: string;
  /** Another channel to follow instead (laravel/ai apps choose their own, e.g. `chat.{id}`). */
  channel?: string;
  /** Subscribe to `private-agent.{sessionId}`, authorised by Echo's `authEndpoint`. */
  private?: boolean;
  /**
   * The broadcast event name your app configured (`instructor.agents.broadcasting.event_name`);
   * default `instructor.agent.event`. `agent.*` names and laravel/ai's stream events (full
   * package) are read whatever it is.
   */
  eventName?: string;
}

/** What the feed does beyond listening. */
export interface AgentFeedOptions {
  /** The channel or session id, shown as the run's label in the devtools registry. */
  channel?: string;
  sessionId?: string;
  /** See {@link AgentChannelOptions.eventName}. */
  eventName?: string;
  /**
   * Fetches what the server kept of the run: its event log, as an array of the events
   * broadcast (envelopes, or laravel/ai events) or JSONL text. Called after a reconnect
   * and when the page joined a run already under way; merged without loss or duplication.
   * @example
   * resync: () => fetch(`/agents/${sessionId}/events`).then((r) => r.json())
   */
  resync?: (reason: ResyncReason) => Promise<readonly unknown[] | string> | readonly unknown[] | string;
  /**
   * Fetches the run's final state once the latest execution ended (or went stale): a slim
   * snapshot, or the stored agent state itself (its error text then says why a failed run
   * failed). The feed reconciles the stream with it (`report`, `session.ingestFinalState`),
   * and the session keeps it for `toRecording()`. Needs the full package's Session.
   * @example
   * finalState: async () => (await fetch(`/agents/${sessionId}/state`)).json()
   */
  finalState?: () => Promise<SlimSnapshot | object | string> | SlimSnapshot | object | string;
}

/** What a resync did: how many events it added and how many the session already had. */
export interface ResyncResult {
  reason: ResyncReason;
  applied: number;
  duplicates: number;
  /** Events of the log that could not be read. */
  errors: number;
  /** Set when `resync()` threw or was refused: the view keeps what it had. */
  error?: string;
}

/** One immutable state: a new object whenever any part of it changed. */
export interface AgentRunState {
  /** The session's view (the same object until an event changed it). */
  view: SessionView;
  /** laravel-echo's connection status. */
  connection: ConnectionStatus;
  /** The channel's subscription is in place (false again while the connection is down). */
  subscribed: boolean;
  /** A resync is running: the view may list missing steps that are about to be filled. */
  catchingUp: boolean;
  /** How many resyncs finished. */
  resyncs: number;
  lastResync: ResyncResult | null;
  /** Events on the channel under names that carry no agent event (a run that never shows is most often a name mismatch). */
  ignored: number;
  lastIgnored: string | null;
  /**
   * The last failure: an event that could not be read (`SteplineError`), a refused
   * subscription (what pusher-js reported), or a failed `resync` / `finalState`: then
   * always an Error with a `code` (a SteplineError as thrown, else an `AgentFeedError`
   * with code `"resync_failed"` / `"final_state_failed"`, `path: null` and what was
   * thrown or rejected as `cause`, even when that was `undefined`).
   * @example
   * const { error } = run.getSnapshot();
   * if (error?.code === 'resync_failed') showBanner(`catching up failed: ${error.message}`);
   */
  error: unknown;
  /** The reconcile report, once the run ended and `finalState` gave its snapshot. */
  report: ReconcileReport | null;
}

/** The feed `createAgentFeed` returns: hand it Echo's events, read one state. */
export interface AgentFeed {
  readonly session: AgentSession;
  getSnapshot(): AgentRunState;
  subscribe(listener: () => void): () => void;
  /** An event as Echo hands it over (`listenToAll`'s event name and data). */
  receive(name: string, data: unknown): void;
  /** The channel's subscription succeeded; each one after the first resyncs. */
  subscribed(): void;
  connectionChanged(status: ConnectionStatus): void;
  /** Subscribing failed (a private channel the auth endpoint refused). */
  failed(error: unknown): void;
  /** Resyncs now (resolves when the session holds the result). */
  resync(reason?: ResyncReason): Promise<void>;
  /** Stops reading: later events, resync results and listeners are dropped. */
  dispose(): void;
}

/** A run followed on an Echo channel: read it like a store, stop it with `unsubscribe()`. */
export interface AgentSubscription {
  readonly session: AgentSession;
  getSnapshot(): AgentRunState;
  subscribe(listener: () => void): () => void;
  resync(reason?: ResyncReason): Promise<void>;
  /** Stops listening, leaves the channel and drops the feed's listeners. */
  unsubscribe(): void;
}

/**
 * The state machine behind every adapter: no Echo of its own.
 * @example
 * const feed = createAgentFeed(new Session({ sessionId }), { resync });
 * channel.listenToAll((name, data) => feed.receive(name, data));
 */
export function createAgentFeed(session: AgentSession, options?: AgentFeedOptions): AgentFeed;

/**
 * The channel a run is broadcast on: `agent.{sessionId}`, or `channel` when given.
 * @example
 * agentChannelName({ sessionId: 'sess-1' }); // "agent.sess-1"
 */
export function agentChannelName(options: AgentChannelOptions): string;

/** The minimum of a laravel-echo `Echo` instance this entry uses. */
export interface EchoLike {
  channel(name: string): EchoChannelLike;
  private(name: string): EchoChannelLike;
  leaveChannel(name: string): void;
  connectionStatus?(): ConnectionStatus;
  connector?: { onConnectionChange?(callback: (status: ConnectionStatus) => void): () => void };
}

/** The minimum of a laravel-echo channel this entry uses. */
export interface EchoChannelLike {
  listenToAll(callback: (event: string, data: any) => void): unknown;
  /** Absent on laravel-echo's NullChannel (broadcaster `'null'`). */
  stopListeningToAll?(callback?: (event: string, data: any) => void): unknown;
  subscribed(callback: () => void): unknown;
  error(callback: (error: any) => void): unknown;
}

/**
 * Hands a laravel-echo channel's events and subscriptions to `feed`; returns the function
 * that stops it (the channel itself is left to whoever joined it). A channel already
 * subscribed (another component joined it first) counts as subscribed now. What
 * `subscribeToAgent` and the React and Vue adapters use underneath.
 * @example
 * const feed = createAgentFeed(new Session({ sessionId: 'sess-1' }), { resync });
 * const detach = attachToChannel(echo.channel('agent.sess-1'), feed);
 * detach(); // later: stop feeding; leave the channel yourself
 */
export function attachToChannel(channel: EchoChannelLike, feed: AgentFeed): () => void;

/**
 * Joins the run's channel and feeds `session` with its agent events.
 * @example
 * const run = subscribeToAgent(echo, { sessionId: 'sess-1', resync }, new Session({ sessionId: 'sess-1' }));
 * run.subscribe(() => render(run.getSnapshot().view));
 * run.unsubscribe();
 */
export function subscribeToAgent(
  echo: EchoLike,
  options: AgentChannelOptions & AgentFeedOptions,
  session: AgentSession,
): AgentSubscription;

declare global {
  /**
   * laravel-echo's event map (@laravel/echo-react and @laravel/echo-vue read it): the
   * envelope instructor-php broadcasts under its transport's name, with Echo's dot.
   */
  interface Events {
    '.instructor.agent.event': Envelope;
    'instructor.agent.event': Envelope;
  }
}

/** A run listed in the page's devtools registry. */
export interface DevtoolsRun {
  /** The Session the page follows: read only (`getSnapshot`, `toRecording`, `subscribe`). */
  session: AgentSession & { toRecording?(): string };
  /** What the overlay's run list shows (the channel). */
  label: string;
  /** The adapter's feed, when an adapter listed it. */
  feed?: AgentFeed;
}

/** `globalThis.__STEPLINE_DEVTOOLS__`: the runs this page follows, and who wants to know. */
export interface DevtoolsRegistry {
  version: 1;
  runs: Set<DevtoolsRun>;
  listeners: Set<(type: 'add' | 'remove', run: DevtoolsRun) => void>;
}

declare global {
  // eslint-disable-next-line no-var
  var __STEPLINE_DEVTOOLS__: DevtoolsRegistry | undefined;
}

/**
 * Lists a run in the page's devtools registry (the adapters' feeds list theirs while
 * anything follows them); returns the function that removes it. Loads nothing.
 * @example
 * const unlist = registerRun({ session, label: 'checkout agent' });
 * globalThis.__STEPLINE_DEVTOOLS__?.listeners.add((type, run) => console.log(type, run.label));
 */
export function registerRun(run: DevtoolsRun): () => void;
