// The timeline: every turn (execution) and its steps, newest at the bottom.
// Long runs are virtualised: rows have one fixed height and only those in the
// viewport (plus a margin) are in the DOM, so a 100,000-event recording
// scrolls as lightly as a short one. A step row is rebuilt only when its step
// object changed (Session shares unchanged steps between snapshots) or its
// marks did. Arrow keys move the selection; Home/End jump.
import type { ExecutionView, StepView } from 'stepline';
import { h, replaceChildren } from '../dom';
import { count, duration } from '../format';
import type { Panel, View } from '../panel';
import { differencesByStep } from './reconcile';
import { endedMarks } from './ended';

const ROW = 44;
const OVERSCAN = 12;

type Row = { kind: 'exec'; exec: number; e: ExecutionView } | { kind: 'step'; exec: number; s: StepView };

/** A step's state in one word: running, ok, failed or incomplete. */
export function stepState(s: StepView): 'running' | 'ok' | 'failed' | 'incomplete' {
  if (s.error || s.type === 'error' || s.tools.some((t) => t.status === 'failed')) return 'failed';
  if (s.seen.completed) return 'ok';
  return s.seen.started ? 'running' : 'incomplete';
}

function markSelected(el: HTMLElement, selected: boolean): HTMLElement {
  el.classList.toggle('selected', selected);
  el.setAttribute('aria-selected', String(selected));
  return el;
}

export class Timeline implements View {
  readonly el: HTMLElement;
  private scroller: HTMLElement;
  private spacer: HTMLElement;
  private rows: Row[] = [];
  private cache = new WeakMap<object, { el: HTMLElement; key: string }>();
  private lastView: unknown = null;
  private lastLength = 0;

  constructor(private panel: Panel) {
    this.spacer = h('div', { class: 'spacer' });
    this.scroller = h('div', { class: 'scroller', tabindex: '0', role: 'listbox', 'aria-label': 'Steps', 'data-testid': 'timeline' }, this.spacer);
    this.scroller.addEventListener('scroll', () => this.paint());
    this.scroller.addEventListener('keydown', (e) => this.key(e));
    this.el = h('section', { class: 'timeline', 'aria-label': 'Timeline' }, h('h2', null, 'Timeline'), this.scroller);
  }

  update(panel: Panel): void {
    const view = panel.view;
    if (view !== this.lastView) {
      this.lastView = view;
      this.rows = [];
      view?.executions.forEach((e, exec) => {
        this.rows.push({ kind: 'exec', exec, e });
        for (const s of e.steps) this.rows.push({ kind: 'step', exec, s });
      });
      this.spacer.style.height = `${this.rows.length * ROW}px`;
      // Stay at the bottom while following a live run.
      if (panel.follow && this.rows.length > this.lastLength) this.scroller.scrollTop = this.scroller.scrollHeight;
      this.lastLength = this.rows.length;
    }
    this.paint();
  }

  /** Puts the visible rows in the DOM. */
  private paint(): void {
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const marks = this.marks();
    const wanted: HTMLElement[] = [];
    for (let i = first; i < last; i += 1) {
      const el = this.rowElement(this.rows[i], marks);
      el.style.top = `${i * ROW}px`;
      wanted.push(el);
    }
    replaceChildren(this.spacer, wanted);
  }

  private marks() {
    const p = this.panel;
    return {
      selected: p.selected,
      lastStep: p.view?.executions[p.selected.exec]?.steps.at(-1)?.number ?? null,
      whatIf: p.whatIf?.replay ? { exec: p.whatIf.exec, at: p.whatIf.replay.stopsAtStep } : null,
      diffs: differencesByStep(p.reconciliations),
    };
  }

