// The extension's panel: the third host of the panel's views (mount.ts), in the
// DevTools "stepline" tab. Its runs are the inspected page's, found by the page
// script (page.ts) and handed over by the relay (relay.ts) through a port to the
// tab (chrome.tabs.connect, no permission needed). Each run is shown through a
// Session of the panel's own: a stepline page's run from its recording lines
// (sources/mirror.ts, as the overlay does), a plain laravel-echo page's from the
// socket events observed (`Session.ingestEvent`, as stepline/echo does).
//
// In DevTools the tab is the inspected one; opened directly
// (chrome-extension://<id>/panel.html, as the browser tests do) the panel lists
// the tabs whose relay answers, `?tabId=<id>` picks one.
import init, { Session } from 'stepline/devtools';
import { h } from '../dom';
import { mountPanel } from '../mount';
import { feedLines } from '../sources/mirror';
import { describe, loadFile } from '../sources/recording';
import { runLoad } from '../views/header';
import css from '../style.css?inline';
import { PORT, type PageMessage, type RunOrigin, type TabInfo } from './protocol';

/** A run of the inspected page, as the relay handed it over. */
interface PageRun {
  key: string;
  origin: RunOrigin;
  label: string;
  /** Its `lines` and `event` messages, in order: replayed into a new Session when it is chosen. */
  items: PageMessage[];
  /** The page stopped following it, or the page went away. */
  ended: boolean;
  error: string | null;
}

/** What the host knows, for the browser tests and the console (`window.steplineExtension`). */
export interface ExtensionHost {
  readonly tabId: number | null;
  readonly runs: readonly { label: string; origin: RunOrigin; ended: boolean; messages: number }[];
  readonly selected: string | null;
  readonly recording: boolean;
  readonly dropped: number;
}

const inDevtools = typeof chrome !== 'undefined' && !!chrome.devtools?.inspectedWindow;

