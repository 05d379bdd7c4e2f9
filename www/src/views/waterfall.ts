// The selected turn's steps and tool calls on a time axis, from the core's
// started_at/completed_at. Tool calls of one step get a row each, so
// parallel calls show as overlapping bars side by side in time. A run whose
// clock never moved (or sent no times) has no axis: its rows keep their order
// and the panel says so, rather than draw bars of width zero.
import type { ExecutionView } from 'stepline/devtools';
import { h, replaceChildren } from '../dom';
import type { Panel, View } from '../panel';

interface Row {
  readonly kind: 'step' | 'tool';
  readonly step: number;
  readonly label: string;
  readonly start: number | null;
  readonly end: number | null;
  readonly failed: boolean;
}

const time = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

function rows(exec: ExecutionView): Row[] {
  const out: Row[] = [];
  for (const step of exec.steps) {
    out.push({ kind: 'step', step: step.number, label: `Step ${step.number}`, start: time(step.started_at), end: time(step.completed_at), failed: Boolean(step.error) });
    for (const tool of step.tools) {
      out.push({ kind: 'tool', step: step.number, label: tool.name, start: time(tool.started_at), end: time(tool.completed_at), failed: tool.status === 'failed' || Boolean(tool.error) });
    }
  }
  return out;
}

export class WaterfallView implements View {
  readonly el = h('div', { class: 'tab-body waterfall', 'data-testid': 'waterfall' });
  private last: unknown[] = [];

  update(panel: Panel): void {
    const exec = panel.view?.executions[panel.selected.exec] ?? null;
    const selected = exec ? panel.selected.step ?? exec.steps.at(-1)?.number ?? null : null;
    const key = [exec?.steps, selected];
    if (key[0] === this.last[0] && key[1] === this.last[1]) return;
    this.last = key;
    if (!exec || exec.steps.length === 0) {
      replaceChildren(this.el, h('p', { class: 'muted' }, 'No steps yet.'));
      return;
    }
    const all = rows(exec);
    const starts = all.map((r) => r.start).filter((t): t is number => t !== null);
    const ends = all.map((r) => r.end ?? r.start).filter((t): t is number => t !== null);
    const t0 = starts.length ? Math.min(...starts) : 0;
    const span = ends.length ? Math.max(...ends) - t0 : 0;
    const timed = span > 0;
    const list = h('div', { class: 'wf-rows', role: 'list', 'aria-label': 'Steps and tool calls on a time axis' });
    for (const row of all) list.append(this.row(panel, row, selected, timed ? { t0, span } : null));
    replaceChildren(this.el,
      h('p', { class: 'muted', 'data-testid': 'waterfall-axis' }, timed
        ? `0 ms → ${Math.round(span)} ms · steps and tool calls; overlapping tool bars ran in parallel`
        : 'No time axis: this run carries no timestamps that move (a frozen clock), so steps and tool calls are shown in order.'),
      list);
  }

  private row(panel: Panel, row: Row, selected: number | null, axis: { t0: number; span: number } | null): HTMLElement {
    const bar = h('span', { class: `wf-bar wf-${row.kind}${row.failed ? ' wf-failed' : ''}` });
    if (axis && row.start !== null) {
      const left = ((row.start - axis.t0) / axis.span) * 100;
      const width = Math.max(0.6, (((row.end ?? row.start) - row.start) / axis.span) * 100);
      bar.style.marginLeft = `${left}%`;
      bar.style.width = `${Math.min(width, 100 - left)}%`;
    } else {
      bar.classList.add('wf-untimed');
    }
    const ms = row.start !== null && row.end !== null ? ` · ${row.end - row.start} ms` : '';
    const name = `${row.kind === 'tool' ? `Tool ${row.label} (step ${row.step})` : row.label}${ms}${row.failed ? ' · failed' : ''}`;
    const button = h('button', {
      type: 'button', class: `wf-row wf-row-${row.kind}`, role: 'listitem', 'aria-label': name, title: name,
      'aria-current': row.step === selected && row.kind === 'step' ? 'true' : null,
      'data-testid': row.kind === 'step' ? `wf-step-${row.step}` : 'wf-tool', 'data-step': row.step,
      'data-start': row.start ?? '', 'data-end': row.end ?? '',
      onclick: () => panel.select(panel.selected.exec, row.step),
    }, h('span', { class: 'wf-label' }, row.kind === 'tool' ? `↳ ${row.label}` : row.label), h('span', { class: 'wf-track' }, bar));
    return button;
  }
}
