// A run description (./run.mjs) as the AI SDK 6 UI message stream: the
// chunks `streamText(...).toUIMessageStream()` writes (ai@6.0.324,
// src/generate-text/stream-text.ts), as plain objects, in wire order.
//
// Per step: `start-step`, the reasoning part, the text part, each tool's
// input (`tool-input-start`, `tool-input-delta` pieces of its JSON,
// `tool-input-available`), then each tool's output (`tool-output-available`
// or `tool-output-error`), `finish-step`. The run opens with `start`
// (messageId = the run's executionId) and closes with `finish` (the last
// step's finish reason). A failed run ends as a provider error does in
// streamText: an `error` chunk inside its last step, whose finish reason is
// `error`.
//
// A step whose tools ask a person first sends `tool-approval-request` for
// them and ends the response (`finish` with `tool-calls`); the next response
// continues the same message (`start` with the same messageId): the approved
// calls' outputs, `tool-output-denied` for the denied ones, then the next step.
//
// Options (all off by default, so the plain stream is what streamText sends
// without callbacks):
// - `metadata`: `start` carries `messageMetadata: {provider, model}`, a
//   `message-metadata` chunk after each step adds `{steps: n}`, and `finish`
//   adds `{usage: <run totals>}` (what a `messageMetadata` callback sends).
// - `sources`: each step with text cites one `source-url` before its text.
// - `data`: each step writes a `data-progress` part with id `progress`
//   (replaced step by step) and the run writes one `file` at the end.
// - `preliminary`: each successful tool first streams a preliminary output
//   (`{status: 'running'}`, `preliminary: true`).

import { chunks } from './run.mjs';

const FINISH = { tool_calls: 'tool-calls', stop: 'stop', length: 'length', error: 'error', content_filter: 'content-filter' };

/** A tool's output chunks: its error, or its (preliminary, then final) output. */
function output(out, tool, options) {
  if (tool.error !== undefined) {
    out.push({ type: 'tool-output-error', toolCallId: tool.id, errorText: tool.error });
    return;
  }
  if (options.preliminary) {
    out.push({ type: 'tool-output-available', toolCallId: tool.id, output: { status: 'running' }, preliminary: true });
  }
  // streamText writes null for an undefined output, so the field is always there.
  out.push({ type: 'tool-output-available', toolCallId: tool.id, output: tool.result ?? null });
}

/** Base64 of a string's UTF-8 (in Node and in browsers). */
function base64(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** The UI message stream finish reason of a run description's `finishReason`. */
export function finishReason(reason) {
  return FINISH[reason] ?? 'other';
}

/**
 * The UI message chunks of `run`.
 * @param {object} run a run description (./run.mjs)
 * @param {{metadata?: boolean, sources?: boolean, data?: boolean, preliminary?: boolean}} [options]
 * @returns {object[]} the chunks, in order
 */
export function encode(run, options = {}) {
  const out = [];
  const failed = run.outcome?.status === 'failed';
  const start = { type: 'start', messageId: run.executionId };
  if (options.metadata) start.messageMetadata = { provider: run.provider, model: run.model };
  out.push(start);
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  run.steps.forEach((step, i) => {
    const n = i + 1;
    const last = i === run.steps.length - 1;
    out.push({ type: 'start-step' });
    if (step.reasoning) {
      const id = `reasoning-${n}`;
      out.push({ type: 'reasoning-start', id });
      for (const delta of chunks(step.reasoning, run.chunkChars)) out.push({ type: 'reasoning-delta', id, delta });
      out.push({ type: 'reasoning-end', id });
    }
    if (step.text) {
      if (options.sources) {
        out.push({ type: 'source-url', sourceId: `src-${n}`, url: `https://example.com/sources/${n}`, title: `Source ${n}` });
      }
      const id = `text-${n}`;
      out.push({ type: 'text-start', id });
      for (const delta of chunks(step.text, run.chunkChars)) out.push({ type: 'text-delta', id, delta });
      out.push({ type: 'text-end', id });
    }
    for (const tool of step.tools ?? []) {
      out.push({ type: 'tool-input-start', toolCallId: tool.id, toolName: tool.name });
      for (const piece of chunks(JSON.stringify(tool.args), Math.max(4, run.chunkChars))) {
        out.push({ type: 'tool-input-delta', toolCallId: tool.id, inputTextDelta: piece });
      }
      out.push({ type: 'tool-input-available', toolCallId: tool.id, toolName: tool.name, input: tool.args });
    }
    const asking = (step.tools ?? []).filter((tool) => tool.approval);
    for (const tool of step.tools ?? []) {
      if (tool.approval) out.push({ type: 'tool-approval-request', approvalId: `approval-${tool.id}`, toolCallId: tool.id });
      else output(out, tool, options);
    }
    if (options.data) out.push({ type: 'data-progress', id: 'progress', data: { step: n, of: run.steps.length } });
    if (last && failed) out.push({ type: 'error', errorText: run.outcome.error ?? 'error' });
    out.push({ type: 'finish-step' });
    if (asking.length) {
      // The response ends waiting for a person; the client sends the answers
      // in its next request, whose response continues the same message: the
      // approved calls run (their output first), the denied ones are denied,
      // then the next step.
      out.push({ type: 'finish', finishReason: 'tool-calls' });
      out.push({ type: 'start', messageId: run.executionId });
      for (const tool of asking) {
        if (tool.approval === 'denied') out.push({ type: 'tool-output-denied', toolCallId: tool.id });
        else output(out, tool, options);
      }
    }
    for (const k of Object.keys(totals)) totals[k] += step.usage?.[k] ?? 0;
    if (options.metadata) out.push({ type: 'message-metadata', messageMetadata: { steps: n } });
  });
  if (options.data) out.push({ type: 'file', mediaType: 'text/plain', url: `data:text/plain;base64,${base64(run.executionId)}` });
  const lastStep = run.steps[run.steps.length - 1];
  const finish = { type: 'finish', finishReason: failed ? 'error' : finishReason(lastStep?.finishReason) };
  if (options.metadata) finish.messageMetadata = { usage: totals };
  out.push(finish);
  return out;
}
