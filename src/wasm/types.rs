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
/** A chat role. Unknown role strings are kept on the message but read as `user`. */
export type Role = "system" | "developer" | "user" | "assistant" | "tool";
/** Normalised finish reason (`fromText` of the provider's value). */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error" | "other";
/** PHP writes an empty map as `[]`. */
export type PhpMap<T = unknown> = Record<string, T> | [];

/** Anything with a `role`, e.g. a message from a state or your own UI model. */
export interface MessageLike { role?: string }

/** One content part of a composite message. */
export interface ContentPart { type: string; text?: string; image_url?: { url: string }; [field: string]: unknown }

/** A message as the producer writes it: PHP-falsy fields ("", "0", [], null) are omitted. */
export interface Message {
  role?: string;
  name?: string;
  content?: string | ContentPart[];
  _metadata?: Record<string, unknown>;
}

/** Token usage. `total` is added by stepline (input+output+cacheWrite+cacheRead+reasoning). */
export interface Usage { input: number; output: number; cacheWrite: number; cacheRead: number; reasoning: number }

/** A requested tool call. `arguments` is `[]` when empty (PHP). */
export interface ToolCall { name: string; arguments: Record<string, unknown> | unknown[]; id: string }

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

/** The HTTP response an inference came from. */
export interface ResponseData { statusCode: number; body: string; headers: unknown; isStreamed: boolean }

