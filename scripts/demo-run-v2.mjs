// The demo run as today's producer makes it: instructor-php v2.7's
// AgentEventBroadcaster, wiretapped over Polyglot's real streaming OpenAI
// driver, and the v2 AgentState its loop leaves behind.
//
// A scripted model drives a v2 agent loop here in JS. Each step streams like a
// real HTTP driver (README item 15 of tests/vectors/instructor-php-v2.7): every
// SSE frame is dispatched as StreamEventParsed with the raw provider JSON, and
// each text delta as PartialInferenceDeltaCreated one frame later, so the
// envelopes carry raw provider frames between the text deltas exactly as a
// real app's do. The events go through stepline's own EnvelopeEncoder in the
// v2 dialect (debug preset), at their scripted times. Alongside, the loop
// builds the v2 AgentState (`toArray()` shape, items 18-28): execution,
// stepExecutions, messages with top-level tool_calls/tool_result, JSON-string
// tool results, ATOM dates, and the resolved llmConfig with its API key, as
// ToolCallingDriver stores it (item 27). The state is what a backend serves as
// the final state; a reader slims it (slimSnapshot) before showing anything.
//
// Turn 1 investigates 5xx errors (parallel tool calls, a second tool step, a
// streamed answer); turn 2 opens a fix. Every execution ends `completed` then
// `stopped` (item 6).
//
//   import { demoRunV2 } from './demo-run-v2.mjs'
//     -> { envelopes, finalStates, finalState }   (finalState: the last turn's)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const MODEL = 'gpt-4o-mini-2024-07-18';

/** Per turn a user message and the model's steps (text, tool calls, usage). */
const SCRIPT = [
  {
    user: 'Checkout returns 502s since this morning. What happened?',
    steps: [
      {
        thinkMs: 850,
        text: ['Let me', ' check the', ' error rate', ' and the', ' recent deploys.'],
        toolCalls: [
          { name: 'query_metrics', args: { service: 'checkout', metric: 'http.5xx_rate', since: '06:00' }, ms: 620,
            result: { before: 0.002, after: 0.081, jump_at: '09:14' } },
          { name: 'list_deploys', args: { service: 'checkout', since: '06:00' }, ms: 410,
            result: [{ version: 'v3.12.0', at: '09:12', author: 'ci' }] },
        ],
        usage: { input: 1420, output: 71, cacheWrite: 0, cacheRead: 0, reasoning: 0 },
      },
      {
        thinkMs: 700,
        text: ['The jump', ' follows v3.12.0.', ' Reading', ' its changes.'],
        toolCalls: [
          { name: 'git_diff', args: { from: 'v3.11.4', to: 'v3.12.0', path: 'config/upstream.toml' }, ms: 380,
            result: '-timeout_ms = 3000\n+timeout_ms = 300\n' },
        ],
        usage: { input: 1980, output: 52, cacheWrite: 0, cacheRead: 1024, reasoning: 0 },
      },
      {
        thinkMs: 900,
        text: ['v3.12.0', ' cut the', ' upstream timeout', ' from 3000 ms', ' to 300 ms,', ' so slow', ' payment calls', ' now fail', ' as 502s', ' (5xx rate', ' 0.2% → 8.1%', ' at 09:14).', ' Restore', ' timeout_ms = 3000.'],
        toolCalls: [],
        usage: { input: 2260, output: 64, cacheWrite: 0, cacheRead: 1024, reasoning: 0 },
      },
    ],
  },
  {
    user: 'Open a PR that restores it.',
    steps: [
      {
        thinkMs: 600,
        text: ['Opening', ' the pull request.'],
        toolCalls: [
          { name: 'open_pull_request', args: { branch: 'fix/upstream-timeout', title: 'Restore upstream timeout to 3000 ms' }, ms: 1300,
            result: { number: 7731 } },
        ],
        usage: { input: 2410, output: 40, cacheWrite: 0, cacheRead: 2048, reasoning: 0 },
      },
      {
        thinkMs: 500,
        text: ['Opened PR', ' #7731:', ' it restores', ' timeout_ms = 3000.'],
        toolCalls: [],
        usage: { input: 2530, output: 22, cacheWrite: 0, cacheRead: 2048, reasoning: 0 },
      },
    ],
  },
];

