// What if the run had other continuation limits? The core re-evaluates the
// selected turn step by step from what was streamed
// (session.replayContinuation, the producer's default criteria) and says how
// the run really ended (`recordedRun`), so the panel builds no state of its own.
import type { ErrorPolicySpec } from 'stepline/devtools';
import { h, replaceChildren } from '../dom';
import { plural } from '../format';
import type { Panel, View, WhatIf } from '../panel';
import { describe } from '../sources/recording';

/** What the tab says for an instructor-php v2.x turn (the core's guard replay needs the stored state). */
const V2_NOTE = 'This turn comes from instructor-php v2.x, which has no continuation criteria: its limits are '
  + 'opt-in guards checked before each step. Re-evaluate its stored AgentState with replayGuards(state, guards).';

const POLICIES = ['stopOnAnyError', 'ignoreToolErrors', 'retryToolErrors(3)', 'retryAll(3)'];

export class WhatIfView implements View {
  readonly el = h('div', { class: 'tab-body', 'data-testid': 'whatif' });
  private form: HTMLFormElement;
  private result = h('div', { 'data-testid': 'whatif-result' });
  private lastWhatIf: WhatIf | null | undefined = undefined;
  private lastCriteria: unknown = null;

  constructor(private panel: Panel) {
    this.form = h('form', { class: 'whatif-form', 'aria-label': 'Continuation limits' });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.evaluate();
    });
    replaceChildren(this.el, this.form, this.result);
  }

  private fillForm(c: WhatIf['criteria']): void {
    const num = (label: string, name: string, value: number, hint: string) =>
      h('label', null, label, h('input', { name, type: 'number', min: '1', step: '1', value, 'aria-describedby': `${name}-hint` }), h('span', { id: `${name}-hint`, class: 'muted small' }, hint));
    const policies = POLICIES.includes(c.errorPolicy) ? POLICIES : [c.errorPolicy, ...POLICIES];
    replaceChildren(this.form,
      num('Max steps', 'maxSteps', c.maxSteps, 'StepsLimit'),
      num('Max tokens', 'maxTokens', c.maxTokens, 'TokenUsageLimit'),
      num('Max time (s)', 'maxExecutionTime', c.maxExecutionTime, 'ExecutionTimeLimit'),
      h('label', null, 'Error policy', h('select', { name: 'errorPolicy' }, policies.map((p) => h('option', { value: p, selected: p === c.errorPolicy }, p)))),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'whatif-run' }, 'Re-evaluate turn'));
  }

  private evaluate(): void {
    const p = this.panel;
    const exec = p.view?.executions[p.selected.exec];
    if (!exec) return;
    if (exec.dialect === 'v2') {
      // v2.x has no continuation criteria to re-run: reading its turn under v1.22's would be a wrong answer.
      p.dispatch({ type: 'whatif', whatIf: { exec: p.selected.exec, criteria: p.criteria, replay: null, error: V2_NOTE } });
      return;
    }
    const data = new FormData(this.form);
    const n = (k: string, fallback: number) => {
      const v = Number(data.get(k));
      return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
    };
    const criteria = {
      maxSteps: n('maxSteps', p.criteria.maxSteps), maxTokens: n('maxTokens', p.criteria.maxTokens),
      maxExecutionTime: n('maxExecutionTime', p.criteria.maxExecutionTime), errorPolicy: String(data.get('errorPolicy') ?? p.criteria.errorPolicy),
    };
    try {
      // The policy comes from the select's options (all valid presets); a bad one is a SteplineError shown below.
      if (!p.tools) throw new Error('the devtools (stepline/devtools) are still loading: evaluate again in a moment');
      const replay = p.tools.replayContinuation(p.selected.exec, { defaults: { ...criteria, errorPolicy: criteria.errorPolicy as ErrorPolicySpec } });
      p.dispatch({ type: 'whatif', whatIf: { exec: p.selected.exec, criteria, replay, error: null } });
    } catch (error) {
      p.dispatch({ type: 'whatif', whatIf: { exec: p.selected.exec, criteria, replay: null, error: describe(error) } });
    }
  }

  update(panel: Panel): void {
    if (panel.criteria !== this.lastCriteria) {
      this.lastCriteria = panel.criteria;
      this.fillForm(panel.criteria);
    }
    if (panel.whatIf === this.lastWhatIf) return;
    this.lastWhatIf = panel.whatIf;
    const w = panel.whatIf;
    if (!w) {
      replaceChildren(this.result, h('p', { class: 'muted' }, 'Change a limit and re-evaluate: each step of the selected turn is judged again by the producer\'s default criteria.'));
      return;
    }
    if (!w.replay) {
      const note = w.error === V2_NOTE;
      replaceChildren(this.result, h('p', { class: note ? 'muted' : 'error', 'data-testid': note ? 'whatif-v2' : 'whatif-error' }, w.error ?? 'failed'));
      return;
    }
    const r = w.replay;
    const headline = r.stopsAtStep === null
      ? `Under these limits turn ${w.exec + 1} would not have stopped within its ${r.recordedSteps} recorded steps.`
      : r.stopsAtStep === r.recordedSteps
        ? `Turn ${w.exec + 1} would have stopped after step ${r.stopsAtStep}, as it did.`
        : r.stopsAtStep < r.recordedSteps
          ? `Turn ${w.exec + 1} would have stopped after step ${r.stopsAtStep}, ${plural(r.recordedSteps - r.stopsAtStep, 'step')} earlier.`
          : `Turn ${w.exec + 1} would have stopped after step ${r.stopsAtStep}.`;
    replaceChildren(this.result,
      // How the run ended as recorded, from the core: a thrown run "never finished", not "stopped (completed)".
      h('p', { class: 'muted', 'data-testid': 'whatif-recorded' }, `As recorded: ${r.recordedRun.summary}`),
      h('p', { class: 'why', 'data-testid': 'whatif-headline' }, headline),
      h('table', { class: 'grid' },
        h('thead', null, h('tr', null, h('th', null, 'Step'), h('th', null, 'Would'), h('th', null, 'Why'))),
        h('tbody', null, r.steps.map((s) => h('tr', { class: s.stepNumber === r.stopsAtStep ? 'decider' : '', 'data-testid': 'whatif-row' },
          h('td', null, h('button', { type: 'button', class: 'link', onclick: () => panel.select(w.exec, s.stepNumber) }, `#${s.stepNumber}`)),
          h('td', null, h('span', { class: `pill ${s.wouldStop ? 'bad' : 'ok'}` }, s.wouldStop ? 'stop' : 'go on')),
          h('td', null, s.outcome.explanation))))));
  }
}
