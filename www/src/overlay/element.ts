// `stepline/devtools-overlay`: the devtools panel inside the app's own page, as
// a framework-free custom element, <stepline-devtools>. Importing this module
// defines the element and, unless the page already has one, adds one to
// <body>. What loads here is only the dock and its badge; the panel's code and
// the wasm (overlay/panel.ts) load when the overlay is first opened.
//
// Runs come from the page's devtools registry (`registerRun` in stepline/echo:
// the adapters' feeds list their Sessions there while they follow them) and
// from `element.sessions`. The overlay reads a run's Session (getSnapshot,
// toRecording, subscribe) and never writes to it: the panel shows a Session of
// its own, fed from the app's recording (overlay/panel.ts).
//
// Keep it out of production builds: `if (import.meta.env.DEV) import('stepline/devtools-overlay');`
import { registerRun, type DevtoolsRun } from 'stepline/echo';
import type { SessionView } from 'stepline/devtools';

type PanelModule = typeof import('./panel');
type Opened = Awaited<ReturnType<PanelModule['openPanel']>>;

export const TAG = 'stepline-devtools';

const CSS = `
:host { all: initial; position: fixed; z-index: 2147483646; font: 12px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif;
  --o-bg: #ffffff; --o-fg: #1b1f24; --o-line: #dde1e6; --o-ok: #176b2f; --o-bad: #b42318; --o-run: #6639ba; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :host { --o-bg: #161a20; --o-fg: #e5e9ee; --o-line: #2a313a; --o-ok: #5cc57d; --o-bad: #ff8a7e; --o-run: #c4a3ff; } }
:host(:not([open])) { right: 12px; bottom: 12px; }
:host([open][dock=bottom]), :host([open]:not([dock])) { left: 0; right: 0; bottom: 0; height: var(--stepline-size, 45vh); }
:host([open][dock=right]) { top: 0; right: 0; bottom: 0; width: var(--stepline-size, min(48vw, 900px)); }
.badge { display: flex; gap: 8px; align-items: center; font: inherit; color: var(--o-fg); background: var(--o-bg); border: 1px solid var(--o-line);
  border-radius: 999px; padding: 5px 12px; cursor: pointer; box-shadow: 0 2px 10px rgb(0 0 0 / .18); }
.badge b { font-weight: 600; }
.badge .status-failed, .badge .failures { color: var(--o-bad); }
.badge .status-completed { color: var(--o-ok); }
.badge .status-processing { color: var(--o-run); }
:host([open]) .badge { display: none; }
.window { display: none; height: 100%; flex-direction: column; background: var(--o-bg); color: var(--o-fg); box-shadow: 0 -2px 14px rgb(0 0 0 / .2); }
:host([open]) .window { display: flex; }
:host([dock=right]) .window { flex-direction: column; border-left: 1px solid var(--o-line); }
.chrome { display: flex; gap: 8px; align-items: center; padding: 4px 10px; border-bottom: 1px solid var(--o-line); border-top: 1px solid var(--o-line); }
.chrome .title { font-weight: 600; }
.chrome .spacer { flex: 1; }
.chrome button, .chrome select { font: inherit; color: inherit; background: var(--o-bg); border: 1px solid var(--o-line); border-radius: 5px; padding: 2px 8px; }
.resize { flex: 0 0 5px; cursor: ns-resize; background: var(--o-line); }
:host([dock=right]) .resize { position: absolute; left: 0; top: 0; bottom: 0; width: 5px; cursor: ew-resize; }
.body { flex: 1; min-height: 0; overflow: auto; position: relative; }
.body > .loading { padding: 16px; }
`;

