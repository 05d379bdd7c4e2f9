// The Usage tab's cost: a price table the person types (model and per-million
// prices, or the whole table as JSON), kept in localStorage, and what the core
// prices with it (`session.cost`): the run's and the selected turn's steps'.
// The panel multiplies nothing itself; where the core says no price applies,
// its reason is shown ("no price for model X"). A v2 stored state carries its
// model's pricing (`llmConfig.pricing`, read by the core's `pricesFromState`):
// when the run's final state did, the tab offers it.
import type { RunCost, StatePrices } from 'stepline/devtools';
import { devtoolsLoading, h, replaceChildren } from '../dom';
import type { Panel } from '../panel';

const STORAGE_KEY = 'stepline.prices';

interface Saved { model: string; table: string }

function load(): Saved {
  try {
    const v = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Saved> | null;
    return { model: typeof v?.model === 'string' ? v.model : '', table: typeof v?.table === 'string' ? v.table : '' };
  } catch {
    return { model: '', table: '' };
  }
}

/** USD to the 6 decimals the core (as v2.7) rounds to: a few tokens cost millionths. */
function usd(n: number): string {
  return `$${n.toFixed(6)}`;
}

export class CostView {
  readonly el = h('section', { class: 'cost', 'aria-labelledby': 'cost-heading', 'data-testid': 'cost' });
  private saved = load();
  private readonly model = h('input', { id: 'cost-model', type: 'text', 'data-testid': 'cost-model', autocomplete: 'off', placeholder: 'gpt-4o' });
  private readonly table = h('textarea', { id: 'cost-table', rows: 4, 'data-testid': 'cost-table', spellcheck: 'false',
    placeholder: '{ "gpt-4o": { "input": 2.5, "output": 10, "cacheRead": 1.25 } }' });
  private readonly result = h('div', { 'data-testid': 'cost-result', 'aria-live': 'polite' });
  private readonly offer = h('div', { 'data-testid': 'cost-offer' });
  private offered: StatePrices | null = null;
  private panel: Panel | null = null;
  private lastKey: unknown[] = [];

  constructor() {
    this.model.value = this.saved.model;
    this.table.value = this.saved.table;
    const apply = (e: Event) => {
      e.preventDefault();
      this.save();
    };
    replaceChildren(this.el,
      h('h3', { id: 'cost-heading' }, 'Cost'),
      this.offer,
      h('form', { class: 'cost-form', onsubmit: apply },
        h('label', { for: 'cost-model' }, 'Model'), this.model,
        h('label', { for: 'cost-table' }, 'Price table (JSON, USD per 1,000,000 tokens)'), this.table,
        h('button', { type: 'submit', 'data-testid': 'cost-apply' }, 'Apply prices')),
      this.result);
  }

  /** Keeps the form's model and table (localStorage) and prices the run with them. */
  private save(): void {
    this.saved = { model: this.model.value.trim(), table: this.table.value };
    localStorage.setItem(STORAGE_KEY, JSON.stringify(this.saved));
    this.lastKey = [];
    if (this.panel) this.update(this.panel);
  }

  /** What the run's final state says of prices: its table to use, or why it has none. */
  private showOffer(prices: StatePrices | null): void {
    if (prices === this.offered) return;
    this.offered = prices;
    if (!prices) {
      replaceChildren(this.offer);
      return;
    }
    const models = Object.keys(prices.prices);
    if (models.length === 0) {
      replaceChildren(this.offer, h('p', { class: 'muted small', 'data-testid': 'cost-offer-none' }, `The final state carries no prices: ${prices.reason ?? 'none configured'}.`));
      return;
    }
    const use = () => {
      this.model.value = prices.model ?? models[0];
      this.table.value = JSON.stringify(prices.prices, null, 1);
      this.save();
    };
    replaceChildren(this.offer, h('p', { class: 'small' },
      h('button', { type: 'button', 'data-testid': 'cost-use-state', onclick: use }, `Use the final state's prices (${prices.model ?? models[0]})`)));
  }

  update(panel: Panel): void {
    this.panel = panel;
    this.showOffer(panel.statePrices);
    const exec = panel.view?.executions[panel.selected.exec] ?? null;
    const key = [panel.session, exec?.steps, panel.selected.exec, this.saved];
    if (key.every((k, i) => k === this.lastKey[i])) return;
    this.lastKey = key;
    const session = panel.tools;
    if (!this.saved.table.trim()) {
      replaceChildren(this.result, h('p', { class: 'muted small' }, 'Set a price table to see what each step cost.'));
      return;
    }
    if (!session) {
      replaceChildren(this.result, panel.session ? devtoolsLoading('the cost') : h('p', { class: 'muted small' }, 'No run loaded.'));
      return;
    }
    let cost: RunCost;
    try {
      const prices = JSON.parse(this.saved.table) as Record<string, object>;
      cost = session.cost(prices, this.saved.model ? { model: this.saved.model } : {});
    } catch (e) {
      const err = e as { message?: string; path?: string | null };
      replaceChildren(this.result, h('p', { class: 'error', role: 'alert', 'data-testid': 'cost-error' },
        'The price table could not be read: ', err.message ?? String(e), err.path ? ` (at ${err.path})` : ''));
      return;
    }
    const turn = cost.executions[panel.selected.exec];
    const line = (c: { cost: number | null; reason: string | null }) => c.cost === null ? (c.reason ?? 'no price') : usd(c.cost);
    replaceChildren(this.result,
      h('p', { 'data-testid': 'cost-run' }, h('strong', null, 'Run: '), line(cost),
        cost.model && cost.cost !== null ? ` (${cost.model})` : ''),
      turn ? h('table', { class: 'cost-steps', 'data-testid': 'cost-steps' },
        h('caption', { class: 'small muted' }, `Turn ${panel.selected.exec + 1}: ${line(turn)}`),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Step'), h('th', { scope: 'col' }, 'Cost'))),
        h('tbody', null, turn.steps.map((s) => h('tr', { 'data-step': s.step },
          h('td', { class: 'num' }, s.step), h('td', { class: s.cost === null ? 'muted' : 'num' }, line(s)))))) : null);
  }
}
