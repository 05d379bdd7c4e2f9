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

// The committed regression seeds of the byte-input targets.
for (const target of ['envelope_decode', 'jsonl_batch', 'snapshot_validate', 'state_parse', 'slim_serialize', 'json_differential']) {
  const dir = join(fuzz, 'regressions', target);
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir)) put(target, readFileSync(join(dir, f)));
}

for (const [t, n] of Object.entries(counts)) console.log(`${t}: ${n} seeds`);
