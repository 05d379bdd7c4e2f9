// Why a turn ended, and turns that never end: the producer's end reason, the
// `agent.status` error message (or the seed-003 run error) and the core's
// `stale` mark, shown the
// same way in the header and on each turn of the timeline. Nothing here is
// derived: both come from the session's view.
import { h } from '../dom';
import { clip, duration } from '../format';
import type { ExecutionView } from 'stepline/devtools';
import { fromFinalState } from '../final-state';

/** The reason a turn failed, as the producer said it; null when it said none. */
export function reason(e: ExecutionView | undefined): string | null {
  return e?.error_message ?? e?.error ?? null;
}

/**
 * Marks for one turn: the producer's own end reason (laravel/ai's `stream_end`
 * reason, AI SDK's finish reason, AG-UI's interrupt …), `stale` and the error
 * message (each only when there is one).
 */
export function endedMarks(e: ExecutionView | undefined, staleAfterMs: number, where: string): HTMLElement[] {
  const marks: HTMLElement[] = [];
  if (!e) return marks;
  if (fromFinalState(e)) {
    marks.push(h('span', { class: 'pill from-final', 'data-testid': `${where}-from-final`, title: 'status, error and answer from the final state (the snapshot wins over the stream)' }, where === 'run' ? 'from the final state' : 'final state'));
  }
  if (e.end_reason) {
    marks.push(h('span', { class: 'pill end-reason', 'data-testid': `${where}-end-reason`, title: 'why the run ended, as the producer said it' }, `ended: ${clip(e.end_reason, 60)}`));
  }
  if (e.stale) {
    marks.push(h('span', {
      class: 'pill stale', 'data-testid': `${where}-stale`,
      title: `No event for over ${duration(staleAfterMs)} and no final status: the producer may have stopped without saying so (status left as broadcast).`,
    }, 'stale'));
  }
  const why = reason(e);
  if (why) {
    marks.push(h('span', { class: 'ended-reason', 'data-testid': `${where}-error`, title: why }, clip(why, 120)));
  }
  return marks;
}
