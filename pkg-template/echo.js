// `stepline/echo`: a live agent run over Laravel Echo (Reverb or any Pusher-protocol
// server), with no UI framework. It loads no wasm of its own: it feeds the Session you
// give it (from `stepline/live` or `stepline`), so a page keeps the build it chose.
//
//   import init, { Session } from 'stepline/live';
//   import { subscribeToAgent } from 'stepline/echo';
//   await init();
//   const run = subscribeToAgent(echo, { sessionId, resync: () => fetch(`/agents/${sessionId}/events`).then((r) => r.json()) }, new Session({ sessionId }));
//   run.subscribe(() => render(run.getSnapshot()));   // { view, connection, catchingUp, … }
//   run.unsubscribe();
//
// Two ways a live view loses events, and what this does about them:
//   - events broadcast before the page subscribed (Reverb keeps no history): when the
//     first event seen is not a run's opening one, or events seen before any resync leave
//     steps or chunks missing, `resync('late')` is called;
//   - events broadcast while the connection was down: every subscription after the
//     first (pusher-js re-subscribes on reconnect) calls `resync('reconnect')`.
// What `resync` returns (the server's event log: an array of events, or JSONL) is merged
// as one delivery (`session.ingestJsonl`): what the session holds counts as duplicates,
// the rest fills the gaps. Until it has, the state says `catchingUp: true` and the view
// lists the missing steps (`missing_steps`).

// The page's devtools registry, read by stepline/devtools-overlay and extensions (echo.d.ts).
export function registerRun(run) {
  const registry = (globalThis.__STEPLINE_DEVTOOLS__ ??= { version: 1, runs: new Set(), listeners: new Set() });
  const tell = (type) => registry.listeners.forEach((listener) => listener(type, run));
  registry.runs.add(run);
  tell('add');
  return () => registry.runs.delete(run) && tell('remove');
}

/**
 * What an app callback (`resync`, `finalState`) threw or rejected with, as the typed
 * error the feed's `error` state holds: an Error that has a string `code` (a
 * SteplineError) is kept; anything else (an Error without a code, a string, `undefined`,
 * an object) becomes an Error named `AgentFeedError` with that `code`, the Error's own
 * message or a description of the value, `path: null` and the value as `cause`. A
 * rejection with `undefined` used to leave `error` unset, as if nothing had failed.
 */
function callbackError(code, what, error) {
  if (error instanceof Error && typeof error.code === 'string') return error;
  let message;
  if (error instanceof Error) {
    message = error.message;
  } else {
    let shown;
    try {
      shown = typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
    } catch {
      shown = `a ${typeof error}`;
    }
    message = `stepline/echo: ${what} failed with ${shown}`;
  }
  const wrapped = new Error(message, { cause: error });
  wrapped.name = 'AgentFeedError';
  wrapped.code = code;
  wrapped.path = null;
  return wrapped;
}

/**
 * A feed: one Session, the connection's state and the resyncs, as one immutable state
 * that changes identity whenever any part of it does. `subscribeToAgent` wires it to an
 * Echo channel; `stepline/react` and `stepline/vue` wire it through @laravel/echo-react
 * and @laravel/echo-vue instead.
 */
