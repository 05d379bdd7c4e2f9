// Diagnostics: the producer bugs stepline recognises in the stream and the
// final snapshot (tool arguments in assistant content, inverted timing, …),
// then the session's stream warnings (gaps, events kept but not understood).
// The session diagnoses its own log (only the envelopes it applied: a bad
// line of a recording never reaches it); that reads the whole stream, so it
// runs when the tab is shown and the run changed, not on every event.
import { devtoolsLoading, h, replaceChildren } from '../dom';
import { clip } from '../format';
import type { SlimSnapshot } from 'stepline/devtools';
import type { DevtoolsSession } from '../devtools';
import type { Panel, View } from '../panel';
import { describe } from '../sources/recording';

export class DiagnosticsView implements View {
  readonly el = h('div', { class: 'tab-body', 'data-testid': 'diagnostics' });
  /** What the list shown was computed from: a new session, envelope or snapshot recomputes it. */
  private last: { session: DevtoolsSession; applied: number; snapshot: object | null } | null = null;

  update(panel: Panel): void {
    if (panel.tab !== 'diagnostics' || panel.loading) return;
    const session = panel.tools;
    if (!session) {
      if (panel.session) replaceChildren(this.el, devtoolsLoading('the diagnostics'));
      return;
    }
    const now = { session, applied: panel.view?.counts.applied ?? 0, snapshot: panel.lastSnapshot };
    const last = this.last;
    if (last && last.session === now.session && last.applied === now.applied && last.snapshot === now.snapshot) return;
    this.last = now;
    try {
      panel.dispatch({ type: 'diagnosed', diagnostics: session.diagnose({ snapshot: panel.lastSnapshot as SlimSnapshot | null }) });
    } catch (error) {
      replaceChildren(this.el, h('p', { class: 'error' }, `Diagnostics failed: ${describe(error)}`));
      return;
    }
    const list = panel.diagnostics ?? [];
    replaceChildren(this.el, list.length === 0
      ? h('p', { class: 'muted', 'data-testid': 'no-diagnostics' }, 'No known producer bug shows in this run.')
      : h('ul', { class: 'diags' }, list.map((d) => h('li', { 'data-testid': 'diagnostic', 'data-code': d.code },
        h('span', { class: `pill sev-${d.severity}` }, d.severity), ' ', h('code', null, d.code), ' ', d.message,
        h('div', { class: 'muted small' }, h('code', null, d.path), ' · ', clip(d.evidence, 120))))),
    warningList(panel));
  }
}

/** At most this many of the session's warnings are listed (the view keeps the first 1,000). */
const WARNINGS_SHOWN = 100;

/**
 * What the session kept but did not understand, and the gaps in the stream
 * (a foreign event whose start, end or run never arrived): shown, never
 * papered over. The session lists them; nothing is derived here.
 */
function warningList(panel: Panel): HTMLElement | null {
  const view = panel.view;
  if (!view || view.warning_count === 0) return null;
  const shown = view.warnings.slice(0, WARNINGS_SHOWN);
  return h('section', { 'data-testid': 'stream-warnings' },
    h('h3', null, `Stream warnings (${view.warning_count.toLocaleString('en')})`),
    h('ul', { class: 'diags' }, shown.map((w) => h('li', { 'data-testid': 'stream-warning', 'data-code': w.code },
      h('span', { class: `pill ${w.code === 'gap' ? 'sev-error' : 'sev-warning'}` }, w.code === 'gap' ? 'gap' : 'kept'), ' ',
      h('code', null, w.type), ' ', w.message,
      h('div', { class: 'muted small' }, h('code', null, w.path || '/'), w.timestamp ? ` · ${w.timestamp}` : '')))),
    view.warning_count > shown.length ? h('p', { class: 'muted small' }, `… and ${(view.warning_count - shown.length).toLocaleString('en')} more`) : null);
}

