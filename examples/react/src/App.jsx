import { useEffect, useState } from 'react';
import { Session } from 'stepline/live';
import { useAgentRun } from 'stepline/react';
import { SteplineDevtools } from 'stepline/devtools-overlay/react';
import { RunView } from './RunView.jsx';
import { fetchEventLog } from '../../shared/settings.js';

export function App({ sessionId }) {
  // One Session per run shown; the hook feeds it from `agent.{sessionId}`.
  const [session] = useState(() => new Session({ sessionId }));
  const run = useAgentRun(session, {
    sessionId,
    // After a reconnect, or when this page subscribed after the run started.
    resync: () => fetchEventLog(sessionId),
  });
  // For the browser tests (tests/browser/adapters.test.mjs): the state on screen.
  useEffect(() => {
    window.__agentRun = run;
  }, [run]);
  return (
    <>
      <RunView sessionId={sessionId} run={run} />
      {/* The in-page devtools, in development only: a production build leaves it out. */}
      {import.meta.env.DEV ? <SteplineDevtools finalState="/agents/{session}/state" /> : null}
    </>
  );
}
