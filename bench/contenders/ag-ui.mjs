// @ag-ui/client in the peer comparison: the run (bench/agent-run.mjs) as AG-UI events, fed
// through the client's event application pipeline, `defaultApplyEvents` (what
// `AbstractAgent.runAgent` applies events with), reading the messages after every event.
//
// Mapping: RUN_STARTED; per step STEP_STARTED, the step's text as one assistant message
// (TEXT_MESSAGE_START, a TEXT_MESSAGE_CONTENT per chunk, TEXT_MESSAGE_END), per tool call
// TOOL_CALL_START (parented to that message), TOOL_CALL_ARGS (the arguments as one JSON
// delta: v1.22 sends them whole), TOOL_CALL_END and TOOL_CALL_RESULT, then STEP_FINISHED;
// RUN_FINISHED. AG-UI has no fields for usage, durations or the continuation trace, so the
// events carry less than the v1.22 envelopes do.
//
// Driving: the events go in as one rxjs Observable (`from(events)`), the cheapest way to
// feed the pipeline; `defaultApplyEvents` applies them one at a time (`concatMap` over an
// async function, so each event costs at least a promise turn) and emits a mutation whenever
// the messages change. The loop takes each mutation's messages as the current view, as
// `AbstractAgent.processApplyEvents` does (`agent.messages = mutation.messages`). No
// subscribers: with none, the pipeline does the least work. `runAgent` itself would add
// event verification and chunk transformation on top.
import { createRequire } from 'node:module';

import { AbstractAgent, compactEvents, defaultApplyEvents } from '@ag-ui/client';
import { EventType } from '@ag-ui/core';

// The rxjs the client was built against (the pipeline calls its `pipe`).
const requireFromClient = createRequire(createRequire(import.meta.url).resolve('@ag-ui/client'));
const { from, lastValueFrom, takeWhile, tap } = requireFromClient('rxjs');

export const name = '@ag-ui/client';
export const protocol = 'AG-UI events';

const THREAD = 'thread-bench';
const RUN = 'run-1';

/** The run as AG-UI event objects. */
export function encode(run) {
  const out = [{ type: EventType.RUN_STARTED, threadId: THREAD, runId: RUN }];
  for (const step of run.steps) {
    const stepName = `step ${step.number}`;
    const messageId = `msg-${step.number}`;
    out.push({ type: EventType.STEP_STARTED, stepName });
    out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    for (const delta of step.chunks) out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
    out.push({ type: EventType.TEXT_MESSAGE_END, messageId });
    step.tools.forEach((tool, t) => {
      const toolCallId = `call-${step.number}-${t}`;
      out.push({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: tool.name, parentMessageId: messageId });
      out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(tool.args) });
      out.push({ type: EventType.TOOL_CALL_END, toolCallId });
      out.push({ type: EventType.TOOL_CALL_RESULT, messageId: `result-${step.number}-${t}`, toolCallId, role: 'tool', content: tool.ok ? tool.result : `Error: ${tool.error}` });
    });
    out.push({ type: EventType.STEP_FINISHED, stepName });
  }
  out.push({ type: EventType.RUN_FINISHED, threadId: THREAD, runId: RUN });
  return out;
}

/** A real agent for the pipeline's `agent` argument; it never runs. */
class ReplayAgent extends AbstractAgent {
  run() { throw new Error('not used'); }
}

// The events after which the pipeline emits a mutation (the messages changed); the others
// (steps, run start and finish, the ends of a message or tool call) emit none.
const MUTATING = new Set([EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_CONTENT, EventType.TOOL_CALL_START,
  EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_RESULT]);

/**
 * The live loop; resolves to the last messages and state read. With a `deadline`
 * (performance.now() time) it stops there and says how many events it had applied.
 */
export async function loop(events, { deadline = Infinity } = {}) {
  const agent = new ReplayAgent({ threadId: THREAD });
  const input = { threadId: THREAD, runId: RUN, state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  let mutations = 0;
  let stopped = false;
  // What processApplyEvents does with each mutation, minus the subscriber callbacks.
  await lastValueFrom(defaultApplyEvents(input, from(events), agent, []).pipe(
    tap((mutation) => {
      mutations += 1;
      if (mutation.messages) agent.messages = mutation.messages;
      if (mutation.state !== undefined) agent.state = mutation.state;
    }),
    takeWhile(() => performance.now() < deadline || !(stopped = true)),
  ), { defaultValue: undefined });
  const result = { view: { messages: agent.messages, state: agent.state }, mutations };
  if (stopped) {
    // The n-th mutation came from the n-th event that changes the messages.
    let seen = 0;
    const at = events.findIndex((e) => MUTATING.has(e.type) && ++seen === mutations);
    result.partial = { processed: at + 1, total: events.length };
  }
  return result;
}

/** The same run with every message's and tool call's deltas merged by the client's own
 * `compactEvents`: the same final messages from far fewer events (the memory section). */
export const coalesce = (events) => compactEvents(events);

/** Throws unless the messages are the whole run. */
export function check({ view, mutations, partial }, run, events) {
  if (partial) return;
  const expected = run.steps.length + run.steps.reduce((n, s) => n + s.tools.length, 0);
  const answer = view.messages.find((m) => m.id === `msg-${run.steps.length}`);
  const text = run.steps[run.steps.length - 1].chunks.join('');
  const calls = view.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0);
  const mutating = events ? events.filter((e) => MUTATING.has(e.type)).length : mutations;
  if (view.messages.length !== expected || answer?.content !== text || calls !== expected - run.steps.length || mutations !== mutating) {
    throw new Error(`@ag-ui/client: the pipeline did not build the run (${view.messages.length} messages, ${calls} tool calls, ${mutations} mutations)`);
  }
}
