// The panel's one state: plain, readonly data changed only by `reduce`. Every
// result (reconciliations, diagnostics, what-if) belongs to the run it was
// computed for, so replacing the run ('loaded') resets them in the same step
// and no view can keep a stale one. The Session itself is not state: it is
// an opaque handle the store keeps next to it (sessions are freed, not copied).
import type { Diagnostic, ReconcileReport, RunComparison, SessionView, StatePrices, StreamedContinuationReplay } from 'stepline/devtools';

/** Where the current session comes from. */
export interface SourceInfo {
  readonly kind: 'bundled' | 'file' | 'live' | 'none';
  /** What to show: a file name, a channel. */
  readonly label: string;
  /** Connection state or load result, shown next to the label. */
  readonly detail: string;
}

/** One reconciliation of the stream against a final snapshot. */
export interface Reconciliation {
  /** Which turn it belongs to (index into view.executions). */
  readonly exec: number;
  readonly label: string;
  readonly report: ReconcileReport;
}

/** Continuation limits for the what-if form. */
export interface Criteria {
  readonly maxSteps: number;
  readonly maxTokens: number;
  readonly maxExecutionTime: number;
  readonly errorPolicy: string;
}

/** A what-if evaluation of one execution. */
export interface WhatIf {
  readonly exec: number;
  readonly criteria: Criteria;
  /** The core's replay of the streamed execution, with the run's own recorded outcome. */
  readonly replay: StreamedContinuationReplay | null;
  readonly error: string | null;
}

/** The side panel's tabs; a new tab adds its id here and one entry in main.ts. */
export type Tab = 'usage' | 'reconcile' | 'diagnostics' | 'whatif' | 'waterfall' | 'raw' | 'compare';
export const TABS: readonly Tab[] = ['usage', 'reconcile', 'diagnostics', 'whatif', 'waterfall', 'raw', 'compare'];

/** What the timeline shows: text search plus filters (all must match). */
export interface Find {
  readonly text: string;
  readonly failedOnly: boolean;
  /** A tool name ('' = any). */
  readonly tool: string;
  /** A turn index (null = any). */
  readonly turn: number | null;
}

/** The time slider moved back: the run as it stood after envelope `at` of `total`. */
export interface TimePoint {
  readonly at: number;
  readonly total: number;
  /** The core's view of the prefix (`SessionTimeline.viewAt(at)`). */
  readonly view: SessionView;
}

export interface Selection { readonly exec: number; readonly step: number | null }

export interface PanelState {
  readonly view: SessionView | null;
  readonly source: SourceInfo;
  /** The bundled run last chosen (an id of DEMOS in sources/recording). */
  readonly demo: string;
  /** The selected execution and step number (null: the execution's last step). */
  readonly selected: Selection;
  /** Follow the newest step while events arrive, until the user picks one. */
  readonly follow: boolean;
  readonly loading: { readonly done: number; readonly total: number; readonly label: string } | null;
  readonly reconciliations: readonly Reconciliation[];
  /** The last final snapshot reconciled with (diagnose reads it too). */
  readonly lastSnapshot: object | null;
  /** The price table the last final state carried (a v2 stored state's `llmConfig.pricing`), for the Usage tab's cost. */
  readonly statePrices: StatePrices | null;
  readonly diagnostics: readonly Diagnostic[] | null;
  readonly whatIf: WhatIf | null;
  /** The what-if form's limits: the recording's own, else DEFAULT_CRITERIA. */
  readonly criteria: Criteria;
  readonly error: string | null;
  readonly tab: Tab;
  readonly find: Find;
  readonly finalStateUrl: string;
  /** Set while the time slider is before the end (null: the run as it is now, following new events). */
  readonly time: TimePoint | null;
  /** This run compared with a second one (`compareRuns`): what it was compared with and the report. */
  readonly comparison: { readonly label: string; readonly report: RunComparison } | null;
}

export const DEFAULT_CRITERIA: Criteria = { maxSteps: 20, maxTokens: 32768, maxExecutionTime: 300, errorPolicy: 'stopOnAnyError' };
export const NO_FIND: Find = { text: '', failedOnly: false, tool: '', turn: null };

export const initialState: PanelState = {
  view: null,
  source: { kind: 'none', label: '', detail: '' },
  demo: 'instructor',
  selected: { exec: 0, step: null },
  follow: true,
  loading: null,
  reconciliations: [],
  lastSnapshot: null,
  statePrices: null,
  diagnostics: null,
  whatIf: null,
  criteria: DEFAULT_CRITERIA,
  error: null,
  tab: 'usage',
  find: NO_FIND,
  finalStateUrl: '',
  time: null,
  comparison: null,
};

