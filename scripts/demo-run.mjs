// The bundled demo run: a realistic two-turn agent run, produced the way the
// real producer produces one, so the panel has something true to show without
// a network.
//
// A scripted "model" drives an agent loop here in JS: for every step it builds
// the producer's full AgentState (PHP `toArray()` shape), asks stepline's own
// continuation evaluator whether to go on (the producer's default criteria, so
// the trace is real), and pushes the producer's events through stepline's own
// EnvelopeEncoder (debug preset: stream chunks, tool args, continuation trace),
// each event at its scripted time so durations are real. The final slim
// snapshot of each turn comes from slimSnapshot() of that turn's state.
//
// Turn 1 investigates a latency regression: parallel tool calls, a failed tool
// (retried under retryToolErrors), streamed text, and a final answer. Turn 2
// keeps calling tools until the steps limit stops it.
//
//   node scripts/demo-run.mjs [out.jsonl]     writes the recording (default:
//                                             www/public/demo-run.jsonl); --help
//   import { demoRun } from './demo-run.mjs'  { envelopes, snapshots, recording }
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The producer's default criteria with the limits this demo runs under. */
export const DEMO_CRITERIA = {
  defaults: { maxSteps: 5, maxTokens: 120000, maxExecutionTime: 300, errorPolicy: 'retryToolErrors(3)' },
};

const AGENT_ID = 'agent-oncall';
const TOOLS = ['query_metrics', 'search_logs', 'read_file', 'git_log', 'git_diff', 'open_pull_request', 'run_tests'];

/**
 * The script: per turn a user message and the model's steps. A step has the
 * time the model takes before its first token (`thinkMs`), streamed `text`,
 * `toolCalls` (each with a result or an error and its duration) and usage.
 */
