// AG-UI's own reducer as the oracle: @ag-ui/client's defaultApplyEvents, fed
// through its transformChunks (which expands *_CHUNK events, as HttpAgent does
// before applying), called the way its own tests call it
// (sdks/typescript/packages/client/src/apply/__tests__: an input, the event
// observable, an agent holding the starting messages, no subscribers).
import { defaultApplyEvents, transformChunks } from '@ag-ui/client';
import { from, lastValueFrom } from 'rxjs';
import { toArray } from 'rxjs/operators';

/** The messages and state @ag-ui/client ends with after `events`. */
export async function oracleApply(events, { threadId = 'thread', runId = 'run' } = {}) {
  const input = { threadId, runId, messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
  const agent = { messages: [], state: {} };
  const warn = console.warn;
  const warnings = [];
  // The reducer reports what it drops (content for an unknown message…) on console.warn.
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    const mutations = await lastValueFrom(
      defaultApplyEvents(input, from(events).pipe(transformChunks(false)), agent, []).pipe(toArray()),
    );
    let messages = [];
    let state = {};
    for (const m of mutations) {
      if (m.messages !== undefined) messages = m.messages;
      if (m.state !== undefined) state = m.state;
    }
    return { messages, state, warnings, pendingInterrupts: agent.pendingInterrupts ?? [] };
  } finally {
    console.warn = warn;
  }
}

/** What the comparison is about, from the oracle's messages: assistant texts, reasoning, tool calls, tool results. */
export function oracleFacts(messages) {
  const texts = [];
  const reasoning = [];
  const calls = [];
  const results = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (typeof m.content === 'string' && m.content !== '') texts.push(m.content);
      for (const c of m.toolCalls ?? []) calls.push({ id: c.id, name: c.function.name, args: c.function.arguments });
    } else if (m.role === 'reasoning') {
      if (m.content !== '') reasoning.push(m.content);
    } else if (m.role === 'tool') {
      results.push({ id: m.toolCallId, content: m.content });
    }
  }
  return { texts, reasoning, calls, results };
}
