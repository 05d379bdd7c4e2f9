// The panel: the store (www/src/state.ts) plus the one thing that is not
// data, the Session handle, and the render loop. Views read the state
// through the getters below (read-only: the only way to change anything is
// `dispatch`); a step whose object is the same as last time is the same step
// (Session shares unchanged parts between snapshots), so its DOM is kept.
import type { StatePrices } from 'stepline/devtools';
import { asDevtools, type AnySession, type DevtoolsSession } from './devtools';
import { shownView } from './final-state';
import { createStore, type Action, type PanelState, type Tab } from './state';

export type { Reconciliation, SourceInfo, Tab, WhatIf, Criteria } from './state';

export interface View { update(panel: Panel): void }

/** Actions that come from the stream or a load in progress: rendered once per frame. */
const STREAMED = new Set<Action['type']>(['snapshot', 'loading', 'source-detail']);

export class Panel {
  private store = createStore();
  private current: AnySession | null = null;
  /**
   * Silence after which a turn without a final status shows as stale (the
   * v1.22 producer broadcasts none when its driver throws). Sessions are made
   * with it; the panel tells them the time, the core never reads a clock.
   */
  readonly staleAfterMs = 120_000;
  private clockTimer: ReturnType<typeof setInterval> | null = null;
  private views: View[] = [];
  private unsubscribe: (() => void) | null = null;
  private frame = 0;
  /** The session changed since its snapshot was last read (read once per frame, not per event). */
  private dirty = false;

  constructor() {
    // Every state change renders once per frame, however many actions it took.
    this.store.subscribe(() => this.changed());
  }

  get state(): PanelState { return this.store.getState(); }
  get session(): AnySession | null { return this.current; }
  /**
   * The session as a `stepline/devtools` one, for the views that need its methods (the
   * time slider, Raw, cost, OTLP export, compare, diagnostics, what-if); null until that
   * entry has loaded and the run has moved to it (www/src/devtools.ts).
   */
  get tools(): DevtoolsSession | null { return asDevtools(this.current); }
  /**
   * The run as shown: the time slider's prefix while it is before the end, else the run
   * now with the ending of each reconciled execution from its final state.
   */
  get view() { return this.state.time?.view ?? shownView(this.state.view, this.state.reconciliations); }
  get source() { return this.state.source; }
  get demo() { return this.state.demo; }
  get selected() { return this.state.selected; }
  get follow() { return this.state.follow; }
  get loading() { return this.state.loading; }
  get reconciliations() { return this.state.reconciliations; }
  get lastSnapshot() { return this.state.lastSnapshot; }
  get statePrices() { return this.state.statePrices; }
  get diagnostics() { return this.state.diagnostics; }
  get whatIf() { return this.state.whatIf; }
  get criteria() { return this.state.criteria; }
  get error() { return this.state.error; }
  get tab() { return this.state.tab; }
  get find() { return this.state.find; }
  get finalStateUrl() { return this.state.finalStateUrl; }

  /** Called after every state change (deep links use it); returns the unsubscribe. */
  subscribe(listener: (state: PanelState) => void): () => void {
    return this.store.subscribe(listener);
  }

  /**
   * Changes the state. What a person did (select, tab, find, a message)
   * renders at once, so the page answers the key or click it came from; what
   * the stream does is coalesced to one render per frame.
   */
  dispatch(action: Action): void {
    this.store.dispatch(action);
    if (!STREAMED.has(action.type)) this.renderNow();
  }

  private renderNow(): void {
    this.flush();
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.render();
  }

  /** Reads the session's snapshot when it changed since the last read. */
  private flush(): void {
    if (!this.dirty || !this.current) return;
    this.dirty = false;
    this.store.dispatch({ type: 'snapshot', view: this.current.getSnapshot() });
  }

  register(view: View): void {
    this.views.push(view);
  }

  /**
   * Replaces the session (the old one is freed) and follows its changes. The
   * action is the 'loaded' one without its view: it resets every result of
   * the previous run.
   */
  setSession(session: AnySession, loaded: Omit<Extract<Action, { type: 'loaded' }>, 'type' | 'view'>): void {
    this.watch(session);
    this.dispatch({ type: 'loaded', view: session.getSnapshot(), ...loaded });
  }

  /**
   * The same run, read again by the devtools entry: replaces the session (the old one is
   * freed) and keeps everything shown and computed for the run (selection, tab, deep
   * link, reconciliations); the views that waited for the devtools render now, and the
   * final state's prices, which only the devtools read, are `statePrices`.
   */
  moveTo(session: DevtoolsSession, statePrices: StatePrices | null): void {
    this.watch(session);
    this.store.dispatch({ type: 'moved', view: session.getSnapshot(), statePrices });
    this.renderNow();
  }

  /** Makes `session` the current one (the old one is freed) and follows its changes. */
  private watch(session: AnySession): void {
    this.unsubscribe?.();
    if (this.current !== session) this.current?.free();
    this.current = session;
    this.dirty = false;
    this.unsubscribe = session.subscribe(() => {
      this.dirty = true;
      this.changed();
    });
    this.tickClock(session);
  }

  /** Tells the session the time now and every few seconds, so silent turns turn stale. */
  private tickClock(session: AnySession): void {
    if (this.clockTimer !== null) clearInterval(this.clockTimer);
    session.setNow(Date.now());
    this.clockTimer = setInterval(() => {
      if (this.current === session) session.setNow(Date.now());
    }, 5_000);
  }

  /** Coalesced to one render per frame. */
  changed(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.flush();
      this.frame = 0;
      this.render();
    });
  }

  render(): void {
    for (const view of this.views) view.update(this);
  }

  select(exec: number, step: number | null, byUser = true): void {
    this.dispatch({ type: 'select', exec, step, byUser });
  }

  setTab(tab: Tab): void {
    this.dispatch({ type: 'tab', tab });
  }
}
