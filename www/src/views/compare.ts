// Compare: this run beside a second one (another recording, or the same run
// recorded under other limits). The core pairs the steps and finds where they
// diverge (`compareRuns`); this view only lays the report out: steps side by
// side with their token and duration deltas, the totals, and the first
// divergence marked. The comparison belongs to the run on screen: loading
// another run clears it ('loaded' in state.ts).
import type { ComparedStep, StepPair } from 'stepline/devtools';
import { loadDevtools, type DevtoolsSession } from '../devtools';
import { h, replaceChildren } from '../dom';
import { count, duration } from '../format';
import type { Panel, View } from '../panel';
import { describe } from '../sources/recording';

const signed = (n: number | null, unit: (n: number) => string): string =>
  n === null ? '—' : `${n > 0 ? '+' : n < 0 ? '−' : '±'}${unit(Math.abs(n))}`;

function side(step: ComparedStep | null): HTMLElement {
  if (!step) return h('td', { class: 'muted' }, 'no such step');
  const tools = step.tools.length ? step.tools.join(', ') : 'no tools';
  const stop = step.should_continue === false ? ` · stopped (${step.stop_reason ?? '?'})` : '';
  return h('td', null, `${step.status ?? 'running'} · ${step.finish_reason ?? '—'} · ${tools}${stop}`);
}

function row(pair: StepPair, divergent: boolean): HTMLElement {
  const differs = pair.differs.length ? pair.differs.join(', ') : 'same';
  return h('tr', { class: divergent ? 'diverges' : pair.differs.length ? 'differs' : '', 'data-testid': 'compare-row', 'data-differs': pair.differs.join(' ') },
    h('th', { scope: 'row' }, `${pair.execution + 1}.${pair.step}`),
    side(pair.a), side(pair.b),
    h('td', { class: 'num' }, signed(pair.usage_delta, count)),
    h('td', { class: 'num' }, signed(pair.duration_delta_ms, duration)),
    h('td', null, divergent ? h('strong', null, `diverges: ${differs}`) : differs));
}

export class CompareView implements View {
  readonly el = h('div', { class: 'tab-body', 'data-testid': 'compare' });
  private readonly input = h('input', { id: 'compare-file', type: 'file', accept: '.jsonl,.ndjson,.json,.txt', 'data-testid': 'compare-file' });
  private readonly form = h('p', { class: 'compare-form' },
    h('label', { for: 'compare-file' }, 'Second run to compare with this one (a recording): '), this.input);
  private readonly body = h('div', { 'data-testid': 'compare-body' });
  private panel: Panel | null = null;
  private shown: unknown = undefined;

  constructor() {
    this.input.addEventListener('change', () => {
      const file = this.input.files?.[0];
      if (file && this.panel) void this.compareWith(this.panel, file);
    });
    this.el.append(this.form, this.body);
  }

  /** Reads `file` as a recording and compares the run on screen with it. */
  private async compareWith(panel: Panel, file: File): Promise<void> {
    let other: DevtoolsSession | null = null;
    // The run on screen as a devtools session: the panel's own once it has moved to that
    // entry, else one read from its recording for this comparison.
    let copy: DevtoolsSession | null = null;
    try {
      const { Session, compareRuns } = await loadDevtools();
      const text = await file.text();
      const shown = panel.session;
      if (!shown) return;
      const session = panel.tools ?? (copy = Session.fromRecording(shown.toRecording()));
      other = Session.fromRecording(text);
      panel.dispatch({ type: 'compared', comparison: { label: file.name, report: compareRuns(session, other) } });
    } catch (error) {
      panel.dispatch({ type: 'error', error: `${file.name} could not be compared: ${describe(error)}` });
    } finally {
      other?.free();
      copy?.free();
      this.input.value = '';
    }
  }

  update(panel: Panel): void {
    this.panel = panel;
    const comparison = panel.state.comparison;
    if (panel.tab !== 'compare' || comparison === this.shown) return;
    this.shown = comparison;
    if (!comparison) {
      replaceChildren(this.body, h('p', { class: 'muted' }, 'Choose a second recording: its steps are paired with this run\'s by turn and step number.'));
      return;
    }
    const { report, label } = comparison;
    const { totals, divergence } = report;
    const at = divergence ? `${divergence.execution + 1}.${divergence.step}` : null;
    replaceChildren(this.body,
      h('p', { 'data-testid': 'compare-summary' },
        h('span', { class: `pill ${divergence ? 'bad' : 'ok'}` }, divergence ? `diverges at step ${at}` : 'same steps'),
        ` with ${label} · tokens ${count(totals.usage_a)} → ${count(totals.usage_b)} (${signed(totals.usage_delta, count)})`,
        ` · time ${duration(totals.duration_a_ms)} → ${duration(totals.duration_b_ms)} (${signed(totals.duration_delta_ms, duration)})`),
      h('table', { class: 'compare' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'step'), h('th', { scope: 'col' }, 'this run'), h('th', { scope: 'col' }, label),
          h('th', { scope: 'col' }, 'Δ tokens'), h('th', { scope: 'col' }, 'Δ time'), h('th', { scope: 'col' }, 'differs'))),
        h('tbody', null, report.steps.map((pair) =>
          row(pair, divergence !== null && pair.execution === divergence.execution && pair.step === divergence.step)))));
  }
}
