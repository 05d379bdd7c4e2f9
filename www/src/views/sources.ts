// The standalone page's sources: the bundled runs, files opened from disk and
// the live connection form. The overlay has none of these (its runs are the
// page's Sessions), so they are the standalone host's part of the top bar.
import { defaultEventName } from 'stepline';
import { h } from '../dom';
import type { Panel, View } from '../panel';
import { connect, disconnect, fetchFinalState, type LiveSettings } from '../sources/live';
import { DEMOS, demoById, loadBundled, loadFile } from '../sources/recording';
import { runLoad } from './header';

export class SourceControls implements View {
  /** Goes in the top bar's nav. */
  readonly nav: HTMLElement[];
  /** Goes under the top bar. */
  readonly liveForm: HTMLFormElement;
  private fileInput: HTMLInputElement;
  private demoPicker: HTMLSelectElement;

  constructor(private panel: Panel, live: LiveSettings) {
    this.fileInput = h('input', { type: 'file', accept: '.jsonl,.ndjson,.json,.txt', hidden: true, 'data-testid': 'file-input' });
    this.fileInput.addEventListener('change', () => {
      const file = this.fileInput.files?.[0];
      if (file) runLoad(panel, () => loadFile(panel, file));
      this.fileInput.value = '';
    });
    // One bundled run per producer; choosing one loads it.
    this.demoPicker = h('select', { 'data-testid': 'demo-picker', 'aria-label': 'Bundled run',
      title: 'Bundled runs: one per producer', onchange: () => this.openDemo() },
      DEMOS.map((d) => h('option', { value: d.id }, d.producer)));
    this.liveForm = this.buildLiveForm(live);
    this.nav = [
      h('button', { type: 'button', 'data-testid': 'demo-open', onclick: () => this.openDemo() }, 'Bundled run'),
      this.demoPicker,
      h('button', { type: 'button', onclick: () => this.fileInput.click() }, 'Open recording…'),
      h('button', { type: 'button', 'aria-expanded': 'false', 'data-testid': 'live-toggle', onclick: (e: Event) => this.toggleLive(e) }, 'Live…'),
      this.fileInput,
    ];
  }

  /** Loads the bundled run the picker names. */
  private openDemo(): void {
    const demo = demoById(this.demoPicker.value);
    runLoad(this.panel, () => { disconnect(); return loadBundled(this.panel, demo); });
  }

  private toggleLive(e: Event): void {
    const open = this.liveForm.hidden;
    this.liveForm.hidden = !open;
    (e.currentTarget as HTMLElement).setAttribute('aria-expanded', String(open));
    if (open) (this.liveForm.querySelector('input') as HTMLInputElement | null)?.focus();
  }

  private buildLiveForm(s: LiveSettings): HTMLFormElement {
    const field = (label: string, name: string, value: string, attrs: Record<string, string> = {}) =>
      h('label', null, label, h('input', { name, value, autocomplete: 'off', spellcheck: 'false', ...attrs }));
    const check = (label: string, name: string, checked: boolean) =>
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name, checked }), label);
    const form = h('form', { class: 'live', hidden: true, 'data-testid': 'live-form', 'aria-label': 'Live connection' },
      field('App key', 'key', s.key, { required: 'true' }),
      field('Host', 'host', s.host),
      field('Port', 'port', String(s.port), { inputmode: 'numeric' }),
      check('TLS', 'tls', s.tls),
      field('Session id', 'session', s.session, { placeholder: 'channel agent.{session}' }),
      field('Channel', 'channel', s.channel, { placeholder: 'optional: the channel laravel/ai broadcasts on', title: 'laravel/ai apps broadcast on a channel they choose; empty: agent.{session}' }),
      check('Private channel', 'private', s.private),
      field('Event name', 'event', s.eventName, { placeholder: defaultEventName(), title: 'instructor.agents.broadcasting.event_name; agent.* names and laravel/ai stream events (named after their type) are always read' }),
      field('Auth endpoint', 'auth', s.authEndpoint),
      field('Final state URL', 'final', s.finalStateUrl, { placeholder: 'optional: /agents/{id}/state' }),
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Connect'),
        h('button', { type: 'button', 'data-testid': 'fetch-final', onclick: () => this.fetchFinal() }, 'Fetch final state')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      connect(this.panel, this.readForm());
    });
    return form;
  }

  private readForm(): LiveSettings {
    const data = new FormData(this.liveForm);
    const text = (k: string) => String(data.get(k) ?? '').trim();
    return {
      key: text('key'), host: text('host') || location.hostname, port: Number(text('port')) || 8080, tls: data.has('tls'),
      session: text('session'), channel: text('channel'), private: data.has('private'), authEndpoint: text('auth') || '/broadcasting/auth', finalStateUrl: text('final'),
      eventName: text('event'),
    };
  }

  private fetchFinal(): void {
    const url = this.readForm().finalStateUrl || this.panel.finalStateUrl;
    if (!url) {
      this.panel.dispatch({ type: 'error', error: 'Enter the final state URL first.' });
      return;
    }
    void fetchFinalState(this.panel, url);
  }

  update(panel: Panel): void {
    if (panel.source.kind === 'bundled' && this.demoPicker.value !== panel.demo) this.demoPicker.value = panel.demo;
  }
}
