// Issue 28: the dialect readers cost linear time on the release wasm build. For each kind
// of event a hostile or merely long stream repeats, the time per event at 200,000 events
// is within 1.5x of the time per event at 20,000, measured in this one process (a ratio,
// not an absolute time: the best of three runs each, alternating, a fresh Session each).
// A reader that rescans what it holds per event (quadratic) gives a ratio near 10.
// tests/hostile_readers.rs pins the same kinds natively at 5k vs 50k.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Session } from 'stepline';

const SMALL = 20_000;
const LARGE = 200_000;
const BOUND = 1.5;

const agUi = (events) => (n) => ['{"type":"RUN_STARTED","threadId":"t","runId":"run-1"}', ...events(n)];
const aiSdk = (events) => (n) => ['{"type":"start","messageId":"msg-1"}', '{"type":"start-step"}', ...events(n)];
const times = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const url200 = 'u'.repeat(200);

function laravel(start, kind) {
  const key = kind === 'text_delta' ? 'message_id' : 'reasoning_id';
  return (n) => [
    '{"id":"evt_s","invocation_id":"inv-1","type":"stream_start","provider":"openai","model":"m","timestamp":1795168800,"metadata":null}',
    `{"id":"evt_p","invocation_id":"inv-1","type":"${start}","${key}":"p1","timestamp":1795168800}`,
    ...times(n, (i) => `{"id":"evt_${i}","invocation_id":"inv-1","type":"${kind}","${key}":"p1","delta":"d${i % 10} ","timestamp":1795168800}`),
  ];
}

const KINDS = [
  ['AG-UI STATE_DELTA appends to /a/-', (n) => [
    '{"type":"RUN_STARTED","threadId":"t","runId":"run-1"}',
    '{"type":"STATE_SNAPSHOT","snapshot":{"a":[]}}',
    ...times(n, () => '{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a/-","value":1}]}'),
  ]],
  ['AI SDK source-url parts', aiSdk((n) => times(n, (i) => `{"type":"source-url","sourceId":"s${i}","url":"https://example.com/${i}"}`))],
  ['AI SDK source-url parts with 200-byte URLs', aiSdk((n) => times(n, (i) => `{"type":"source-url","sourceId":"s${i}","url":"https://example.com/${i}/${url200}"}`))],
  ['AG-UI CUSTOM with distinct names', agUi((n) => times(n, (i) => `{"type":"CUSTOM","name":"n${i}","value":${i}}`))],
  ['AG-UI TOOL_CALL_RESULT without a start', agUi((n) => times(n, (i) => `{"type":"TOOL_CALL_RESULT","messageId":"m${i}","toolCallId":"c${i}","content":"ok"}`))],
  ['AI SDK data-* parts with distinct ids', aiSdk((n) => times(n, (i) => `{"type":"data-x","id":"d${i}","data":{"i":${i}}}`))],
  ['AI SDK data-* parts without an id', aiSdk((n) => times(n, (i) => `{"type":"data-x","data":{"i":${i}}}`))],
  ['AI SDK data-x parts with one id', aiSdk((n) => times(n, (i) => `{"type":"data-x","id":"d","data":{"i":${i}}}`))],
  ['laravel/ai text_delta', laravel('text_start', 'text_delta')],
  ['laravel/ai reasoning_delta', laravel('reasoning_start', 'reasoning_delta')],
  ['AG-UI RAW', agUi((n) => times(n, (i) => `{"type":"RAW","event":{"i":${i}},"source":"provider"}`))],
];

/** Seconds per event of ingesting `lines` one by one into a fresh Session, the best of `runs`. */
function perEvent(lines, runs) {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const session = new Session();
    const start = process.hrtime.bigint();
    for (const line of lines) session.ingest(line);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const view = session.getSnapshot();
    assert.equal(view.counts.rejected, 0);
    assert.equal(view.executions.length, 1);
    session.free();
    best = Math.min(best, seconds);
  }
  return best / lines.length;
}

for (const [kind, make] of KINDS) {
  test(`${kind}: time per event at 200k within ${BOUND}x of that at 20k`, (t) => {
    const small = make(SMALL);
    const large = make(LARGE);
    perEvent(small, 1); // warm-up: the reader's code compiled and the memory grown once
    // Small and large runs alternate, so that a change in the machine's load (other jobs
    // share it) weighs on both sides of the ratio; the best of three each.
    let atSmall = Infinity;
    let atLarge = Infinity;
    for (let round = 0; round < 3; round++) {
      atSmall = Math.min(atSmall, perEvent(small, 1));
      atLarge = Math.min(atLarge, perEvent(large, 1));
    }
    const ratio = atLarge / atSmall;
    t.diagnostic(`${(atSmall * 1e6).toFixed(2)} µs/event at 20k, ${(atLarge * 1e6).toFixed(2)} µs/event at 200k: ratio ${ratio.toFixed(2)}`);
    assert.ok(ratio <= BOUND, `${kind}: ${(atSmall * 1e6).toFixed(2)} µs/event at 20k, ${(atLarge * 1e6).toFixed(2)} at 200k (ratio ${ratio.toFixed(2)})`);
  });
}
