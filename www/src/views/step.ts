// The selected step: what it was, its tool runs, the continuation trace that
// decided whether the agent went on (with the core's one line saying why: `step.explanation`), and the text
// streamed in its turn. Rebuilt only when the step or the turn's text changed.
import type { ExecutionView, StepView, ToolRunView } from 'stepline/devtools';
import { h, replaceChildren } from '../dom';
import { clip, clock, count, duration, shortClass } from '../format';
import type { Panel, View } from '../panel';
import type { TimePoint } from '../state';
import { fromFinalState } from '../final-state';
import { stepState } from './timeline';

interface Evaluation { criterion?: string; decision?: string; reason?: string }

/** The dialects of instructor-php, whose streams carry a continuation trace. */
const INSTRUCTOR_DIALECTS: ReadonlySet<string> = new Set(['instructor', 'seed-000', 'seed-003', 'v1.22', 'v2']);

/** A tool's result (any JSON) shown inline: text as it is, anything else as JSON. */
function resultText(t: ToolRunView): string {
  if (t.result_summary) return t.result_summary;
  if (t.result !== null && t.result !== undefined) return clip(t.result, 200);
  return t.output ?? '';
}

/**
 * The tool's state in words: the core's status, except that a call waiting
 * for the user's approval or refused by them says so (a visible state, not a
 * tool that merely looks "running"), and that a call still open when its run
 * ended is incomplete, as its step is (a throwing v1.22 tool sends no completion).
 */
function toolState(t: ToolRunView, runEnded: boolean): { word: string; css: string } {
  if (t.approval === 'denied') return { word: 'denied', css: 'denied' };
  if (t.approval === 'requested' && t.status === 'running') return { word: 'awaiting approval', css: 'awaiting' };
  if (t.status === 'running' && runEnded) return { word: 'incomplete', css: 'incomplete' };
  return { word: t.status === 'succeeded' ? 'ok' : t.status, css: t.status };
}

function toolRow(t: ToolRunView, runEnded: boolean): HTMLElement {
  const state = toolState(t, runEnded);
  const outcome = t.status === 'failed'
    ? h('span', { class: 'error', 'data-testid': 'tool-error' }, t.error ?? 'failed')
    : t.approval === 'denied' ? h('span', { class: 'error' }, t.error ?? 'the user denied this call')
    : state.css === 'incomplete' ? h('span', { class: 'muted' }, 'no result was sent before the run ended')
    : t.status === 'running' ? h('span', { class: 'muted' }, t.approval === 'requested' ? 'waiting for approval…' : 'running…')
    : h('span', { 'data-testid': 'tool-result' }, resultText(t) || 'ok');
  const args = t.args_summary ?? (t.args === null || t.args === undefined ? '' : clip(t.args, 200));
  // Where timestamps could not place the call (a frozen clock, or its step
  // not arrived yet), the core placed it by arrival order: say so.
  const placed = t.attribution === 'arrival'
    ? 'Placed in this step by arrival order: its timestamp could not decide the step (a frozen clock, or its step has not arrived yet).'
    : null;
  return h('tr', { 'data-testid': 'tool-run', 'data-attribution': t.attribution, 'data-status': t.status, 'data-approval': t.approval ?? '', title: placed, class: `tool-${t.status}` },
    h('td', { title: t.call_id ? `${t.name} · ${t.call_id}` : t.name }, h('span', { class: `dot ${state.css}`, 'aria-hidden': 'true' }), h('code', null, t.name)),
    h('td', { class: 'args' }, h('code', null, args)),
    h('td', null, outcome),
    h('td', { class: 'num' }, duration(t.duration_ms)),
    h('td', null,
      h('span', { class: `pill tool-status-${state.css}`, 'data-testid': 'tool-status' }, state.word),
      // `denied` and `awaiting approval` are already the state word; an approved call says so beside its status.
      t.approval === 'approved' ? h('span', { class: `pill approval-${t.approval}`, 'data-testid': 'tool-approval', title: 'the user\'s decision on this call' }, t.approval) : null));
}

/** The step's reasoning, collapsed: long, and read less often than the answer. */
function reasoningBlock(s: StepView): HTMLElement | null {
  if (!s.reasoning) return null;
  return h('details', { class: 'reasoning', 'data-testid': 'step-reasoning' },
    h('summary', null, `Reasoning · ${s.reasoning.length.toLocaleString('en')} characters`),
    h('pre', { class: 'stream' }, s.reasoning));
}