/** ATOM without fractions (`2026-08-10T12:00:00+00:00`), as v2 stores dates (item 18). */
const atom = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

/** Deterministic uuids (v2 requires uuids everywhere, README conventions). */
function uuids(seed) {
  let n = 0;
  return () => {
    n += 1;
    return `5e2f0a2b-${String(n).padStart(4, '0')}-4c0d-8e9f-${(seed * 7919 + n).toString(16).padStart(12, '0').slice(-12)}`;
  };
}

/** OpenAI chat.completion.chunk frames for one streamed response (item 15). */
function sseFrames(id, created, text, toolCalls, usage) {
  const frame = (choices, extra = {}) => JSON.stringify({
    id, object: 'chat.completion.chunk', created, model: MODEL, system_fingerprint: 'fp_5e2f0a2b00', choices, ...extra,
  });
  const delta = (d, finish = null) => frame([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  const frames = [{ raw: delta({ role: 'assistant', content: '', refusal: null }) }];
  for (const piece of text) frames.push({ raw: delta({ content: piece }), text: piece });
  for (const [index, call] of toolCalls.entries()) {
    frames.push({ raw: delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }) });
    frames.push({ raw: delta({ tool_calls: [{ index, function: { arguments: JSON.stringify(call.arguments) } }] }) });
  }
  frames.push({ raw: delta({}, toolCalls.length > 0 ? 'tool_calls' : 'stop') });
  frames.push({ raw: frame([], { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } }) });
  return frames;
}

/**
 * Runs the script through stepline. `apiKey` is what the state's llmConfig
 * holds (ToolCallingDriver stores the resolved config, key included).
 * Returns the envelopes in send order and each turn's final v2 AgentState.
 */
