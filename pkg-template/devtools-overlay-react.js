// `stepline/devtools-overlay/react`: <SteplineDevtools />, the overlay as a React
// component. The overlay's module loads when the component mounts (a dynamic import),
// so importing this file costs a few hundred bytes; render it only in development:
//
//   {import.meta.env.DEV ? <SteplineDevtools finalState="/agents/{session}/state" /> : null}
import { createElement, useEffect, useRef } from 'react';

/** Props: `sessions` (Sessions besides the registry's), `dock`, `open`, `finalState`. */
export function SteplineDevtools({ sessions, dock, open, finalState }) {
  const ref = useRef(null);
  useEffect(() => {
    import('./devtools-overlay.js');
  }, []);
  useEffect(() => {
    if (ref.current && sessions) ref.current.sessions = sessions;
  }, [sessions]);
  return createElement('stepline-devtools', { ref, dock, open: open ? '' : undefined, 'final-state': finalState });
}
