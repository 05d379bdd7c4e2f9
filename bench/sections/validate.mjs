// Section `validate`: validateSnapshot(text) against what a Node backend would do instead,
// JSON.parse + Ajv (draft 2020-12, allErrors, formats on) compiled from stepline's own
// published schema (snapshotSchema()), side by side on the same texts (issue 17):
//   (a) 20,000 validations of the ~1 KB slim snapshots of the vectors' runs (every turn of
//       both corpora, slimmed by stepline's own slimSnapshot, standard preset), cycled;
//   (b) validations of ~1 MB slim snapshots of states made by bench/generate-state.mjs.
// Target: validateSnapshot at or under JSON.parse + Ajv on both.
import { readFileSync } from 'node:fs';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as stepline from 'stepline';

import { generateStateText } from '../generate-state.mjs';
import { int, markdownTable, measure, printTable, summarize } from '../lib/measure.mjs';

const SMALL_COUNT = 20_000;
const LARGE_COUNT = 20;
const AJV = 'JSON.parse + Ajv';
const STEPLINE = 'validateSnapshot(text)';

const vectors = (corpus) => {
  const dir = corpus === 'cognesy-v1.22' && process.env.STEPLINE_VECTORS
    ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
    : new URL(`../../tests/vectors/${corpus}/`, import.meta.url);
  return JSON.parse(readFileSync(new URL('agent-runs.json', dir), 'utf8'));
};

/** The v2.7 corpus writes generated ids as "<uuid>"; a stored state has real ones. */
const withIds = (value) => {
  let n = 0;
  return JSON.parse(JSON.stringify(value), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++n).padStart(12, '0')}` : v));
};

/** The slim snapshot (compact JSON text) of every turn of both corpora's agent runs. */
function vectorSnapshots() {
  const texts = [];
  for (const corpus of ['cognesy-v1.22', 'instructor-php-v2.7']) {
    for (const run of vectors(corpus)) {
      for (const turn of run.expected) texts.push(JSON.stringify(stepline.slimSnapshot(withIds(turn.finalState)).snapshot));
    }
  }
  return texts;
}

/** ~1 MB slim snapshots: generated states, slimmed with room for 1,200 messages and 300 steps. */
function largeSnapshots() {
  return [20260120, 20260121].map((seed) => {
    const state = generateStateText({ messages: 4_000, steps: 400, seed });
    return JSON.stringify(stepline.slimSnapshot(state, { preset: 'full', maxMessages: 1_200, maxSteps: 300 }).snapshot);
  });
}

function compileAjv() {
  const ajv = new Ajv2020({ allErrors: true });
  addFormats(ajv);
  return ajv.compile(stepline.snapshotSchema());
}

/** Both contenders over `count` validations cycling through `texts`; both must call every text valid. */
function contenders(texts, count, check) {
  for (const text of texts) {
    if (!check(JSON.parse(text))) throw new Error(`Ajv rejects a snapshot: ${JSON.stringify(check.errors)}`);
    const report = stepline.validateSnapshot(text);
    if (!report.valid) throw new Error(`validateSnapshot rejects a snapshot: ${JSON.stringify(report.errors)}`);
  }
  return {
    [AJV]: () => {
      let valid = 0;
      for (let i = 0; i < count; i += 1) if (check(JSON.parse(texts[i % texts.length]))) valid += 1;
      return { valid };
    },
    [STEPLINE]: () => {
      let valid = 0;
      for (let i = 0; i < count; i += 1) if (stepline.validateSnapshot(texts[i % texts.length]).valid) valid += 1;
      return { valid };
    },
  };
}

const describe = (texts) => {
  const sizes = texts.map((t) => Buffer.byteLength(t)).sort((a, b) => a - b);
  return `${texts.length} snapshots of ${int(sizes[0])}–${int(sizes.at(-1))} bytes (median ${int(sizes[sizes.length >> 1])})`;
};

export default async function validate({ runs, report }) {
  console.log('\n=== validate: validateSnapshot(text) against JSON.parse + Ajv compiled from snapshotSchema() (issue 17)');
  const check = compileAjv();
  const cases = [
    ['vector runs, ~1 KB', vectorSnapshots(), SMALL_COUNT],
    ['generated, ~1 MB', largeSnapshots(), LARGE_COUNT],
  ];
  const lines = [
    '## Snapshot validation against JSON.parse + Ajv',
    '',
    '`validateSnapshot(text)` against `JSON.parse(text)` + Ajv (`Ajv2020`, `allErrors: true`, ajv-formats) compiled from',
    "stepline's own `snapshotSchema()`, in the same process, round-robin. Target: `validateSnapshot` at or under Ajv's time.",
  ];
  for (const [name, texts, count] of cases) {
    console.log(`\n  ${name}: ${int(count)} validations over ${describe(texts)}`);
    const rows = summarize(await measure(contenders(texts, count, check), { warmup: 2, runs }), AJV);
    printTable(rows, AJV);
    const ratio = rows.find((r) => r.label === STEPLINE).ratio;
    console.log(`  target: validateSnapshot <= JSON.parse + Ajv: ${ratio.toFixed(2)}× (${ratio <= 1 ? 'met' : 'NOT met'})`);
    report.target('validate', `validateSnapshot of ${name} snapshots ≤ JSON.parse + Ajv`, `${ratio.toFixed(2)}×`, ratio <= 1);
    lines.push('', `### ${name}: ${int(count)} validations over ${describe(texts)}`, '', ...markdownTable(rows, AJV));
  }
  report.section('validate', lines);
}
