#!/usr/bin/env node
// Seeds fuzz/corpus/<target>/ from the reference vectors in
// tests/vectors/cognesy-v1.22/ and the committed regression seeds in
// fuzz/regressions/<target>/. Run from anywhere: `node fuzz/seed.mjs`.
// (session_ingest takes structured input: it replays the recorded runs
// through its own `Recorded` op, so only its regression scripts' sizes
// matter here, and it gets no vector seeds.)

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fuzz = dirname(fileURLToPath(import.meta.url));
const vectors = join(fuzz, '..', 'tests', 'vectors', 'cognesy-v1.22');
const load = (name) => JSON.parse(readFileSync(join(vectors, `${name}.json`), 'utf8'));

const counts = {};
function put(target, text) {
  const dir = join(fuzz, 'corpus', target);
  mkdirSync(dir, { recursive: true });
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  const name = createHash('sha1').update(bytes).digest('hex');
  writeFileSync(join(dir, name), bytes);
  counts[target] = (counts[target] ?? 0) + 1;
}

const runs = load('agent-runs');
const envelopes = load('envelopes');
const slim = load('slim-serializer');
const states = load('state-model');

// envelope_decode: every envelope, one per file; jsonl_batch: every turn and case as JSONL.
for (const run of runs) {
  for (const turn of run.expected) {
    const list = turn.envelopes.map((e) => JSON.stringify(e.envelope));
    list.forEach((e) => put('envelope_decode', e));
    put('jsonl_batch', list.join('\n') + '\n');
    put('snapshot_validate', JSON.stringify(turn.slim));
    put('snapshot_validate', JSON.stringify(turn.slimFull));
    put('state_parse', JSON.stringify(turn.finalState));
    put('slim_serialize', '{"preset":"full"}\n' + JSON.stringify(turn.finalState));
  }
  put('state_parse', JSON.stringify(run.input.initialState));
}
for (const c of envelopes) {
  const list = (c.expected ?? []).map((e) => JSON.stringify(e.envelope));
  list.forEach((e) => put('envelope_decode', e));
  if (list.length) put('jsonl_batch', list.join('\n'));
}

// The slim serializer's configs as slimSnapshot options.
const option = {
  maxMessages: 'maxMessages',
  maxSteps: 'maxSteps',
  maxContentLength: 'maxContentLength',
  includeToolResults: 'includeToolResults',
  includeSteps: 'includeSteps',
  includeContinuationTrace: 'includeContinuationTrace',
  redactToolArgs: 'redactToolArgs',
};
for (const c of slim) {
  const input = c.input ?? {};
  if (input.state) {
    const opts = {};
    for (const [k, v] of Object.entries(input.config ?? {})) if (option[k]) opts[option[k]] = v;
    put('slim_serialize', JSON.stringify(opts) + '\n' + JSON.stringify(input.state));
    put('slim_serialize', JSON.stringify({ ...opts, maxBytes: 600 }) + '\n' + JSON.stringify(input.state));
    put('state_parse', JSON.stringify(input.state));
  }
  if (input.snapshot) put('snapshot_validate', JSON.stringify(input.snapshot));
  if (c.name?.startsWith('serialize') && c.expected) put('snapshot_validate', JSON.stringify(c.expected));
}
for (const c of states) if (c.input?.data !== undefined) put('state_parse', JSON.stringify(c.input.data));

// json_differential: any JSON text; the envelopes, snapshots and states above.
for (const target of ['envelope_decode', 'snapshot_validate', 'state_parse']) {
  const dir = join(fuzz, 'corpus', target);
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir)) put('json_differential', readFileSync(join(dir, f)));
}

// The dialects' events (tests/vectors/dialects/<dialect>/, upstream captures
// included): every list of events in a vector (objects with a string `type`)
// as JSONL, every single bad-input event as one line, and the .jsonl files.
const dialectDir = join(fuzz, '..', 'tests', 'vectors', 'dialects');
function walkFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walkFiles(p));
    else out.push(p);
  }
  return out;
}
const isEvent = (x) => x && typeof x === 'object' && !Array.isArray(x) && typeof x.type === 'string';
function eventLists(v, out) {
  if (Array.isArray(v)) {
    if (v.length && v.every(isEvent)) out.push(v);
    else v.forEach((x) => eventLists(x, out));
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'event' || k === 'chunk') && isEvent(x)) out.push([x]);
      else eventLists(x, out);
    }
  }
  return out;
}
for (const [dialect, target] of [['laravel-ai', 'dialect_laravel_ai'], ['ag-ui', 'dialect_ag_ui'], ['ai-sdk', 'dialect_ai_sdk']]) {
  for (const f of walkFiles(join(dialectDir, dialect))) {
    const text = readFileSync(f, 'utf8');
    if (f.endsWith('.jsonl')) put(target, text);
    if (!f.endsWith('.json')) continue;
    for (const list of eventLists(JSON.parse(text), [])) put(target, list.map((e) => JSON.stringify(e)).join('\n') + '\n');
  }
}
for (const f of walkFiles(join(dialectDir, 'final-forms', 'sessions'))) {
  if (f.endsWith('.jsonl')) put('timeline_view_at', '[0,1,2,3,5,8,13,21,1000]\n' + readFileSync(f, 'utf8'));
}

