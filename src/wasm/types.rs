//! TypeScript declarations for the data stepline returns. They describe the
//! producer's wire format (field names exactly as on the wire) and are emitted
//! into the generated `.d.ts` by wasm-bindgen, so they ship with the code.

use wasm_bindgen::prelude::*;

/// The declarations generated from the Rust types (`npm run gen`, from
/// src/schema.rs): every shape the API reads and returns.
#[wasm_bindgen(typescript_custom_section)]
const GENERATED_TYPES: &'static str = include_str!("generated/types.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const DATA_TYPES: &'static str = r#"
/** The status of a v2 execution (declared here: the live entry's `SlimSnapshot` names it too); `null` between executions. */
export type ExecutionStatusV2 = "pending" | "in_progress" | "completed" | "stopped" | "failed";
/** One of v2's ten stop reasons (lower priority wins: `error` 0 … `unknown` 9). */
export type StopReasonV2 = "error" | "stop_requested" | "user_requested" | "steps_limit" | "token_limit"
  | "time_limit" | "retry_limit" | "finish_reason" | "completed" | "unknown";
/** A v2 stop signal. */
export interface StopSignalV2 { reason: StopReasonV2; message: string; context: PhpMap; source: string | null }

/** A continuation decision. */
export type ContinuationDecision = "forbid" | "allow" | "request" | "stop";

/** Anything with a `role`, e.g. a message from a state or your own UI model. */
export interface MessageLike { role?: string }

/** One executed tool call; `durationMs` (stepline) is the real interval. */
export interface ToolExecution {
  toolCall: { id: string; name: string; arguments: Record<string, unknown> | unknown[] };
  tool: string;
  args: Record<string, unknown> | unknown[];
  result: unknown;
  error: string | null;
  startedAt: string;
  endedAt: string;
  durationMs: number;
}

/** One agent step with stepline's derived values. */
export interface AgentStep {
  stepInfo: { id: string; createdAt: string };
  inputMessages: Message[];
  outputMessages: Message[];
  /** The step's stored tool calls (the producer's `hasToolCalls()` reads these). */
  toolCalls: ToolCall[];
  toolExecutions: ToolExecution[];
  errors: { message: string; class: string }[];
  usage: UsageWithTotal;
  inferenceResponse: InferenceResponseData;
  stepType: StepType;
  annotations?: StepAnnotations;
  /** Tool calls the model asked for (from the inference response). */
  requestedToolCalls: ToolCall[];
  /** Tool calls that were executed (from the executions). */
  executedToolCalls: ToolCall[];
  finishReason: FinishReason;
  /** Real duration when the step's start and end are stored, else `null`. */
  durationMs: number | null;
}

/** One criterion's explained vote. `criterion` is a full PHP class name. */
export interface ContinuationEvaluation {
  criterion: string;
  decision: ContinuationDecision;
  reason: string;
  stopReason: string | null;
  context: PhpMap;
}

/** A resolved continuation decision. */
export interface ContinuationOutcome {
  decision: Exclude<ContinuationDecision, "allow">;
  shouldContinue: boolean;
  resolvedBy: string;
  stopReason: string;
  evaluations: ContinuationEvaluation[];
}

/** A step and the continuation outcome that followed it. */
export interface StepResult {
  step: AgentStep;
  outcome: ContinuationOutcome;
  startedAt?: string;
  completedAt?: string;
  durationMs: number | null;
}

/** The whole agent state (the producer's `AgentState::toArray()` plus derived values). */
export interface AgentState {
  agentId: string;
  parentAgentId: string | null;
  currentStepStartedAt: string | null;
  /** Never restored from storage: always `null` after parsing. */
  executionStartedAt: string | null;
  metadata: PhpMap | unknown[];
  cachedContext: {
    messages: Message[];
    tools: unknown;
    toolChoice: unknown;
    responseFormat: { type: string; schema: unknown; name: string; strict: boolean } | [];
  };
  usage: UsageWithTotal;
  messageStore: { sections: { name: string; messages: Message[] }[]; parameters: PhpMap };
  stateInfo: { id: string; startedAt: string; updatedAt: string; cumulativeExecutionSeconds: number };
  currentStep: AgentStep | null;
  status: AgentStatus;
  steps: AgentStep[];
  stepResults: StepResult[];
}

"#;

