// `stepline/react`: a live agent run in a React component, on @laravel/echo-react.
// The channel is joined through `useEcho` (so it is shared, counted and left with the
// app's other hooks), the connection is `useConnectionStatus`, and the state is read
// with `useSyncExternalStore`. Loads no wasm: pass the Session your page made.
//
//   const [session] = useState(() => new Session({ sessionId }));
//   const { view, connection, catchingUp, report } = useAgentRun(session, { sessionId, resync });
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { useConnectionStatus, useEcho } from '@laravel/echo-react';
import { agentChannelName, attachToChannel, createAgentFeed } from './echo.js';

const ignore = () => {};

/**
 * Follows the run on `agent.{sessionId}` (or `channel`) and returns one immutable
 * state: `{ view, connection, subscribed, catchingUp, resyncs, lastResync, ignored,
 * lastIgnored, error, report }`. `resync` and `finalState` are read on each call, so
 * inline functions are fine; a new `session`, channel or `eventName` starts a new feed.
 */
export function useAgentRun(session, options) {
  const name = agentChannelName(options);
  const latest = useRef(options);
  latest.current = options;
  const wantsResync = typeof options.resync === 'function';
  const wantsFinalState = typeof options.finalState === 'function';
  const feed = useMemo(
    () =>
      createAgentFeed(session, {
        channel: name,
        eventName: options.eventName,
        resync: wantsResync ? (reason) => latest.current.resync(reason) : undefined,
        finalState: wantsFinalState ? () => latest.current.finalState() : undefined,
      }),
    [session, name, options.eventName, wantsResync, wantsFinalState],
  );
  const { channel } = useEcho(name, [], ignore, [], options.private ? 'private' : 'public');
  useEffect(() => {
    const joined = channel();
    return joined ? attachToChannel(joined, feed) : undefined;
  }, [channel, feed]);
  const connection = useConnectionStatus();
  useEffect(() => feed.connectionChanged(connection), [feed, connection]);
  return useSyncExternalStore(feed.subscribe, feed.getSnapshot, feed.getSnapshot);
}
