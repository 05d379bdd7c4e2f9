// Recordings: the bundled runs and files opened or dropped on the page. A
// recording is JSONL: an optional `stepline_recording` header, events of any
// dialect the core reads (instructor envelopes, laravel/ai broadcasts, AG-UI
// events, AI SDK UI message chunks: recognised per event by the core), and
// `stepline_snapshot` lines holding the final slim snapshot of a turn. A
// recording may also be one JSON array of events (`JSON.stringify(events)`):
// the core's ingestJsonl reads it element by element.
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
  panel.setSession(session, { ...source, detail: 'loading…' });
  if (ARRAY.test(text)) {
    loadArray(panel, session, text, source);
    return;
  }
  const lines = text.split('\n');
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
  finish(panel, text, source, errorCount, errors, 'lines');
}

/** A JSON array of events (first non-blank character `[`, after a byte order mark). */
const ARRAY = /^\uFEFF?\s*\[/;

/**
 * One JSON array of events: handed to the core whole (it cuts the array into
 * its elements and reports a bad one by its position), so no line batching.
 */
function loadArray(panel: Panel, session: Session, text: string, source: SourceInfo): void {
  const result = session.ingestJsonl(text);
  const errors = result.errors.slice(0, 3).map(({ line, error }) => `event ${line}: ${error.message} (${error.code}${error.path ? ` at ${error.path}` : ''})`);
  finish(panel, text, source, result.errorCount, errors, 'events');
}

/** Clears the progress and says what was loaded (and what could not be read). */
function finish(panel: Panel, text: string, source: SourceInfo, errorCount: number, errors: string[], unit: 'lines' | 'events'): void {
  panel.loading = null;
  const kb = `${(text.length / 1024).toFixed(text.length < 10240 ? 1 : 0)} KB`;
  const snapshots = panel.reconciliations.length;
  const summary = `${kb}${unit === 'events' ? ' JSON array' : ''} · ${snapshots} final ${snapshots === 1 ? 'snapshot' : 'snapshots'}`;
  panel.source = { ...source, detail: errorCount > 0 ? `${summary} · ${errorCount} bad ${unit}` : summary };
  panel.error = errorCount > 0 ? `${errorCount.toLocaleString('en')} ${unit} could not be read. ${errors.join('; ')}` : null;
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

/** A bundled run: one per producer, each served next to the page. */
export interface Demo {
  id: string;
  /** The producer, as the picker names it. */
  producer: string;
  file: string;
  label: string;
}

/**
 * The bundled runs. instructor v1.22's is the scripted two-turn run
 * (scripts/demo-run.mjs); the others are one run description
 * (scripts/lib/dialects/run.mjs canonicalRun()) in each producer's wire form
 * (scripts/demo-run-dialects.mjs).
 */
export const DEMOS: readonly Demo[] = [
  { id: 'instructor', producer: 'instructor-php v1.22', file: 'demo-run.jsonl', label: 'Bundled run: checkout latency investigation' },
  { id: 'laravel-ai', producer: 'laravel/ai', file: 'demo-laravel-ai.jsonl', label: 'Bundled run: laravel/ai broadcasts' },
  { id: 'ag-ui', producer: 'AG-UI', file: 'demo-ag-ui.jsonl', label: 'Bundled run: AG-UI events' },
  { id: 'ai-sdk', producer: 'AI SDK', file: 'demo-ai-sdk.jsonl', label: 'Bundled run: AI SDK UI message stream' },
];

/** A bundled run by id (unknown ids: the first, instructor's). */
export function demoById(id: string | null): Demo {
  return DEMOS.find((d) => d.id === id) ?? DEMOS[0];
}

/** Loads a bundled run (default: instructor's). */
export async function loadBundled(panel: Panel, demo: Demo = DEMOS[0]): Promise<void> {
  const url = new URL(demo.file, document.baseURI);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch the bundled run ${demo.file} (${response.status} ${response.statusText})`);
  panel.demo = demo.id;
  await loadRecording(panel, await response.text(), { kind: 'bundled', label: demo.label, detail: '' });
}

/** A file the user opened or dropped. */
export async function loadFile(panel: Panel, file: File): Promise<void> {
  await loadRecording(panel, await file.text(), { kind: 'file', label: file.name, detail: '' });
}
