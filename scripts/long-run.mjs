// A recorded run longer than a slim snapshot's step window (20 steps with the
// `standard` preset, 50 with `full`), made the way the producer makes one: its
// events through stepline's own EnvelopeEncoder (debug preset) and, alongside,
// the full AgentState its loop builds (PHP `toArray()` shape), consistent with
// the stream. The tests slim that state with each preset and reconcile.
//
// Every step differs from its neighbours (tools, usage, finish reason, errors),
// so a snapshot window placed at the wrong steps cannot look consistent: tool
// steps call one tool, every third step two, every tenth step's first tool
// fails (the run goes on), and the last step answers. With `ending: 'toolThrows'`
// the last step's tool throws instead: the producer's exception path (vectors
// quirk 7), no tool completion, continuation, step completion or final status.
//
//   import { longRun } from './scripts/long-run.mjs'
//   const { envelopes, state, recording } = await longRun({ steps: 39 });
//   recording({ preset: 'standard' })   // JSONL: header, envelopes, a snapshot line
//
//   node scripts/long-run.mjs [steps] [out.jsonl]   (default 39 steps, to stdout)
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS = ['search_logs', 'query_metrics', 'read_file'];
const START_MS = Date.parse('2026-01-20T12:00:00.000Z');

/** PHP's DateTime::ATOM with microseconds, as the producer stores times (durations stay real). */
const atom = (ms) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
const usage = (input, output) => ({ input, output, cacheWrite: 0, cacheRead: 0, reasoning: 0 });

function outcome(goOn, stopReason, resolvedBy) {
  const decision = goOn ? 'request' : 'stop';
  return {
    decision, shouldContinue: goOn, resolvedBy, stopReason,
    evaluations: [{ criterion: 'Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck', decision, reason: 'scripted', stopReason: null, context: { hasToolCalls: goOn } }],
  };
}

/**
 * Runs the script through stepline's encoder. Returns the envelopes in send
 * order, the final full state, and `recording(slimOptions)`: the JSONL
 * recording with the state's slim snapshot (under those options) as its
 * snapshot line.
 */
