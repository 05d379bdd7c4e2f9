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
