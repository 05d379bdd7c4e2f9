// A zod schema for the v1.22 `agent.*` envelope union, the "JSON.parse + zod" floor of the
// bulk replay benchmark (bench/sections/bulk.mjs): what a JS consumer that validates its
// input would write instead of using stepline. It checks what stepline's decoder checks for
// these seven types (src/envelope/schema.rs): the `type` discriminant, the envelope fields,
// an ISO-8601 timestamp, and each payload's fields with their kinds and which are required.
// It knows only the v1.22 wire names (stepline also accepts the seed-000 and seed-003
// dialects) and, as zod objects do by default, drops unknown fields instead of reporting them.
import { z } from 'zod';

const int = z.number().int();
const str = z.string();
const opt = (schema) => schema.nullish();

const usage = z.object({
  input: int, output: int, cacheWrite: opt(int), cacheRead: opt(int), reasoning: opt(int),
});
const evaluation = z.object({ criterion: str, decision: str, reason: opt(str) });

const envelope = (type, payload) => z.object({
  type: z.literal(type),
  session_id: str,
  execution_id: opt(str),
  timestamp: z.iso.datetime({ offset: true }),
  payload: z.object(payload),
});

export const EnvelopeSchema = z.discriminatedUnion('type', [
  envelope('agent.status', {
    status: str, previous_status: opt(str), step_count: opt(int), error_message: opt(str), last_response: opt(str),
  }),
  envelope('agent.step.started', {
    step_number: int, message_count: opt(int), available_tools: opt(z.union([int, z.array(str)])),
  }),
  envelope('agent.step.completed', {
    step_number: int, has_tool_calls: opt(z.boolean()), errors: opt(int), finish_reason: opt(str),
    usage: opt(usage), duration_ms: opt(z.number()), continuation: opt(z.record(str, z.unknown())),
  }),
  envelope('agent.tool.started', {
    tool_name: str, tool_call_id: opt(str), args_summary: opt(str), args: z.unknown(),
  }),
  envelope('agent.tool.completed', {
    tool_name: str, tool_call_id: opt(str), success: opt(z.boolean()), error: opt(str),
    duration_ms: opt(z.number()), result_summary: opt(str),
  }),
  envelope('agent.stream.chunk', {
    content: str, is_complete: opt(z.boolean()), chunk_index: opt(int), tokens_delta: opt(int),
  }),
  envelope('agent.continuation', {
    step_number: int, should_continue: z.boolean(), stop_reason: opt(str), resolved_by: opt(str),
    evaluations: opt(z.array(evaluation)),
  }),
]);