export async function longRun({ steps = 39, ending = 'answer', sessionId = 'sess-long', executionId = 'exec-long' } = {}) {
  if (!Number.isSafeInteger(steps) || steps < 1) throw new RangeError(`steps must be a whole number >= 1, not ${steps}`);
  const stepline = await import(join(root, 'pkg', 'index.mjs'));
  const encoder = new stepline.EnvelopeEncoder({ sessionId, executionId, config: { preset: 'debug' } });
  const envelopes = [];
  let clock = START_MS;
  const emit = (event, args) => {
    for (const { envelope } of encoder.push({ event, args, at: clock })) envelopes.push(envelope);
  };
  const messages = [{ role: 'user', content: 'Why did checkout get slow?' }];
  const stateSteps = [];
  const stepResults = [];
  let total = usage(0, 0);
  for (let k = 1; k <= steps; k += 1) {
    const last = k === steps;
    const throws = last && ending === 'toolThrows';
    const started = clock;
    const inputMessages = messages.map((m) => ({ ...m }));
    emit('AgentStepStarted', { agentId: 'agent-long', parentAgentId: null, stepNumber: k, messageCount: messages.length, availableTools: TOOLS.length });
    const calls = last && !throws ? [] : k % 3 === 0 ? [TOOLS[0], TOOLS[1]] : [TOOLS[k % 3]];
    const text = last ? (throws ? '' : `All ${steps} steps done: the pool size halved at the deploy.`) : `Step ${k}: asking ${calls.join(' and ')}.\n\n`;
    for (const piece of text.split(/(?<= )/)) {
      if (piece === '') continue;
      clock += 5;
      emit('StreamEventReceived', { content: piece });
    }
    const stepUsage = usage(100 + k, 10 + (k % 7));
    const toolCalls = calls.map((name, j) => ({ name, arguments: { step: k }, id: `call_${k}_${j}` }));
    const assistant = { role: 'assistant', content: text };
    if (toolCalls.length > 0) {
      assistant._metadata = { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) };
    }
    let outputs = [assistant];
    const executions = [];
    const errors = [];
    for (const [j, name] of calls.entries()) {
      clock += 10;
      const toolStarted = clock;
      emit('ToolCallStarted', { tool: name, args: { step: k } });
      if (throws) {
        errors.push({ message: 'Connection refused', class: 'RuntimeException' });
        break;
      }
      clock += 30 + j;
      const failed = k % 10 === 0 && j === 0;
      const error = failed ? `timeout in step ${k}` : null;
      emit('ToolCallCompleted', { tool: name, success: !failed, error, startedAt: atom(toolStarted), endedAt: atom(clock) });
      const result = failed ? null : { rows: k };
      executions.push({ toolCall: toolCalls[j], tool: name, args: { step: k }, result, error, startedAt: atom(toolStarted), endedAt: atom(clock) });
      outputs.push({ role: 'tool', content: failed ? `Error in tool call: ${error}` : JSON.stringify(result), _metadata: { tool_call_id: toolCalls[j].id, tool_name: name, result } });
      if (error) errors.push({ message: error, class: 'RuntimeException' });
    }
    clock += 20;
    const finishReason = calls.length === 0 ? 'stop' : 'tool_calls';
    const stepType = errors.length > 0 ? 'error' : calls.length > 0 ? 'tool_execution' : 'final_response';
    const responseData = (streamed) => ({ statusCode: streamed ? 200 : 0, body: '', headers: [], isStreamed: streamed });
    let step;
    if (throws) {
      // What the producer keeps of a step whose tool threw (agent-runs.json).
      outputs = [];
      step = {
        stepInfo: { id: `step-${k}`, createdAt: atom(started) }, inputMessages, outputMessages: [], toolCalls: [], toolExecutions: [],
        errors, usage: usage(0, 0),
        inferenceResponse: { content: '', finishReason: '', toolCalls: [], reasoningContent: '', usage: usage(0, 0), responseData: responseData(false), isPartial: false, id: `inf-${k}`, createdAt: atom(started), updatedAt: atom(clock) },
        stepType: 'error',
      };
    } else {
      step = {
        stepInfo: { id: `step-${k}`, createdAt: atom(started) }, inputMessages, outputMessages: outputs, toolCalls, toolExecutions: executions,
        errors, usage: stepUsage,
        inferenceResponse: { content: text, finishReason, toolCalls, reasoningContent: '', usage: stepUsage, responseData: responseData(true), isPartial: false, id: `inf-${k}`, createdAt: atom(started), updatedAt: atom(clock) },
        stepType,
      };
    }
    const decided = !last
      ? outcome(true, 'completed', 'Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck')
      : throws ? outcome(false, 'error', 'Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\ErrorPolicyCriterion') : outcome(false, 'completed', 'aggregate');
    if (!throws) {
      total = usage(total.input + stepUsage.input, total.output + stepUsage.output);
      // The producer evaluates continuation before it announces the step's completion (quirk 6).
      emit('ContinuationEvaluated', { agentId: 'agent-long', parentAgentId: null, stepNumber: k, outcome: decided });
      emit('AgentStepCompleted', {
        agentId: 'agent-long', parentAgentId: null, stepNumber: k, hasToolCalls: calls.length > 0, errorCount: errors.length,
        errorMessages: errors.map((e) => e.message).join('; '), usage: stepUsage, finishReason, startedAt: atom(started),
      });
    }
    messages.push(...outputs);
    stepResults.push({ step, outcome: decided, startedAt: atom(started), completedAt: atom(clock) });
    stateSteps.push(step);
  }
  encoder.free();
  const state = {
    agentId: 'agent-long', parentAgentId: null, currentStepStartedAt: null, executionStartedAt: atom(START_MS),
    metadata: [], cachedContext: { messages: [], tools: [], toolChoice: [], responseFormat: [] }, usage: total,
    messageStore: { sections: [{ name: 'messages', messages }], parameters: [] },
    stateInfo: { id: 'state-long', startedAt: atom(START_MS - 60_000), updatedAt: atom(clock), cumulativeExecutionSeconds: 0.0 },
    currentStep: stateSteps.at(-1) ?? null, status: ending === 'toolThrows' ? 'failed' : 'completed', steps: stateSteps, stepResults,
  };
  const recording = (slimOptions) => {
    const { snapshot } = stepline.slimSnapshot(state, slimOptions);
    return [
      JSON.stringify({ stepline_recording: 1, session_id: sessionId, created_at: new Date(START_MS).toISOString(), meta: { source: `stepline long run (scripts/long-run.mjs), ${steps} steps` } }),
      ...envelopes.map((e) => JSON.stringify(e)),
      JSON.stringify({ stepline_snapshot: snapshot, session_id: sessionId, execution_id: executionId }),
    ].join('\n') + '\n';
  };
  return { envelopes, state, recording };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [steps = '39', out] = process.argv.slice(2);
  const { recording } = await longRun({ steps: Number(steps) });
  const text = recording({ preset: 'standard' });
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
}
