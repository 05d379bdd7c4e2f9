// Deep links: the selected turn, step and tab live in the page URL
// (`&exec=1&step=3&tab=whatif`, next to `?recording=…` or `?demo=…`), kept
// current with history.replaceState and restored once the run is loaded.
import type { Panel } from './panel';
import { TABS, type PanelState, type Tab } from './state';

/** The link's part of a state: null values are left out of the URL. */
export function linkParams(state: PanelState): Record<'exec' | 'step' | 'tab', string | null> {
  return {
    exec: state.view ? String(state.selected.exec) : null,
    step: state.selected.step === null ? null : String(state.selected.step),
    tab: state.tab === 'usage' ? null : state.tab,
  };
}

/** Writes the selection and tab into the URL whenever they change (after `restore`). */
export function keepInUrl(panel: Panel): void {
  let last = '';
  panel.subscribe((state) => {
    const url = new URL(location.href);
    for (const [name, value] of Object.entries(linkParams(state))) {
      if (value === null) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
    }
    const next = url.toString();
    if (next !== last && next !== location.href) history.replaceState(history.state, '', next);
    last = next;
  });
}

/** Applies the link's selection and tab to the loaded run (ignoring what it does not have). */
export function restore(panel: Panel, params: URLSearchParams): void {
  const tab = params.get('tab');
  if (tab && (TABS as readonly string[]).includes(tab)) panel.setTab(tab as Tab);
  const exec = Number(params.get('exec'));
  const executions = panel.view?.executions ?? [];
  if (!params.has('exec') || !Number.isInteger(exec) || !executions[exec]) return;
  const step = params.has('step') ? Number(params.get('step')) : null;
  const known = step !== null && executions[exec].steps.some((s) => s.number === step);
  panel.select(exec, known ? step : null);
}
