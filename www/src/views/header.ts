// The top bar: where the run comes from (bundled, file, live), what state it
// is in, the live connection form, loading progress and errors.
import { h, replaceChildren } from '../dom';
import { count, plural } from '../format';
import type { Panel, View } from '../panel';
import { DEMOS, demoById, describe, loadBundled, loadFile } from '../sources/recording';
import { defaultEventName } from 'stepline';
import { connect, disconnect, fetchFinalState, type LiveSettings } from '../sources/live';
import { endedMarks } from './ended';

export class Header implements View {
  readonly el: HTMLElement;
  private source = h('div', { class: 'source', 'data-testid': 'source' });
  private summary = h('div', { class: 'summary', 'data-testid': 'summary' });
  private progress = h('div', { class: 'progress', role: 'progressbar', hidden: true });
  private banner = h('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'error' });
  private liveForm: HTMLFormElement;
  private fileInput: HTMLInputElement;
  private demoPicker: HTMLSelectElement;

  constructor(private panel: Panel, live: LiveSettings) {
    this.fileInput = h('input', { type: 'file', accept: '.jsonl,.ndjson,.json,.txt', hidden: true, 'data-testid': 'file-input' });
    this.fileInput.addEventListener('change', () => {
      const file = this.fileInput.files?.[0];
      if (file) this.run(() => loadFile(panel, file));
      this.fileInput.value = '';
    });
    // One bundled run per producer; choosing one loads it.
    this.demoPicker = h('select', { 'data-testid': 'demo-picker', 'aria-label': 'Bundled run',
      title: 'Bundled runs: one per producer', onchange: () => this.openDemo() },
      DEMOS.map((d) => h('option', { value: d.id }, d.producer)));
    this.liveForm = this.buildLiveForm(live);
    this.el = h('header', { class: 'top' },
      h('div', { class: 'bar' },
        h('h1', null, 'stepline', h('span', { class: 'sub' }, 'devtools')),
        h('nav', { class: 'sources', 'aria-label': 'Sources' },
          h('button', { type: 'button', 'data-testid': 'demo-open', onclick: () => this.openDemo() }, 'Bundled run'),
          this.demoPicker,
          h('button', { type: 'button', onclick: () => this.fileInput.click() }, 'Open recording…'),
          h('button', { type: 'button', 'data-testid': 'export', title: 'Download the run shown as a JSONL recording (re-open it with Open recording…)', onclick: () => this.download() }, 'Download recording'),
          h('button', { type: 'button', 'data-testid': 'export-otlp', title: 'Download the run shown as OpenTelemetry GenAI spans (OTLP/HTTP JSON, for Langfuse, Phoenix or any collector)', onclick: () => this.downloadOtlp() }, 'Download OTLP'),
          h('button', { type: 'button', 'aria-expanded': 'false', 'data-testid': 'live-toggle', onclick: (e: Event) => this.toggleLive(e) }, 'Live…'),
          this.fileInput),
        this.source,
        this.summary),
      this.liveForm,
      this.progress,
      this.banner);
  }

  /** Runs a load, showing its failure in the banner instead of losing it. */
  run(load: () => Promise<void>): void {
    load().catch((error: unknown) => {
      // The previous run stays on screen: only the message and the progress change.
      this.panel.dispatch({ type: 'load-failed', error: describe(error) });
    });
  }

  /** Saves the loaded or live run as the core writes it (`Session.toRecording()`). */
  private download(): void {
    const session = this.panel.session;
    if (!session) {
      this.panel.dispatch({ type: 'error', error: 'There is no run to download yet: open a recording or connect first.' });
      return;
    }
    save(new Blob([session.toRecording()], { type: 'application/x-ndjson' }), recordingName(this.panel.source.label));
  }

  /** Saves the run as the core exports it to OpenTelemetry (`Session.exportOtlp()`). */
  private downloadOtlp(): void {
    const session = this.panel.session;
    if (!session) {
      this.panel.dispatch({ type: 'error', error: 'There is no run to export yet: open a recording or connect first.' });
      return;
    }
    const name = recordingName(this.panel.source.label).replace(/\.jsonl$/, '.otlp.json');
    save(new Blob([JSON.stringify(session.exportOtlp())], { type: 'application/json' }), name);
  }

  /** Loads the bundled run the picker names. */
  private openDemo(): void {
    const demo = demoById(this.demoPicker.value);
    this.run(() => { disconnect(); return loadBundled(this.panel, demo); });
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
    const { source, view, loading, error } = panel;
    replaceChildren(this.source,
      source.kind === 'none' ? null : h('span', { class: `kind kind-${source.kind}` }, source.kind),
      h('span', { class: 'label', title: source.label }, source.label),
      source.detail ? h('span', { class: 'detail', 'data-testid': 'source-detail', title: source.detail }, source.detail) : null);
    if (source.kind === 'bundled' && this.demoPicker.value !== panel.demo) this.demoPicker.value = panel.demo;
    if (view) {
      const steps = view.executions.reduce((n, e) => n + e.steps.length, 0);
      // Which producer's dialect the events were in, as the core recognised them (per turn).
      const dialects = [...new Set(view.executions.map((e) => e.dialect))];
      replaceChildren(this.summary,
        dialects.map((d) => h('span', { class: `pill dialect dialect-${d}`, 'data-testid': 'dialect', 'data-dialect': d, title: `events in the ${d} dialect` }, d)),
        h('span', { class: `pill status-${view.status ?? 'unknown'}`, 'data-testid': 'run-status' }, view.status ?? 'no status'),
        endedMarks(view.executions.at(-1), panel.staleAfterMs, 'run'),
        h('span', null, `${plural(view.executions.length, 'turn')} · ${plural(steps, 'step')}`),
        h('span', { title: 'total tokens' }, `${count(view.usage.total)} tok`),
        // Gaps in the stream and what was kept but not understood: listed under Diagnostics.
        view.warning_count ? h('button', { type: 'button', class: 'link warn', 'data-testid': 'warning-count', title: 'stream warnings: gaps and events kept but not understood', onclick: () => panel.setTab('diagnostics') },
          `${count(view.warning_count)} ${view.warning_count === 1 ? 'warning' : 'warnings'}`) : null,
        h('span', { class: 'muted', title: 'applied / duplicates / rejected envelopes' },
          `${count(view.counts.applied)} events`, view.counts.duplicates ? ` · ${view.counts.duplicates} dup` : '',
          view.counts.rejected ? ` · ${view.counts.rejected} rejected` : ''));
    } else {
      replaceChildren(this.summary);
    }
    this.progress.hidden = loading === null;
    if (loading) {
      const pct = loading.total > 0 ? Math.round((loading.done / loading.total) * 100) : 0;
      this.progress.setAttribute('aria-valuenow', String(pct));
      replaceChildren(this.progress, h('div', { class: 'fill', style: `width:${pct}%` }), h('span', null, `Loading ${loading.label}: ${pct}%`));
    }
    this.banner.hidden = error === null;
    if (error) replaceChildren(this.banner, error, ' ', h('button', { type: 'button', class: 'link', onclick: () => panel.dispatch({ type: 'error', error: null }) }, 'Dismiss'));
  }
}

/** A file name from the source label: `run.jsonl` for a file, a slug otherwise. */
/** Hands a file to the browser's download. */
function save(blob: Blob, name: string): void {
  const a = h('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export function recordingName(label: string): string {
  const base = label.split(/[\\/]/).pop()?.replace(/\.(jsonl|ndjson|json|txt)$/i, '') ?? '';
  const slug = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `${slug || 'stepline-run'}.jsonl`;
}