const SCRIPT = [
  {
    user: 'Checkout p95 latency doubled since Tuesday\'s deploy. Find out why and tell me what to do.',
    steps: [
      {
        thinkMs: 900,
        text: 'Let me compare the latency metrics before and after the deploy, and look for errors in the checkout logs.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'query_metrics', args: { service: 'checkout', metric: 'http.p95_ms', from: '2026-11-16', to: '2026-11-20' }, ms: 740,
            result: { before_p95_ms: 212, after_p95_ms: 447, deploy: 'v2.41.0', changed_at: '2026-11-17T09:12:00Z' } },
          { name: 'search_logs', args: { service: 'checkout', query: 'level:warn db.pool', since: '2026-11-17' }, ms: 1320,
            result: { hits: 1843, top: 'db pool exhausted, waited 180ms for a connection (pool_size=10)' } },
        ],
        usage: { input: 1840, output: 96, cacheWrite: 1536, cacheRead: 0, reasoning: 64 },
      },
      {
        thinkMs: 700,
        text: 'The pool is exhausted after the deploy. Reading the pool configuration.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'read_file', args: { path: 'config/database.yml' }, ms: 35,
            error: 'ENOENT: no such file or directory, open \'config/database.yml\'' },
        ],
        usage: { input: 2410, output: 58, cacheWrite: 0, cacheRead: 1536, reasoning: 40 },
      },
      {
        thinkMs: 650,
        text: 'That path does not exist in this repository; the config moved. Checking what the deploy changed.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'git_log', args: { range: 'v2.40.3..v2.41.0', paths: ['config/'] }, ms: 410,
            result: { commits: [{ sha: '9f3c2e1', subject: 'Move DB settings to config/db/pool.toml; default pool 25 -> 10' }] } },
          { name: 'git_diff', args: { sha: '9f3c2e1', path: 'config/db/pool.toml' }, ms: 260,
            result: '-max_connections = 25\n+max_connections = 10\n' },
        ],
        usage: { input: 2980, output: 112, cacheWrite: 0, cacheRead: 1536, reasoning: 128 },
      },
      {
        thinkMs: 1100,
        text: 'Found it. Commit 9f3c2e1 in v2.41.0 moved the database settings to `config/db/pool.toml` and lowered '
          + '`max_connections` from 25 to 10. Since the deploy, checkout requests wait for a free connection: '
          + 'the logs show 1,843 "db pool exhausted" warnings with 180 ms waits, which matches p95 going from '
          + '212 ms to 447 ms.\n\nWhat to do:\n1. Restore `max_connections = 25` (or size it to peak concurrency) '
          + 'and redeploy.\n2. Add an alert on pool wait time so a change like this shows up before latency does.',
        finishReason: 'stop',
        toolCalls: [],
        usage: { input: 3390, output: 214, cacheWrite: 0, cacheRead: 1536, reasoning: 256 },
      },
    ],
  },
  {
    user: 'Open a PR that restores the pool size, and make sure the tests pass.',
    steps: [
      {
        thinkMs: 800,
        text: 'Opening a pull request that sets max_connections back to 25.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'open_pull_request', args: { branch: 'fix/db-pool-size', title: 'Restore DB pool size to 25', files: ['config/db/pool.toml'] }, ms: 1650,
            result: { number: 4812, url: 'https://git.example.test/shop/checkout/pull/4812' } },
        ],
        usage: { input: 3920, output: 88, cacheWrite: 2048, cacheRead: 1536, reasoning: 32 },
      },
      {
        thinkMs: 600,
        text: 'Running the test suite on the branch.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'run_tests', args: { branch: 'fix/db-pool-size', suite: 'checkout' }, ms: 4200,
            result: { passed: 412, failed: 1, failures: ['PoolConfigTest::test_default_matches_docs'] } },
        ],
        usage: { input: 4310, output: 61, cacheWrite: 0, cacheRead: 3584, reasoning: 48 },
      },
      {
        thinkMs: 750,
        text: 'One test pins the documented default. Updating the docs in the same PR.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'open_pull_request', args: { branch: 'fix/db-pool-size', title: 'Restore DB pool size to 25', files: ['docs/database.md'] }, ms: 980,
            result: { number: 4812, updated: true } },
        ],
        usage: { input: 4700, output: 73, cacheWrite: 0, cacheRead: 3584, reasoning: 40 },
      },
      {
        thinkMs: 550,
        text: 'Re-running the failing test.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'run_tests', args: { branch: 'fix/db-pool-size', filter: 'PoolConfigTest' }, ms: 1900,
            result: { passed: 6, failed: 0 } },
        ],
        usage: { input: 5050, output: 49, cacheWrite: 0, cacheRead: 3584, reasoning: 24 },
      },
      {
        thinkMs: 500,
        text: 'Tests pass. Running the full suite once more before asking for review.',
        finishReason: 'tool_calls',
        toolCalls: [
          { name: 'run_tests', args: { branch: 'fix/db-pool-size', suite: 'all' }, ms: 6100,
            result: { passed: 2290, failed: 0 } },
        ],
        usage: { input: 5390, output: 57, cacheWrite: 0, cacheRead: 3584, reasoning: 24 },
      },
    ],
  },
];

/** Splits text into streamed pieces of two to five words, like a model's deltas. */
function chunksOf(text) {
  const words = text.split(/(?<=\s)/);
  const out = [];
  for (let i = 0, n = 2; i < words.length; i += n, n = 2 + (i % 4)) out.push(words.slice(i, i + n).join(''));
  return out;
}

/** PHP's DateTime::ATOM with microseconds, as the producer stores times. */
const phpTime = (ms) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');

const sumUsage = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] + b[k]]));
const zeroUsage = () => ({ input: 0, output: 0, cacheWrite: 0, cacheRead: 0, reasoning: 0 });

/** Deterministic uuid-shaped ids, so the bundled recording never changes by itself. */
function idMaker(seed) {
  let n = 0;
  return () => {
    n += 1;
    const hex = (seed * 7919 + n * 104729).toString(16).padStart(12, '0').slice(-12);
    return `5e1f0a2b-${String(n).padStart(4, '0')}-4c0d-8e9f-${hex}`;
  };
}

