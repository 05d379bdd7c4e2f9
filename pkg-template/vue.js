// `stepline/vue`: a live agent run in a Vue component, on @laravel/echo-vue. The
// channel is joined through `useEcho` (shared, counted and left with the app's other
// composables), the connection is `useConnectionStatus`, and the state is a
// `shallowRef` replaced whenever the feed changes. Loads no wasm: pass your Session.
//
//   const session = new Session({ sessionId });
//   const run = useAgentRun(session, { sessionId, resync });   // run.value.view, …
import { onMounted, onUnmounted, shallowRef, watch } from 'vue';
import { useConnectionStatus, useEcho } from '@laravel/echo-vue';
import { agentChannelName, attachToChannel, createAgentFeed } from './echo.js';

/**
 * Follows the run on `agent.{sessionId}` (or `channel`) from a component's `setup`;
 * returns a shallow ref to one immutable state: `{ view, connection, subscribed,
 * catchingUp, resyncs, lastResync, ignored, lastIgnored, error, report }`.
 */
export function useAgentRun(session, options) {
  const name = agentChannelName(options);
  const feed = createAgentFeed(session, options);
  const state = shallowRef(feed.getSnapshot());
  const { channel } = useEcho(name, [], () => {}, [], options.private ? 'private' : 'public');
  const connection = useConnectionStatus();
  let detach = null;
  let unsubscribe = null;
  onMounted(() => {
    unsubscribe = feed.subscribe(() => {
      state.value = feed.getSnapshot();
    });
    detach = attachToChannel(channel(), feed);
    state.value = feed.getSnapshot();
  });
  watch(connection, (status) => feed.connectionChanged(status), { immediate: true });
  onUnmounted(() => {
    detach?.();
    unsubscribe?.();
    feed.dispose();
  });
  return state;
}