async function main(): Promise<void> {
  await init();
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);

  const runs = new Map<string, PageRun>();
  /** Every run the relay named, listed or not (one named while paused is listed once something of it is kept). */
  const announced = new Map<string, { origin: RunOrigin; label: string }>();
  let selected: PageRun | null = null;
  let mirror: Session | null = null;
  let port: chrome.runtime.Port | null = null;
  let tabId: number | null = null;
  let generation = 0;
  let recording = true;
  let dropped = 0;
  let retry = 0;
  /** The connected page's title (or address), as its relay said. */
  let page = '';

  const tabPicker = h('select', { 'data-testid': 'ext-tabs', 'aria-label': 'Tab', title: 'The tab whose runs are shown', hidden: inDevtools,
    onchange: () => connect(Number(tabPicker.value)) });
  const refresh = h('button', { type: 'button', 'data-testid': 'ext-tabs-refresh', hidden: inDevtools, title: 'List the tabs again', onclick: () => void listTabs() }, '↻');
  const runPicker = h('select', { 'data-testid': 'ext-runs', 'aria-label': 'Run', title: 'The inspected page\'s runs',
    onchange: () => select(runs.get(runPicker.value) ?? null) });
  const recordButton = h('button', { type: 'button', 'data-testid': 'ext-record', 'aria-pressed': 'true',
    title: 'Keep what the page sends (off: new runs and events are not kept)', onclick: () => setRecording(!recording) });
  const clear = h('button', { type: 'button', 'data-testid': 'ext-clear', title: 'Forget the runs listed so far', onclick: () => clearRuns() }, 'Clear');
  const fileInput = h('input', { type: 'file', accept: '.jsonl,.ndjson,.json,.txt', hidden: true, 'data-testid': 'file-input' });
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) {
      selected = null;
      mirror = null;
      renderRuns();
      runLoad(panel, () => loadFile(panel, file));
    }
    fileInput.value = '';
  });
  const status = h('span', { class: 'muted', 'data-testid': 'ext-status', role: 'status' });

  const { panel } = mountPanel(document.getElementById('app')!, {
    nav: [tabPicker, refresh, runPicker, recordButton, clear,
      h('button', { type: 'button', 'data-testid': 'ext-open', onclick: () => fileInput.click() }, 'Open recording…'), fileInput],
    below: [h('div', { class: 'ext-status' }, status)],
  });

  function setRecording(on: boolean): void {
    recording = on;
    recordButton.setAttribute('aria-pressed', String(on));
    recordButton.textContent = on ? '● Recording' : '○ Paused';
    renderStatus();
  }

  function renderStatus(): void {
    const where = tabId === null ? 'no tab' : `${page || `tab ${tabId}`}${port ? '' : ' (reconnecting…)'}`;
    const lost = dropped > 0 ? ` · ${dropped} ${dropped === 1 ? 'message' : 'messages'} not kept while paused` : '';
    status.textContent = `${where} · ${runs.size === 0 ? 'no agent run seen yet' : `${runs.size} ${runs.size === 1 ? 'run' : 'runs'}`}${lost}`;
  }

  function renderRuns(): void {
    const list = [...runs.values()];
    runPicker.replaceChildren(...(list.length === 0 ? [h('option', { value: '' }, 'no run yet')]
      : list.map((r) => h('option', { value: r.key, 'data-origin': r.origin },
        `${r.label} · ${r.origin === 'registry' ? 'stepline' : 'socket'}${r.ended ? ' (ended)' : ''}`))));
    if (selected) runPicker.value = selected.key;
    else if (list.length > 0) runPicker.value = '';
    renderStatus();
  }

  /** Shows `run` through a new Session of the panel's own, fed everything the run sent so far. */
  function select(run: PageRun | null): void {
    selected = run;
    mirror = null;
    renderRuns();
    if (!run) return;
    mirror = new Session({ staleAfterMs: panel.staleAfterMs });
    panel.setSession(mirror, { source: { kind: 'live', label: run.label,
      detail: run.origin === 'registry' ? 'followed by the page (stepline)' : 'observed on the page\'s socket' } });
    for (const item of run.items) feed(mirror, item);
    if (run.error) panel.dispatch({ type: 'error', error: `This run cannot be shown: ${run.error}.` });
  }

  function feed(session: Session, item: PageMessage): void {
    try {
      if (item.type === 'lines') feedLines(panel, session, item.lines);
      else if (item.type === 'event') session.ingestEvent(item.name, item.data);
    } catch (error) {
      panel.dispatch({ type: 'error', error: `An event could not be read: ${describe(error)}` });
    }
  }

  function receive(gen: number, msg: PageMessage | ({ type: 'hello' } & Omit<TabInfo, 'tabId'>)): void {
    if (gen !== generation) return;
    if (msg.type === 'hello') {
      retry = 0;
      page = msg.title || msg.url;
      renderStatus();
      return;
    }
    const key = `${gen}:${msg.id}`;
    if (msg.type === 'run') {
      // Known even while paused, so a run first seen then is listed once something of it is kept.
      announced.set(key, { origin: msg.origin, label: msg.label });
      if (recording) listed(key);
      return;
    }
    if ((msg.type === 'lines' || msg.type === 'event') && !recording) {
      dropped += 1;
      renderStatus();
      return;
    }
    const run = runs.get(key) ?? (msg.type === 'lines' || msg.type === 'event' ? listed(key) : undefined);
    if (!run) return;
    if (msg.type === 'ended') {
      run.ended = true;
      renderRuns();
    } else if (msg.type === 'error') {
      run.error = msg.message;
      if (run === selected) panel.dispatch({ type: 'error', error: `This run cannot be shown: ${msg.message}.` });
    } else {
      if (run.ended) {
        run.ended = false;
        renderRuns();
      }
      run.items.push(msg);
      if (run === selected && mirror) feed(mirror, msg);
    }
  }

  /** The run `key` in the list, added (and shown, unless one the page still follows is) the first time. */
  function listed(key: string): PageRun | undefined {
    const known = runs.get(key);
    if (known) return known;
    const header = announced.get(key);
    if (!header) return undefined;
    const run: PageRun = { key, ...header, items: [], ended: false, error: null };
    runs.set(key, run);
    if (!selected || selected.ended) select(run);
    else renderRuns();
    return run;
  }

  /** Follows `id`'s relay; when the page goes away (reload, navigation), tries again. */
  function connect(id: number): void {
    if (port) port.disconnect();
    port = null;
    tabId = Number.isInteger(id) ? id : null;
    generation += 1;
    renderStatus();
    if (tabId === null) return;
    const gen = generation;
    const p = chrome.tabs.connect(tabId, { name: PORT });
    port = p;
    p.onMessage.addListener((msg) => receive(gen, msg as PageMessage));
    p.onDisconnect.addListener(() => {
      void chrome.runtime.lastError; // read, so a tab without a relay is no console error
      if (gen !== generation) return;
      port = null;
      for (const run of runs.values()) if (run.key.startsWith(`${gen}:`)) run.ended = true;
      renderRuns();
      // The page reloads or navigates: its new relay is there once the new document started.
      retry = Math.min(retry + 1, 10);
      setTimeout(() => { if (gen === generation) connect(tabId ?? NaN); }, 250 * retry);
    });
  }

  function clearRuns(): void {
    runs.clear();
    dropped = 0;
    select(null);
  }

  /** The tabs whose relay answers (the service worker asks them), for the picker. */
  async function listTabs(): Promise<TabInfo[]> {
    const tabs = ((await chrome.runtime.sendMessage({ type: 'stepline-tabs' })) ?? []) as TabInfo[];
    const own = tabId;
    tabPicker.replaceChildren(h('option', { value: '' }, tabs.length === 0 ? 'no tab with a page yet' : 'choose a tab…'),
      ...tabs.map((t) => h('option', { value: String(t.tabId), 'data-url': t.url }, `${t.title || t.url} (${t.runs} ${t.runs === 1 ? 'run' : 'runs'})`)));
    if (own !== null) tabPicker.value = String(own);
    return tabs;
  }

  const host: ExtensionHost & { listTabs: typeof listTabs; connect: typeof connect } = {
    get tabId() { return tabId; },
    get runs() { return [...runs.values()].map((r) => ({ label: r.label, origin: r.origin, ended: r.ended, messages: r.items.length })); },
    get selected() { return selected?.label ?? null; },
    get recording() { return recording; },
    get dropped() { return dropped; },
    listTabs,
    connect,
  };
  Object.assign(window, { stepline: panel, steplineExtension: host });

  setRecording(true);
  renderRuns();
  const asked = new URLSearchParams(location.search).get('tabId');
  if (inDevtools) {
    connect(chrome.devtools.inspectedWindow.tabId);
  } else {
    await listTabs();
    if (asked !== null) connect(Number(asked));
  }
}

main().catch((error: unknown) => {
  document.getElementById('app')!.replaceChildren(h('p', { class: 'banner', role: 'alert' }, `stepline could not start: ${describe(error)}`));
});
