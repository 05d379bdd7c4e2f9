// A recorded agent run as `agent.*` envelopes, exactly N of them, in the reference
// producer's v1.22 broadcast format (instructor-php `AgentEventEnvelopeAdapter`, debug
// preset: tool arguments and the continuation trace included; the shapes are those of
// tests/vectors/cognesy-v1.22/agent-runs.json and envelopes.json). One session, one
// execution, in the order the producer sends them:
//
//   agent.status processing
//   tool steps: agent.step.started, 1-3 x (agent.tool.started, agent.tool.completed),
//               agent.continuation, agent.step.completed (with usage)
//   the answer step: agent.step.started, the streamed answer (agent.stream.chunk with
//               chunk_index 0, 1, 2, ...), agent.status completed, agent.continuation,
//               agent.step.completed
//
// About half of the envelopes are the streamed answer (5,000 chunks at N = 10,000), the
// rest tool steps, so a larger N means more steps and more chunks. Every 50th tool step
// has a failing tool. The same options give the same envelopes on every machine: a seeded
// PRNG, no clock (timestamps count up from 2026-01-20T12:00:00Z; the durations the
// envelopes report agree with them).
//
//   import { generateEnvelopes, generateRecordingText } from './bench/generate-envelopes.mjs';
//   const envelopes = generateEnvelopes({ envelopes: 10_000 });       // objects
//   const jsonl = generateRecordingText({ envelopes: 200_000 });      // one JSON line each
//
//   node bench/generate-envelopes.mjs [--envelopes N] [--chunks N] [--seed N] [--header] > run.jsonl


import { prng, WORDS } from './lib/random.mjs';

const TOOLS = ['search', 'get_time', 'fetch_page', 'create_lead', 'lookup_entity', 'send_email'];
const BASE = Date.UTC(2026, 0, 20, 12, 0, 0);

const PREFIX = 'Cognesy\\Addons\\Agent\\Core\\Continuation\\';

/** The continuation trace the debug preset sends after each step. */
export function continuation(step, more, tokens) {
  return {
    step_number: step,
    should_continue: more,
    stop_reason: 'completed',
    resolved_by: more ? `${PREFIX}ToolCallPresenceCheck` : 'aggregate',
    evaluations: [
      { criterion: 'StepsLimit', decision: 'allow', reason: `Steps under limit: ${step}/100000` },
      { criterion: 'TokenUsageLimit', decision: 'allow', reason: `Tokens under limit: ${tokens}/100000000` },
      { criterion: 'ExecutionTimeLimit', decision: 'allow', reason: 'Execution time under limit: 0s/86400s' },
      { criterion: 'ErrorPolicyCriterion', decision: 'allow', reason: 'No errors present' },
      more
        ? { criterion: 'ToolCallPresenceCheck', decision: 'request', reason: 'Tool calls present, requesting continuation' }
        : { criterion: 'ToolCallPresenceCheck', decision: 'stop', reason: 'No tool calls, allowing stop' },
    ],
  };
}

/**
 * Builds the envelopes (plain objects, as `JSON.parse` of a broadcast gives them).
 * @param {{envelopes?: number, chunks?: number, seed?: number, sessionId?: string, executionId?: string}} [options]
 *   envelopes: how many in all (at least 6); chunks: how many of them are the streamed
 *   answer at least (default half, rounded down; 0-4 more when no tool step fits the rest).
 */
