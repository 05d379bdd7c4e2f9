// Section `slim`: slimSnapshot of a 10,000-message, 1,000-step state (~20 MB of JSON made by
// bench/generate-state.mjs) against JSON.parse of the same text. Target: slimSnapshot <= 1.5x
// JSON.parse of the input.
import { performance } from 'node:perf_hooks';

import * as stepline from 'stepline';

import { generateStateText } from '../generate-state.mjs';
import { markdownTable, mb, measure, ms, printTable, seconds, summarize } from '../lib/measure.mjs';

const WARMUP = 2;

export default async function slim({ runs, report }) {
  console.log('\n=== slim: slimSnapshot of a 10,000-message, 1,000-step state (DESIGN.md section 11)');
  let started = performance.now();
  const text = generateStateText({ messages: 10_000, steps: 1_000 });
  const obj = JSON.parse(text);
  const input = `${mb(Buffer.byteLength(text))} of JSON (${text.length.toLocaleString('en-US')} UTF-16 units)`;
  console.log(`  input: ${input}, generated in ${ms(performance.now() - started)} ms`);

  const fromText = stepline.slimSnapshot(text);
  const fromObj = stepline.slimSnapshot(obj);
  if (JSON.stringify(fromText) !== JSON.stringify(fromObj)) throw new Error('slimSnapshot gives different results for string and object input');
  const s = fromText.snapshot;
  const output = `${fromText.bytes.toLocaleString('en-US')} bytes, ${s.messages.length} messages, ${s.steps.length} steps`;
  console.log(`  output (standard preset): ${output}`);

  const encoder = new TextEncoder();
  const ops = {
    'JSON.parse(text)': () => JSON.parse(text),
    'slimSnapshot(text)': () => stepline.slimSnapshot(text),
    'slimSnapshot(obj)': () => stepline.slimSnapshot(obj),
    'parseAgentState(text)': () => stepline.parseAgentState(text),
    // Not stepline: the UTF-8 copy any string input into wasm needs, for scale.
    'TextEncoder.encode(text)': () => encoder.encode(text),
  };
  started = performance.now();
  const rows = summarize(await measure(ops, { warmup: WARMUP, runs }), 'JSON.parse(text)');
  printTable(rows, 'JSON.parse(text)');
  const ratio = (label) => rows.find((r) => r.label === label).ratio;
  const verdict = (r) => `${r.toFixed(2)}× (${r <= 1.5 ? 'met' : 'NOT met'})`;
  console.log('\n  target (DESIGN.md section 11): slimSnapshot <= 1.5x JSON.parse of the input');
  console.log(`    string input: ${verdict(ratio('slimSnapshot(text)'))}; object input: ${verdict(ratio('slimSnapshot(obj)'))}`);
  console.log(`  (${WARMUP} warm-up + ${runs} timed rounds in ${seconds(started)})`);
  for (const kind of ['text', 'obj']) {
    const r = ratio(`slimSnapshot(${kind})`);
    report.target('slim', `slimSnapshot(${kind}) of a ~20 MB state ≤ 1.5× JSON.parse`, `${r.toFixed(2)}×`, r <= 1.5);
  }
  report.section('slim', [
    '## Floor: slim snapshot of a ~20 MB state',
    '',
    `\`slimSnapshot\` (standard preset) of a 10,000-message, 1,000-step AgentState (bench/generate-state.mjs, ${input}),`,
    `as a string and as an object, against \`JSON.parse\` of the same text; output: ${output}.`,
    `${WARMUP} warm-up and ${runs} timed rounds. Target: ≤ 1.5× \`JSON.parse\`.`,
    '',
    ...markdownTable(rows, 'JSON.parse(text)'),
    '',
    '`TextEncoder.encode(text)` is not stepline: it is the UTF-8 copy any string passed into wasm needs, for scale.',
  ]);
}
