// The time slider: the run as it stood after envelope i. The core rebuilds
// any prefix (`SessionTimeline.viewAt`); the panel only holds the position.
// While the slider is before the end, `panel.view` is that prefix, so the
// timeline, step detail and header all show it; at the end (state.time null)
// a live run's new envelopes move the end and the view follows them.
import type { SessionTimeline } from 'stepline/devtools';
import type { AnySession } from '../devtools';
import { h } from '../dom';
import type { Panel, View } from '../panel';

export class TimeSlider implements View {
  readonly el: HTMLElement;
  private range: HTMLInputElement;
  private status: HTMLElement;
  private back: HTMLButtonElement;
  private forward: HTMLButtonElement;
  private end: HTMLButtonElement;
  private session: AnySession | null = null;
  private timeline: SessionTimeline | null = null;

  constructor(private panel: Panel) {
    this.range = h('input', {
      type: 'range', min: 0, max: 0, step: 1, value: 0, 'data-testid': 'time-range',
      'aria-label': 'Envelopes replayed (time)', oninput: () => this.go(Number(this.range.value)),
    });
    this.back = h('button', { type: 'button', 'data-testid': 'time-back', 'aria-label': 'One envelope back', onclick: () => this.go(this.position() - 1) }, '◀');
    this.forward = h('button', { type: 'button', 'data-testid': 'time-forward', 'aria-label': 'One envelope forward', onclick: () => this.go(this.position() + 1) }, '▶');
    this.end = h('button', { type: 'button', class: 'link', 'data-testid': 'time-end', onclick: () => this.go(Number.POSITIVE_INFINITY) }, 'back to the end');
    this.status = h('span', { class: 'time-status', 'data-testid': 'time-status', role: 'status' });
    this.el = h('div', { class: 'time', 'data-testid': 'time' },
      h('span', { class: 'time-label', 'aria-hidden': 'true' }, 'Time'), this.back, this.range, this.forward, this.status, this.end);
  }

  /** The envelope count shown: the slider's position, or the end. */
  private position(): number {
    return this.panel.state.time?.at ?? this.timeline?.length ?? 0;
  }

  /** Moves to envelope i (clamped); the end clears the prefix so the run follows new events. */
  private go(i: number): void {
    const timeline = this.timeline;
    if (!timeline) return;
    const total = timeline.length;
    const at = Math.max(0, Math.min(total, Math.round(i)));
    if (at >= total) this.panel.dispatch({ type: 'time', time: null });
    else this.panel.dispatch({ type: 'time', time: { at, total, view: timeline.viewAt(at) } });
  }

  update(panel: Panel): void {
    const session = panel.session;
    if (session !== this.session) {
      // A new run: the old timeline belongs to the freed session.
      this.timeline?.free();
      this.timeline = panel.tools?.timeline() ?? null;
      this.session = session;
    }
    // Forward moves are incremental: reading the new envelopes of a live run is cheap.
    const tools = panel.tools;
    if (this.timeline && tools) this.timeline.update(tools);
    const total = this.timeline?.length ?? 0;
    const time = panel.state.time;
    const at = time ? Math.min(time.at, total) : total;
    this.range.max = String(total);
    this.range.value = String(at);
    this.range.disabled = total === 0;
    this.range.setAttribute('aria-valuetext', `envelope ${at} of ${total}`);
    this.back.disabled = at <= 0;
    this.forward.disabled = at >= total;
    this.end.hidden = !time;
    this.el.classList.toggle('replaying', Boolean(time));
    const waiting = session !== null && this.timeline === null;
    this.el.dataset.devtools = waiting ? 'loading' : 'ready';
    this.status.textContent = waiting ? 'loading the devtools (stepline/devtools) for the time slider…' : time
      ? `replaying envelope ${at} of ${total}`
      : `${total} ${total === 1 ? 'envelope' : 'envelopes'}${panel.source.kind === 'live' ? ' · live, following the end' : ' · the end'}`;
  }
}
