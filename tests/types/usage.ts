// Type test: compiles only if the published declarations describe the API as used
// here. Checked by `tsc --noEmit` under Node (tsconfig.json) and browser/bundler
// (tsconfig.browser.json) resolution, both through the package's exports map.
import { SteplineError, version } from 'stepline';
import type { SteplineErrorCode } from 'stepline';

const v: string = version();

function describe(error: unknown): string {
  if (error instanceof SteplineError) {
    const code: SteplineErrorCode = error.code;
    const path: string | null = error.path;
    const message: string = error.message;
    return `${code} at ${path ?? '(input)'}: ${message}`;
  }
  return String(error);
}

// @ts-expect-error: codes are a closed union, not any string
const bogus: SteplineErrorCode = 'no_such_code';

// @ts-expect-error: the error class is registered internally and is not part of the API
import { __registerErrorClass } from 'stepline';

export { v, describe, bogus, __registerErrorClass };

// The data API: returned values are typed by the emitted declarations.
import {
  parseAgentState, normalizeInferenceResponse, InferenceStreamAccumulator,
  isUser, isSystem, hasRole,
} from 'stepline';
import type { AgentState, AgentStateV2, StopReasonV2, AgentStep, StepType, FinishReason, NormalizedInference, StreamDelta, Message } from 'stepline';

// parseAgentState reads either release; `stateVersion` (v2 only) tells them apart.
const parsed = parseAgentState('{}', { now: '2026-01-20T12:00:00Z' });
if ('stateVersion' in parsed) throw new Error('expected a v1.22 state');
const state: AgentState = parsed;
const bare: AgentState | AgentStateV2 = parseAgentState('{}'); // options are optional
const v2Reason: StopReasonV2 | null = 'stateVersion' in bare ? bare.derived.stopReason : null;
const firstStep: AgentStep | undefined = state.steps[0];
const kind: StepType | undefined = firstStep?.stepType;
const reason: FinishReason | undefined = firstStep?.finishReason;
const total: number = state.usage.total;
const duration: number | null = firstStep?.durationMs ?? null;
const requested: string[] = (firstStep?.requestedToolCalls ?? []).map((c) => c.name);

switch (kind) {
  case 'error':
  case 'tool_execution':
  case 'final_response':
  case undefined:
    break;
  default: {
    const never: never = kind;
    void never;
  }
}

const normalized: NormalizedInference = normalizeInferenceResponse({ choices: [] }, { compat: { toolArgsAsContent: false } });
const appended: Message | null = normalized.assistantMessage;
const acc = new InferenceStreamAccumulator({ provider: 'openai' });
const delta: StreamDelta = acc.push('data: [DONE]');
const count: number = acc.chunkCount;
acc.free();

const flags: boolean[] = [isUser({ role: 'user' }), isSystem({ role: 'developer' }), hasRole({ role: 'tool' }, ['tool', 'user'])];

// @ts-expect-error: options are checked
parseAgentState('{}', { nwo: 1 });
// @ts-expect-error: roles are a closed union
hasRole({ role: 'tool' }, 'robot');

export { bare, v2Reason, state, reason, total, duration, requested, appended, delta, count, flags };

// Continuation: outcomes, specs as data, replays.
import { evaluateContinuation, resolveOutcome, replayContinuation } from 'stepline';
import type { ExplainedOutcome, ContinuationReplay, CriterionSpec } from 'stepline';

const specs: CriterionSpec[] = [
  { kind: 'steps_limit', max: 5 },
  { kind: 'response_content_check', continueWhen: (r: string) => r.includes('TODO') },
  { kind: 'error_policy', policy: 'retryToolErrors(3)' },
];
const outcome: ExplainedOutcome = evaluateContinuation(state, specs, { now: Date.now() });
const why: string = outcome.explanation;
const resolved: boolean = resolveOutcome([{ criterion: 'A\\B', decision: 'allow' }]).shouldContinue;
const replayed: ContinuationReplay = replayContinuation(state, { defaults: { maxSteps: 5 } });
const stopsAt: number | null = replayed.stopsAtStep;
// @ts-expect-error: unknown criterion kinds are rejected by the types too
evaluateContinuation(state, [{ kind: 'steps', max: 5 }]);

export { why, resolved, stopsAt };

// Envelopes: a discriminated union on `type`.
import { decodeEnvelope, tryDecodeEnvelope, EnvelopeEncoder } from 'stepline';
import type { Envelope, EnvelopeDialect } from 'stepline';

function render(e: Envelope): string {
  switch (e.type) {
    case 'agent.stream.chunk':
      return e.payload.content;
    case 'agent.tool.started':
      return e.payload.tool_name;
    case 'agent.status':
      return e.payload.status;
    default:
      return e.type;
  }
}
const decoded = decodeEnvelope('{}');
const line: string = render(decoded);
const tried = tryDecodeEnvelope({});
const code: string | undefined = tried.ok ? undefined : tried.error.code;
const encoder = new EnvelopeEncoder({ sessionId: 's', config: { preset: 'debug', maxMessageBytes: 8000 } });
const channel: string | undefined = encoder.push({ event: 'AgentStepStarted', args: { stepNumber: 1 } })[0]?.channel;
// @ts-expect-error: a chunk payload has no tool_name
function wrong(e: Extract<Envelope, { type: 'agent.stream.chunk' }>) { return e.payload.tool_name; }

