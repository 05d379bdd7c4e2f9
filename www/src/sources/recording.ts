// Recordings: the bundled run and files opened or dropped on the page. A
// recording is JSONL: an optional `stepline_recording` header, envelopes, and
// `stepline_snapshot` lines holding the final slim snapshot of a turn.
//
// Envelopes are fed in batches through Session.ingestJsonl with a yield to the
// browser between batches, so a 100,000-event file shows its progress and the
// page stays responsive. Each snapshot line is reconciled at its place in the
// stream, so a multi-turn recording is checked turn by turn.
import { Session, SteplineError, type SlimSnapshot } from 'stepline';
import type { Panel, SourceInfo } from '../panel';

const BATCH_LINES = 4000;

/** Gives the browser a frame to paint the progress bar. */
const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

interface ParsedSpecial { header?: Record<string, unknown>; snapshot?: SlimSnapshot }

/** Header and snapshot lines are rare: only lines naming the keys are parsed here. */
function special(line: string): ParsedSpecial | null {
  if (!line.includes('"stepline_recording"') && !line.includes('"stepline_snapshot"')) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null; // the session reports the bad line with its number
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if ('stepline_recording' in record) return { header: record };
  if ('stepline_snapshot' in record) return { snapshot: record.stepline_snapshot as SlimSnapshot };
  return null;
}

/**
 * Loads a recording into a new Session on the panel. Bad lines do not stop
 * the load: they are counted and the first ones are shown.
 */
export async function loadRecording(panel: Panel, text: string, source: SourceInfo): Promise<void> {
  const session = new Session({ staleAfterMs: panel.staleAfterMs });
  const lines = text.split('\n');
  panel.setSession(session, { ...source, detail: 'loading…' });
  panel.loading = { done: 0, total: lines.length, label: source.label };
  const errors: string[] = [];
  let errorCount = 0;
  let batch: string[] = [];
  let batchStart = 1;

  const flush = () => {
    if (batch.length === 0) return;
    const result = session.ingestJsonl(batch.join('\n'));
    errorCount += result.errorCount;
    for (const { line, error } of result.errors.slice(0, Math.max(0, 3 - errors.length))) {
      errors.push(`line ${batchStart + line - 1}: ${error.message} (${error.code} at ${error.path})`);
    }
    batch = [];
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const found = line.trim() === '' ? null : special(line);
    if (found) {
      flush();
      batchStart = i + 2;
      if (found.header) readHeader(panel, found.header);
      if (found.snapshot) reconcileAt(panel, session, found.snapshot);
    } else {
      if (batch.length === 0) batchStart = i + 1;
      batch.push(line);
      if (batch.length >= BATCH_LINES) {
        flush();
        panel.loading = { done: i + 1, total: lines.length, label: source.label };
        panel.render();
        await nextFrame();
      }
    }
  }
  flush();
  panel.loading = null;
  const kb = `${(text.length / 1024).toFixed(text.length < 10240 ? 1 : 0)} KB`;
  const snapshots = panel.reconciliations.length;
  const summary = `${kb} · ${snapshots} final ${snapshots === 1 ? 'snapshot' : 'snapshots'}`;
  panel.source = { ...source, detail: errorCount > 0 ? `${summary} · ${errorCount} bad lines` : summary };
  panel.error = errorCount > 0 ? `${errorCount.toLocaleString('en')} lines could not be read. ${errors.join('; ')}` : null;
  panel.render();
}

function readHeader(panel: Panel, header: Record<string, unknown>): void {
  const meta = header.meta as { criteria?: { defaults?: Partial<Panel['criteria']> } } | undefined;
  const defaults = meta?.criteria?.defaults;
  if (defaults) panel.criteria = { ...panel.criteria, ...defaults };
}

/** Reconciles the stream so far with a turn's final snapshot. */
export function reconcileAt(panel: Panel, session: Session, snapshot: SlimSnapshot | object, label?: string): void {
  const exec = Math.max(0, session.getSnapshot().executions.length - 1);
  try {
    const report = session.reconcile(snapshot as SlimSnapshot);
    const others = panel.reconciliations.filter((r) => r.exec !== exec);
    panel.reconciliations = [...others, { exec, label: label ?? `Turn ${exec + 1}`, report }];
    panel.lastSnapshot = snapshot;
  } catch (error) {
    panel.error = `The snapshot could not be reconciled: ${describe(error)}`;
  }
}

/** A SteplineError's code and path, or any error's message. */
export function describe(error: unknown): string {
  if (error instanceof SteplineError) return `${error.message} (${error.code}${error.path ? ` at ${error.path}` : ''})`;
  return error instanceof Error ? error.message : String(error);
}

/** The bundled run, served next to the page. */
export async function loadBundled(panel: Panel): Promise<void> {
  const url = new URL('demo-run.jsonl', document.baseURI);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch the bundled run (${response.status} ${response.statusText})`);
  await loadRecording(panel, await response.text(), { kind: 'bundled', label: 'Bundled run: checkout latency investigation', detail: '' });
}

/** A file the user opened or dropped. */
export async function loadFile(panel: Panel, file: File): Promise<void> {
  await loadRecording(panel, await file.text(), { kind: 'file', label: file.name, detail: '' });
}
