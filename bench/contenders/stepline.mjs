// stepline in the peer comparison: the run (bench/agent-run.mjs) as the v1.22 `agent.*`
// envelopes the reference producer broadcasts (debug preset: tool arguments and the
// continuation trace included, as bench/generate-envelopes.mjs writes them), and the live
// UI loop a page runs on them: `session.ingest(envelope)`, then `session.getSnapshot()`
// after every one (what React's useSyncExternalStore does on each notification).
import { Session, version } from 'stepline';

import { continuation } from '../generate-envelopes.mjs';

export const name = 'stepline';
export const protocol = 'v1.22 agent.* envelopes';

const SESSION = 'sess-bench';
const EXECUTION = 'exec-1';
const BASE = Date.UTC(2026, 0, 20, 12, 0, 0);

/** The run as plain envelope objects (as `JSON.parse` of a broadcast gives them). */
export function encode(run) {
  const out = [];
  let clock = BASE;
  const push = (type, payload, after = 10) => {
    out.push({ type, session_id: SESSION, execution_id: EXECUTION, timestamp: new Date(clock).toISOString(), payload });
    clock += after;
  };
  let chunkIndex = 0; // counts for the whole execution, not per step
  let tokens = 0;
  push('agent.status', { status: 'processing', previous_status: 'idle' });
  for (const step of run.steps) {
    const last = step.tools.length === 0;
    const started = clock;
    push('agent.step.started', { step_number: step.number, message_count: 1 + step.number * 2, available_tools: 6 }, 200);
    for (const content of step.chunks) push('agent.stream.chunk', { content, is_complete: false, chunk_index: chunkIndex++ }, 15);
    for (const tool of step.tools) {
      push('agent.tool.started', { tool_name: tool.name, tool_call_id: null, args: tool.args }, tool.ms);
      push('agent.tool.completed', {
        tool_name: tool.name, tool_call_id: null, success: tool.ok, error: tool.error, duration_ms: tool.ms, result_summary: null,
      });
    }
    const usage = { input: 1000 + step.number, output: 100 + step.chunks.length, cacheWrite: 0, cacheRead: 0, reasoning: 0 };
    tokens += usage.input + usage.output;
    // The reference broadcasts the final status before the last step's completion.
    if (last) push('agent.status', { status: 'completed', previous_status: 'processing' });
    push('agent.continuation', continuation(step.number, !last, tokens));
    push('agent.step.completed', {
      step_number: step.number, has_tool_calls: !last, errors: step.tools.filter((t) => !t.ok).length,
      finish_reason: last ? 'stop' : 'tool_calls', usage, duration_ms: clock - started,
    });
  }
  return out;
}

/**
 * The live loop; returns the session (the caller frees it) and the last view read.
 * `Session` may be another entry's class (the memory probe uses the web entry's);
 * `sessionOptions` are `new Session()`'s (`{ record: false }` for a session that keeps no log).
 */
export function loop(envelopes, { Session: SessionClass = Session, sessionOptions } = {}) {
  const session = new SessionClass(sessionOptions);
  let view;
  for (const envelope of envelopes) {
    session.ingest(envelope);
    view = session.getSnapshot();
  }
  return { handle: session, view };
}

/** Throws unless the view is the whole run: every step completed, every chunk and tool there. */
export function check({ view }, run) {
  const exec = view.executions[0];
  const chunks = run.steps.reduce((n, s) => n + s.chunks.length, 0);
  const problems = [];
  if (view.status !== 'completed') problems.push(`status ${view.status}`);
  if (exec.steps.length !== run.steps.length) problems.push(`${exec.steps.length} steps, not ${run.steps.length}`);
  if (!exec.steps.every((s) => s.seen.completed)) problems.push('a step is not completed');
  if (exec.missing_chunks.length || exec.missing_steps.length) problems.push('missing chunks or steps');
  const tools = exec.steps.reduce((n, s) => n + s.tools.length, 0);
  const expectedTools = run.steps.reduce((n, s) => n + s.tools.length, 0);
  if (tools !== expectedTools) problems.push(`${tools} tool runs, not ${expectedTools}`);
  if (view.counts.applied !== run.events) problems.push(`${view.counts.applied} applied, not ${run.events}`);
  if (problems.length) throw new Error(`stepline: the live loop did not build the run (${chunks} chunks): ${problems.join('; ')}`);
}

export const versionOf = () => version();