/** The latest execution's status, and how many tool calls failed in the run. */
export function badgeOf(view: SessionView | null): { status: string; failures: number } {
  const last = view?.executions.at(-1);
  let failures = 0;
  for (const e of view?.executions ?? []) for (const s of e.steps) for (const t of s.tools) if (t.status === 'failed') failures += 1;
  return { status: last?.status ?? view?.status ?? 'waiting', failures };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/**
 * <stepline-devtools>: attributes `open`, `dock="bottom" | "right"` and
 * `final-state` (a URL with `{session}`, fetched once a run ended, to
 * reconcile with); property `sessions` (Sessions to show besides the
 * registry's).
 *
 * @example
 * if (import.meta.env.DEV) import('stepline/devtools-overlay');   // adds <stepline-devtools> to the page
 * // or, placed yourself: <stepline-devtools dock="right" final-state="/agents/{session}/state"></stepline-devtools>
 */
// A module imported where there is no DOM (server-side rendering, Node) must not throw: the
// element is defined, and the page gets one, only where there is a DOM.
const ElementBase: typeof HTMLElement =
  typeof HTMLElement === 'undefined' ? (class {} as unknown as typeof HTMLElement) : HTMLElement;

export class SteplineDevtools extends ElementBase {
  static observedAttributes = ['open'];
  private shadow: ShadowRoot;
  private badge = el('button', { type: 'button', class: 'badge', 'data-testid': 'overlay-badge', 'aria-label': 'Open stepline devtools' });
  private picker = el('select', { 'data-testid': 'overlay-runs', 'aria-label': 'Run' });
  private body = el('div', { class: 'body' });
  private runs: DevtoolsRun[] = [];
  private selected: DevtoolsRun | null = null;
  private watching: (() => void) | null = null;
  private own = new Map<DevtoolsRun['session'], () => void>();
  private frame = 0;
  private opened: Promise<Opened> | null = null;
  private listener = (type: 'add' | 'remove') => {
    this.runs = [...(globalThis.__STEPLINE_DEVTOOLS__?.runs ?? [])];
    if (type === 'add' && (this.selected === null || !this.runs.includes(this.selected))) this.select(this.runs.at(-1) ?? null);
    else this.renderRuns();
  };

  constructor() {
    super();
    this.shadow = this.attachShadow({ mode: 'open' });
    const resize = el('div', { class: 'resize', 'data-testid': 'overlay-resize', title: 'Drag to resize' });
    resize.addEventListener('pointerdown', (e) => this.drag(e));
    const dock = el('button', { type: 'button', 'data-testid': 'overlay-dock', title: 'Dock at the bottom or the right' }, 'Dock ⇆');
    dock.addEventListener('click', () => this.setAttribute('dock', this.getAttribute('dock') === 'right' ? 'bottom' : 'right'));
    const collapse = el('button', { type: 'button', 'data-testid': 'overlay-collapse', title: 'Collapse to the badge' }, '▾');
    collapse.addEventListener('click', () => this.removeAttribute('open'));
    this.badge.addEventListener('click', () => this.setAttribute('open', ''));
    this.picker.addEventListener('change', () => this.select(this.runs[Number(this.picker.value)] ?? null));
    this.shadow.append(el('style', {}, CSS), this.badge,
      el('div', { class: 'window', role: 'region', 'aria-label': 'stepline devtools' },
        resize,
        el('div', { class: 'chrome' }, el('span', { class: 'title' }, 'stepline'), this.picker, el('span', { class: 'spacer' }), dock, collapse),
        this.body));
  }

  /** Sessions to show besides those the adapters registered. */
  set sessions(list: readonly DevtoolsRun['session'][]) {
    for (const [session, unlist] of this.own) if (!list.includes(session)) { unlist(); this.own.delete(session); }
    for (const session of list) if (!this.own.has(session)) this.own.set(session, registerRun({ session, label: session.getSnapshot().session_id ?? `run ${this.own.size + 1}` }));
  }
  get sessions(): DevtoolsRun['session'][] { return [...this.own.keys()]; }

  connectedCallback(): void {
    // One overlay per page: one placed by the app replaces the one the import added.
    for (const other of document.querySelectorAll(TAG)) {
      if (other !== this && other.hasAttribute('data-auto')) other.remove();
    }
    if (this.hasAttribute('data-auto') && [...document.querySelectorAll(TAG)].some((o) => o !== this)) { this.remove(); return; }
    const registry = (globalThis.__STEPLINE_DEVTOOLS__ ??= { version: 1, runs: new Set(), listeners: new Set() });
    registry.listeners.add(this.listener);
    this.listener('add');
    if (this.hasAttribute('open')) void this.openPanel();
  }

  disconnectedCallback(): void {
    globalThis.__STEPLINE_DEVTOOLS__?.listeners.delete(this.listener);
    this.watching?.();
    this.watching = null;
  }

  attributeChangedCallback(name: string): void {
    if (name === 'open' && this.hasAttribute('open') && this.isConnected) void this.openPanel();
  }

  /** Loads the panel (code and wasm) the first time the overlay opens. */
  private openPanel(): Promise<Opened> {
    if (!this.opened) {
      this.body.replaceChildren(el('p', { class: 'loading' }, 'Loading stepline…'));
      this.opened = import('./panel').then((m) => m.openPanel(this.body, this.shadow, { finalState: this.getAttribute('final-state') }));
      this.opened.then((panel) => panel.show(this.selected), (error: unknown) => {
        this.body.replaceChildren(el('p', { class: 'loading' }, `stepline could not start: ${error instanceof Error ? error.message : String(error)}`));
      });
    }
    return this.opened;
  }

  private select(run: DevtoolsRun | null): void {
    this.selected = run;
    this.watching?.();
    this.watching = run ? run.session.subscribe(() => this.changed()) : null;
    this.renderRuns();
    this.renderBadge();
    this.opened?.then((panel) => panel.show(run), () => {});
  }

  private renderRuns(): void {
    this.picker.replaceChildren(...(this.runs.length === 0 ? [el('option', { value: '' }, 'no run followed yet')]
      : this.runs.map((r, i) => el('option', { value: String(i) }, r.label || `run ${i + 1}`))));
    const i = this.selected ? this.runs.indexOf(this.selected) : -1;
    if (i >= 0) this.picker.value = String(i);
  }

  /** The badge reads the app's run at most once a frame. */
  private changed(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.renderBadge();
    });
  }

  private renderBadge(): void {
    let view: SessionView | null = null;
    try {
      view = (this.selected?.session.getSnapshot() as SessionView | undefined) ?? null;
    } catch { /* a freed Session: nothing to show */ }
    const { status, failures } = badgeOf(view);
    this.badge.replaceChildren(el('b', {}, 'stepline'),
      el('span', { class: `status-${status}`, 'data-testid': 'overlay-status' }, status),
      el('span', { class: failures > 0 ? 'failures' : '', 'data-testid': 'overlay-failures', 'data-count': String(failures) },
        `${failures} ${failures === 1 ? 'failure' : 'failures'}`));
  }

  private drag(start: PointerEvent): void {
    const right = this.getAttribute('dock') === 'right';
    const handle = start.currentTarget as HTMLElement;
    handle.setPointerCapture(start.pointerId);
    const move = (e: PointerEvent) => {
      const size = right ? window.innerWidth - e.clientX : window.innerHeight - e.clientY;
      const max = right ? window.innerWidth : window.innerHeight;
      this.style.setProperty('--stepline-size', `${Math.round(Math.min(max - 40, Math.max(160, size)))}px`);
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  }
}

const hasDom = typeof customElements !== 'undefined' && typeof document !== 'undefined';
if (hasDom && !customElements.get(TAG)) customElements.define(TAG, SteplineDevtools);
// Importing the module is enough: the page gets an overlay unless it places its own.
queueMicrotask(() => {
  if (!hasDom) return;
  if (document.querySelector(TAG)) return;
  const add = () => {
    if (document.querySelector(TAG)) return;
    const overlay = document.createElement(TAG);
    overlay.setAttribute('data-auto', '');
    document.body.append(overlay);
  };
  if (document.body) add(); else document.addEventListener('DOMContentLoaded', add, { once: true });
});
