// `stepline/vue`: a live agent run in a Vue component, on @laravel/echo-vue.
import type { ShallowRef } from 'vue';
import type { AgentChannelOptions, AgentFeedOptions, AgentRunState, AgentSession } from './echo.js';

export type { AgentChannelOptions, AgentFeedOptions, AgentRunState, AgentSession, ResyncReason, ResyncResult } from './echo.js';

/**
 * Follows a run from a component's `setup` (after `configureEcho` and `await init()`):
 * a shallow ref to the view, the connection status, whether a resync is catching up,
 * and the reconcile report once the run ended (with `finalState` and the full
 * package's Session).
 * @example
 * const session = new Session({ sessionId });
 * const run = useAgentRun(session, { sessionId, resync: () => fetch(`/agents/${sessionId}/events`).then((r) => r.json()) });
 * // template: run.value.view.executions, run.value.catchingUp
 */
export function useAgentRun(session: AgentSession, options: AgentChannelOptions & AgentFeedOptions): Readonly<ShallowRef<AgentRunState>>;
