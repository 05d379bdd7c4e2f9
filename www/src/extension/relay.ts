// The extension's relay: a content script in the isolated world (manifest
// `content_scripts`, document_start). It keeps what the page script (page.ts)
// posts, in order, and hands it to each extension panel that connects to this
// tab (chrome.tabs.connect from panel.ts): first everything so far, then each
// new message. It answers the service worker's "who are you" (worker.ts) with
// the page's address and title, so the direct panel page can list tabs without
// the "tabs" permission. Nothing leaves the browser: ports and messages stay
// inside the extension.
import { MARK, PORT, type PageMessage, type TabInfo } from './protocol';

const kept: PageMessage[] = [];
const ports = new Set<chrome.runtime.Port>();
let runs = 0;

window.addEventListener('message', (e: MessageEvent) => {
  // Only the page script's messages, posted by this window to itself.
  if (e.source !== window || typeof e.data !== 'object' || e.data === null || !(MARK in e.data)) return;
  const msg = (e.data as Record<string, PageMessage>)[MARK];
  kept.push(msg);
  if (msg.type === 'run') runs += 1;
  for (const port of ports) port.postMessage(msg);
});

const info = (): Omit<TabInfo, 'tabId'> => ({ url: location.href, title: document.title, runs });

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== PORT) return;
  ports.add(port);
  port.onDisconnect.addListener(() => ports.delete(port));
  port.postMessage({ type: 'hello', ...info() });
  for (const msg of kept) port.postMessage(msg);
});

chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  if ((message as { type?: string } | null)?.type === 'stepline-probe') reply(info());
});
