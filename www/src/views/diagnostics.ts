// Diagnostics: the producer bugs stepline recognises in the stream and the
// final snapshot (tool arguments in assistant content, inverted timing, …).
// diagnose() reads the whole stream, so it runs when the tab is shown and the
// run changed, not on every event.
import { diagnose } from 'stepline';
import { h, replaceChildren } from '../dom';
import { clip } from '../format';
import type { Panel, View } from '../panel';
import { describe } from '../sources/recording';

export class DiagnosticsView implements View {
  readonly el = h('div', { class: 'tab-body', 'data-testid': 'diagnostics' });
  private lastKey = '';

  update(panel: Panel): void {
    if (panel.tab !== 'diagnostics' || panel.loading) return;
    const snapshot = panel.lastSnapshot ? JSON.stringify(panel.lastSnapshot) : null;
    const key = `${panel.envelopeLines.length}|${panel.reconciliations.length}|${panel.session ? panel.view?.counts.applied : 0}`;
    if (key === this.lastKey) return;
    this.lastKey = key;
    try {
      const input = `{"envelopes":[${panel.envelopeLines.join(',')}],"snapshot":${snapshot ?? 'null'}}`;
      panel.diagnostics = diagnose(input);
    } catch (error) {
      replaceChildren(this.el, h('p', { class: 'error' }, `Diagnostics failed: ${describe(error)}`));
      return;
    }
    const list = panel.diagnostics;
    replaceChildren(this.el, list.length === 0
      ? h('p', { class: 'muted', 'data-testid': 'no-diagnostics' }, 'No known producer bug shows in this run.')
      : h('ul', { class: 'diags' }, list.map((d) => h('li', { 'data-testid': 'diagnostic', 'data-code': d.code },
        h('span', { class: `pill sev-${d.severity}` }, d.severity), ' ', h('code', null, d.code), ' ', d.message,
        h('div', { class: 'muted small' }, h('code', null, d.path), ' · ', clip(d.evidence, 120))))));
  }
}
