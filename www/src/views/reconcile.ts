// The reconciliation report: the stream against the final state, turn by
// turn. Each difference links to the step it is about; a snapshot that lists
// only the run's last steps says how many were outside its window.
import { reconcileCauses, type Difference } from 'stepline';
import { h, replaceChildren } from '../dom';
import { clip } from '../format';
import type { Panel, Reconciliation, View } from '../panel';

/** What each producer cause means, as the core lists them (read once). */
let causes: Map<string, string> | null = null;
function causeDescription(name: string): string {
  causes ??= new Map(reconcileCauses().map((c) => [c.name, `${c.producer} producer, README item ${c.items}: ${c.description}`]));
  return causes.get(name) ?? name;
}

/** The run step a difference is about, as the core says (`null` for run-wide ones). */
export function stepOfDifference(d: Difference): number | null {
  return d.step;
}

/** The turn (index into the view's executions) a difference is about: its
 *  `execution_id` as the core says, else the report's own turn. */
export function execOfDifference(d: Difference, r: Reconciliation, executionIds: readonly (string | null)[]): number {
  // The reconciled turn first: a v1.22 producer keeps one execution id for every turn.
  if (d.execution_id === null || executionIds[r.exec] === d.execution_id) return r.exec;
  const i = executionIds.indexOf(d.execution_id);
  return i < 0 ? r.exec : i;
}

/** Differences per `exec:step`, for the timeline's marks. */
export function differencesByStep(reports: readonly Reconciliation[], executionIds: readonly (string | null)[] = []): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of reports) {
    for (const d of r.report.differences) {
      const n = stepOfDifference(d);
      const key = `${execOfDifference(d, r, executionIds)}:${n}`;
      if (n !== null) out.set(key, (out.get(key) ?? 0) + 1);
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

  /** How much of the run the snapshot's step window covers, when it leaves steps out. */
  private window(r: Reconciliation): HTMLElement | null {
    const { listed, first_step: first, last_step: last, outside_step_count: outside } = r.report.window;
    if (outside === 0) return null;
    const steps = `${outside} step${outside === 1 ? '' : 's'}`;
    const compared = listed > 0 ? `it lists steps ${first}–${last}` : 'it lists no steps';
    return h('p', { class: 'muted', 'data-testid': 'reconcile-window' },
      `${steps} outside the snapshot's window (${compared}): shown as streamed, not compared.`);
  }

  private report(panel: Panel, r: Reconciliation): HTMLElement {
    const { consistent, differences } = r.report;
    const byReference = differences.filter((d) => d.cause !== null).length;
    return h('section', { class: 'report', 'data-testid': 'reconcile-report' },
      h('h3', null, r.label, ' ',
        h('span', { class: `pill ${consistent ? 'ok' : 'bad'}`, 'data-testid': 'reconcile-status' }, consistent ? 'consistent' : `${differences.length} difference${differences.length === 1 ? '' : 's'}`)),
      consistent ? h('p', { class: 'muted' }, r.report.window.outside_step_count > 0
        ? 'Every step the snapshot lists, its tool calls, the continuation, status and the streamed text agree with the final state.'
        : 'Every step, tool call, continuation, status and the streamed text agree with the final state.') : null,
      this.window(r),
      byReference ? h('p', { class: 'muted' }, `${byReference} of them the producer causes by design (${[...new Set(differences.flatMap((d) => (d.cause ? [d.cause] : [])))].join(', ')}).`) : null,
      differences.length === 0 ? null : h('ul', { class: 'diffs' }, differences.map((d) => {
        const step = stepOfDifference(d);
        return h('li', { 'data-testid': 'difference', 'data-kind': d.kind },
          h('span', { class: `pill kind-${d.cause ? 'known' : 'bad'}` }, d.kind),
          ' ',
          step === null ? h('span', null, d.message) : h('button', { type: 'button', class: 'link', onclick: () => panel.select(execOfDifference(d, r, panel.view?.executions.map((e) => e.execution_id) ?? []), step) }, d.message),
          h('div', { class: 'muted small' }, h('code', null, d.path), d.streamed !== null || d.final !== null ? ` · streamed ${clip(d.streamed, 60)} · final ${clip(d.final, 60)}` : '', d.cause ? h('span', { title: causeDescription(d.cause), 'data-testid': 'difference-cause' }, ` · ${d.cause}`) : null));
      })));
  }
}
