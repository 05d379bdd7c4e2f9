// The timeline: every turn (execution) and its steps, newest at the bottom.
// Long runs are virtualised: rows have one fixed height and only those in the
// viewport (plus a margin) are in the DOM, so a 100,000-event recording
// scrolls as lightly as a short one. A step row is rebuilt only when its step
// object changed (Session shares unchanged steps between snapshots) or its
// marks did. Arrow keys move the selection; Home/End jump.
import type { ExecutionView, StepView } from 'stepline/devtools';
import { h, replaceChildren } from '../dom';
import { clip, count, duration, plural } from '../format';
import type { Panel, View } from '../panel';
import { differencesByStep } from './reconcile';
import { endedMarks } from './ended';
import { active, matches, nextFailure, toolNames } from '../find';
import type { Find } from '../state';

const ROW = 44;
const OVERSCAN = 12;

type Row = { kind: 'exec'; exec: number; e: ExecutionView } | { kind: 'step'; exec: number; s: StepView };

/**
 * A step's state in one word: running, ok, failed or incomplete. A started
 * step of a run that ended (`runEnded`) is not running: it never completed.
 */
export function stepState(s: StepView, runEnded = false): 'running' | 'ok' | 'failed' | 'incomplete' {
  if (s.error || s.type === 'error' || s.tools.some((t) => t.status === 'failed')) return 'failed';
  if (s.seen.completed) return 'ok';
  return s.seen.started && !runEnded ? 'running' : 'incomplete';
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
  private lastFind: Find | null = null;
  private lastLength = 0;
  private search: HTMLInputElement;
  private failedOnly: HTMLInputElement;
  private tool: HTMLSelectElement;
  private turn: HTMLSelectElement;
  private shown = h('span', { class: 'muted small', 'data-testid': 'find-count', 'aria-live': 'polite' });
  private toolsKey = '';
  private turnsKey = -1;

  /** `keys`: where n, p and F8 are heard (the page; the overlay passes its own root). */
  constructor(private panel: Panel, keys: EventTarget = document) {
    this.spacer = h('div', { class: 'spacer' });
    this.scroller = h('div', { class: 'scroller', tabindex: '0', role: 'listbox', 'aria-label': 'Steps', 'data-testid': 'timeline' }, this.spacer);
    this.scroller.addEventListener('scroll', () => this.paint());
    this.scroller.addEventListener('keydown', (e) => this.key(e));
    const find = (f: Partial<Find>) => panel.dispatch({ type: 'find', find: f });
    this.search = h('input', { type: 'search', placeholder: 'Find: tool, text, error', 'aria-label': 'Find steps by tool name, text or error', 'data-testid': 'find-text',
      oninput: () => find({ text: this.search.value }) });
    this.failedOnly = h('input', { type: 'checkbox', 'data-testid': 'find-failed', onchange: () => find({ failedOnly: this.failedOnly.checked }) });
    this.tool = h('select', { 'aria-label': 'Only steps calling this tool', 'data-testid': 'find-tool', onchange: () => find({ tool: this.tool.value }) });
    this.turn = h('select', { 'aria-label': 'Only this turn', 'data-testid': 'find-turn', onchange: () => find({ turn: this.turn.value === '' ? null : Number(this.turn.value) }) });
    const bar = h('div', { class: 'find', role: 'search', 'aria-label': 'Find steps' },
      this.search,
      h('label', { class: 'check' }, this.failedOnly, 'Failed'),
      this.tool, this.turn,
      h('button', { type: 'button', 'data-testid': 'prev-failure', title: 'Previous failed step (p or Shift+F8)', 'aria-keyshortcuts': 'p Shift+F8', 'aria-label': 'Previous failure', onclick: () => this.jumpFailure(-1) }, '↑', h('span', { class: 'wide-only' }, ' failure')),
      h('button', { type: 'button', 'data-testid': 'next-failure', title: 'Next failed step (n or F8)', 'aria-keyshortcuts': 'n F8', 'aria-label': 'Next failure', onclick: () => this.jumpFailure(1) }, '↓', h('span', { class: 'wide-only' }, ' failure')),
      this.shown);
    // n / p (outside text fields) and F8 / Shift+F8 anywhere: the next / previous failure.
    keys.addEventListener('keydown', (event) => {
      const e = event as KeyboardEvent;
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'F8') this.jumpFailure(e.shiftKey ? -1 : 1);
      else if (!typing && e.key === 'n') this.jumpFailure(1);
      else if (!typing && e.key === 'p') this.jumpFailure(-1);
      else return;
      e.preventDefault();
    });
    this.el = h('section', { class: 'timeline', 'aria-label': 'Timeline' }, h('h2', null, 'Timeline'), bar, this.scroller);
  }

  /** Selects the next or previous failed step among those shown and scrolls to it. */
  private jumpFailure(dir: 1 | -1): void {
    const steps = this.rows.filter((r): r is Extract<Row, { kind: 'step' }> => r.kind === 'step');
    const { exec, step } = this.panel.selected;
    const current = step ?? this.panel.view?.executions[exec]?.steps.at(-1)?.number ?? -1;
    const target = nextFailure(steps, { exec, step: current }, dir);
    if (!target) {
      this.shown.textContent = `${this.countText()} · no failed step`;
      return;
    }
    this.panel.select(target.exec, target.step);
    this.reveal(this.rows.findIndex((r) => r.kind === 'step' && r.exec === target.exec && r.s.number === target.step));
  }

  private countText(): string {
    const total = this.panel.view?.executions.reduce((n, e) => n + e.steps.length, 0) ?? 0;
    const shown = this.rows.filter((r) => r.kind === 'step').length;
    return active(this.panel.find) ? `${shown.toLocaleString('en')} of ${plural(total, 'step')}` : plural(total, 'step');
  }

  /** The filters' choices follow the run (its tools and turns), rebuilt only when they change. */
  private fillFilters(panel: Panel): void {
    const tools = toolNames(panel.view);
    const key = tools.join('\u0000');
    if (key !== this.toolsKey) {
      this.toolsKey = key;
      replaceChildren(this.tool, h('option', { value: '' }, 'Any tool'), tools.map((t) => h('option', { value: t }, t)));
    }
    const turns = panel.view?.executions.length ?? 0;
    if (turns !== this.turnsKey) {
      this.turnsKey = turns;
      replaceChildren(this.turn, h('option', { value: '' }, 'Any turn'), Array.from({ length: turns }, (_, i) => h('option', { value: i }, `Turn ${i + 1}`)));
    }
    const f = panel.find;
    if (this.search.value !== f.text) this.search.value = f.text;
    this.failedOnly.checked = f.failedOnly;
    this.tool.value = f.tool;
    this.turn.value = f.turn === null ? '' : String(f.turn);
  }

  update(panel: Panel): void {
    const view = panel.view;
    if (view !== this.lastView || panel.find !== this.lastFind) {
      this.lastView = view;
      this.lastFind = panel.find;
      this.fillFilters(panel);
      const find = panel.find;
      const filtering = active(find);
      this.rows = [];
      view?.executions.forEach((e, exec) => {
        const steps = filtering ? e.steps.filter((s) => matches(find, exec, s)) : e.steps;
        if (filtering && steps.length === 0) return;
        this.rows.push({ kind: 'exec', exec, e });
        for (const s of steps) this.rows.push({ kind: 'step', exec, s });
      });
      this.shown.textContent = this.countText();
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
    // Screen readers follow the selection while focus stays on the list.
    const sel = this.spacer.querySelector<HTMLElement>('.row.selected');
    if (sel) this.scroller.setAttribute('aria-activedescendant', sel.id);
    else this.scroller.removeAttribute('aria-activedescendant');
  }

  private marks() {
    const p = this.panel;
    return {
      selected: p.selected,
      lastStep: p.view?.executions[p.selected.exec]?.steps.at(-1)?.number ?? null,
      whatIf: p.whatIf?.replay ? { exec: p.whatIf.exec, at: p.whatIf.replay.stopsAtStep } : null,
      diffs: differencesByStep(p.reconciliations, p.view?.executions.map((e) => e.execution_id) ?? []),
    };
  }

  private rowElement(row: Row, m: ReturnType<Timeline['marks']>): HTMLElement {
    if (row.kind === 'exec') {
      const key = `${row.exec}`;
      const hit = this.cache.get(row.e);
      if (hit && hit.key === key) return hit.el;
      const e = row.e;
      // Two lines as a step row has, so a narrow timeline keeps every part:
      // the turn and how it ended, then the user's message when the stream
      // or the final state carries it (the core's `user_message`), else the
      // execution id; the core's turn duration and tokens on the right.
      const el = h('div', { class: 'row exec', role: 'presentation' },
        h('span', { class: 'what' },
          h('span', { class: 'line' },
            h('span', { class: 'turn' }, `Turn ${row.exec + 1}`),
            h('span', { class: `pill status-${e.status ?? 'unknown'}` }, e.status ?? '—'),
            endedMarks(e, this.panel.staleAfterMs, 'turn')),
          e.user_message !== null
            ? h('span', { class: 'line muted small user-message', 'data-testid': 'turn-user-message', title: `${e.user_message}${e.execution_id ? `\n${e.execution_id}` : ''}` }, `“${clip(e.user_message, 200)}”`)
            : h('span', { class: 'line muted small', title: e.execution_id ?? '' }, e.execution_id ?? '')),
        h('span', { class: 'nums' },
          h('span', { class: 'dur', 'data-testid': 'turn-duration', title: 'the turn\'s duration: its first to its last event' }, duration(e.duration_ms)),
          h('span', { class: 'tok muted' }, `${count(e.usage.total)} tok`)));
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
      class: `row step row-${state}`, role: 'option', id: `step-${row.exec}-${s.number}`,
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
    this.reveal(this.rows.indexOf(target));
  }

  /** Scrolls row `index` into view. */
  private reveal(index: number): void {
    if (index < 0) return;
    const y = index * ROW;
    if (y < this.scroller.scrollTop) this.scroller.scrollTop = y;
    else if (y + ROW > this.scroller.scrollTop + this.scroller.clientHeight) this.scroller.scrollTop = y + ROW - this.scroller.clientHeight;
  }
}
