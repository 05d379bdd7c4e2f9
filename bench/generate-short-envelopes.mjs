// A recording of short envelopes (about 200 bytes each), the kind a live stream is mostly made
// of and where the cost per envelope, not per byte, decides bulk replay: one session, one
// execution, every step
//
//   agent.step.started, agent.tool.started, agent.tool.completed (small arguments, no result),
//   4-24 x agent.stream.chunk (a few words each, chunk_index counting for the execution),
//   agent.step.completed (with usage)
//
// between an `agent.status` processing at the start and completed before the last step's
// completion. No continuation trace (the broadcaster's default preset leaves it out). Same
// options, same envelopes, on every machine (seeded PRNG, timestamps counting up from
// 2026-01-20T12:00:00Z), in the shapes of bench/generate-envelopes.mjs.
//
//   import { generateShortRecordingText } from './bench/generate-short-envelopes.mjs';
//   const jsonl = generateShortRecordingText({ envelopes: 200_000 });   // about 40 MB
//
//   node bench/generate-short-envelopes.mjs [--envelopes N] [--seed N] > short.jsonl

import { prng, WORDS } from './lib/random.mjs';

const TOOLS = ['search', 'get_time', 'fetch_page', 'create_lead', 'lookup_entity', 'send_email'];
const BASE = Date.UTC(2026, 0, 20, 12, 0, 0);

/**
 * Builds exactly `envelopes` envelopes (plain objects, as `JSON.parse` of a broadcast gives them).
 * @param {{envelopes?: number, seed?: number, sessionId?: string, executionId?: string}} [options]
 */
export function generateShortEnvelopes({
  envelopes: total = 10_000, seed = 20260121, sessionId = 'sess-bench', executionId = 'exec-1',
} = {}) {
  // The two status changes, and the last step's start and completion.
  const fixed = 4;
  if (!Number.isSafeInteger(total) || total < fixed + 1) throw new RangeError(`envelopes must be a whole number >= ${fixed + 1}, not ${total}`);
  const rand = prng(seed);
  const out = [];
  let clock = BASE;
  const push = (type, payload, after = 10) => {
    out.push({ type, session_id: sessionId, execution_id: executionId, timestamp: new Date(clock).toISOString(), payload });
    clock += after;
  };
  const usage = () => ({ input: 100 + Math.floor(rand() * 4000), output: 10 + Math.floor(rand() * 500), cacheWrite: 0, cacheRead: 0, reasoning: 0 });
  let chunkIndex = 0;
  const chunks = (n) => {
    for (let i = 0; i < n; i += 1) {
      const words = 2 + Math.floor(rand() * 3);
      let content = '';
      for (let w = 0; w < words; w += 1) content += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
      push('agent.stream.chunk', { content, is_complete: false, chunk_index: chunkIndex }, 10 + Math.floor(rand() * 20));
      chunkIndex += 1;
    }
  };
  const startStep = (step) => push('agent.step.started', { step_number: step, message_count: 1 + step * 2, available_tools: TOOLS.length }, 100);
  const completeStep = (step, started, tools) => push('agent.step.completed', {
    step_number: step, has_tool_calls: tools, errors: 0, finish_reason: tools ? 'tool_calls' : 'stop', usage: usage(), duration_ms: clock - started,
  });

  push('agent.status', { status: 'processing', previous_status: 'idle' });
  let budget = total - fixed;
  let step = 0;
  // A tool step is 4 envelopes and its chunks; the rest goes to the last step's chunks.
  while (budget >= 4 + 24 + 1) {
    step += 1;
    const started = clock;
    startStep(step);
    const name = TOOLS[step % TOOLS.length];
    const toolMs = 5 + Math.floor(rand() * 500);
    push('agent.tool.started', { tool_name: name, tool_call_id: `call_${step}`, args: { q: WORDS[step % WORDS.length] } }, toolMs);
    push('agent.tool.completed', { tool_name: name, tool_call_id: `call_${step}`, success: true, error: null, duration_ms: toolMs });
    const n = 4 + Math.floor(rand() * 21);
    chunks(n);
    completeStep(step, started, true);
    budget -= 4 + n;
  }
  step += 1;
  const started = clock;
  startStep(step);
  chunks(budget);
  push('agent.status', { status: 'completed', previous_status: 'processing' });
  completeStep(step, started, false);
  if (out.length !== total) throw new Error(`generated ${out.length} envelopes, not ${total}`);
  return out;
}

/** The run as a JSONL recording, one envelope per line (`\n`-terminated). */
export function generateShortRecordingText(options = {}) {
  return `${generateShortEnvelopes(options).map((e) => JSON.stringify(e)).join('\n')}\n`;
}

// As a script: print the recording to stdout.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({ options: { envelopes: { type: 'string' }, seed: { type: 'string' } } });
  const num = (v) => (v === undefined ? undefined : Number(v));
  process.stdout.on('error', (error) => { if (error.code !== 'EPIPE') throw error; });
  process.stdout.write(generateShortRecordingText({ envelopes: num(values.envelopes), seed: num(values.seed) }));
}
