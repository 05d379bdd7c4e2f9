// `stepline/devtools-overlay`: the devtools panel inside your page, for development.
// Importing it defines <stepline-devtools> and adds one to the page (unless the page
// has one); the panel's code and wasm load when it is first opened. Keep it out of
// production builds by importing it behind your bundler's development flag:
//
//   if (import.meta.env.DEV) import('stepline/devtools-overlay');
import type { AgentSession, DevtoolsRun } from './echo.js';

export type { DevtoolsRegistry, DevtoolsRun } from './echo.js';

/** The element's tag, `stepline-devtools`. */
export const TAG: 'stepline-devtools';

/**
 * <stepline-devtools>: a dock (bottom or right, resizable, collapsible to a badge with
 * the run's status and its failed tool calls) listing the runs the page follows, with
 * the panel's views for the one selected. Attributes: `open`, `dock="bottom" | "right"`,
 * `final-state` (a URL with `{session}`, fetched once the run ended and reconciled with).
 * @example
 * const overlay = document.createElement('stepline-devtools');
 * overlay.setAttribute('final-state', '/agents/{session}/state');
 * overlay.sessions = [session];   // besides the Sessions stepline/echo, react and vue list
 * document.body.append(overlay);
 */
export class SteplineDevtools extends HTMLElement {
  /** Sessions to show besides those the adapters registered; they are only read. */
  sessions: AgentSession[];
}

/**
 * The latest execution's status and the number of failed tool calls: what the badge shows.
 * @example
 * badgeOf(session.getSnapshot()); // { status: 'completed', failures: 3 }
 */
export function badgeOf(view: { status: string | null; executions: readonly { status: string | null; steps: readonly { tools: readonly { status: string }[] }[] }[] } | null): { status: string; failures: number };

declare global {
  interface HTMLElementTagNameMap { 'stepline-devtools': SteplineDevtools }
}

export type { DevtoolsRun as Run };
export type { AgentSession };
