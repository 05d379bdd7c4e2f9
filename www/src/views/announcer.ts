// The screen reader's live region: it says when a step starts or completes
// and when a run ends, never per streamed chunk (a run streams hundreds; the
// streamed text itself is not live). Announcements are keyed on what they
// say, so a render that changes only the text announces nothing.
import { h } from '../dom';
import type { Panel, View } from '../panel';

export class Announcer implements View {
  readonly el = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true', 'data-testid': 'announcer' });
  private last = '';
  /** How many announcements were made (the throttling test reads it). */
  count = 0;

  update(panel: Panel): void {
    const view = panel.view;
    const i = view ? view.executions.length - 1 : -1;
    const e = view?.executions[i];
    const s = e?.steps.at(-1);
    if (!e || !s) return;
    const step = `Turn ${i + 1}, step ${s.number} ${s.seen.completed ? 'completed' : 'started'}`;
    const message = e.ended ? `Turn ${i + 1} ended: ${e.status ?? 'no status'} after step ${s.number}.` : `${step}.`;
    if (message === this.last) return;
    this.last = message;
    this.count += 1;
    this.el.dataset.count = String(this.count);
    this.el.textContent = message;
  }
}
