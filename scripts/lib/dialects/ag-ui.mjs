// A run description (./run.mjs) as AG-UI 1.x events, exactly as an AG-UI
// producer sends them (the objects an SSE `data:` line carries, before
// @ag-ui/client's own transforms): RUN_STARTED, per step its reasoning, text
// and tool calls, the tool results, then RUN_FINISHED or RUN_ERROR.
//
// Options:
//   steps:   wrap each step in STEP_STARTED / STEP_FINISHED (stepName
//            `step-<n>`), as LangGraph-style producers do. Without it the
//            consumer infers steps (stepline opens one at the first content
//            after the run starts or after tool results arrived).
//   chunked: send TEXT_MESSAGE_CHUNK / REASONING_MESSAGE_CHUNK /
//            TOOL_CALL_CHUNK instead of the START / CONTENT / END triples (the
//            id rides on every chunk; the consumer closes a message when
//            another event arrives, as @ag-ui/client's transformChunks does).
//
// A failing tool. AG-UI 1.x has no failure flag on TOOL_CALL_RESULT (its
// content is a string; only the ToolMessage of a MESSAGES_SNAPSHOT has an
// `error` member). The convention encoded here is the one of the reference
// Cloudflare Agents adapter (integrations/community/cloudflare-agents,
// `tool-error` → TOOL_CALL_RESULT): `content` is the JSON text
// `{"error": "<message>"}`. stepline's translator reads that shape (and the
// Claude Agent SDK adapter's `{"error": true, ...}`) as a failed tool.
//
// A tool that asks a person first (`approval`): AG-UI has no approval event;
// a run pauses on an interrupt. The step's calls are sent, then RUN_FINISHED
// with outcome `interrupt` (one interrupt per such tool, `reason`
// "tool_call", its `toolCallId`), then a new run (`<runId>-resume-<n>`)
// whose RUN_STARTED `input.resume` answers each interrupt: `resolved` with
// payload `{approved: true}`, or `cancelled` with `{approved: false}` for a
// denied tool, which never runs (no result). The approved tools' results
// follow in the resumed run. This is the shape of AG-UI's .NET sample
// `Step09_InterruptsApproval` (tests/vectors/dialects/ag-ui/upstream/).
//
// Usage: AG-UI reports token usage per run, on RUN_FINISHED / RUN_ERROR
// (`usage: TokenUsage[]`, one entry per provider and model): the steps'
// usage is summed into one entry (input, output, reasoning, cache read and
// cache write map one to one onto inputTokens, outputTokens, reasoningTokens,
// cachedInputTokens, cacheWriteInputTokens).

import { chunks, clock } from './run.mjs';