// json_patch: the RFC 6902 vectors as a document line and a patch line, and
// every AG-UI state snapshot with the deltas after it.
for (const name of ['tests.json', 'spec_tests.json']) {
  for (const c of JSON.parse(readFileSync(join(dialectDir, 'json-patch', name), 'utf8'))) {
    if (c.doc !== undefined && c.patch !== undefined) put('json_patch', JSON.stringify(c.doc) + '\n' + JSON.stringify(c.patch) + '\n');
  }
}
for (const f of walkFiles(join(dialectDir, 'ag-ui'))) {
  if (!f.endsWith('.json')) continue;
  for (const list of eventLists(JSON.parse(readFileSync(f, 'utf8')), [])) {
    const lines = [];
    for (const e of list) {
      if (e.type === 'STATE_SNAPSHOT') lines.push(JSON.stringify(e.snapshot ?? {}));
      else if (e.type === 'STATE_DELTA') lines.push(JSON.stringify(e.delta ?? []));
    }
    if (lines.length) put('json_patch', (lines[0].startsWith('[') ? '{}\n' : '') + lines.join('\n') + '\n');
  }
}

// state_v2, recording_final_state, timeline_view_at: instructor-php v2.7's
// states (state-model and every run's initial and final states), and every
// run's turns (v1.22 and v2.7) as a recording ending in its final state's
// slim snapshot, and as a timeline with positions.
const v2 = join(fuzz, '..', 'tests', 'vectors', 'instructor-php-v2.7');
const loadV2 = (name) => JSON.parse(readFileSync(join(v2, `${name}.json`), 'utf8'));
for (const c of loadV2('state-model')) if (c.input?.state) put('state_v2', JSON.stringify(c.input.state));
for (const run of loadV2('agent-runs')) {
  put('state_v2', JSON.stringify(run.input.initialState));
  for (const turn of run.expected ?? []) {
    if (turn.finalState) {
      put('state_v2', JSON.stringify(turn.finalState));
      put('state_v2', '{"preset":"full","maxBytes":900}\n' + JSON.stringify(turn.finalState));
    }
    const list = (turn.envelopes ?? []).map((e) => JSON.stringify(e.envelope ?? e));
    if (!list.length) continue;
    put('timeline_view_at', '[0,1,2,4,7,11,100]\n' + list.join('\n') + '\n');
    put('recording_final_state', list.join('\n') + '\n' + JSON.stringify({ stepline_snapshot: { state_version: 'v2', status: turn.finalState?.execution?.status ?? 'completed' } }) + '\n');
  }
}
for (const run of runs) {
  for (const turn of run.expected) {
    const list = turn.envelopes.map((e) => JSON.stringify(e.envelope));
    const sid = turn.envelopes[0]?.envelope?.session_id;
    const header = JSON.stringify({ stepline_recording: 1, ...(sid ? { session_id: sid } : {}) });
    const snap = JSON.stringify({ stepline_snapshot: turn.slim, ...(sid ? { session_id: sid } : {}) });
    put('recording_final_state', [header, ...list, snap].join('\n') + '\n');
    put('recording_final_state', [header, ...list.slice(0, list.length >> 1), snap, ...list.slice(list.length >> 1), JSON.stringify({ stepline_snapshot: turn.slimFull, error: 'boom' })].join('\n') + '\n');
    put('timeline_view_at', '[0,3,1,9,4,1000000]\n' + list.join('\n') + '\n');
  }
}

// The committed regression seeds of the byte-input targets.
for (const target of ['envelope_decode', 'jsonl_batch', 'snapshot_validate', 'state_parse', 'slim_serialize', 'json_differential',
  'dialect_laravel_ai', 'dialect_ag_ui', 'dialect_ai_sdk', 'json_patch', 'state_v2', 'recording_final_state', 'timeline_view_at']) {
  const dir = join(fuzz, 'regressions', target);
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir)) put(target, readFileSync(join(dir, f)));
}

for (const [t, n] of Object.entries(counts)) console.log(`${t}: ${n} seeds`);
