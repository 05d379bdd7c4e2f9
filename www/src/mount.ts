// The panel, mountable anywhere: the views over one Panel, put into an element
// of a page or of a shadow root. The standalone page (main.ts) and the in-page
// overlay (overlay/panel.ts) are its two hosts; they differ only in where runs
// come from, which they add to the top bar (`host.nav`, `host.below`).
import { h, type Child } from './dom';
import { Panel, type View } from './panel';
import { Announcer } from './views/announcer';
import { CompareView } from './views/compare';
import { DiagnosticsView } from './views/diagnostics';
import { Header } from './views/header';
import { RawView } from './views/raw';
import { ReconcileView } from './views/reconcile';
import { Side } from './views/side';
import { StepDetail } from './views/step';
import { TimeSlider } from './views/time';
import { Timeline } from './views/timeline';
import { UsageView } from './views/usage';
import { WaterfallView } from './views/waterfall';
import { WhatIfView } from './views/whatif';

export interface PanelHost {
  /** Controls for the top bar's nav, before the downloads. */
  nav?: Child[];
  /** Shown under the top bar (the live form). */
  below?: Child[];
  /** Views of the host that render with the panel. */
  views?: View[];
  /** Where the timeline's keys (n, p, F8) are heard: the page, or only the overlay. */
  keys?: EventTarget;
}

/**
 * Builds the panel's views into `target` (its children are replaced) and
 * returns the Panel; give it a run with `panel.setSession(...)`. `hostOf`
 * may be a function of the new Panel, for host controls that act on it.
 *
 * @example
 * const { panel } = mountPanel(shadowRoot.querySelector('.panel')!, { keys: shadowRoot });
 * panel.setSession(session, { source: { kind: 'live', label: 'agent.sess-1', detail: '' } });
 */
export function mountPanel(target: Element, hostOf: PanelHost | ((panel: Panel) => PanelHost) = {}): { panel: Panel; header: Header } {
  const panel = new Panel();
  const host = typeof hostOf === 'function' ? hostOf(panel) : hostOf;
  const header = new Header(panel, host);
  const timeline = new Timeline(panel, host.keys);
  const detail = new StepDetail();
  const side = new Side(panel, [
    { id: 'usage', label: 'Usage', view: new UsageView() },
    { id: 'reconcile', label: 'Reconciliation', view: new ReconcileView() },
    { id: 'diagnostics', label: 'Diagnostics', view: new DiagnosticsView() },
    { id: 'whatif', label: 'What if', view: new WhatIfView(panel) },
    { id: 'waterfall', label: 'Waterfall', view: new WaterfallView() },
    { id: 'raw', label: 'Raw', view: new RawView() },
    { id: 'compare', label: 'Compare', view: new CompareView() },
  ]);
  // The slider first: it reads new envelopes before the other views render.
  const time = new TimeSlider(panel);
  const announcer = new Announcer();
  for (const view of [time, header, timeline, detail, side, announcer, ...(host.views ?? [])]) panel.register(view);
  target.replaceChildren(header.el, time.el, h('main', { class: 'layout' }, timeline.el, detail.el, side.el), announcer.el);
  panel.render();
  return { panel, header };
}
