// laravel/ai's broadcast stream for a run description (see run.mjs): the
// payloads exactly as its stream event classes' toArray() writes them, in the
// order BroadcastAgent sends them. The broadcast event name of each is its
// `type` (StreamEvent::broadcast calls `->as($this->type())`).
//
// Shapes (laravel/ai src/Streaming/Events/*.php, commit 516f289, and the newer
// ToolApprovalRequest / stream_failed, see tests/vectors/dialects/laravel-ai/README.md):
//   stream_start    {id, invocation_id, type, provider, model, timestamp, metadata}
//   text_start      {id, invocation_id, type, message_id, timestamp}
//   text_delta      {id, invocation_id, type, message_id, delta, timestamp}
//   text_end        {id, invocation_id, type, message_id, timestamp}
//   reasoning_start {id, invocation_id, type, reasoning_id, timestamp}
//   reasoning_delta {id, invocation_id, type, reasoning_id, delta, timestamp, summary}
//   reasoning_end   {id, invocation_id, type, reasoning_id, timestamp, summary}
//   tool_call       {id, invocation_id, type, tool_id, tool_name, arguments, reasoning_id, timestamp}
//   tool_result     {id, invocation_id, type, tool_id, tool_name, result, successful, error, timestamp}
//   stream_end      {id, invocation_id, type, reason, usage: Usage::toArray(), timestamp}
//   Error           {id, invocation_id, type: <error type>, message, recoverable, timestamp, metadata}
//   tool_approval_request {id, invocation_id, type, approvals: [PendingApproval::toArray()], timestamp}
//                   (newer laravel/ai; PendingApproval: {id, tool, arguments, reason, tool_call_id})
//
// `timestamp` is Unix seconds (Prism and laravel/ai's fake gateway stamp
// events with PHP's time()). Event ids are Prism's `evt_` + ULID, lower-cased
// by PrismStreamEvent; the invocation id is the run's execution id.
//
// Tools that ask a person first (`approval` in the description): the step's
// other tools run, then a tool_approval_request pauses the run. The person's
// decision resumes it as a new agent call, so under a new invocation id
// (`<executionId>-resumed-<n>`; laravel/ai makes a fresh uuid7 per call),
// which reports each decided tool first: an approved one's result, a denied
// one as a failed result with `denied: true` (derived from docs: laravel/ai
// pull request #773; the resumed order is not in the stored source).
//
// Two stream layouts, because the producers differ:
// - `perStep: true` (default, newer laravel/ai): each provider step is its own
//   stream_start … stream_end with that step's usage and reason (the AG-UI and
//   Vercel protocols of laravel/ai open a new step at every repeated
//   stream_start and sum the stream_end usages); tool results follow the
//   step's stream_end, as the SDK runs the tools between provider calls.
// - `perStep: false` (Prism's own multi-step loop, 516f289): one stream_start,
//   tool results inline before the next step's output, one stream_end at the
//   end with the reason of the last step and the usage of the whole run.
// A failed run ends with a non-recoverable provider Error and then the
// `stream_failed` Error BroadcastAgent::failed() broadcasts (laravel/ai #536);
// the failing step sends no stream_end.

import { chunks, clock } from './run.mjs';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** A ULID-shaped, lower-cased id for time `ms` and a counter (deterministic). */
function ulid(ms, n) {
  let time = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rest = '';
  let c = n;
  for (let i = 0; i < 16; i++) {
    rest = CROCKFORD[c % 32] + rest;
    c = Math.floor(c / 32);
  }
  return time + rest;
}

/** Usage::toArray() of a description's usage. */
export function usageArray(u) {
  return {
    prompt_tokens: u?.input ?? 0,
    completion_tokens: u?.output ?? 0,
    cache_write_input_tokens: u?.cacheWrite ?? 0,
    cache_read_input_tokens: u?.cacheRead ?? 0,
    reasoning_tokens: u?.reasoning ?? 0,
  };
}

/** The reason laravel/ai writes on stream_end for a description's finish reason. */
export function streamEndReason(finishReason) {
  return finishReason ?? 'stop';
}

/**
 * The broadcast payloads of `run`, in order.
 *
 * @param {object} run a run description (run.mjs)
 * @param {{perStep?: boolean}} [options]
 * @returns {object[]}
 */
