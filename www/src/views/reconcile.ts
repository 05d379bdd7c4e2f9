// The reconciliation report: the stream against the final state, turn by
// turn. Each difference links to the step it is about.
import type { Difference } from 'stepline';
import { h, replaceChildren } from '../dom';
import { clip } from '../format';
import type { Panel, Reconciliation, View } from '../panel';

/** The step a difference is about: `/steps/<i>` (0-based in the snapshot) or `/stream/steps/<n>`. */
export function stepOfDifference(d: Difference): number | null {
  const stream = /^\/stream\/steps\/(\d+)/.exec(d.path);
  if (stream) return Number(stream[1]);
  const snap = /^\/steps\/(\d+)/.exec(d.path);
  if (snap) return Number(snap[1]) + 1;
  const said = /^step (\d+)/.exec(d.message);
  return said ? Number(said[1]) : null;
}

/** Differences per `exec:step`, for the timeline's marks. */
export function differencesByStep(reports: Reconciliation[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of reports) {
    for (const d of r.report.differences) {
      const n = stepOfDifference(d);
      if (n !== null) out.set(`${r.exec}:${n}`, (out.get(`${r.exec}:${n}`) ?? 0) + 1);
    }
  }
  return out;
}

export class ReconcileView implements View {
  readonly el = h('div', { class: 'tab-body', 'data-testid': 'reconcile' });
  private last: unknown = null;

  update(panel: Panel): void {
    if (panel.reconciliations === this.last) return;
    this.last = panel.reconciliations;
    if (panel.reconciliations.length === 0) {
      replaceChildren(this.el, h('p', { class: 'muted' },
        panel.source.kind === 'live'
          ? 'Fetch the final state (Live… → Fetch final state) to check the stream against it.'
          : 'This recording holds no final snapshot to check the stream against.'));
      return;
    }
    replaceChildren(this.el, panel.reconciliations.map((r) => this.report(panel, r)));
  }

  private report(panel: Panel, r: Reconciliation): HTMLElement {
    const { consistent, differences } = r.report;
    const byReference = differences.filter((d) => d.cause !== null).length;
    return h('section', { class: 'report', 'data-testid': 'reconcile-report' },
      h('h3', null, r.label, ' ',
        h('span', { class: `pill ${consistent ? 'ok' : 'bad'}`, 'data-testid': 'reconcile-status' }, consistent ? 'consistent' : `${differences.length} difference${differences.length === 1 ? '' : 's'}`)),
      consistent ? h('p', { class: 'muted' }, 'Every step, tool call, continuation, status and the streamed text agree with the final state.') : null,
      byReference ? h('p', { class: 'muted' }, `${byReference} of them the producer causes by design (no final events when a tool throws).`) : null,
      differences.length === 0 ? null : h('ul', { class: 'diffs' }, differences.map((d) => {
        const step = stepOfDifference(d);
        return h('li', { 'data-testid': 'difference', 'data-kind': d.kind },
          h('span', { class: `pill kind-${d.cause ? 'known' : 'bad'}` }, d.kind),
          ' ',
          step === null ? h('span', null, d.message) : h('button', { type: 'button', class: 'link', onclick: () => panel.select(r.exec, step) }, d.message),
          h('div', { class: 'muted small' }, h('code', null, d.path), d.streamed !== null || d.final !== null ? ` · streamed ${clip(d.streamed, 60)} · final ${clip(d.final, 60)}` : '', d.cause ? ` · ${d.cause}` : ''));
      })));
  }
}