/** The run's `data` entries (AG-UI state and custom events, AI SDK data parts, …), latest value each. */
function dataBlock(exec: ExecutionView | null): HTMLElement[] {
  const entries = Object.entries(exec?.data ?? {});
  if (entries.length === 0) return [];
  return [
    h('h3', null, `Run data (${entries.length})`),
    h('dl', { class: 'data', 'data-testid': 'run-data' }, entries.map(([name, value]) => [
      h('dt', { 'data-testid': 'run-data-name' }, h('code', null, name)),
      h('dd', null, h('pre', { class: 'json' }, clip(JSON.stringify(value, null, 2) ?? 'null', 4000))),
    ])),
  ];
}

function traceTable(e: ExecutionView, s: StepView): HTMLElement | null {
  const c = s.continuation;
  if (!c) {
    // A run that ended (a final status, or the final state's) decides nothing more.
    const undecided = e.ended ? `Never decided: the run ended (${e.status ?? 'no status'}) before this step completed.` : 'Not decided yet.';
    return h('p', { class: 'muted', 'data-testid': 'undecided' }, s.seen.completed ? 'No continuation trace was streamed for this step (the broadcast preset leaves it out).' : undecided);
  }
  const evaluations = Array.isArray(c.evaluations) ? (c.evaluations as Evaluation[]) : [];
  return h('div', null,
    h('p', { class: `why ${c.should_continue ? 'went-on' : 'stopped'}`, 'data-testid': 'why' }, s.explanation),
    evaluations.length === 0 ? null : h('table', { class: 'grid trace', 'data-testid': 'trace' },
      h('thead', null, h('tr', null, h('th', null, 'Criterion'), h('th', null, 'Decision'), h('th', null, 'Reason'))),
      h('tbody', null, evaluations.map((e) => h('tr', { 'data-testid': 'trace-row', class: shortClass(e.criterion) === shortClass(c.resolved_by) ? 'decider' : '' },
        h('td', null, h('code', { title: e.criterion ?? '' }, shortClass(e.criterion))),
        h('td', null, h('span', { class: `pill decision-${e.decision ?? 'unknown'}` }, e.decision ?? '—')),
        h('td', null, e.reason ?? ''))))));
}

export class StepDetail implements View {
  readonly el: HTMLElement;
  private body = h('div', { class: 'detail-body' });
  // Not a live region: it changes per chunk (views/announcer.ts says when steps start and runs end).
  private text = h('pre', { class: 'stream', 'data-testid': 'stream-text', tabindex: '0', 'aria-labelledby': 'stream-title' });
  private textTitle = h('h3', { id: 'stream-title', 'data-testid': 'stream-title' }, 'Streamed text');
  private data = h('div', { class: 'data-block' });
  private lastStep: StepView | null | undefined = undefined;
  private lastTime: TimePoint | null = null;
  private lastExec: ExecutionView | null = null;
  private lastData: unknown = undefined;

  constructor() {
    this.el = h('section', { class: 'detail', 'aria-label': 'Step detail' }, this.body, this.data, h('div', { class: 'text-block' }, this.textTitle, this.text));
  }