export function generateEnvelopes({
  envelopes: total = 10_000, chunks, seed = 20260120, sessionId = 'sess-bench', executionId = 'exec-1',
} = {}) {
  // Fixed: two status changes, and the answer step's start, continuation and completion.
  const fixed = 5;
  if (!Number.isSafeInteger(total) || total < fixed + 1) throw new RangeError(`envelopes must be a whole number >= ${fixed + 1}, not ${total}`);
  const chunkCount = chunks ?? Math.min(Math.floor(total / 2), total - fixed);
  let budget = total - fixed - chunkCount; // for tool steps
  if (chunkCount < 1 || budget < 0) throw new RangeError(`${chunkCount} chunks do not fit in ${total} envelopes`);

  const rand = prng(seed);
  const out = [];
  let clock = BASE;
  // Every envelope is stamped with the clock, which then moves on by `after` ms; the
  // durations the payloads report are the intervals between their envelopes.
  const push = (type, payload, after = 10) => {
    out.push({ type, session_id: sessionId, execution_id: executionId, timestamp: new Date(clock).toISOString(), payload });
    clock += after;
  };
  const usage = () => ({ input: 100 + Math.floor(rand() * 4000), output: 10 + Math.floor(rand() * 500), cacheWrite: 0, cacheRead: 0, reasoning: 0 });
  let tokens = 0;

  push('agent.status', { status: 'processing', previous_status: 'idle' });
  let step = 0;
  // A tool step with k tools is 3 + 2k envelopes; the last one gets fewer tools to fit,
  // and the 0-4 envelopes no step can use become extra chunks of the answer.
  while (budget >= 5) {
    step += 1;
    let k = 1 + (step % 3);
    if (3 + 2 * k > budget) k = Math.floor((budget - 3) / 2);
    budget -= 3 + 2 * k;
    const stepStart = clock;
    push('agent.step.started', { step_number: step, message_count: 1 + step * 2, available_tools: TOOLS.length }, 200 + Math.floor(rand() * 2000));
    const failing = step % 50 === 13;
    for (let t = 0; t < k; t += 1) {
      const name = TOOLS[(step + t) % TOOLS.length];
      const toolMs = 5 + Math.floor(rand() * 2000);
      push('agent.tool.started', { tool_name: name, tool_call_id: null, args: { query: `${WORDS[(step + t) % WORDS.length]} ${step}`, limit: 1 + (t % 5) } }, toolMs);
      const fails = failing && t === k - 1;
      push('agent.tool.completed', {
        tool_name: name, tool_call_id: null, success: !fails, error: fails ? `Tool ${name} failed: Connection refused` : null,
        duration_ms: toolMs, result_summary: null,
      });
    }
    const u = usage();
    tokens += u.input + u.output;
    push('agent.continuation', continuation(step, true, tokens));
    push('agent.step.completed', {
      step_number: step, has_tool_calls: true, errors: failing ? 1 : 0, finish_reason: 'tool_calls', usage: u,
      duration_ms: clock - stepStart,
    });
  }

  // The answer: every chunk a few words, chunk_index counting from 0 for the execution.
  step += 1;
  const stepStart = clock;
  push('agent.step.started', { step_number: step, message_count: 1 + step * 2, available_tools: TOOLS.length }, 300);
  const answerChunks = chunkCount + budget;
  for (let i = 0; i < answerChunks; i += 1) {
    const words = 1 + Math.floor(rand() * 3);
    let content = '';
    for (let w = 0; w < words; w += 1) content += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
    push('agent.stream.chunk', { content, is_complete: false, chunk_index: i }, 10 + Math.floor(rand() * 20));
  }
  const u = usage();
  tokens += u.input + u.output;
  // The reference broadcasts the final status before the last step's completion.
  push('agent.status', { status: 'completed', previous_status: 'processing' });
  push('agent.continuation', continuation(step, false, tokens));
  push('agent.step.completed', { step_number: step, has_tool_calls: false, errors: 0, finish_reason: 'stop', usage: u, duration_ms: clock - stepStart });
  if (out.length !== total) throw new Error(`generated ${out.length} envelopes, not ${total}`);
  return out;
}

/**
 * The run as a JSONL recording, one envelope per line (`\n`-terminated); with `header`,
 * a first `{"stepline_recording":1,"session_id":…}` line as stepline's recordings have.
 */
export function generateRecordingText({ header = false, ...options } = {}) {
  const envelopes = generateEnvelopes(options);
  const lines = envelopes.map((e) => JSON.stringify(e));
  if (header) lines.unshift(JSON.stringify({ stepline_recording: 1, session_id: envelopes[0].session_id }));
  return `${lines.join('\n')}\n`;
}

// As a script: print the recording to stdout.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({
    options: { envelopes: { type: 'string' }, chunks: { type: 'string' }, seed: { type: 'string' }, header: { type: 'boolean' } },
  });
  const num = (v) => (v === undefined ? undefined : Number(v));
  process.stdout.on('error', (error) => { if (error.code !== 'EPIPE') throw error; });
  process.stdout.write(generateRecordingText({ envelopes: num(values.envelopes), chunks: num(values.chunks), seed: num(values.seed), header: values.header }));
}
