// Recordings: the bundled runs and files opened or dropped on the page. A
// recording is JSONL: an optional `stepline_recording` header, events of any
// dialect the core reads (instructor envelopes, laravel/ai broadcasts, AG-UI
// events, AI SDK UI message chunks: recognised per event by the core), and
// `stepline_snapshot` lines holding the final state of a turn. A
// recording may also be one JSON array of events (`JSON.stringify(events)`):
// the core's ingestJsonl reads it element by element.
//
// Envelopes are fed in batches through Session.ingestJsonl with a yield to the
// browser between batches, so a 100,000-event file shows its progress and the
// page stays responsive. Each snapshot line is given to the session where it
// stands (`ingestFinalState`), so a multi-turn recording is checked turn by
// turn, and the session's own recording writes the lines back there.
//
// The first read is by whichever entry has loaded (`stepline` at first: the
// page paints the run without waiting for `stepline/devtools`); when the
// devtools entry arrives, the same text is read again by it, the same way,
// and the panel moves to that session (www/src/devtools.ts).
import { SteplineError } from 'stepline';
import type { StatePrices } from 'stepline/devtools';
import { asDevtools, devtoolsNow, loadDevtools, newSession, type AnySession } from '../devtools';
import type { Criteria, Panel, Reconciliation, SourceInfo } from '../panel';

const BATCH_LINES = 4000;

/** Gives the browser a frame to paint the progress bar. */
const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

interface ParsedSpecial { header?: Record<string, unknown>; snapshotLine?: Record<string, unknown> }

/** Header and snapshot lines are rare: only lines naming the keys are parsed here. */
export function special(line: string): ParsedSpecial | null {
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
  if ('stepline_snapshot' in record) return { snapshotLine: record };
  return null;
}

/** What stepline reads, named in the message for a file it cannot. */
export const FORMATS = 'instructor-php v1.22 or v2 envelopes (JSONL), stepline recordings, JSON arrays of events, '
  + 'laravel/ai broadcasts, AG-UI events, AI SDK UI message stream chunks';

/** "1 line", "2 lines". */
function counted(n: number, unit: 'line' | 'event'): string {
  return `${n.toLocaleString('en')} ${n === 1 ? unit : `${unit}s`}`;
}

/** One bad line or event, as the core reported it (a path only when it has one). */
function badLine(where: string, error: { message: string; code: string; path?: string | null }): string {
  return `${where}: ${error.message} (${error.code}${error.path ? ` at ${error.path}` : ''})`;
}

/** A load that cannot show anything: the previous run stays on screen and this is the message. */
export class LoadError extends Error {}

/** What a load found, handed to the panel in one 'loaded' action when it is done. */
interface Loaded {
  reconciliations: Reconciliation[];
  lastSnapshot: object | null;
  statePrices: StatePrices | null;
  criteria: Partial<Criteria> | null;
  problems: string[];
}

/**
 * Loads a recording into a new Session and, only when it read something,
 * puts it on the panel: an empty or unreadable file leaves the previous run
 * on screen and throws a LoadError saying what was expected. Bad lines do not
 * stop the load: they are counted and the first ones are shown. Read by
 * `stepline` before the devtools entry has loaded, it is read again by that
 * entry when it has, and the panel moves to that session.
 */
export async function loadRecording(panel: Panel, text: string, source: SourceInfo, demo?: string): Promise<void> {
  if (text.trim() === '') throw new LoadError(`${source.label} is empty: there is no event to show.`);
  const { session, found, errorCount, unit, errors } = await readRecording(panel, text, source, true);
  const view = session.getSnapshot();
  if (view.counts.applied === 0 && found.reconciliations.length === 0) {
    session.free();
    const what = errorCount > 0 ? `none of its ${counted(errorCount, unit)} could be read` : 'it holds no event stepline reads';
    throw new LoadError(`${source.label}: ${what}. stepline reads ${FORMATS}.${errors.length ? ` First problem: ${errors[0]}` : ''}`);
  }
  const kb = `${(text.length / 1024).toFixed(text.length < 10240 ? 1 : 0)} KB`;
  const snapshots = found.reconciliations.length;
  const summary = `${kb}${unit === 'event' ? ' JSON array' : ''} · ${snapshots} final ${snapshots === 1 ? 'snapshot' : 'snapshots'}`;
  const problems = [...found.problems];
  if (errorCount > 0) problems.unshift(`${counted(errorCount, unit)} could not be read. ${errors.join('; ')}`);
  panel.setSession(session, {
    source: { ...source, detail: errorCount > 0 ? `${summary} · ${errorCount} bad ${unit}s` : summary },
    reconciliations: found.reconciliations,
    lastSnapshot: found.lastSnapshot,
    statePrices: found.statePrices,
    criteria: found.criteria,
    demo,
    error: problems.length > 0 ? problems.join(' ') : null,
  });
  if (asDevtools(session) === null) void moveWhenDevtools(panel, session, text, source);
}

/**
 * Reads `text` again with the devtools entry once it has loaded, the same way, and moves
 * the panel to that session, unless another run took the panel's place meanwhile.
 */
async function moveWhenDevtools(panel: Panel, shown: AnySession, text: string, source: SourceInfo): Promise<void> {
  try {
    await loadDevtools();
    if (panel.session !== shown) return;
    const { session, found } = await readRecording(panel, text, source, false);
    const tools = asDevtools(session);
    if (panel.session !== shown || tools === null) {
      session.free();
      return;
    }
    // The final state's prices are the devtools' to read: found now, not before.
    panel.moveTo(tools, found.statePrices);
  } catch (error) {
    panel.dispatch({ type: 'error', error: `The devtools (stepline/devtools) could not be loaded: ${describe(error)}. The run is shown; the time slider, Raw, cost, export, compare, diagnostics and what-if need them.` });
  }
}