  update(panel: Panel): void {
    const exec = panel.view?.executions[panel.selected.exec] ?? null;
    const step = exec ? (panel.selected.step === null ? exec.steps.at(-1) : exec.steps.find((s) => s.number === panel.selected.step)) ?? null : null;
    const time = panel.state.time;
    if (step !== this.lastStep || (!step && time !== this.lastTime)) {
      this.lastStep = step;
      this.lastTime = time;
      const missing = panel.selected.step !== null && exec ? `Step ${panel.selected.step} had not started` : 'No step of this turn had arrived';
      const empty = !panel.view ? 'Choose a source: the bundled run, a recording, or a live channel.'
        : time ? `${missing} by envelope ${time.at} of ${time.total}. Move the slider forward or back to the end to see it.`
        : 'No step yet. Events will appear as they arrive.';
      replaceChildren(this.body, step && exec ? this.stepBody(panel.selected.exec, exec, step) : h('p', { class: 'empty', 'data-testid': 'no-step' }, empty));
    }
    // The run's data changes without its steps (AG-UI state deltas): its own block.
    if ((exec?.data ?? null) !== this.lastData) {
      this.lastData = exec?.data ?? null;
      replaceChildren(this.data, dataBlock(exec));
    }
    if (exec !== this.lastExec) {
      const appended = this.lastExec !== null && exec !== null && this.lastExec.execution_id === exec.execution_id && exec.text !== '' && !this.text.dataset.answer && exec.text.startsWith(this.lastExec.text);
      // Appending keeps the selection and scroll position of what is already shown.
      // Many appends leave many Text nodes; past a few hundred, one node again.
      if (appended && this.lastExec && this.text.childNodes.length < 500) this.text.append(exec!.text.slice(this.lastExec.text.length));
      else this.text.textContent = exec?.text || exec?.final_answer || '';
      // Still arriving only while the run is processing: not once it ended, stale or a final state said how it ended.
      this.text.classList.toggle('streaming', exec?.status === 'processing' && !exec.stale && !exec.ended);
      const cut = exec?.text_truncated ? ` · cut at the text limit, ${exec.text_dropped_bytes.toLocaleString('en-US')} bytes dropped` : '';
      // Raw provider frames the producer sent as chunks: counted by the core, never shown as text.
      const frames = exec?.provider_frames ? ` · ${exec.provider_frames} raw provider frames left out` : '';
      // An answer that was never streamed: the run's own answer (agent.run.completed, or the final state's).
      const unstreamed = exec !== null && !exec.text && exec.final_answer !== null;
      this.text.dataset.answer = unstreamed ? (fromFinalState(exec) ? 'final-state' : 'run') : '';
      this.textTitle.textContent = unstreamed ? `Final answer · turn ${panel.selected.exec + 1}${fromFinalState(exec) ? ' · from the final state (not streamed)' : ''}` : exec ? `Streamed text · turn ${panel.selected.exec + 1}${exec.missing_chunk_count ? ` · ${exec.missing_chunk_count} chunks missing` : ''}${cut}${frames}` : 'Streamed text';
      this.lastExec = exec;
    }
  }

  private stepBody(exec: number, e: ExecutionView, s: StepView): HTMLElement[] {
    const u = s.usage;
    const state = stepState(s, e.ended);
    return [
      h('div', { class: 'step-head' },
        h('h2', null, `Step ${s.number}`, h('span', { class: 'muted' }, ` · turn ${exec + 1}`)),
        h('span', { class: `badge type-${s.type ?? 'unknown'}` }, s.type ?? 'pending'),
        h('span', { class: `pill state-${state}` }, state)),
      h('dl', { class: 'facts' },
        h('dt', null, 'Started'), h('dd', null, clock(s.started_at)),
        h('dt', null, 'Completed'), h('dd', null, clock(s.completed_at)),
        h('dt', null, 'Duration'), h('dd', null, duration(s.duration_ms)),
        h('dt', null, 'Finish'), h('dd', null, s.finish_reason ?? '—'),
        h('dt', null, 'Tokens'), h('dd', { title: u ? `input ${u.input}, output ${u.output}, cache write ${u.cacheWrite}, cache read ${u.cacheRead}, reasoning ${u.reasoning}` : '' },
          u ? `${count(u.total)} (in ${count(u.input)} · out ${count(u.output)} · cache ${count(u.cacheWrite + u.cacheRead)} · reasoning ${count(u.reasoning)})` : '—'),
        h('dt', null, 'Context'), h('dd', null, s.message_count === null ? '—' : `${s.message_count} messages, ${s.tools_available ?? '?'} tools`)),
      s.error ? h('p', { class: 'error' }, s.error) : null,
      reasoningBlock(s),
      s.text ? h('h3', null, 'Text') : null,
      s.text ? h('pre', { class: 'stream step-text', 'data-testid': 'step-text' }, s.text) : null,
      h('h3', null, `Tool runs (${s.tools.length})`),
      s.tools.length === 0 ? h('p', { class: 'muted' }, 'No tools in this step.') : h('table', { class: 'grid tools', 'data-testid': 'tool-runs' },
        h('thead', null, h('tr', null, h('th', null, 'Tool'), h('th', null, 'Arguments'), h('th', null, 'Result or error'), h('th', { class: 'num' }, 'Duration'), h('th', null, 'Status'))),
        h('tbody', null, s.tools.map((t) => toolRow(t, e.ended)))),
      // Only instructor-php streams its continuation decision; other producers have none to show.
      ...(s.continuation || INSTRUCTOR_DIALECTS.has(e.dialect) ? [h('h3', null, 'Continuation'), traceTable(e, s)] : []),
    ].filter((x): x is HTMLElement => x !== null);
  }
}
