// The what-if panel re-evaluates a run under other continuation limits with
// stepline's replayContinuation, which reads an AgentState. A recording or a
// live stream has no state, so this builds the smallest state the evaluator
// needs from what was streamed: per step its usage, finish reason, tool calls,
// tool failures (as errors) and timing, plus the streamed continuation as the
// recorded outcome to compare with.
import type { ExecutionView, StepView, ToolRunView, UsageWithTotal } from 'stepline';

const NO_USAGE = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0, reasoning: 0 };

function usage(u: UsageWithTotal | null) {
  return u ? { input: u.input, output: u.output, cacheWrite: u.cacheWrite, cacheRead: u.cacheRead, reasoning: u.reasoning } : NO_USAGE;
}

function callOf(step: StepView, tool: ToolRunView, i: number) {
  const args = tool.args !== null && typeof tool.args === 'object' ? tool.args : [];
  return { id: tool.call_id ?? `call_${step.number}_${i + 1}`, name: tool.name, arguments: args };
}

/** The streamed decision as the producer's outcome (`decision` is never `allow`). */
function recordedOutcome(step: StepView) {
  const c = step.continuation;
  if (!c) return undefined;
  const evaluations = Array.isArray(c.evaluations)
    ? (c.evaluations as { criterion?: string; decision?: string; reason?: string }[]).map((e) => ({
      criterion: e.criterion ?? '', decision: e.decision ?? 'allow', reason: e.reason ?? '', stopReason: null, context: [],
    }))
    : [];
  const decision = c.should_continue ? 'request' : c.resolved_by === 'aggregate' ? 'stop' : 'forbid';
  return { decision, shouldContinue: c.should_continue, resolvedBy: c.resolved_by ?? '', stopReason: c.stop_reason ?? '', evaluations };
}

/**
 * An AgentState-shaped object for `replayContinuation`, built from one
 * execution of the streamed view.
 */
export function stateFromExecution(exec: ExecutionView): object {
  const results = exec.steps.map((step) => {
    const at = step.started_at ?? step.completed_at ?? exec.first_at ?? new Date(0).toISOString();
    const calls = step.tools.map((tool, i) => callOf(step, tool, i));
    const requested = step.has_tool_calls === false ? [] : calls;
    const agentStep = {
      stepInfo: { id: step.step_id ?? `step-${step.number}`, createdAt: at },
      toolCalls: requested,
      toolExecutions: step.tools.map((tool, i) => ({
        toolCall: calls[i], tool: tool.name, args: calls[i].arguments, result: null, error: tool.error,
        startedAt: tool.started_at ?? at, endedAt: tool.completed_at ?? tool.started_at ?? at,
      })),
      errors: step.tools
        .filter((tool) => tool.status === 'failed')
        .map((tool) => ({ message: tool.error ?? `${tool.name} failed`, class: 'RuntimeException' })),
      usage: usage(step.usage),
      inferenceResponse: {
        finishReason: step.finish_reason ?? '', toolCalls: requested, usage: usage(step.usage),
        responseData: { statusCode: 0, body: '', headers: [], isStreamed: true },
      },
    };
    const outcome = recordedOutcome(step);
    return {
      step: agentStep,
      ...(outcome ? { outcome } : {}),
      ...(step.started_at ? { startedAt: step.started_at } : {}),
      ...(step.completed_at ? { completedAt: step.completed_at } : {}),
    };
  });
  return { status: 'in_progress', steps: results.map((r) => r.step), stepResults: results };
}