/** The recording read into a new session of the entry loaded last; `progress` shows the loading bar. */
async function readRecording(panel: Panel, text: string, source: SourceInfo, progress: boolean) {
  const session = newSession({ staleAfterMs: panel.staleAfterMs });
  const found: Loaded = { reconciliations: [], lastSnapshot: null, statePrices: null, criteria: null, problems: [] };
  let errorCount = 0;
  let unit: 'line' | 'event' = 'line';
  const errors: string[] = [];
  try {
    if (ARRAY.test(text)) {
      unit = 'event';
      const result = session.ingestJsonl(text);
      errorCount = result.errorCount;
      for (const { line, error } of result.errors.slice(0, 3)) errors.push(badLine(`event ${line}`, error));
    } else {
      errorCount = await loadLines(panel, session, text, source, found, errors, progress);
    }
  } catch (error) {
    session.free();
    throw error;
  }
  return { session, found, errorCount, unit, errors };
}

/** JSONL in batches, a frame between them; snapshot lines reconciled where they stand. Returns the bad line count. */
async function loadLines(panel: Panel, session: AnySession, text: string, source: SourceInfo, found: Loaded, errors: string[], progress: boolean): Promise<number> {
  const lines = text.split('\n');
  let errorCount = 0;
  let batch: string[] = [];
  let batchStart = 1;
  const flush = () => {
    if (batch.length === 0) return;
    const result = session.ingestJsonl(batch.join('\n'));
    errorCount += result.errorCount;
    for (const { line, error } of result.errors.slice(0, Math.max(0, 3 - errors.length))) {
      errors.push(badLine(`line ${batchStart + line - 1}`, error));
    }
    batch = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const special_ = line.trim() === '' ? null : special(line);
    if (special_) {
      flush();
      batchStart = i + 2;
      if (special_.header) found.criteria = criteriaOf(special_.header);
      if (special_.snapshotLine) reconcileInto(found, session, special_.snapshotLine);
    } else {
      if (batch.length === 0) batchStart = i + 1;
      batch.push(line);
      if (batch.length >= BATCH_LINES) {
        flush();
        if (progress) panel.dispatch({ type: 'loading', loading: { done: i + 1, total: lines.length, label: source.label } });
        await nextFrame();
      }
    }
  }
  flush();
  if (progress) panel.dispatch({ type: 'loading', loading: null });
  return errorCount;
}

/** A JSON array of events (first non-blank character `[`, after a byte order mark). */
const ARRAY = /^\uFEFF?\s*\[/;

/** The limits the recorded run used (its header's meta.criteria.defaults), if it says. */
function criteriaOf(header: Record<string, unknown>): Partial<Criteria> | null {
  const meta = header.meta as { criteria?: { defaults?: Partial<Criteria> } } | undefined;
  return meta?.criteria?.defaults ?? null;
}

function reconcileInto(found: Loaded, session: AnySession, line: object): void {
  const exec = Math.max(0, session.getSnapshot().executions.length - 1);
  try {
    const report = session.ingestFinalState(line);
    found.reconciliations = [...found.reconciliations.filter((r) => r.exec !== exec), { exec, label: `Turn ${exec + 1}`, report }];
    found.lastSnapshot = session.recordedSnapshots().at(-1) ?? null;
    found.statePrices = pricesOf((line as { stepline_snapshot?: unknown }).stepline_snapshot) ?? found.statePrices;
  } catch (error) {
    found.problems.push(`The snapshot of turn ${exec + 1} could not be reconciled: ${describe(error)}`);
  }
}

/**
 * Reconciles the panel's stream so far with a final state (the live run's
 * fetched state: a slim snapshot, a stored agent state or a snapshot line;
 * the core reads each), which the session keeps for its recording.
 */
export function reconcileAt(panel: Panel, session: AnySession, state: object, label?: string): void {
  const exec = Math.max(0, session.getSnapshot().executions.length - 1);
  try {
    const report = session.ingestFinalState(state);
    const snapshot = session.recordedSnapshots().at(-1) ?? null;
    const inner = (state as { stepline_snapshot?: unknown }).stepline_snapshot;
    panel.dispatch({ type: 'reconciled', reconciliation: { exec, label: label ?? `Turn ${exec + 1}`, report }, snapshot, statePrices: pricesOf(inner ?? state) });
  } catch (error) {
    panel.dispatch({ type: 'error', error: `The snapshot could not be reconciled: ${describe(error)}` });
  }
}

/**
 * The price table a final state carries: only a v2 stored state has one
 * (`llmConfig.pricing`); the core says no for any other form, and then
 * there is none to offer. Read by the devtools entry (`pricesFromState`):
 * none before it has loaded, the re-read when it has finds them.
 */
function pricesOf(state: unknown): StatePrices | null {
  const devtools = devtoolsNow();
  if (state === null || typeof state !== 'object' || devtools === null) return null;
  try {
    return devtools.pricesFromState(state);
  } catch {
    return null;
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
  await loadRecording(panel, await response.text(), { kind: 'bundled', label: demo.label, detail: '' }, demo.id);
}

/** A file the user opened or dropped. */
export async function loadFile(panel: Panel, file: File): Promise<void> {
  await loadRecording(panel, await file.text(), { kind: 'file', label: file.name, detail: '' });
}
