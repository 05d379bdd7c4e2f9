// The selected step as the core keeps it (`session.envelopesOf`): its
// conversation (how many messages the inference read, then what the model
// produced: reasoning, text, tool calls and their results), the turn's final
// answer, and the envelopes that made the step, as received, with "Copy as JSON".
// With the time slider moved back, all of it as it stood after envelope `at`:
// the core bounds the step to the session's first `at` envelopes (the position
// `viewAt` takes), so no envelope or message that arrived later shows.
import type { StepEnvelopes, StepMessage } from 'stepline/devtools';
import type { DevtoolsSession } from '../devtools';
import { devtoolsLoading, h, replaceChildren } from '../dom';
import type { Panel, View } from '../panel';

const ROLE: Record<string, string> = { reasoning: 'Reasoning', assistant: 'Assistant', tool_call: 'Tool call', tool_result: 'Tool result' };

/** Puts text on the clipboard; without the async clipboard (http, old browsers) a selected textarea and copy. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // Fall through: the API is missing or not allowed here.
  }
  const area = h('textarea', { readonly: true, 'aria-hidden': 'true', style: 'position:fixed;left:-9999px' });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

export class RawView implements View {
  readonly el = h('div', { class: 'tab-body raw', 'data-testid': 'raw' });
  private last: unknown[] = [];

  update(panel: Panel): void {
    const session = panel.tools;
    const time = panel.state.time;
    const exec = panel.view?.executions[panel.selected.exec] ?? null;
    const number = exec ? panel.selected.step ?? exec.steps.at(-1)?.number ?? null : null;
    // The step object changes when its events do (and with every slider move); the final answer with the turn.
    const step = exec?.steps.find((s) => s.number === number) ?? null;
    const reconciled = panel.reconciliations.find((r) => r.exec === panel.selected.exec) ?? null;
    const key = [session, step, exec?.final_answer, reconciled, time?.at ?? null];
    if (key.every((k, i) => k === this.last[i])) return;
    this.last = key;
    const then = time ? ` by envelope ${time.at} of ${time.total}` : '';
    if (!session && panel.session) {
      replaceChildren(this.el, devtoolsLoading('the step\'s envelopes'));
      return;
    }
    if (!session || !exec || number === null) {
      replaceChildren(this.el, h('p', { class: 'muted', 'data-testid': 'raw-empty' },
        time && exec ? `No step of this turn had started${then}.` : 'No step selected.'));
      return;
    }
    const raw = session.envelopesOf(panel.selected.exec, number, { before: time?.at ?? null });
    if (!raw && time) {
      // The selected step is later than the slider: nothing of it had arrived.
      replaceChildren(this.el, h('p', { class: 'muted', 'data-testid': 'raw-empty' },
        `Step ${number} had not started${then}. Move the slider forward or back to the end to see it.`));
      return;
    }
    replaceChildren(this.el,
      h('h3', null, `Conversation · step ${number}`),
      time ? h('p', { class: 'muted small', 'data-testid': 'raw-time' }, `As it stood after envelope ${time.at} of ${time.total} (the time slider).`) : null,
      raw ? this.conversation(raw) : h('p', { class: 'muted' }, 'The core has no envelopes for this step.'),
      h('h3', null, 'Final answer'),
      time ? this.answerThen(exec.final_answer, then) : this.answer(session, panel, reconciled?.report.view.executions[panel.selected.exec]?.final_answer ?? null),
      raw ? this.envelopes(raw) : null);
  }

  /**
   * The final answer while the slider is moved back: only a streamed one that
   * had arrived (the final snapshot and the run's latest text are the end's).
   */
  private answerThen(streamed: string | null, then: string): HTMLElement {
    if (!streamed) return h('p', { class: 'muted', 'data-testid': 'raw-final-answer' }, `No final answer had arrived${then}.`);
    return h('div', null,
      h('pre', { class: 'answer', 'data-testid': 'raw-final-answer' }, streamed),
      h('p', { class: 'muted small', 'data-testid': 'raw-final-answer-source' }, `as streamed${then}`));
  }

  /**
   * The turn's final answer: the final snapshot's when one was reconciled
   * (it wins over the stream), else the streamed one, else, for the last
   * turn, the core's final output (the latest streamed text), said as such.
   */
  private answer(session: DevtoolsSession, panel: Panel, fromSnapshot: string | null): HTMLElement {
    const views = panel.view?.executions ?? [];
    const streamed = views[panel.selected.exec]?.final_answer ?? null;
    const answer = fromSnapshot ?? streamed;
    if (answer) {
      return h('div', null,
        h('pre', { class: 'answer', 'data-testid': 'raw-final-answer' }, answer),
        h('p', { class: 'muted small', 'data-testid': 'raw-final-answer-source' }, fromSnapshot ? 'from the final snapshot' : 'as streamed'));
    }
    const output = panel.selected.exec === views.length - 1 ? session.collect().final_output : '';
    if (!output) return h('p', { class: 'muted', 'data-testid': 'raw-final-answer' }, 'No final answer was sent (or it has not arrived yet).');
    return h('div', null,
      h('pre', { class: 'answer', 'data-testid': 'raw-final-answer' }, output),
      h('p', { class: 'muted small', 'data-testid': 'raw-final-answer-source' }, 'no final answer was sent: the run\'s latest streamed text'));
  }

  private conversation(raw: StepEnvelopes): HTMLElement {
    const input = raw.input_message_count;
    return h('div', { 'data-testid': 'conversation' },
      h('p', { class: 'muted', 'data-testid': 'input-messages' }, input === null
        ? 'Input: not streamed.'
        : `Input: ${input} ${input === 1 ? 'message' : 'messages'} in the context (the stream carries their count, not their text).`),
      raw.messages.length === 0
        ? h('p', { class: 'muted' }, 'No output yet.')
        : h('ol', { class: 'messages' }, raw.messages.map((m) => this.message(m))));
  }

  private message(m: StepMessage): HTMLElement {
    const who = ROLE[m.role] ?? m.role;
    const tool = m.tool ? ` ${m.tool}${m.call_id ? ` (${m.call_id})` : ''}` : '';
    return h('li', { class: `msg msg-${m.role}${m.failed ? ' msg-failed' : ''}`, 'data-role': m.role },
      h('span', { class: 'msg-role' }, who, tool, m.failed ? ' · failed' : ''),
      m.content ? h('pre', { class: 'msg-content' }, m.content) : h('p', { class: 'muted small' }, '(empty)'));
  }

  private envelopes(raw: StepEnvelopes): HTMLElement {
    const json = JSON.stringify(raw.envelopes, null, 2);
    const said = h('span', { class: 'muted', role: 'status', 'data-testid': 'copy-status' });
    const copy = h('button', {
      type: 'button', 'data-testid': 'copy-json', 'aria-label': `Copy the step's ${raw.envelopes.length} envelopes as JSON`,
      onclick: () => {
        copyText(json).then(() => { said.textContent = `Copied ${raw.envelopes.length} envelopes.`; },
          (error: unknown) => { said.textContent = `Could not copy: ${error instanceof Error ? error.message : String(error)}`; });
      },
    }, 'Copy as JSON');
    return h('div', null,
      h('h3', null, `Envelopes as received (${raw.envelopes.length})`),
      h('div', { class: 'raw-actions' }, copy, said),
      h('pre', { class: 'raw-json', 'data-testid': 'raw-json', tabindex: 0, 'aria-label': 'The step\'s envelopes as JSON' }, json));
  }
}
