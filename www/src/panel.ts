// The panel's state and its render loop. One Session at a time (from the
// bundled run, a file, or a live channel); views read `panel.view`, the
// session's immutable snapshot, and re-render only what changed: a step whose
// object is the same as last time is the same step (Session shares unchanged
// parts between snapshots), so its DOM is kept.
import type { ContinuationReplay, Diagnostic, ReconcileReport, Session, SessionView } from 'stepline';

/** Where the current session comes from. */
export interface SourceInfo {
  kind: 'bundled' | 'file' | 'live' | 'none';
  /** What to show: a file name, a channel. */
  label: string;
  /** Connection state or load result, shown next to the label. */
  detail: string;
}

/** One reconciliation of the stream against a final snapshot. */
export interface Reconciliation {
  /** Which turn it belongs to (index into view.executions). */
  exec: number;
  label: string;
  report: ReconcileReport;
}

/** A what-if evaluation of one execution. */
export interface WhatIf {
  exec: number;
  criteria: { maxSteps: number; maxTokens: number; maxExecutionTime: number; errorPolicy: string };
  replay: ContinuationReplay | null;
  error: string | null;
}

export type Tab = 'usage' | 'reconcile' | 'diagnostics' | 'whatif';

export interface View { update(panel: Panel): void }

export class Panel {
  session: Session | null = null;
  view: SessionView | null = null;
  source: SourceInfo = { kind: 'none', label: '', detail: '' };
  /** The bundled run last chosen (an id of DEMOS in sources/recording). */
  demo = 'instructor';
  /** The selected execution and step number (null: the execution's last step). */
  selected: { exec: number; step: number | null } = { exec: 0, step: null };
  /** Follow the newest step while events arrive, until the user picks one. */
  follow = true;
  loading: { done: number; total: number; label: string } | null = null;
  reconciliations: Reconciliation[] = [];
  /** The last final snapshot reconciled with (diagnose reads it too). */
  lastSnapshot: object | null = null;
  diagnostics: Diagnostic[] | null = null;
  whatIf: WhatIf | null = null;
  /** Default limits for the what-if form (a recording may say which ones the run used). */
  criteria: WhatIf['criteria'] = { maxSteps: 20, maxTokens: 32768, maxExecutionTime: 300, errorPolicy: 'stopOnAnyError' };
  error: string | null = null;
  tab: Tab = 'usage';
  finalStateUrl = '';
  /**
   * Silence after which a turn without a final status shows as stale (the
   * v1.22 producer broadcasts none when its driver throws). Sessions are made
   * with it; the panel tells them the time, the core never reads a clock.
   */
  staleAfterMs = 120_000;
  private clockTimer: ReturnType<typeof setInterval> | null = null;

  private views: View[] = [];
  private unsubscribe: (() => void) | null = null;
  private frame = 0;

  register(view: View): void {
    this.views.push(view);
  }

  /** Replaces the session (the old one is freed) and follows its changes. */
  setSession(session: Session, source: SourceInfo): void {
    this.unsubscribe?.();
    this.session?.free();
    this.session = session;
    this.source = source;
    this.view = session.getSnapshot();
    this.selected = { exec: Math.max(0, this.view.executions.length - 1), step: null };
    this.follow = true;
    this.reconciliations = [];
    this.lastSnapshot = null;
    this.diagnostics = null;
    this.whatIf = null;
    this.error = null;
    this.unsubscribe = session.subscribe(() => this.changed());
    this.tickClock(session);
    this.render();
  }

  /** Tells the session the time now and every few seconds, so silent turns turn stale. */
  private tickClock(session: Session): void {
    if (this.clockTimer !== null) clearInterval(this.clockTimer);
    session.setNow(Date.now());
    this.clockTimer = setInterval(() => {
      if (this.session === session) session.setNow(Date.now());
    }, 5_000);
  }

  /** Called by the session after every ingest: coalesced to one render per frame. */
  changed(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  render(): void {
    if (this.session) {
      this.view = this.session.getSnapshot();
      const last = this.view.executions.length - 1;
      if (this.follow && last >= 0) this.selected = { exec: last, step: null };
    }
    for (const view of this.views) view.update(this);
  }

  select(exec: number, step: number | null, byUser = true): void {
    this.selected = { exec, step };
    if (byUser) this.follow = false;
    this.render();
  }

  setTab(tab: Tab): void {
    this.tab = tab;
    this.render();
  }
}
