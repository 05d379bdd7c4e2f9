// The bundled run of each foreign producer: one run description
// (scripts/lib/dialects/run.mjs canonicalRun(): tool steps with one failing,
// reasoning, streamed non-ASCII text and a final answer) in laravel/ai's
// broadcasts, AG-UI events and the AI SDK's UI message stream, each written by
// that dialect's encoder (scripts/lib/dialects/<dialect>.mjs) as one event per
// line. The panel's picker offers them next to instructor-php's bundled run
// (scripts/demo-run.mjs), so the same run can be compared across producers.
//
// Each producer's stream is written the way it most often looks: laravel/ai
// one stream_start … stream_end per provider step (its default); AG-UI with
// STEP_STARTED / STEP_FINISHED around each step; the AI SDK with message
// metadata, a cited source per step and a `data-progress` part, so the
// panel's run data section has something to show.
//
//   node scripts/demo-run-dialects.mjs [outDir]   writes demo-<dialect>.jsonl
//                                                 (default: www/public/); --help
//   import { demoRecordings } from './demo-run-dialects.mjs'
//                                                 { 'laravel-ai': text, … }
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as agUi from './lib/dialects/ag-ui.mjs';
import * as aiSdk from './lib/dialects/ai-sdk.mjs';
import * as laravelAi from './lib/dialects/laravel-ai.mjs';
import { canonicalRun } from './lib/dialects/run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each dialect's encoding of the run, with the options its demo uses. */
export const DIALECTS = {
  'laravel-ai': (run) => laravelAi.encode(run),
  'ag-ui': (run) => agUi.encode(run, { steps: true }),
  'ai-sdk': (run) => aiSdk.encode(run, { metadata: true, sources: true, data: true }),
};

/** The recordings as JSONL text by dialect (one event per line). */
export function demoRecordings(run = canonicalRun()) {
  return Object.fromEntries(Object.entries(DIALECTS).map(([dialect, encode]) => {
    const events = encode(structuredClone(run));
    return [dialect, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`];
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({ options: { help: { type: 'boolean' } }, allowPositionals: true });
  if (values.help) {
    console.log('usage: node scripts/demo-run-dialects.mjs [outDir]   (default: www/public/)');
    process.exit(0);
  }
  const outDir = positionals[0] ?? join(root, 'www', 'public');
  mkdirSync(outDir, { recursive: true });
  for (const [dialect, text] of Object.entries(demoRecordings())) {
    const file = join(outDir, `demo-${dialect}.jsonl`);
    writeFileSync(file, text);
    console.log(`demo-run-dialects: ${file} (${text.split('\n').length - 1} events)`);
  }
}