export function encode(run, options = {}) {
  const perStep = options.perStep ?? true;
  const time = clock(run.startedAt);
  let invocation = run.executionId;
  let resumes = 0;
  const out = [];
  let serial = 0;
  const base = (type, ms = 20) => {
    time.tick(ms);
    serial += 1;
    return { id: `evt_${ulid(time.ms(), serial)}`, invocation_id: invocation, type };
  };
  const stamp = (event) => ({ ...event, timestamp: time.unix() });
  const streamStart = () => out.push(stamp({ ...base('stream_start'), provider: run.provider, model: run.model, metadata: null }));
  const failed = run.outcome?.status === 'failed';
  const total = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

  if (!perStep) streamStart();
  run.steps.forEach((step, i) => {
    const n = i + 1;
    const last = i === run.steps.length - 1;
    if (perStep) streamStart();
    let reasoningId = null;
    if (step.reasoning) {
      reasoningId = `rs_${ulid(time.ms(), n * 1000)}`;
      out.push(stamp({ ...base('reasoning_start'), reasoning_id: reasoningId }));
      for (const delta of chunks(step.reasoning, run.chunkChars)) {
        out.push({ ...stamp({ ...base('reasoning_delta', 15), reasoning_id: reasoningId, delta }), summary: null });
      }
      out.push({ ...stamp({ ...base('reasoning_end'), reasoning_id: reasoningId }), summary: null });
    }
    if (step.text) {
      const messageId = `msg_${ulid(time.ms(), n * 1000 + 1)}`;
      out.push(stamp({ ...base('text_start'), message_id: messageId }));
      for (const delta of chunks(step.text, run.chunkChars)) {
        out.push(stamp({ ...base('text_delta', 15), message_id: messageId, delta }));
      }
      out.push(stamp({ ...base('text_end'), message_id: messageId }));
    }
    const tools = step.tools ?? [];
    for (const tool of tools) {
      const event = base('tool_call', 30);
      out.push(stamp({ ...event, tool_id: tool.id, tool_name: tool.name, arguments: tool.args, reasoning_id: reasoningId }));
    }
    const gated = tools.filter((t) => t.approval);
    const results = () => {
      for (const tool of tools.filter((t) => !t.approval)) {
        const event = base('tool_result', 250);
        const ok = tool.error === undefined;
        // A failing tool's result is its error message (Prism's CallsTools).
        out.push(stamp({ ...event, tool_id: tool.id, tool_name: tool.name, result: ok ? tool.result : tool.error, successful: ok, error: ok ? null : tool.error }));
      }
    };
    for (const k of Object.keys(total)) total[k] += step.usage?.[k] ?? 0;
    if (failed && last) return;
    const decide = () => {
      if (gated.length === 0) return;
      out.push(stamp({ ...base('tool_approval_request', 30), approvals: gated.map((t) => ({ id: t.id, tool: t.name, arguments: t.args, reason: null, tool_call_id: t.id })) }));
      resumes += 1;
      invocation = `${run.executionId}-resumed-${resumes}`;
      for (const tool of gated) {
        const event = base('tool_result', 2000);
        const approved = tool.approval === 'approved';
        out.push({
          ...stamp({ ...event, tool_id: tool.id, tool_name: tool.name, result: approved ? tool.result ?? null : null, successful: approved, error: null }),
          denied: !approved,
        });
      }
    };
    if (perStep) {
      out.push(stamp({ ...base('stream_end'), reason: streamEndReason(step.finishReason), usage: usageArray(step.usage) }));
      results();
      decide();
    } else {
      results();
      decide();
      if (last) out.push(stamp({ ...base('stream_end'), reason: streamEndReason(step.finishReason), usage: usageArray(total) }));
    }
  });
  if (failed) {
    out.push(stamp({ ...base('server_error'), message: run.outcome.error ?? 'The provider failed.', recoverable: false, metadata: null }));
    out.push(stamp({ ...base('stream_failed'), message: 'The agent stream failed.', recoverable: false, metadata: null }));
  }
  return out.map(order);
}

// The key order of each class's toArray(), so the payloads read as PHP writes them.
const KEYS = {
  stream_start: ['id', 'invocation_id', 'type', 'provider', 'model', 'timestamp', 'metadata'],
  text_start: ['id', 'invocation_id', 'type', 'message_id', 'timestamp'],
  text_delta: ['id', 'invocation_id', 'type', 'message_id', 'delta', 'timestamp'],
  text_end: ['id', 'invocation_id', 'type', 'message_id', 'timestamp'],
  reasoning_start: ['id', 'invocation_id', 'type', 'reasoning_id', 'timestamp'],
  reasoning_delta: ['id', 'invocation_id', 'type', 'reasoning_id', 'delta', 'timestamp', 'summary'],
  reasoning_end: ['id', 'invocation_id', 'type', 'reasoning_id', 'timestamp', 'summary'],
  tool_call: ['id', 'invocation_id', 'type', 'tool_id', 'tool_name', 'arguments', 'reasoning_id', 'timestamp'],
  tool_result: ['id', 'invocation_id', 'type', 'tool_id', 'tool_name', 'result', 'successful', 'error', 'timestamp', 'denied'],
  tool_approval_request: ['id', 'invocation_id', 'type', 'approvals', 'timestamp'],
  stream_end: ['id', 'invocation_id', 'type', 'reason', 'usage', 'timestamp'],
  error: ['id', 'invocation_id', 'type', 'message', 'recoverable', 'timestamp', 'metadata'],
};

function order(event) {
  const keys = KEYS[event.type] ?? KEYS.error;
  // `denied` only on the results of decided approvals.
  return Object.fromEntries(keys.filter((k) => k in event).map((k) => [k, event[k]]));
}

/** The broadcast event name of a payload: its `type` (StreamEvent::broadcast). */
export function eventName(event) {
  return event.type;
}