export function createAgentFeed(session, options = {}) {
  if (!session || typeof session.ingestEvent !== 'function' || typeof session.subscribe !== 'function') {
    throw new TypeError('stepline/echo: expected a Session (from `stepline/live` or `stepline`) as the session');
  }
  const { eventName, resync, finalState } = options;
  if (finalState !== undefined && typeof session.ingestFinalState !== 'function') {
    throw new TypeError('stepline/echo: `finalState` needs a Session of `stepline`: the `stepline/live` Session cannot reconcile (it has no ingestFinalState)');
  }
  const nameOptions = eventName ? { eventName } : undefined;
  const listeners = new Set();
  let status = {
    connection: 'connecting',
    subscribed: false,
    catchingUp: false,
    resyncs: 0,
    lastResync: null,
    ignored: 0,
    lastIgnored: null,
    error: null,
    report: null,
  };
  // The state object is rebuilt only when the view or the status changed, so that
  // `getSnapshot` returns the same object between changes (useSyncExternalStore).
  let state = null;
  let stateStatus = null;
  let detachSession = null; // the session is watched while the feed has listeners
  let unlist = null; // and listed in the devtools registry (registerRun) meanwhile
  let subscriptions = 0;
  let agentEvents = 0;
  let lateChecked = false; // a resync ran or was asked for: gaps no longer mean a late page
  let resyncing = null; // the resync in flight
  let resyncAgain = null; // a reason that arrived while one was in flight
  let finalStateAsked = false;
  let disposed = false;

  const getSnapshot = () => {
    const view = session.getSnapshot();
    if (state === null || state.view !== view || stateStatus !== status) {
      state = { view, ...status };
      stateStatus = status;
    }
    return state;
  };
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  const set = (changes) => {
    status = { ...status, ...changes };
    notify();
  };
  const latest = () => session.getSnapshot().executions.at(-1);
  // What a run looks like after its first event (instructor's opening `processing`
  // status, laravel/ai's stream_start, AG-UI's RUN_STARTED, the AI SDK's start): processing,
  // nothing in it yet. A producer that opens with a step (status tracking off) costs one
  // resync that finds only duplicates.
  const opensRun = (run) =>
    run.status === 'processing' && run.steps.length === 0 && run.text === '' && run.missing_step_count === 0 && run.missing_chunk_count === 0;

  async function runResync(reason) {
    let result;
    try {
      const got = await resync(reason);
      if (disposed) return;
      const text = typeof got === 'string' ? got : JSON.stringify(got ?? []);
      const batch = session.ingestJsonl(text);
      result = { reason, applied: batch.applied, duplicates: batch.duplicates, errors: batch.errorCount };
      set({ resyncs: status.resyncs + 1, lastResync: result });
    } catch (thrown) {
      if (disposed) return;
      const error = callbackError('resync_failed', 'resync', thrown);
      result = { reason, applied: 0, duplicates: 0, errors: 0, error: error.message };
      set({ resyncs: status.resyncs + 1, lastResync: result, error });
    }
  }

  function requestResync(reason) {
    if (!resync || disposed) return Promise.resolve();
    lateChecked = true;
    if (resyncing) {
      resyncAgain = reason;
      return resyncing;
    }
    set({ catchingUp: true });
    resyncing = (async () => {
      let next = reason;
      while (next && !disposed) {
        resyncAgain = null;
        await runResync(next);
        next = resyncAgain;
      }
      resyncing = null;
      if (!disposed) {
        set({ catchingUp: false });
        askFinalState();
      }
    })();
    return resyncing;
  }

  // Once the latest execution ended (or went silent past staleAfterMs), its final state
  // is fetched once and the stream reconciled with it; the session keeps it, so its
  // recording re-opens reconciled.
  function askFinalState() {
    const run = latest();
    if (!finalState || finalStateAsked || disposed || !run || !(run.ended || run.stale)) return;
    finalStateAsked = true;
    Promise.resolve()
      .then(() => finalState())
      .then((state) => {
        if (!disposed) set({ report: session.ingestFinalState(state) });
      })
      .catch((error) => {
        if (!disposed) set({ error: callbackError('final_state_failed', 'finalState', error) });
      });
  }

  const feed = {
    session,
    getSnapshot,
    subscribe(listener) {
      listeners.add(listener);
      detachSession ??= session.subscribe(notify);
      unlist ??= registerRun({ session, label: options.channel ?? (options.sessionId ? `agent.${options.sessionId}` : ''), feed });
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && detachSession) {
          detachSession();
          detachSession = null;
          unlist();
          unlist = null;
        }
      };
    },
    receive(name, data) {
      if (disposed) return;
      let result;
      try {
        result = session.ingestEvent(name, data, nameOptions);
      } catch (error) {
        set({ error });
        return;
      }
      if (result === null) {
        set({ ignored: status.ignored + 1, lastIgnored: name });
        return;
      }
      // This page subscribed after the run started when the first event it saw is not a
      // run's opening one: joined inside step 1, or at a tool event of a later step (tool
      // events carry no step number), nothing shows as missing, yet the step's start and
      // tools were lost. Or, until a resync has run, when events leave steps or chunks
      // missing: a v1.22 tool event names no step, so the gap shows with the next step's.
      agentEvents += 1;
      if (!lateChecked) {
        const run = latest();
        if (run && ((agentEvents === 1 && !opensRun(run)) || run.missing_step_count > 0 || run.missing_chunk_count > 0)) {
          lateChecked = true;
          requestResync('late');
        }
      }
      askFinalState();
    },
    subscribed() {
      if (disposed) return;
      subscriptions += 1;
      set({ subscribed: true });
      if (subscriptions > 1) requestResync('reconnect');
    },
    connectionChanged(connection) {
      if (disposed || connection === status.connection) return;
      set(connection === 'connected' ? { connection } : { connection, subscribed: false });
    },
    failed(error) {
      if (!disposed) set({ error });
    },
    resync: (reason = 'manual') => requestResync(reason),
    dispose() {
      disposed = true;
      detachSession?.();
      detachSession = null;
      unlist?.();
      unlist = null;
      listeners.clear();
    },
  };
  return feed;
}

