// Token usage per step of the selected turn, as stacked bars: input, output,
// cache (write and read) and reasoning. SVG built node by node; each bar has a
// title with its exact numbers.
import { h, replaceChildren, svg } from '../dom';
import { count, plural } from '../format';
import type { Panel, View } from '../panel';
import { CostView } from './cost';

/** At most this many bars: a long turn shows the steps around the selected one. */
const MAX_BARS = 60;

const PARTS = [
  { key: 'input', label: 'input' },
  { key: 'output', label: 'output' },
  { key: 'cacheWrite', label: 'cache write' },
  { key: 'cacheRead', label: 'cache read' },
  { key: 'reasoning', label: 'reasoning' },
] as const;

export class UsageView implements View {
  readonly el = h('div', { class: 'tab-body', 'data-testid': 'usage' });
  private last: unknown = null;
  private readonly cost = new CostView();
  private readonly chart = h('div');

  constructor() {
    this.el.append(this.chart, this.cost.el);
  }

  update(panel: Panel): void {
    this.cost.update(panel);
    const exec = panel.view?.executions[panel.selected.exec] ?? null;
    const selected = exec ? panel.selected.step ?? exec.steps.at(-1)?.number ?? null : null;
    const key = exec ? [exec.steps, selected] : null;
    if (this.last !== null && key !== null && (this.last as unknown[])[0] === key[0] && (this.last as unknown[])[1] === key[1]) return;
    this.last = key;
    if (!exec || exec.steps.length === 0) {
      replaceChildren(this.chart, h('p', { class: 'muted' }, 'No usage yet.'));
      return;
    }
    const all = exec.steps;
    const at = Math.max(0, all.findIndex((s) => s.number === selected));
    const from = Math.max(0, Math.min(at - MAX_BARS / 2, all.length - MAX_BARS));
    const steps = all.length > MAX_BARS ? all.slice(from, from + MAX_BARS) : all;
    const max = Math.max(1, ...steps.map((s) => s.usage?.total ?? 0));
    const barW = Math.max(6, Math.min(36, Math.floor(360 / steps.length) - 4));
    const gap = 4;
    const chartH = 160;
    const width = steps.length * (barW + gap) + 40;
    const bars = steps.map((s, i) => {
      const x = 36 + i * (barW + gap);
      let y = chartH;
      const u = s.usage;
      const title = u ? `Step ${s.number}: ${PARTS.map((p) => `${p.label} ${u[p.key]}`).join(', ')} (total ${u.total})` : `Step ${s.number}: no usage reported`;
      const segments = u ? PARTS.map((p) => {
        const hgt = (u[p.key] / max) * (chartH - 10);
        y -= hgt;
        return hgt > 0 ? svg('rect', { x, y, width: barW, height: hgt, class: `seg seg-${p.key}` }) : null;
      }) : [];
      const open = () => panel.select(panel.selected.exec, s.number);
      // A button to the keyboard too: Tab reaches each bar, Enter or Space opens its step.
      return svg('g', { 'data-testid': 'usage-bar', 'data-step': s.number, role: 'button', tabindex: '0', 'aria-label': title,
        'aria-pressed': String(s.number === selected), class: s.number === selected ? 'bar selected' : 'bar', onclick: open,
        onkeydown: (e: Event) => {
          const key = (e as KeyboardEvent).key;
          if (key !== 'Enter' && key !== ' ') return;
          e.preventDefault();
          open();
        } },
        svg('title', null, title),
        svg('rect', { x, y: 10, width: barW, height: chartH - 10, class: 'hit' }),
        segments,
        steps.length <= 40 ? svg('text', { x: x + barW / 2, y: chartH + 14, class: 'axis', 'text-anchor': 'middle' }, s.number) : null);
    });
    replaceChildren(this.chart,
      h('div', { class: 'legend' }, PARTS.map((p) => h('span', null, h('i', { class: `sw seg-${p.key}` }), p.label))),
      h('div', { class: 'chart-scroll' }, svg('svg', { class: 'chart', width, height: chartH + 20, viewBox: `0 0 ${width} ${chartH + 20}` },
        svg('text', { x: 30, y: 14, class: 'axis', 'text-anchor': 'end' }, count(max)),
        svg('line', { x1: 34, x2: width, y1: chartH, y2: chartH, class: 'baseline' }),
        bars)),
      h('p', { class: 'muted small' }, `Turn ${panel.selected.exec + 1}: ${count(exec.usage.total)} tokens over ${plural(all.length, 'step')}`,
        steps.length < all.length ? ` (showing steps ${steps[0].number}–${steps[steps.length - 1].number} around the selected one)` : '',
        '. Click a bar to open its step.'));
  }
}
