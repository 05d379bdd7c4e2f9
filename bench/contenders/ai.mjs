// The `ai` package (AI SDK 6) in the peer comparison: the run (bench/agent-run.mjs) as UI
// message chunks, read with `readUIMessageStream`, the public API over the processor `useChat`
// uses (`processUIMessageStream`), taking the current message after every update.
//
// Mapping: `start`; per step `start-step`, the step's text as one text part (`text-start`,
// a `text-delta` per chunk, `text-end`), per tool call `tool-input-available` (the arguments
// whole, as v1.22 sends them) and `tool-output-available` or `tool-output-error`, then
// `finish-step`; `finish`. Like AG-UI, the chunks have no usage, durations or continuation.
//
// Driving: the API takes a ReadableStream and yields through an async iterator, so every
// chunk costs the stream hand-offs and promise turns the API imposes; there is no synchronous
// entry. The source stream hands out the next chunk whenever the processor pulls (it never
// waits for input), and the loop reads each message the iterator yields: a new copy of the
// whole message per update (`createUIMessageSnapshot`, a structuredClone with the text parts
// spliced back).
import { readUIMessageStream } from 'ai';

export const name = 'ai';
export const protocol = 'AI SDK UI message chunks';

/** The run as UI message chunk objects. */
export function encode(run) {
  const out = [{ type: 'start', messageId: 'msg-bench' }];
  for (const step of run.steps) {
    const id = `text-${step.number}`;
    out.push({ type: 'start-step' });
    out.push({ type: 'text-start', id });
    for (const delta of step.chunks) out.push({ type: 'text-delta', id, delta });
    out.push({ type: 'text-end', id });
    step.tools.forEach((tool, t) => {
      const toolCallId = `call-${step.number}-${t}`;
      out.push({ type: 'tool-input-available', toolCallId, toolName: tool.name, input: tool.args });
      out.push(tool.ok
        ? { type: 'tool-output-available', toolCallId, output: tool.result }
        : { type: 'tool-output-error', toolCallId, errorText: tool.error });
    });
    out.push({ type: 'finish-step' });
  }
  out.push({ type: 'finish', finishReason: 'stop' });
  return out;
}

/**
 * The live loop; resolves to the last message read and how many were read. With a
 * `deadline` (performance.now() time) it stops there and says how many chunks went in.
 */
export async function loop(chunks, { deadline = Infinity } = {}) {
  let fed = 0;
  // Pulled one chunk at a time (what a network stream does), so the count of chunks the
  // processor took is known when the loop stops early; the stream never waits for input.
  const stream = new ReadableStream({
    pull(controller) {
      if (fed < chunks.length) controller.enqueue(chunks[fed++]);
      else controller.close();
    },
  });
  let message;
  let reads = 0;
  const errors = [];
  const result = {};
  for await (const current of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) {
    message = current;
    reads += 1;
    if (performance.now() >= deadline) {
      result.partial = { processed: fed, total: chunks.length };
      break;
    }
  }
  if (errors.length) throw errors[0];
  return Object.assign(result, { view: message, reads });
}

/** The same run with each text part's deltas joined into one: the same final message from
 * far fewer chunks (the memory section). */
export function coalesce(chunks) {
  const out = [];
  for (const chunk of chunks) {
    const last = out[out.length - 1];
    if (chunk.type === 'text-delta' && last?.type === 'text-delta' && last.id === chunk.id) out[out.length - 1] = { ...last, delta: last.delta + chunk.delta };
    else out.push(chunk);
  }
  return out;
}

/** Throws unless the message is the whole run. */
export function check({ view, partial }, run) {
  if (partial) return;
  const texts = view.parts.filter((p) => p.type === 'text');
  const tools = view.parts.filter((p) => p.type.startsWith('tool-'));
  const expectedTools = run.steps.reduce((n, s) => n + s.tools.length, 0);
  const answer = run.steps[run.steps.length - 1].chunks.join('');
  if (texts.length !== run.steps.length || tools.length !== expectedTools || texts[texts.length - 1].text !== answer) {
    throw new Error(`ai: the stream did not build the run (${texts.length} text parts, ${tools.length} tool parts)`);
  }
}