#[wasm_bindgen(typescript_custom_section)]
const CONTINUATION_TYPES: &'static str = r#"
/** A continuation outcome plus one human sentence naming the deciding criterion. */
export interface ExplainedOutcome extends ContinuationOutcome { explanation: string }

/** An evaluation to resolve; missing fields take the producer's defaults. */
export interface ContinuationEvaluationInput {
  criterion?: string;
  decision: ContinuationDecision;
  reason?: string;
  stopReason?: string | null;
  context?: unknown;
}

/** An error policy preset (optionally with its retry budget, e.g. `"retryToolErrors(3)"`) or explicit handling. */
export type ErrorPolicySpec =
  | "stopOnAnyError" | "ignoreToolErrors" | "retryToolErrors" | "retryAll" | `retryToolErrors(${number})` | `retryAll(${number})`
  | {
      preset?: "stopOnAnyError" | "ignoreToolErrors" | "retryToolErrors" | "retryAll";
      maxRetries?: number;
      onToolError?: "stop" | "retry" | "ignore";
      onModelError?: "stop" | "retry" | "ignore";
      onValidationError?: "stop" | "retry" | "ignore";
      onRateLimitError?: "stop" | "retry" | "ignore";
      onTimeoutError?: "stop" | "retry" | "ignore";
      onUnknownError?: "stop" | "retry" | "ignore";
    };

/** Decides from the current response text whether to ask for another step. */
export type ResponsePredicateSpec =
  | { contains: string } | { notContains: string } | { equals: string } | { isBlank: boolean } | { always: boolean }
  | ((response: string) => boolean);

/** One criterion as data. `criterion` overrides the class name its evaluation reports. */
export type CriterionSpec = { criterion?: string } & (
  | { kind: "steps_limit"; max: number }
  | { kind: "token_usage_limit"; max: number }
  | { kind: "execution_time_limit"; max: number }
  | { kind: "cumulative_execution_time_limit"; max: number }
  | { kind: "retry_limit"; max: number }
  | { kind: "error_presence_check" }
  | { kind: "tool_call_presence_check" }
  | { kind: "finish_reason_check"; stopReasons: (string | number | null)[] }
  | { kind: "response_content_check"; continueWhen: ResponsePredicateSpec }
  | { kind: "error_policy"; policy?: ErrorPolicySpec }
  | { kind: "fixed"; decision: ContinuationDecision }
  | { kind: "all"; criteria: CriterionSpec[] }
);

/** The producer's default agent criteria, with options. */
export interface DefaultCriteria {
  defaults: {
    maxSteps?: number;
    maxTokens?: number;
    /** Seconds; measured from `executionStartedAt` (or the session start). */
    maxExecutionTime?: number;
    /** Seconds of accumulated step time; replaces `maxExecutionTime` when set. */
    cumulativeTimeout?: number;
    errorPolicy?: ErrorPolicySpec;
    finishReasons?: (string | number | null)[];
  };
}

export type CriteriaInput = CriterionSpec[] | DefaultCriteria;

/** Options for continuation evaluation: ISO strings or epoch milliseconds. */
export interface EvaluateOptions {
  now?: string | number;
  executionStartedAt?: string | number;
}

/** One replayed step. */
export interface ReplayedStep {
  stepNumber: number;
  stepId: string;
  outcome: ExplainedOutcome;
  wouldStop: boolean;
  recorded: ContinuationOutcome | null;
  /** The new criteria decide differently from the recorded outcome. */
  changed: boolean;
}

/** A recorded run re-evaluated under other criteria. */
export interface ContinuationReplay {
  steps: ReplayedStep[];
  /** The first step after which the run would have stopped, or `null`. */
  stopsAtStep: number | null;
  recordedSteps: number;
}
"#;

// Options parameters as TypeScript types, so `Option<…>` parameters are emitted
// as optional (`opts?: EvaluateOptions | null`).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "ParseAgentStateOptions")]
    pub type ParseAgentStateOptionsArg;
    #[wasm_bindgen(typescript_type = "NormalizeInferenceOptions")]
    pub type NormalizeInferenceOptionsArg;
    #[wasm_bindgen(typescript_type = "EvaluateOptions")]
    pub type EvaluateOptionsArg;
    #[wasm_bindgen(typescript_type = "SlimOptions")]
    pub type SlimOptionsArg;
    #[wasm_bindgen(typescript_type = "EnvelopeEncoderOptions")]
    pub type EncoderOptionsArg;
    #[wasm_bindgen(typescript_type = "SessionOptions")]
    pub type SessionOptionsArg;
}

