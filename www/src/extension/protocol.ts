// What the extension's scripts say to each other. The page script (page.ts, in
// the page's own world) posts these to the relay (relay.ts, the content script's
// isolated world), which keeps them and hands them to every panel connected to
// the tab (panel.ts). Only what the panel shows crosses: a run's recording lines,
// or an observed socket event's name, channel and data; never the page's
// cookies, headers, auth tokens or socket ids.

/** The marker on the page's postMessage, so the relay ignores the page's own messages. */
export const MARK = 'stepline-devtools-extension';
/** The name of a panel's port to a tab's relay (chrome.tabs.connect). */
export const PORT = 'stepline-panel';

/** Where a run was found: the page's stepline registry, or its Pusher-protocol socket. */
export type RunOrigin = 'registry' | 'socket';

/**
 * One message from the page, in order.
 *
 * @example
 * { type: 'run', id: 'r1', origin: 'registry', label: 'agent.sess-1' }
 * { type: 'lines', id: 'r1', lines: ['{"stepline_recording":1,…}', '{"type":"agent.step.started",…}'] }
 * { type: 'event', id: 's:agent.sess-2', name: 'instructor.agent.event', data: { … } }
 */
export type PageMessage =
  | { type: 'run'; id: string; origin: RunOrigin; label: string }
  | { type: 'lines'; id: string; lines: string[] }
  | { type: 'event'; id: string; name: string; data: unknown }
  | { type: 'ended'; id: string }
  | { type: 'error'; id: string; message: string };

/** What the relay tells a panel about its tab when it connects or is asked. */
export interface TabInfo {
  tabId: number;
  url: string;
  title: string;
  runs: number;
}

/**
 * Whether a broadcast event name is one the page script forwards: `agent.*`
 * (instructor-php v1.22), `instructor.agent.event` (v2), any name with an
 * `.agent.` part, each also in laravel-echo's leading-dot form. Everything else
 * (the app's other events, `pusher:*` protocol frames) stays in the page.
 *
 * @example
 * isForwarded('.instructor.agent.event'); // true
 * isForwarded('App\\Events\\OrderShipped'); // false
 */
export function isForwarded(name: string): boolean {
  const bare = name.startsWith('.') ? name.slice(1) : name;
  if (bare.startsWith('pusher:') || bare.startsWith('pusher_internal:')) return false;
  return bare.startsWith('agent.') || bare === 'instructor.agent.event' || bare.includes('.agent.');
}

/** A socket channel as laravel-echo names it: without `private-`, `presence-`, `private-encrypted-`. */
export function bareChannel(channel: string): string {
  return channel.replace(/^(private-encrypted-|private-|presence-)/, '');
}
