// Runs that ended look ended: once a final snapshot is reconciled, the
// core's reconciled view (the snapshot wins: status, error, final answer, and
// the tools of every step the snapshot lists) is what the panel shows for
// that execution. Nothing is derived here: the fields are copied from
// `report.view`; the streamed steps are kept (the stream may have moved on
// since the snapshot), with what the final state decides of the steps inside
// the snapshot's window taken from it: their tools, errors and type (seed
// 001: a failed inference is `error`) and duration (seed 000).
import type { ExecutionView, SessionView } from 'stepline/devtools';
import type { Reconciliation } from './state';

/** An execution as the panel shows it: `fromFinalState` when a final state decided how it ended. */
export type ShownExecution = ExecutionView & { readonly fromFinalState?: true };

/** The execution-level fields the final state decides. */
const FINAL_FIELDS = ['status', 'ended', 'state_status', 'final_answer', 'error', 'stale', 'user_message'] as const;

/** The step fields the final state decides (the core's reconciled step). */
const FINAL_STEP_FIELDS = ['tools', 'type', 'errors', 'has_tool_calls', 'finish_reason', 'duration_ms'] as const;

let lastIn: { view: SessionView | null; recs: readonly Reconciliation[] } | null = null;
let lastOut: SessionView | null = null;

/**
 * The session view with every reconciled execution's ending taken from its
 * reconcile report (same object while neither changes, so views keep their DOM).
 */
export function shownView(view: SessionView | null, recs: readonly Reconciliation[]): SessionView | null {
  if (!view || recs.length === 0) return view;
  if (lastIn && lastIn.view === view && lastIn.recs === recs) return lastOut;
  let status = view.status;
  const executions = view.executions.map((e, i): ShownExecution => {
    const rec = recs.find((r) => r.exec === i);
    const won = rec?.report.view.executions.at(-1);
    if (!rec || !won || won.execution_id !== e.execution_id) return e;
    const patch: Record<string, unknown> = {};
    for (const k of FINAL_FIELDS) patch[k] = won[k];
    const finalSteps = new Map(won.steps.filter((s) => s.snapshot_window === 'inside').map((s) => [s.number, s]));
    if (finalSteps.size > 0) {
      patch.steps = e.steps.map((s) => {
        const f = finalSteps.get(s.number);
        if (!f) return s;
        const fields: Record<string, unknown> = {};
        for (const k of FINAL_STEP_FIELDS) fields[k] = f[k];
        return { ...s, ...fields };
      });
    }
    if (i === view.executions.length - 1) status = rec.report.view.status ?? status;
    return { ...e, ...patch, fromFinalState: true } as ShownExecution;
  });
  lastIn = { view, recs };
  lastOut = { ...view, status, executions };
  return lastOut;
}

/** Whether a final state decided how `e` ended. */
export function fromFinalState(e: ExecutionView | null | undefined): boolean {
  return (e as ShownExecution | null | undefined)?.fromFinalState === true;
}