/** The producer's `InferenceResponse`; `finishReason` is the provider's raw string. */
export interface InferenceResponseData {
  content: string;
  finishReason: string;
  toolCalls: ToolCall[];
  reasoningContent: string;
  usage: Usage;
  responseData: ResponseData;
  isPartial: boolean;
  id: string;
  createdAt: string;
  updatedAt: string;
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

/** Options for {@link parseAgentState}. */
export interface ParseAgentStateOptions {
  /** The time used for missing dates: an ISO string or epoch milliseconds. Default: now. */
  now?: string | number;
}

/** Options for {@link normalizeInferenceResponse} and {@link InferenceStreamAccumulator}. */
export interface NormalizeInferenceOptions {
  /** Only `"openai"` (chat completions) for now. */
  provider?: "openai";
  now?: string | number;
  compat?: {
    /** Reproduce the reference bug: empty content falls back to the first tool call's arguments. */
    toolArgsAsContent?: boolean;
  };
}

/** A normalised provider response. */
export interface NormalizedInference {
  response: InferenceResponseData;
  finishReason: FinishReason;
  /** The assistant message to append, or `null` when there is no real text. */
  assistantMessage: Message | null;
}

/** What one streamed chunk added. */
export interface StreamDelta {
  content: string;
  reasoning: string;
  toolCalls: { index: number; id: string | null; name: string | null; arguments: string }[];
  finishReason: string | null;
  done: boolean;
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
/**
 * Options of `new Session()`.
 * - `sessionId`: without one, the first envelope's session is adopted.
 * - `maxTextBytes`: bytes of UTF-8 streamed text kept per execution, and of
 *   output per tool run (default 8 MiB, 8388608). Past it the text is cut at a
 *   character boundary and the view says `text_truncated: true` with
 *   `text_dropped_bytes`; chunks past it keep no text, in the view or in
 *   `toRecording()`.
 *
 * @example
 * ```js
 * const session = new Session({ sessionId: 'sess-1', maxTextBytes: 1024 * 1024 });
 * ```
 */
export interface SessionOptions {
  sessionId?: string;
  maxTextBytes?: number;
  /**
   * Milliseconds of silence after which an execution that has not ended is
   * marked `stale: true` (its status is left as broadcast). Silence is measured
   * with envelope timestamps and the times given to `setNow()`; unset, nothing
   * is ever stale.
   */
  staleAfterMs?: number;
}

/** What `ingestJsonl` did; failing lines are listed with their 1-based number. */
export interface IngestBatchResult {
  applied: number;
  duplicates: number;
  rejected: number;
  /** The first 1,000 failing lines; `errorCount` counts all of them. */
  errors: { line: number; error: { code: string; path: string; message: string } }[];
  errorCount: number;
  /** Warnings of the lines ingested (the first 1,000); `warningCount` counts all of them. */
  warnings: { line: number; warning: EnvelopeWarning }[];
  warningCount: number;
}

/** Seed 003's response shape, collected from the events. */
export interface CollectedResponse {
  turns: {
    step_id: string | null;
    step_number: number;
    execution_id: string | null;
    timestamp: string | null;
    llm_response: { text: string; finish_reason: string | null; usage: UsageWithTotal | null };
    tool_results: {
      call: { id: string | null; name: string; arguments: unknown }; output: string; error: string | null;
      result_summary: string | null; duration_ms: number | null;
    }[];
    error: string | null;
    annotations: StepAnnotations | null;
  }[];
  final_output: string;
}

/** What `RunLog.ingestJsonl` did. */
export interface RunLogBatchResult {
  applied: number;
  duplicates: number;
  snapshots: number;
  /** The first 1,000 failing lines; `errorCount` counts all of them. */
  errors: { line: number; error: { code: string; path: string; message: string } }[];
  errorCount: number;
}

/** Percentiles by nearest rank over the values seen (`null` when none). */
export interface DurationStats { p50: number | null; p95: number | null; max: number | null; count: number }

/** `RunLog.summary()`, computed on each call. */
export interface RunLogSummary {
  sessions: number;
  by_status: Record<string, number>;
  by_stop_reason: Record<string, number>;
  executions: number;
  steps: number;
  tool_calls: Record<string, { count: number; failed: number }>;
  tokens: UsageWithTotal;
  durations: { step_ms: DurationStats; tool_ms: DurationStats };
  errors: { steps_with_errors: number; failed_tools: number; run_errors: number };
  duplicates: number;
  rejected: number;
}

/** A producer bug found by `diagnose`. */
export interface Diagnostic {
  code: "tool_args_in_content" | "step_timing_inverted" | "step_timing_from_creation" | "duration_inconsistent"
    | "time_limit_from_session_start" | "final_status_missing" | "tool_results_not_excluded"
    | "secret_in_state" | "raw_provider_frames_in_stream";
  severity: "error" | "warning";
  path: string;
  message: string;
  evidence: unknown;
}

/** What `diagnose` reads: envelopes, a slim snapshot, a full state, and the snapshot's options. */
export interface DiagnoseInput {
  envelopes?: (Envelope | object)[];
  snapshot?: SlimSnapshot | null;
  state?: object | null;
  includeToolResults?: boolean;
}
"#;

#[wasm_bindgen(typescript_custom_section)]
const SNAPSHOT_TYPES: &'static str = r#"
/** A slim snapshot (the producer's `SlimAgentStateSerializer` output). */
export interface SlimSnapshot {
  agent_id: string;
  parent_agent_id: string | null;
  status: AgentStatus | ExecutionStatusV2 | null;
  step_count: number;
  usage: Usage;
  execution: { started_at: string; updated_at: string; cumulative_seconds: number };
  messages: { role: string; content: string | ContentPart[]; _metadata: PhpMap }[];
  steps: {
    step_number: number;
    type: StepType;
    has_tool_calls: boolean;
    finish_reason: FinishReason | null;
    errors: number;
    usage: { total: number };
    tool_calls: { id: string | null; name: string }[];
  }[];
  last_continuation: { should_continue: boolean; stop_reason: string; resolved_by: string } | null;
  metadata: PhpMap | unknown[];
  /** `"v2"` for a snapshot of an instructor-php v2.x state (its `status` is an `ExecutionStatusV2`, or null between executions). */
  state_version?: "v2";
  /** v2: the winning stop signal. */
  stop_signal?: StopSignalV2 | null;
  /** v2 with `includeContinuationTrace`: the execution's continuation. */
  continuation?: { should_stop: boolean; is_continuation_requested: boolean; stop_signals: StopSignalV2[]; explain: string } | null;
  created_at?: string;
  system_prompt?: string;
}

/** What a slim snapshot keeps; fields override the preset (default `standard`). */
export interface SlimOptions {
  preset?: "minimal" | "standard" | "full";
  /** The newest messages kept; 0 or less keeps none (as the producer). */
  maxMessages?: number;
  /** The newest steps kept; 0 or less keeps none (as the producer). */
  maxSteps?: number;
  /** Longer string contents are cut to this many bytes plus `...`; 0 or less cuts nothing (as the producer). */
  maxContentLength?: number;
  includeToolResults?: boolean;
  includeSteps?: boolean;
  includeContinuationTrace?: boolean;
  redactToolArgs?: boolean;
  /** Tighten until the compact JSON encoding fits this many bytes. */
  maxBytes?: number;
  /** Reproduce the producer's byte-cut truncation, `_metadata.result` leak and tool arguments left in content under `redactToolArgs`. */
  compat?: boolean;
}

/** What `maxBytes` gave up. */
export interface SlimTruncation { messagesDropped: number; stepsDropped: number; contentLimit: number }

/** A slim snapshot with its encoded size. */
export interface SlimResult { snapshot: SlimSnapshot; bytes: number; truncation: SlimTruncation | null }

/** One validation finding. */
export interface SnapshotIssue {
  path: string;
  code: "missing_field" | "wrong_type" | "invalid_enum" | "invalid_timestamp" | "out_of_range" | "inconsistent"
    | "unknown_field" | "secret_in_state" | SteplineErrorCode;
  message: string;
}

/** The verdict on an untrusted snapshot. */
export interface SnapshotValidation { valid: boolean; errors: SnapshotIssue[]; warnings: SnapshotIssue[] }
"#;

#[wasm_bindgen(typescript_custom_section)]
const ENVELOPE_TYPES: &'static str = r#"
/** Token usage as envelopes carry it (seed 000's `{prompt, completion, total}` is normalised to this). */
export interface EnvelopeUsage {
  input: number; output: number; cacheWrite: number; cacheRead: number; reasoning: number;
  /** The producer's own total, kept only when it differs from the sum of the fields. */
  total?: number;
}

/** Fields any payload may add that stepline does not know (kept, reported as warnings). */
interface PayloadExtra { extra?: Record<string, unknown>; truncated?: boolean }
/** Seed-003 lifecycle identity. */
interface Lifecycle { step_index?: number | null; step_id?: string | null; annotations?: object | null }

export interface StatusPayload extends PayloadExtra {
  status: string; previous_status?: string | null; step_count?: number | null; error_message?: string | null; last_response?: string | null;
}
export interface StepStartedPayload extends PayloadExtra {
  step_number: number; message_count?: number | null; available_tools?: number | null; available_tool_names?: string[]; step_id?: string | null;
}
export interface StepCompletedPayload extends PayloadExtra {
  step_number: number; has_tool_calls?: boolean | null; errors?: number | null; finish_reason?: string | null;
  usage?: EnvelopeUsage | null; duration_ms?: number | null;
  /** v2.7 numbers a failed attempt's completion by the steps recorded before it: that number, `step_number` being the attempt's. */
  recorded_steps?: number | null;
  continuation?: { should_continue: boolean; stop_reason: string; resolved_by: string } | null; step?: object | null; step_id?: string | null;
  annotations?: object | null;
}
export interface ToolStartedPayload extends PayloadExtra, Lifecycle {
  tool_name: string; tool_call_id?: string | null; args_summary?: string | null; args?: unknown; tool_call?: object | null;
}
export interface ToolCompletedPayload extends PayloadExtra, Lifecycle {
  tool_name: string; tool_call_id?: string | null; success?: boolean | null; error?: string | null; duration_ms?: number | null;
  result_summary?: string | null; tool_result?: object | null;
}
export interface StreamChunkPayload extends PayloadExtra {
  content: string; is_complete?: boolean | null; chunk_index?: number | null; tokens_delta?: number | null;
  /** Set by the decoder: `content` is a raw provider stream frame, not text (v2.7 with a real streaming driver). */
  provider_frame?: "openai" | "anthropic";
}
export interface ContinuationPayload extends PayloadExtra {
  step_number: number; should_continue: boolean; should_stop?: boolean | null; stop_reason?: string | null; resolved_by?: string | null;
  /** v2.7's continuation before any recorded step: its `step_number` (0); `step_number` is then 1. */
  recorded_steps?: number | null;
  evaluations?: { criterion: string; decision: string; reason?: string }[] | null;
}
export interface LlmStartedPayload extends PayloadExtra, Lifecycle {}
export interface LlmDeltaPayload extends PayloadExtra, Lifecycle { text_delta: string }
export interface LlmCompletedPayload extends PayloadExtra, Lifecycle { step?: object | null }
export interface ToolOutputPayload extends PayloadExtra, Lifecycle { tool_name?: string | null; text_delta: string; tool_call?: object | null }
export interface ToolFailedPayload extends PayloadExtra, Lifecycle { tool_name?: string | null; error: string; tool_call?: object | null; tool_result?: object | null }
export interface StepFailedPayload extends PayloadExtra, Lifecycle { error: string; step?: object | null }
export interface RunCompletedPayload extends PayloadExtra, Lifecycle { final_answer?: string | null; step?: object | null }
export interface RunFailedPayload extends PayloadExtra, Lifecycle { error: string; step?: object | null }

interface EnvelopeBase<T extends string, P> {
  type: T;
  /** `null` only for seed-003 native events, which carry no session. */
  session_id: string | null;
  execution_id: string | null;
  timestamp: string | null;
  payload: P;
  /** Unknown top-level fields, kept. */
  extra?: Record<string, unknown>;
}

/** A decoded envelope: `switch (e.type)` narrows `e.payload`. */
export type Envelope =
  | EnvelopeBase<"agent.status", StatusPayload>
  | EnvelopeBase<"agent.step.started", StepStartedPayload>
  | EnvelopeBase<"agent.step.completed", StepCompletedPayload>
  | EnvelopeBase<"agent.tool.started", ToolStartedPayload>
  | EnvelopeBase<"agent.tool.completed", ToolCompletedPayload>
  | EnvelopeBase<"agent.stream.chunk", StreamChunkPayload>
  | EnvelopeBase<"agent.continuation", ContinuationPayload>
  | EnvelopeBase<"agent.llm.started", LlmStartedPayload>
  | EnvelopeBase<"agent.llm.output_text.delta", LlmDeltaPayload>
  | EnvelopeBase<"agent.llm.completed", LlmCompletedPayload>
  | EnvelopeBase<"agent.tool.output", ToolOutputPayload>
  | EnvelopeBase<"agent.tool.failed", ToolFailedPayload>
  | EnvelopeBase<"agent.step.failed", StepFailedPayload>
  | EnvelopeBase<"agent.run.completed", RunCompletedPayload>
  | EnvelopeBase<"agent.run.failed", RunFailedPayload>;

export type TryDecodeResult =
  | { ok: true; envelope: Envelope; warnings: EnvelopeWarning[]; dialect: EnvelopeDialect }
  | { ok: false; error: { code: SteplineErrorCode; path: string | null; message: string } };

export interface DecodedBatch {
  envelopes: Envelope[];
  /** The first 1,000 failing lines; `errorCount` counts all of them. */
  errors: { line: number; error: { code: SteplineErrorCode; path: string | null; message: string } }[];
  errorCount: number;
  warnings: { index: number; warning: EnvelopeWarning }[];
  /** Each envelope's dialect, by position in `envelopes`. */
  dialects: EnvelopeDialect[];
}

/** One encoded broadcast. */
export interface Broadcast { channel: string; envelope: Envelope }

/**
 * A producer event for the encoder: the reference event class name and its fields.
 * `at` (ISO string or epoch ms) is when the event happened; it overrides the encoder's
 * clock for this event, so recorded events replay with their own times.
 */
export interface AgentEventInput { event: string; args?: Record<string, unknown>; at?: string | number }

/** Broadcast configuration (reference `BroadcastConfig` plus the cap and compat). */
export interface EnvelopeEncoderConfig {
  preset?: "minimal" | "standard" | "default" | "debug";
  includeStreamChunks?: boolean;
  includeContinuationTrace?: boolean;
  includeToolArgs?: boolean;
  maxArgLength?: number;
  autoStatusTracking?: boolean;
  /** Default 10,000; `null` turns the cap off. */
  maxMessageBytes?: number | null;
  /** Reproduce the producer: local time printed with `Z`, quirky step durations, byte cuts. */
  compat?: boolean | { utcOffsetMinutes: number };
  /**
   * Which producer's broadcaster: `"v1.22"` (default, `AgentEventEnvelopeAdapter`) or `"v2"`
   * (`AgentEventBroadcaster`: events `PartialInferenceDeltaCreated`, `StreamEventParsed`,
   * `ContinuationEvaluated {stepNumber, executionState}`, `AgentExecutionStopped`, `AgentExecutionFailed`).
   */
  dialect?: "v1.22" | "v2";
}

export interface EnvelopeEncoderOptions {
  sessionId: string;
  executionId?: string;
  config?: EnvelopeEncoderConfig;
  /** A fixed clock (ISO string or epoch ms) for replays and tests; default: now, per event. */
  now?: string | number;
}
"#;