/** AG-UI events for `run`; see the options above. */
export function encode(run, { steps = false, chunked = false } = {}) {
  const time = clock(run.startedAt);
  const threadId = run.sessionId;
  let runId = run.executionId;
  let resumes = 0;
  let usageFrom = 0;
  const events = [];
  const at = (ms = 10) => time.tick(ms) && time.ms();
  const push = (event, ms) => events.push({ ...event, timestamp: at(ms) });

  push({ type: 'RUN_STARTED', threadId, runId }, 0);
  run.steps.forEach((step, i) => {
    const n = i + 1;
    if (steps) push({ type: 'STEP_STARTED', stepName: `step-${n}` });
    if (step.reasoning) {
      const messageId = `reasoning-${runId}-${n}`;
      push({ type: 'REASONING_START', messageId });
      streamMessage(push, {
        chunked, messageId, text: step.reasoning, size: run.chunkChars,
        start: { type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' },
        content: 'REASONING_MESSAGE_CONTENT', end: 'REASONING_MESSAGE_END', chunk: 'REASONING_MESSAGE_CHUNK',
      });
      push({ type: 'REASONING_END', messageId });
    }
    const messageId = `msg-${runId}-${n}`;
    if (step.text) {
      streamMessage(push, {
        chunked, messageId, text: step.text, size: run.chunkChars,
        start: { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
        content: 'TEXT_MESSAGE_CONTENT', end: 'TEXT_MESSAGE_END', chunk: 'TEXT_MESSAGE_CHUNK',
        chunkFields: { role: 'assistant' },
      });
    }
    for (const tool of step.tools ?? []) {
      const args = JSON.stringify(tool.args);
      // Arguments stream in pieces like any model output (never inside a surrogate pair).
      const pieces = chunks(args, Math.max(4, run.chunkChars * 2));
      if (chunked) {
        pieces.forEach((delta, k) => push({
          type: 'TOOL_CALL_CHUNK', toolCallId: tool.id,
          ...(k === 0 ? { toolCallName: tool.name, parentMessageId: messageId } : {}),
          delta,
        }));
      } else {
        push({ type: 'TOOL_CALL_START', toolCallId: tool.id, toolCallName: tool.name, parentMessageId: messageId });
        for (const delta of pieces) push({ type: 'TOOL_CALL_ARGS', toolCallId: tool.id, delta });
        push({ type: 'TOOL_CALL_END', toolCallId: tool.id });
      }
    }
    const result = (tool) => push({
      type: 'TOOL_CALL_RESULT',
      messageId: `result-${tool.id}`,
      toolCallId: tool.id,
      content: toolContent(tool),
      role: 'tool',
    }, 250);
    const asks = (step.tools ?? []).filter((tool) => tool.approval);
    for (const tool of step.tools ?? []) if (!tool.approval) result(tool);
    if (steps) push({ type: 'STEP_FINISHED', stepName: `step-${n}` });
    if (asks.length > 0) {
      push({
        type: 'RUN_FINISHED', threadId, runId,
        outcome: {
          type: 'interrupt',
          interrupts: asks.map((tool) => ({ id: `approval-${tool.id}`, reason: 'tool_call', message: `Approve ${tool.name}?`, toolCallId: tool.id })),
        },
        usage: [runUsage(run, usageFrom, i + 1)],
      });
      usageFrom = i + 1;
      resumes += 1;
      runId = `${run.executionId}-resume-${resumes}`;
      const resume = asks.map((tool) => ({
        interruptId: `approval-${tool.id}`,
        status: tool.approval === 'approved' ? 'resolved' : 'cancelled',
        payload: { approved: tool.approval === 'approved' },
      }));
      push({
        type: 'RUN_STARTED', threadId, runId,
        input: { threadId, runId, messages: [], tools: [], context: [], forwardedProps: {}, state: {}, resume },
      }, 5000);
      for (const tool of asks) if (tool.approval === 'approved') result(tool);
    }
  });
  const usage = [runUsage(run, usageFrom, run.steps.length)];
  if (run.outcome.status === 'failed') {
    push({ type: 'RUN_ERROR', message: run.outcome.error, code: 'provider_error', usage });
  } else {
    const last = run.steps[run.steps.length - 1];
    push({
      type: 'RUN_FINISHED', threadId, runId,
      ...(last?.text ? { result: last.text } : {}),
      outcome: { type: 'success' },
      usage,
    });
  }
  return events;
}

/** The content of a tool's TOOL_CALL_RESULT: its result as text, or the failure convention above. */
export function toolContent(tool) {
  if (tool.error !== undefined) return JSON.stringify({ error: tool.error });
  return typeof tool.result === 'string' ? tool.result : JSON.stringify(tool.result ?? null);
}

function streamMessage(push, { chunked, messageId, text, size, start, content, end, chunk, chunkFields = {} }) {
  const deltas = chunks(text, size);
  if (chunked) {
    deltas.forEach((delta, k) => push({ type: chunk, messageId, ...(k === 0 ? chunkFields : {}), delta }, 15));
    return;
  }
  push(start);
  for (const delta of deltas) push({ type: content, messageId, delta }, 15);
  push({ type: end, messageId });
}

/** The usage of steps [from, to) as one AG-UI TokenUsage entry (a run reports its own calls only). */
function runUsage(run, from = 0, to = run.steps.length) {
  const sum = (key) => run.steps.slice(from, to).reduce((total, step) => total + (step.usage?.[key] ?? 0), 0);
  // The run description's `input` / `output` are the totals (as laravel/ai's
  // prompt_tokens / completion_tokens), the cache and reasoning counts parts of them.
  const input = sum('input');
  const output = sum('output');
  return {
    provider: run.provider,
    model: run.model,
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    reasoningTokens: sum('reasoning'),
    cachedInputTokens: sum('cacheRead'),
    cacheWriteInputTokens: sum('cacheWrite'),
  };
}
