// `stepline/react`: a live agent run in a React component, on @laravel/echo-react.
import type { AgentChannelOptions, AgentFeedOptions, AgentRunState, AgentSession } from './echo.js';

export type { AgentChannelOptions, AgentFeedOptions, AgentRunState, AgentSession, ResyncReason, ResyncResult } from './echo.js';

/**
 * Follows a run from a component (after `configureEcho` and `await init()`): the view,
 * the connection status, whether a resync is catching up, and the reconcile report once
 * the run ended (with `finalState` and the full package's Session).
 * @example
 * const [session] = useState(() => new Session({ sessionId }));
 * const { view, connection, catchingUp } = useAgentRun(session, {
 *   sessionId,
 *   resync: () => fetch(`/agents/${sessionId}/events`).then((r) => r.json()),
 * });
 */
export function useAgentRun(session: AgentSession, options: AgentChannelOptions & AgentFeedOptions): AgentRunState;
