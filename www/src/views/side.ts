// The side panel: tabs for usage, reconciliation, diagnostics and what-if.
// Tabs follow the WAI-ARIA tabs pattern: arrow keys move between them, Home/End to the first/last.
import { h } from '../dom';
import type { Panel, Tab, View } from '../panel';

export class Side implements View {
  readonly el: HTMLElement;
  private buttons = new Map<Tab, HTMLButtonElement>();
  private bodies = new Map<Tab, HTMLElement>();
  private views: { id: Tab; view: View }[];

  constructor(private panel: Panel, tabs: { id: Tab; label: string; view: View & { el: HTMLElement } }[]) {
    this.views = tabs.map(({ id, view }) => ({ id, view }));
    const list = h('div', { role: 'tablist', class: 'tabs', 'aria-label': 'Run views' });
    list.addEventListener('keydown', (e) => this.key(e, tabs.map((t) => t.id)));
    const bodies: HTMLElement[] = [];
    for (const t of tabs) {
      const button = h('button', { type: 'button', role: 'tab', id: `tab-${t.id}`, 'aria-controls': `panel-${t.id}`, 'data-testid': `tab-${t.id}`, onclick: () => panel.setTab(t.id) }, t.label);
      const body = h('div', { role: 'tabpanel', id: `panel-${t.id}`, 'aria-labelledby': `tab-${t.id}`, class: 'tabpanel' }, t.view.el);
      this.buttons.set(t.id, button);
      this.bodies.set(t.id, body);
      list.append(button);
      bodies.push(body);
    }
    this.el = h('aside', { class: 'side' }, list, bodies);
  }

  update(panel: Panel): void {
    for (const [id, button] of this.buttons) {
      const on = id === panel.tab;
      button.setAttribute('aria-selected', String(on));
      button.tabIndex = on ? 0 : -1;
      this.bodies.get(id)!.hidden = !on;
    }
    // Only the visible tab renders; a hidden one catches up when it is shown.
    for (const { id, view } of this.views) if (id === panel.tab) view.update(panel);
  }

  private key(e: KeyboardEvent, ids: Tab[]): void {
    const i = ids.indexOf(this.panel.tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % ids.length
      : e.key === 'ArrowLeft' ? (i + ids.length - 1) % ids.length
        : e.key === 'Home' ? 0 : e.key === 'End' ? ids.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    this.panel.setTab(ids[next]);
    this.buttons.get(ids[next])!.focus();
  }
}
