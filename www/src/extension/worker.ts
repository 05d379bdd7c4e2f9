// The extension's service worker: lists the tabs whose relay (relay.ts) answers,
// for the panel page opened outside DevTools (panel.html without a DevTools
// window to say which tab it inspects). It keeps no state, so the browser may
// stop it whenever it likes; it needs no permission: `chrome.tabs.query` gives
// tab ids without "tabs", and the relay itself says its page's address.
import type { TabInfo } from './protocol';

async function listTabs(): Promise<TabInfo[]> {
  const tabs = await chrome.tabs.query({});
  const answers = await Promise.all(tabs.map(async (tab) => {
    if (tab.id === undefined) return null;
    try {
      const info = (await chrome.tabs.sendMessage(tab.id, { type: 'stepline-probe' })) as Omit<TabInfo, 'tabId'> | undefined;
      return info ? { tabId: tab.id, ...info } : null;
    } catch {
      return null; // no relay in that tab (not a web page, or opened before the extension)
    }
  }));
  return answers.filter((a): a is TabInfo => a !== null);
}

chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  if ((message as { type?: string } | null)?.type !== 'stepline-tabs') return;
  listTabs().then(reply, () => reply([]));
  return true; // answered asynchronously
});