export { line, code, channel, wrong };

// Live sessions: the snapshot is typed all the way down to tool runs.
import { Session } from 'stepline';
import type { SessionView, ReconcileReport, Difference } from 'stepline';

const live = new Session({ sessionId: 's' });
const unsubscribe: () => void = live.subscribe(() => {});
const ingested: boolean = live.ingest(decoded).applied;
const view: SessionView = live.getSnapshot();
const toolStatus: 'running' | 'succeeded' | 'failed' | undefined = view.executions[0]?.steps[0]?.tools[0]?.status;
const report: ReconcileReport = live.reconcile('{}');
const kinds: Difference['kind'][] = report.differences.map((d) => d.kind);
const differenceSteps: (number | null)[] = report.differences.map((d) => d.step);
const outsideWindow: number = report.window.outside_step_count;
const firstInWindow: number | null = report.window.first_step;
const place: 'inside' | 'outside' | 'beyond' | undefined = report.view.executions[0]?.steps[0]?.snapshot_window;
import { reconcileCauses } from 'stepline';
import type { ReconcileCause } from 'stepline';
const causes: ReconcileCause[] = reconcileCauses();
const causeOf: ReconcileCause | undefined = causes.find((c) => c.name === report.differences[0]?.cause);
const causeProducer: 'v1.22' | 'v2' | undefined = causeOf?.producer;
// @ts-expect-error: the live view's steps carry no window marker; only reconcile()'s view does
const notLive = view.executions[0]?.steps[0]?.snapshot_window;
export { differenceSteps, outsideWindow, firstInWindow, place, notLive };
const finalOutput: string = live.collect().final_output;
// What only a devtools needs is in stepline/devtools, whose Session has every method.
import { Session as DevtoolsSession, diagnose } from 'stepline/devtools';
const tools: DevtoolsSession = DevtoolsSession.fromRecording(live.toRecording());
const codes: string[] = diagnose({ envelopes: [decoded] }).map((d) => d.code);
const ownCodes: string[] = tools.diagnose({ snapshot: null, includeToolResults: false }).map((d) => d.code);
tools.diagnose();
const atTen: SessionView = tools.timeline().viewAt(10);
// @ts-expect-error: a session diagnoses its own envelopes, none are passed
tools.diagnose({ envelopes: [decoded] });
// @ts-expect-error: stepline's Session has no devtools methods (stepline/devtools has them)
live.diagnose();
// @ts-expect-error: nor the timeline
live.timeline();
// @ts-expect-error: unknown session options are rejected by the types too
new Session({ sesionId: 's' });
unsubscribe();

export { ingested, toolStatus, kinds, finalOutput, codes, ownCodes, atTen };

// Run logs: summaries are typed.
import { RunLog } from 'stepline';
const runLog = RunLog.load('');
const p95: number | null = runLog.summary().durations.step_ms.p95;
const reloaded: Session = Session.fromRecording(live.toRecording());
export { p95, reloaded };

// Optional arguments are optional in the declarations too; the view methods fit React's
// useSyncExternalStore (signature as in @types/react) passed as they are.
import { validateSnapshot } from 'stepline';
encoder.status('completed');
encoder.status('failed', { error: 'Tool search failed' });
encoder.reset();
encoder.reset('exec-2');
declare function useSyncExternalStore<T>(subscribe: (onStoreChange: () => void) => () => void, getSnapshot: () => T): T;
const storeView: SessionView = useSyncExternalStore(live.subscribe, live.getSnapshot);
// @ts-expect-error: a listener is called with no arguments
live.subscribe((changed: string) => changed);
const untrustedBody: unknown = JSON.parse('{}');
const checked: boolean = validateSnapshot(untrustedBody).valid;
export { storeView, checked };
// Why a turn ended, annotations and stale turns (issue 15): typed, not `unknown`.
const watched = new Session({ sessionId: 's', staleAfterMs: 120_000 });
const changed: boolean = watched.setNow(Date.now()) || watched.setNow('2026-01-20T12:00:00.250Z');
const turn = watched.getSnapshot().executions[0];
const endedWhy: string | null | undefined = turn?.error_message;
const stale: boolean | undefined = turn?.stale;
const verdict: 'allow' | 'review' | 'block' | undefined = turn?.steps[0]?.annotations?.safety[0]?.verdict;
const summary: string | null | undefined = watched.collect().turns[0]?.tool_results[0]?.result_summary;
// @ts-expect-error: the time is epoch milliseconds or an RFC 3339 string
watched.setNow(new Date());
export { changed, endedWhy, stale, verdict, summary };
// instructor-php v2.7 (issue 16): the dialect of a decoded envelope and what a v2 run's view says.
const dialect: EnvelopeDialect | undefined = tried.ok ? tried.dialect : undefined;
// @ts-expect-error: dialects are named, not free strings
const notADialect: EnvelopeDialect = 'v3';
const closing: string | null | undefined = turn?.closing_status;
const frames: number | undefined = turn?.provider_frames;
const neverRan: number | null | undefined = turn?.never_ran_step;
const failedAttempt: boolean | undefined = turn?.steps[0]?.attempt_failed;
const frameOf = (e: Extract<Envelope, { type: 'agent.stream.chunk' }>): 'openai' | 'anthropic' | undefined => e.payload.provider_frame;
export { dialect, notADialect, closing, frames, neverRan, failedAttempt, frameOf };
