// The top bar: where the run comes from, what state it is in, the downloads,
// loading progress and errors. Where runs come from is the host's part
// (views/sources.ts on the standalone page, the run list in the overlay).
import { h, replaceChildren, type Child } from '../dom';
import { count, plural } from '../format';
import type { Panel, View } from '../panel';
import { describe } from '../sources/recording';
import { endedMarks } from './ended';

export class Header implements View {
  readonly el: HTMLElement;
  private source = h('div', { class: 'source', 'data-testid': 'source' });
  private summary = h('div', { class: 'summary', 'data-testid': 'summary' });
  private progress = h('div', { class: 'progress', role: 'progressbar', hidden: true });
  private banner = h('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'error' });

  /**
   * `host` is what the page hosting the panel adds: the standalone page its
   * source controls (bundled runs, files, the live form), the overlay its run list.
   */
  constructor(private panel: Panel, host: { nav?: Child[]; below?: Child[] } = {}) {
    this.el = h('header', { class: 'top' },
      h('div', { class: 'bar' },
        h('h1', null, 'stepline', h('span', { class: 'sub' }, 'devtools')),
        h('nav', { class: 'sources', 'aria-label': 'Sources' },
          host.nav,
          h('button', { type: 'button', 'data-testid': 'export', title: 'Download the run shown as a JSONL recording (re-open it with Open recording…)', onclick: () => this.download() }, 'Download recording'),
          h('button', { type: 'button', 'data-testid': 'export-otlp', title: 'Download the run shown as OpenTelemetry GenAI spans (OTLP/HTTP JSON, for Langfuse, Phoenix or any collector)', onclick: () => this.downloadOtlp() }, 'Download OTLP')),
        this.source,
        this.summary),
      host.below,
      this.progress,
      this.banner);
  }

  /** Runs a load, showing its failure in the banner instead of losing it. */
  run(load: () => Promise<void>): void {
    runLoad(this.panel, load);
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
    const session = this.panel.tools;
    if (!session) {
      this.panel.dispatch({ type: 'error', error: this.panel.session
        ? 'The devtools (stepline/devtools) are still loading: export again in a moment.'
        : 'There is no run to export yet: open a recording or connect first.' });
      return;
    }
    const name = recordingName(this.panel.source.label).replace(/\.jsonl$/, '.otlp.json');
    save(new Blob([JSON.stringify(session.exportOtlp())], { type: 'application/json' }), name);
  }

  update(panel: Panel): void {
    const { source, view, loading, error } = panel;
    replaceChildren(this.source,
      source.kind === 'none' ? null : h('span', { class: `kind kind-${source.kind}` }, source.kind),
      h('span', { class: 'label', title: source.label }, source.label),
      source.detail ? h('span', { class: 'detail', 'data-testid': 'source-detail', title: source.detail }, source.detail) : null);
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

/** Runs a load, showing its failure in the banner instead of losing it. */
export function runLoad(panel: Panel, load: () => Promise<void>): void {
  load().catch((error: unknown) => {
    // The previous run stays on screen: only the message and the progress change.
    panel.dispatch({ type: 'load-failed', error: describe(error) });
  });
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