export async function demoRunV2({
  sessionId = 'sess-demo-v2', executionId = 'exec-demo-v2', startMs = Date.parse('2026-11-20T09:30:00.000Z'),
  apiKey = 'sk-demo-0000000000000000',
} = {}) {
  const { EnvelopeEncoder } = await import(join(root, 'pkg', 'index.mjs'));
  const id = uuids(startMs % 100000);
  const agentId = id();
  const encoder = new EnvelopeEncoder({ sessionId, executionId, config: { preset: 'debug', dialect: 'v2' } });
  const envelopes = [];
  let clock = startMs;
  const emit = (event, args) => {
    for (const { envelope } of encoder.push({ event, args, at: clock })) envelopes.push(envelope);
  };
  const llmConfig = {
    apiUrl: 'https://api.openai.com/v1', apiKey, endpoint: '/chat/completions', queryParams: [], metadata: [],
    model: 'gpt-4o-mini', maxTokens: 1024, contextLength: 128000, maxOutputLength: 16384, driver: 'openai',
    options: { stream: true }, pricing: [],
  };
  const messages = [];
  const createdAt = atom(startMs - 60_000);
  const finalStates = [];
  for (const [t, turn] of SCRIPT.entries()) {
    clock += 1200;
    messages.push({ id: id(), createdAt: atom(clock), role: 'user', content: turn.user });
    const execution = {
      executionId: id(), status: 'in_progress', startedAt: atom(clock), completedAt: null, stepExecutions: [],
      continuation: { stop_signals: [], is_continuation_requested: false }, currentStepStartedAt: null, currentStep: null,
    };
    const meta = (stepId, extra = {}) => ({ ...extra, step_id: stepId, execution_id: execution.executionId, agent_id: agentId });
    for (const [i, script] of turn.steps.entries()) {
      const stepNumber = i + 1;
      const stepStart = clock;
      const stepId = id();
      const inputMessages = messages.map((m) => ({ ...m }));
      emit('AgentStepStarted', { agentId, parentAgentId: null, stepNumber, messageCount: messages.length, availableTools: 0 });
      clock += script.thinkMs;
      const toolCalls = script.toolCalls.map((c, k) => ({ id: `call_${t}${i}${k}${id().slice(-6)}`, name: c.name, arguments: c.args }));
      // A text delta reaches the broadcaster one frame after the frame that carried it (item 15).
      const frames = sseFrames(`chatcmpl-${id().slice(-12)}`, Math.floor(clock / 1000), script.text, toolCalls, script.usage);
      for (const [k, f] of frames.entries()) {
        emit('StreamEventParsed', { content: f.raw });
        const carried = frames[k - 1]?.text;
        if (k >= 2 && carried) emit('PartialInferenceDeltaCreated', { contentDelta: carried });
        clock += 30 + (f.raw.length % 40);
      }
      const text = script.text.join('');
      const outputMessages = [];
      const toolExecutions = [];
      for (const [k, call] of script.toolCalls.entries()) {
        clock += 15;
        const startedAt = clock;
        emit('ToolCallStarted', { tool: call.name, args: call.args });
        clock += call.ms;
        emit('ToolCallCompleted', { tool: call.name, success: true, error: null, startedAt: new Date(startedAt).toISOString(), completedAt: new Date(clock).toISOString() });
        const result = JSON.stringify(call.result);
        const execId = id();
        toolExecutions.push({ id: execId, tool_call: toolCalls[k], result, error: null, startedAt: atom(startedAt), completedAt: atom(clock) });
        outputMessages.push(
          { id: id(), createdAt: atom(clock), role: 'assistant', content: '', _metadata: { tool_execution_id: execId }, tool_calls: [toolCalls[k]] },
          { id: id(), createdAt: atom(clock), role: 'tool', content: result, _metadata: { tool_execution_id: execId },
            tool_result: { content: result, call_id: toolCalls[k].id, tool_name: call.name, is_error: false } },
        );
      }
      outputMessages.push({ id: id(), createdAt: atom(clock), role: 'assistant', content: text });
      const last = stepNumber === turn.steps.length;
      const step = {
        id: stepId, inputMessages, outputMessages, toolExecutions, errors: [],
        inferenceResponse: {
          content: text, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', toolCalls, reasoningContent: '', usage: script.usage,
          responseData: { statusCode: 200, body: '', headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': `req_${id().slice(-8)}` }, isStreamed: true },
          isPartial: false, id: id(), createdAt: atom(stepStart), updatedAt: atom(clock),
        },
      };
      // The step's messages join the conversation; all but the answer are traces (item 22).
      for (const m of outputMessages) messages.push({ ...m, _metadata: meta(stepId, { ...m._metadata, ...(last ? {} : { is_trace: true }) }) });
      // duration_ms measures only the after-step hooks (item 12): under a millisecond.
      const hooksMs = 0.3 + (stepNumber % 3) * 0.1;
      emit('AgentStepCompleted', { stepNumber, hasToolCalls: toolCalls.length > 0, errorCount: 0, finishReason: step.inferenceResponse.finishReason, usage: script.usage, durationMs: hooksMs });
      clock += 1;
      execution.stepExecutions.push({
        id: id(), step, continuation: { stop_signals: [], is_continuation_requested: false },
        startedAt: atom(stepStart), completedAt: atom(clock), duration: (clock - stepStart) / 1000,
      });
      execution.currentStep = step;
      // No stop signal: the loop goes on while the step asked for tools (item 30).
      emit('ContinuationEvaluated', { stepNumber, executionState: execution });
      if (last !== (toolCalls.length === 0)) throw new Error(`demo script: turn ${t + 1} step ${stepNumber} ends the turn inconsistently`);
    }
    execution.status = 'completed';
    execution.completedAt = atom(clock);
    execution.currentStep = null;
    emit('AgentExecutionStopped', { stopReason: 'completed' });
    finalStates.push({
      agentId, parentAgentId: null, createdAt, updatedAt: atom(clock),
      context: { metadata: [], systemPrompt: 'You are the on-call assistant for the checkout service.', responseFormat: [],
        messageStore: { sections: [{ name: 'messages', messages: messages.map((m) => ({ ...m })) }], parameters: [] } },
      llmConfig, executionCount: t + 1, execution: structuredClone(execution),
    });
  }
  encoder.free();
  return { envelopes, finalStates, finalState: finalStates.at(-1) };
}
