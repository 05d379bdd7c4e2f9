// `stepline/devtools-overlay/react`: the in-page devtools overlay as a React component.
import type { AgentSession } from './echo.js';

/** What <SteplineDevtools /> takes; every prop is optional. */
export interface SteplineDevtoolsProps {
  /** Sessions to show besides those stepline/react's hooks list. */
  sessions?: AgentSession[];
  dock?: 'bottom' | 'right';
  /** Open at start (else the badge). */
  open?: boolean;
  /** A URL with `{session}`: the run's final state, fetched once it ended, to reconcile with. */
  finalState?: string;
}

/**
 * The overlay; its code loads when it mounts. Render it only in development.
 * @example
 * {import.meta.env.DEV ? <SteplineDevtools dock="right" /> : null}
 */
export function SteplineDevtools(props: SteplineDevtoolsProps): unknown;