/**
 * Runs the script through stepline. Returns the envelopes in send order, the
 * final slim snapshot of each turn, and the whole JSONL recording.
 */
export async function demoRun({ sessionId = 'sess-demo-checkout', executionId = 'exec-demo-1', startMs = Date.parse('2026-11-20T14:02:11.000Z') } = {}) {
  const stepline = await import(join(root, 'pkg', 'index.mjs'));
  const { EnvelopeEncoder, evaluateContinuation, slimSnapshot } = stepline;
  const nextId = idMaker(startMs % 100000);
  const encoder = new EnvelopeEncoder({ sessionId, executionId, config: { preset: 'debug' } });
  const envelopes = [];
  const snapshots = [];
  const recordingLines = [JSON.stringify({ stepline_recording: 1, session_id: sessionId, created_at: new Date(startMs).toISOString(), meta: { source: 'stepline demo run (scripts/demo-run.mjs)', criteria: DEMO_CRITERIA } })];
  let clock = startMs;
  const emit = (event, args) => {
    for (const { envelope } of encoder.push({ event, args, at: clock })) {
      envelopes.push(envelope);
      recordingLines.push(JSON.stringify(envelope));
    }
  };

  const messages = [];
  const sessionStartedAt = phpTime(startMs - 60_000);
  for (const turn of SCRIPT) {
    clock += 1500;
    messages.push({ role: 'user', content: turn.user });
    const turnStartedAt = clock;
    const state = {
      agentId: AGENT_ID, parentAgentId: null, currentStepStartedAt: null, executionStartedAt: phpTime(turnStartedAt),
      metadata: [], cachedContext: { messages: [], tools: [], toolChoice: [], responseFormat: [] },
      usage: zeroUsage(), messageStore: { sections: [{ name: 'messages', messages }], parameters: [] },
      stateInfo: { id: 'state-demo', startedAt: sessionStartedAt, updatedAt: phpTime(clock), cumulativeExecutionSeconds: 0 },
      currentStep: null, status: 'in_progress', steps: [], stepResults: [],
    };
    for (const [i, script] of turn.steps.entries()) {
      const stepNumber = i + 1;
      const stepStart = clock;
      const inputMessages = messages.map((m) => ({ ...m }));
      emit('AgentStepStarted', { agentId: AGENT_ID, parentAgentId: null, stepNumber, messageCount: messages.length, availableTools: TOOLS.length });
      clock += script.thinkMs;
      // A model's text before a tool call usually ends its paragraph; the
      // stream has no other separator between steps.
      const text = script.toolCalls.length > 0 ? `${script.text}\n\n` : script.text;
      for (const piece of chunksOf(text)) {
        emit('StreamEventReceived', { content: piece });
        clock += 35 + (piece.length * 7) % 60;
      }
      const toolCalls = script.toolCalls.map((c) => ({ name: c.name, arguments: c.args, id: `call_${nextId().slice(-8)}` }));
      const assistant = { role: 'assistant', content: text };
      if (toolCalls.length > 0) {
        assistant._metadata = { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) };
      }
      const outputMessages = [assistant];
      const toolExecutions = [];
      const errors = [];
      for (const [k, call] of script.toolCalls.entries()) {
        clock += 20;
        const startedAt = clock;
        emit('ToolCallStarted', { tool: call.name, args: call.args });
        clock += call.ms;
        const failed = call.error !== undefined;
        emit('ToolCallCompleted', { tool: call.name, success: !failed, error: failed ? call.error : null, startedAt: phpTime(startedAt), endedAt: phpTime(clock) });
        toolExecutions.push({
          toolCall: { id: toolCalls[k].id, name: call.name, arguments: call.args }, tool: call.name, args: call.args,
          result: failed ? null : call.result, error: failed ? call.error : null, startedAt: phpTime(startedAt), endedAt: phpTime(clock),
        });
        outputMessages.push({
          role: 'tool',
          content: failed ? `Error in tool call: ${call.error}` : typeof call.result === 'string' ? call.result : JSON.stringify(call.result),
          _metadata: { tool_call_id: toolCalls[k].id, tool_name: call.name, result: failed ? {} : call.result },
        });
        if (failed) errors.push({ message: call.error, class: 'RuntimeException' });
      }
      clock += 40;
      const step = {
        stepInfo: { id: nextId(), createdAt: phpTime(stepStart) },
        inputMessages, outputMessages, toolCalls, toolExecutions, errors, usage: script.usage,
        inferenceResponse: {
          content: text, finishReason: script.finishReason, toolCalls, reasoningContent: '', usage: script.usage,
          responseData: { statusCode: 200, body: '', headers: [], isStreamed: true }, isPartial: false,
          id: nextId(), createdAt: phpTime(stepStart), updatedAt: phpTime(clock),
        },
        stepType: errors.length > 0 ? 'error' : toolCalls.length > 0 ? 'tool_execution' : 'final_response',
      };
      messages.push(...outputMessages);
      state.steps.push(step);
      state.currentStep = step;
      state.currentStepStartedAt = phpTime(stepStart);
      state.usage = sumUsage(state.usage, script.usage);
      state.stateInfo.updatedAt = phpTime(clock);
      state.stateInfo.cumulativeExecutionSeconds = Math.round((clock - turnStartedAt) / 10) / 100;
      // The producer evaluates continuation before it announces the step's completion (quirk 6).
      const { explanation, ...outcome } = evaluateContinuation(state, DEMO_CRITERIA, { now: clock, executionStartedAt: turnStartedAt });
      state.stepResults.push({ step, outcome, startedAt: phpTime(stepStart), completedAt: phpTime(clock) });
      emit('ContinuationEvaluated', { agentId: AGENT_ID, parentAgentId: null, stepNumber, outcome });
      emit('AgentStepCompleted', {
        agentId: AGENT_ID, parentAgentId: null, stepNumber, hasToolCalls: toolCalls.length > 0, errorCount: errors.length,
        errorMessages: errors.map((e) => e.message).join('; '), usage: script.usage, finishReason: script.finishReason, startedAt: phpTime(stepStart),
      });
      if (!outcome.shouldContinue) {
        state.status = outcome.stopReason === 'error' ? 'failed' : 'completed';
        break;
      }
      if (stepNumber === turn.steps.length) throw new Error(`demo script: turn ends after step ${stepNumber} but continuation says go on`);
    }
    const { snapshot } = slimSnapshot(state);
    snapshots.push({ execution_id: executionId, snapshot });
    recordingLines.push(JSON.stringify({ stepline_snapshot: snapshot, session_id: sessionId, execution_id: executionId }));
  }
  encoder.free();
  return { envelopes, snapshots, recording: `${recordingLines.join('\n')}\n` };
}

const USAGE = `usage: node scripts/demo-run.mjs [out.jsonl]

Writes the bundled two-turn demo run (envelopes and each turn's final snapshot) as a
recording to out.jsonl (default: www/public/demo-run.jsonl).

  -h, --help   print this and exit`;

/**
 * The command line: `--help`, or at most one output path. Anything else that looks
 * like an option is refused (exit 2) rather than taken for a file name.
 */
export function demoRunArgs(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    return { error: error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `unknown option ${JSON.stringify(/'(.*?)'/.exec(error.message)?.[1] ?? '')}` : error.message.split('\n')[0] };
  }
  if (parsed.values.help) return { help: true };
  if (parsed.positionals.length > 1) return { error: `expected at most one output file, got ${parsed.positionals.length}` };
  return { out: parsed.positionals[0] ?? join(root, 'www', 'public', 'demo-run.jsonl') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = demoRunArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (args.error) {
    console.error(`demo-run: ${args.error}\n\n${USAGE}`);
    process.exit(2);
  }
  const { out } = args;
  const { envelopes, snapshots, recording } = await demoRun();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, recording);
  console.log(`demo-run: ${envelopes.length} envelopes, ${snapshots.length} snapshots, ${recording.length} bytes -> ${out}`);
}