#[wasm_bindgen(typescript_custom_section)]
const SESSION_TYPES: &'static str = r#"
/** One disagreement between the stream and the final snapshot. */
export interface Difference {
  kind: "missing_step" | "extra_step" | "step_not_completed" | "field_mismatch" | "tool_call_missing"
    | "tool_call_unexpected" | "continuation_mismatch" | "status_mismatch" | "text_mismatch" | "lost_event";
  /**
   * JSON pointer into the snapshot, or `/stream/...` for stream-only facts. A snapshot's
   * `/steps/<i>` is its i-th listed step, which is run step `window.first_step + i`.
   */
  path: string;
  /** The run step it is about (the run's own number, whatever the snapshot's window), or `null`. */
  step: number | null;
  streamed: unknown;
  final: unknown;
  message: string;
  /**
   * The name of the producer behaviour that causes it by design (one of `reconcileCauses()`,
   * e.g. `"reference_exception_path"`, `"v2_guard_started_step"`), or `null` when nothing explains it.
   */
  cause: string | null;
}

/** A producer behaviour that makes the stream and the final state differ by design (`reconcileCauses()`). */
export interface ReconcileCause {
  /** What a `Difference` carries in `cause`. */
  name: string;
  /** The producer version that does it: `"v1.22"` or `"v2"`. */
  producer: "v1.22" | "v2";
  /** The items of the producer's vector README that describe it. */
  items: string;
  description: string;
}

/**
 * Which of the run's steps a slim snapshot's step list covers. A snapshot lists only the run's
 * last N steps (20 with the `standard` preset, 50 with `full`, none with `minimal`), numbered
 * 1..N inside the window, and counts all of them in `step_count`: window step k is run step
 * `step_count - N + k`. Streamed steps before the window are outside it: the snapshot says
 * nothing about them, so they are kept as streamed and are never differences.
 *
 * @example
 * ```js
 * // a 30-step run against its standard snapshot (the last 20 steps):
 * const { consistent, window, view } = session.reconcile(slimSnapshot(finalState).snapshot);
 * // consistent: true; window: { step_count: 30, listed: 20, first_step: 11, last_step: 30,
 * //   outside_steps: [1, …, 10], outside_step_count: 10 }
 * view.executions.at(-1).steps.map((s) => s.snapshot_window); // 10 × "outside", 20 × "inside"
 * ```
 */
export interface SnapshotWindow {
  /** The snapshot's `step_count` (the run's total), or `null` when it states none. */
  step_count: number | null;
  /** How many steps the snapshot lists. */
  listed: number;
  /** Run number of the first / last listed step; `null` when it lists none. */
  first_step: number | null;
  last_step: number | null;
  /** Streamed steps before the window (the first 1,000); `outside_step_count` counts all. */
  outside_steps: number[];
  outside_step_count: number;
}

/**
 * Where a step of `reconcile()`'s view stands against the snapshot's window: `inside` (listed;
 * its final fields won), `outside` (before the window; as streamed, not compared) or `beyond`
 * (numbered past the snapshot's `step_count`: an `extra_step` difference).
 */
export type SnapshotWindowPlace = "inside" | "outside" | "beyond";

/** A step of `reconcile()`'s view: the streamed step, marked with its place in the window. */
export interface ReconciledStepView extends StepView { snapshot_window?: SnapshotWindowPlace }
/** An execution of `reconcile()`'s view; the reconciled one (the last) has marked steps. */
export interface ReconciledExecutionView extends Omit<ExecutionView, "steps"> { steps: readonly ReconciledStepView[] }
/** `reconcile()`'s view: the session view after the snapshot won. */
export interface ReconciledView extends Omit<SessionView, "executions"> { executions: readonly ReconciledExecutionView[] }

/**
 * `reconcile()`: the snapshot wins; `view` is the corrected view, in which every step keeps its
 * own data (the snapshot's fields go to the run steps its window covers) and each step of the
 * reconciled execution says where it stands (`snapshot_window`).
 */
export interface ReconcileReport { consistent: boolean; differences: Difference[]; window: SnapshotWindow; view: ReconciledView }

"#;

#[wasm_bindgen(typescript_custom_section)]
const ENVELOPE_TYPES: &'static str = r#"
"#;