/**
 * Hands a laravel-echo channel's events and subscriptions to `feed`; returns the
 * function that stops it (the channel itself is left to whoever joined it). A channel
 * already subscribed (another component joined it first) counts as subscribed now.
 */
export function attachToChannel(channel, feed) {
  let open = true;
  const receive = (event, data) => {
    if (open) feed.receive(event, data);
  };
  const onSubscribed = () => {
    if (open) feed.subscribed();
  };
  const onError = (error) => {
    if (open) feed.failed(error);
  };
  channel.listenToAll(receive);
  // pusher-js's channel: bound and unbound by function, so nothing stays behind.
  const pusherChannel = channel.subscription;
  if (typeof pusherChannel?.bind === 'function') {
    pusherChannel.bind('pusher:subscription_succeeded', onSubscribed);
    pusherChannel.bind('pusher:subscription_error', onError);
    if (pusherChannel.subscribed) onSubscribed();
  } else {
    channel.subscribed(onSubscribed);
    channel.error(onError);
  }
  return () => {
    open = false;
    // laravel-echo's NullChannel (broadcaster 'null', for tests and SSR) has no stopListeningToAll.
    channel.stopListeningToAll?.(receive);
    pusherChannel?.unbind?.('pusher:subscription_succeeded', onSubscribed);
    pusherChannel?.unbind?.('pusher:subscription_error', onError);
  };
}

/** The channel a run is broadcast on: `agent.{sessionId}` unless `channel` names another. */
export function agentChannelName(options) {
  const name = options.channel ?? (options.sessionId ? `agent.${options.sessionId}` : null);
  if (!name) throw new TypeError('stepline/echo: give the sessionId (channel agent.{sessionId}) or the channel');
  return name;
}

/**
 * Joins a run's channel on `echo` and feeds `session`: the agent events (the official
 * `.instructor.agent.event`, the `eventName` your app configured, `agent.*` names, and
 * laravel/ai's stream events with the full package) are ingested, other events counted.
 * Returns the feed: `getSnapshot()`, `subscribe(listener)`, `resync()` and `unsubscribe()`.
 */
export function subscribeToAgent(echo, options, session) {
  const feed = createAgentFeed(session, options);
  const name = agentChannelName(options);
  const channel = options.private ? echo.private(name) : echo.channel(name);
  const detach = attachToChannel(channel, feed);
  const stopWatching = echo.connector?.onConnectionChange?.((status) => feed.connectionChanged(status)) ?? (() => {});
  if (typeof echo.connectionStatus === 'function') feed.connectionChanged(echo.connectionStatus());
  let open = true;
  return {
    session,
    getSnapshot: feed.getSnapshot,
    subscribe: feed.subscribe,
    resync: feed.resync,
    unsubscribe() {
      if (!open) return;
      open = false;
      stopWatching();
      detach();
      echo.leaveChannel(options.private ? `private-${name}` : name);
      feed.dispose();
    },
  };
}