export type Action =
  /** A new run replaces the old one: everything computed for the old one goes. */
  | { type: 'loaded'; view: SessionView; source: SourceInfo; reconciliations?: readonly Reconciliation[]; lastSnapshot?: object | null; statePrices?: StatePrices | null; criteria?: Partial<Criteria> | null; demo?: string; error?: string | null; finalStateUrl?: string }
  /** The session changed (events arrived). */
  | { type: 'snapshot'; view: SessionView }
  /**
   * The same run, read again by `stepline/devtools` (www/src/devtools.ts): its view, and
   * the final state's prices, which only that entry reads. What was chosen and computed stays.
   */
  | { type: 'moved'; view: SessionView; statePrices: StatePrices | null }
  | { type: 'source-detail'; detail: string }
  | { type: 'loading'; loading: PanelState['loading'] }
  | { type: 'error'; error: string | null }
  /** A failed load: the previous run stays, only the message and progress change. */
  | { type: 'load-failed'; error: string }
  | { type: 'select'; exec: number; step: number | null; byUser?: boolean }
  | { type: 'tab'; tab: Tab }
  | { type: 'reconciled'; reconciliation: Reconciliation; snapshot: object | null; statePrices: StatePrices | null }
  | { type: 'diagnosed'; diagnostics: readonly Diagnostic[] }
  | { type: 'compared'; comparison: PanelState['comparison'] }
  | { type: 'whatif'; whatIf: WhatIf }
  | { type: 'find'; find: Partial<Find> }
  /** The time slider: a prefix of the run, or null for the end. */
  | { type: 'time'; time: TimePoint | null };

/** The pure transition: the same state and action always give the same state. */
export function reduce(state: PanelState, action: Action): PanelState {
  switch (action.type) {
    case 'loaded': {
      const last = Math.max(0, action.view.executions.length - 1);
      return {
        ...state,
        view: action.view,
        source: action.source,
        demo: action.demo ?? state.demo,
        selected: { exec: last, step: null },
        follow: true,
        loading: null,
        reconciliations: action.reconciliations ?? [],
        lastSnapshot: action.lastSnapshot ?? null,
        statePrices: action.statePrices ?? null,
        diagnostics: null,
        whatIf: null,
        criteria: { ...DEFAULT_CRITERIA, ...(action.criteria ?? {}) },
        error: action.error ?? null,
        find: NO_FIND,
        finalStateUrl: action.finalStateUrl ?? '',
        time: null,
        comparison: null,
      };
    }
    case 'snapshot': {
      const last = action.view.executions.length - 1;
      const selected = state.follow && last >= 0 ? { exec: last, step: null } : state.selected;
      return { ...state, view: action.view, selected };
    }
    case 'moved':
      return { ...state, view: action.view, statePrices: action.statePrices ?? state.statePrices };
    case 'source-detail':
      return { ...state, source: { ...state.source, detail: action.detail } };
    case 'loading':
      return { ...state, loading: action.loading };
    case 'error':
      return { ...state, error: action.error };
    case 'load-failed':
      return { ...state, loading: null, error: action.error };
    case 'select':
      return { ...state, selected: { exec: action.exec, step: action.step }, follow: action.byUser === false ? state.follow : false };
    case 'tab':
      return { ...state, tab: action.tab };
    case 'reconciled': {
      const others = state.reconciliations.filter((r) => r.exec !== action.reconciliation.exec);
      return { ...state, reconciliations: [...others, action.reconciliation], lastSnapshot: action.snapshot, statePrices: action.statePrices ?? state.statePrices };
    }
    case 'diagnosed':
      return { ...state, diagnostics: action.diagnostics };
    case 'compared':
      return { ...state, comparison: action.comparison };
    case 'whatif':
      return { ...state, whatIf: action.whatIf };
    case 'find':
      return { ...state, find: { ...state.find, ...action.find } };
    case 'time': {
      // The selection follows the shown run: its last turn while following, and
      // never a turn the prefix does not have yet.
      const turns = (action.time?.view ?? state.view)?.executions.length ?? 0;
      const last = Math.max(0, turns - 1);
      const selected = state.follow ? { exec: last, step: null }
        : state.selected.exec > last ? { exec: last, step: null } : state.selected;
      return { ...state, time: action.time, selected };
    }
  }
}

/** A tiny store: the state, a dispatch that reduces, and listeners called after each change. */
export interface Store {
  getState(): PanelState;
  dispatch(action: Action): void;
  subscribe(listener: (state: PanelState) => void): () => void;
}

/**
 * @example
 * const store = createStore();
 * store.subscribe((s) => console.log(s.tab));
 * store.dispatch({ type: 'tab', tab: 'whatif' });
 */
export function createStore(state: PanelState = initialState): Store {
  const listeners = new Set<(state: PanelState) => void>();
  return {
    getState: () => state,
    dispatch(action) {
      const next = reduce(state, action);
      if (next === state) return;
      state = next;
      for (const listener of listeners) listener(state);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
