// The agent run the peer comparison replays, described once and neutrally (steps, the text
// each one streams, its tool calls) so that every contender is fed the same run, each in its
// own protocol (bench/contenders/*.mjs).
//
// The shape, per 10,000 v1.22 envelopes (as BENCHMARKS.md describes it): a 5,000-chunk streamed
// answer, 200 tool calls and 50 steps (49 tool steps and the answer step), scaled
// proportionally with N (at 100,000: 50,000 chunks, 2,000 tool calls, 500 steps). Those fixed
// parts take 5,552 of the 10,000 envelopes; the rest is text the tool steps stream before
// calling their tools (a model explaining what it is about to do, ~91 chunks a step), so that
// the v1.22 encoding of the run is exactly N envelopes. bench/generate-envelopes.mjs cannot
// make this shape: its step and tool counts follow from N (~713 steps, ~1,430 tool runs at
// 10,000).
//
// Deterministic: a seeded PRNG, no clock.
//
//   import { describeRun } from './agent-run.mjs';
//   const run = describeRun({ events: 10_000 });
//   // { events, steps: [{ number, chunks: [text], tools: [{ name, args, ok, error, result, ms }] }] }
//   // the last step is the answer: its chunks are the answer, it has no tools


import { prng, WORDS } from './lib/random.mjs';

const TOOLS = ['search', 'get_time', 'fetch_page', 'create_lead', 'lookup_entity', 'send_email'];

/** Envelopes a v1.22 run spends outside text and tools: two status changes; per step its
 * start, continuation and completion. */
const fixedEnvelopes = (steps) => 2 + 3 * steps;

/**
 * @param {{events?: number, seed?: number}} [options] events: a multiple of 200 (the shape
 *   scales by whole steps), at least 200.
 */
export function describeRun({ events = 10_000, seed = 20260120 } = {}) {
  if (!Number.isSafeInteger(events) || events < 200 || events % 200 !== 0) {
    throw new RangeError(`events must be a positive multiple of 200, not ${events}`);
  }
  const answerChunks = events / 2;
  const toolCalls = events / 50;
  const stepCount = events / 200;
  const toolSteps = stepCount - 1;
  // Each tool call is two envelopes (started, completed); what is left is tool-step text.
  const stepText = events - fixedEnvelopes(stepCount) - 2 * toolCalls - answerChunks;

  const rand = prng(seed);
  const chunk = () => {
    const words = 1 + Math.floor(rand() * 3);
    let content = '';
    for (let w = 0; w < words; w += 1) content += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
    return content;
  };
  // Spread as evenly as whole numbers allow: the first steps take the remainders.
  const share = (total, i) => Math.floor(total / toolSteps) + (i < total % toolSteps ? 1 : 0);

  const steps = [];
  for (let i = 0; i < toolSteps; i += 1) {
    const number = i + 1;
    const chunks = Array.from({ length: share(stepText, i) }, chunk);
    const tools = [];
    const k = share(toolCalls, i);
    for (let t = 0; t < k; t += 1) {
      const name = TOOLS[(number + t) % TOOLS.length];
      // One failing tool every 13 steps, as runs with retries have.
      const ok = !(number % 13 === 0 && t === k - 1);
      tools.push({
        name,
        args: { query: `${WORDS[(number + t) % WORDS.length]} ${number}`, limit: 1 + (t % 5) },
        ok,
        error: ok ? null : `Tool ${name} failed: Connection refused`,
        result: ok ? `${1 + (t % 3)} results for ${WORDS[(number + t) % WORDS.length]}` : null,
        ms: 5 + Math.floor(rand() * 2000),
      });
    }
    steps.push({ number, chunks, tools });
  }
  steps.push({ number: stepCount, chunks: Array.from({ length: answerChunks }, chunk), tools: [] });
  return { events, steps };
}

/** Counts for the report: steps, tool calls, streamed chunks (all, and the answer's). */
export function runCounts(run) {
  const answer = run.steps[run.steps.length - 1];
  let chunks = 0;
  let tools = 0;
  for (const step of run.steps) {
    chunks += step.chunks.length;
    tools += step.tools.length;
  }
  return { steps: run.steps.length, tools, chunks, answerChunks: answer.chunks.length };
}