  private rowElement(row: Row, m: ReturnType<Timeline['marks']>): HTMLElement {
    if (row.kind === 'exec') {
      const key = `${row.exec}`;
      const hit = this.cache.get(row.e);
      if (hit && hit.key === key) return hit.el;
      const e = row.e;
      const el = h('div', { class: 'row exec', role: 'presentation' },
        h('span', { class: 'turn' }, `Turn ${row.exec + 1}`),
        h('span', { class: `pill status-${e.status ?? 'unknown'}` }, e.status ?? '—'),
        endedMarks(e, this.panel.staleAfterMs, 'turn'),
        h('span', { class: 'muted', title: e.execution_id ?? '' }, e.execution_id ?? ''),
        h('span', { class: 'right muted' }, `${count(e.usage.total)} tok`));
      this.cache.set(row.e, { el, key });
      return el;
    }
    const s = row.s;
    const selectedStep = m.selected.step ?? m.lastStep;
    const selected = m.selected.exec === row.exec && selectedStep === s.number;
    const wouldStop = m.whatIf !== null && m.whatIf.exec === row.exec && m.whatIf.at === s.number;
    const diffs = m.diffs.get(`${row.exec}:${s.number}`) ?? 0;
    // Selection is not part of the key: it only toggles the row's class and
    // aria-selected, so moving it never rebuilds a row.
    const key = `${row.exec}|${wouldStop}|${diffs}`;
    const hit = this.cache.get(s);
    if (hit && hit.key === key) return markSelected(hit.el, selected);
    const state = stepState(s);
    const failedTools = s.tools.filter((t) => t.status === 'failed').length;
    const awaiting = s.tools.filter((t) => t.approval === 'requested' && t.status === 'running').length;
    const el = h('div', {
      class: `row step row-${state}`, role: 'option',
      'data-testid': 'step-row', 'data-exec': row.exec, 'data-step': s.number, 'data-state': state,
      onclick: () => this.panel.select(row.exec, s.number),
    },
    h('span', { class: 'num' }, `#${s.number}`),
    h('span', { class: 'what' },
      h('span', { class: 'line' },
        h('span', { class: `badge type-${s.type ?? 'unknown'}` }, s.type ?? (state === 'running' ? 'running' : '—')),
        s.finish_reason ? h('span', { class: 'finish muted', title: 'finish reason' }, s.finish_reason) : null,
        wouldStop ? h('span', { class: 'mark whatif', title: 'the what-if limits stop the run here', 'data-testid': 'whatif-mark' }, 'would stop') : null,
        diffs ? h('span', { class: 'mark diff', title: 'differences with the final state' }, `${diffs} diff`) : null),
      h('span', { class: 'line muted small' },
        s.tools.length === 0 ? 'no tools' : s.tools.map((t) => t.name).join(', '),
        failedTools ? h('span', { class: 'error' }, ` · ${failedTools} failed`) : null,
        awaiting ? h('span', { class: 'warn' }, ` · ${awaiting} awaiting approval`) : null)),
    h('span', { class: 'nums' },
      h('span', { class: 'dur' }, duration(s.duration_ms)),
      h('span', { class: 'tok muted' }, s.usage ? `${count(s.usage.total)} tok` : '')));
    this.cache.set(s, { el, key });
    return markSelected(el, selected);
  }

  private key(e: KeyboardEvent): void {
    const steps = this.rows.filter((r): r is Extract<Row, { kind: 'step' }> => r.kind === 'step');
    if (steps.length === 0) return;
    const { exec, step } = this.panel.selected;
    const current = step ?? this.panel.view?.executions[exec]?.steps.at(-1)?.number ?? null;
    let i = steps.findIndex((r) => r.exec === exec && r.s.number === current);
    if (e.key === 'ArrowDown') i = Math.min(steps.length - 1, i + 1);
    else if (e.key === 'ArrowUp') i = Math.max(0, i - 1);
    else if (e.key === 'Home') i = 0;
    else if (e.key === 'End') i = steps.length - 1;
    else return;
    e.preventDefault();
    const target = steps[i];
    this.panel.select(target.exec, target.s.number);
    const index = this.rows.indexOf(target);
    const y = index * ROW;
    if (y < this.scroller.scrollTop) this.scroller.scrollTop = y;
    else if (y + ROW > this.scroller.scrollTop + this.scroller.clientHeight) this.scroller.scrollTop = y + ROW - this.scroller.clientHeight;
  }
}
