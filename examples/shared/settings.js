// Shared by examples/react and examples/vue.
// Where the broadcasts come from. A Laravel app reads these from its .env
// (VITE_REVERB_APP_KEY, VITE_REVERB_HOST, VITE_REVERB_PORT, VITE_REVERB_SCHEME);
// this page reads them from its URL so that one build can follow any server:
//   ?key=app-key&host=127.0.0.1&port=8080&tls=0&session=sess-123
export function settingsFrom(url) {
  const get = (name, fallback) => url.searchParams.get(name) || fallback;
  const tls = get('tls', '0') === '1';
  return {
    key: get('key', import.meta.env.VITE_REVERB_APP_KEY),
    host: get('host', import.meta.env.VITE_REVERB_HOST ?? url.hostname),
    port: Number(get('port', import.meta.env.VITE_REVERB_PORT ?? (tls ? 443 : 8080))),
    tls,
    sessionId: get('session', ''),
  };
}

/**
 * The run's event log from the page's own server (a Laravel route that returns
 * the broadcast events it stored, oldest first): what the live view merges after
 * a reconnect or when it subscribed late.
 */
export async function fetchEventLog(sessionId) {
  const response = await fetch(`/agents/${encodeURIComponent(sessionId)}/events`, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET /agents/${sessionId}/events: HTTP ${response.status}`);
  return response.json();
}
