// A large, realistic, deterministic AgentState in the producer's full format
// (instructor-php v1.22 `AgentState::toArray()`, modelled on the canonical state of
// tests/vectors/cognesy-v1.22/state-model.json case 0): a `messages` section with the
// conversation, every step with its inference response (raw provider body included),
// tool executions, errors, and a stepResult per step with its continuation outcome.
//
// The same options give the same bytes on every machine: a seeded PRNG, no clock.
//
//   import { generateState, generateStateText } from './bench/generate-state.mjs';
//   const text = generateStateText({ messages: 10_000, steps: 1_000 });   // ~20 MB
//
//   node bench/generate-state.mjs [--messages N] [--steps N] [--seed N] > state.json

import { prng } from './lib/random.mjs';

// Text in several scripts, so contents mix 1-, 2-, 3- and 4-byte UTF-8 characters.
const WORDS = {
  en: ['the', 'agent', 'searched', 'for', 'program', 'leads', 'and', 'found', 'three', 'matching',
    'entities', 'in', 'the', 'catalogue', 'with', 'a', 'weather', 'forecast', 'for', 'Paris',
    'temperature', 'is', 'rising', 'results', 'were', 'summarised', 'below', 'please', 'confirm', 'next'],
  pl: ['zażółć', 'gęślą', 'jaźń', 'wyszukiwanie', 'zakończone', 'znaleziono', 'trzy', 'źródła',
    'pogoda', 'w', 'Warszawie', 'jest', 'słoneczna', 'łódź', 'ćma', 'żółw'],
  zh: ['天气', '搜索', '结果', '北京', '今天', '晴朗', '温度', '二十一度', '代理', '工具', '调用', '完成'],
  emoji: ['🙂', '🚀', '🌤️', '📎', '✅', '🔍', '🧪', '👍🏽'],
};

const TOOLS = ['search', 'get_time', 'fetch_page', 'create_lead', 'lookup_entity', 'send_email'];
const BASE = Date.UTC(2026, 0, 20, 9, 0, 0); // 2026-01-20T09:00:00Z

/** DATE_ATOM, whole seconds, UTC offset written as +00:00 (as the producer stores it). */
function atom(ms) {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

function usage(rand, scale = 1) {
  const input = Math.floor((200 + rand() * 4000) * scale);
  const output = Math.floor((20 + rand() * 600) * scale);
  return { input, output, cacheWrite: 0, cacheRead: rand() < 0.3 ? Math.floor(input / 2) : 0, reasoning: rand() < 0.2 ? Math.floor(output / 3) : 0 };
}

function addUsage(total, u) {
  for (const key of Object.keys(total)) total[key] += u[key];
}

/**
 * Builds the state object.
 * @param {{messages?: number, steps?: number, seed?: number}} [options]
 */
export function generateState({ messages: messageCount = 10_000, steps: stepCount = 1_000, seed = 20260120 } = {}) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];

  /** Text of about `length` characters; about a third of texts mix in Polish, Chinese or emoji. */
  function text(length) {
    const mixed = rand() < 0.35;
    const parts = [];
    let size = 0;
    while (size < length) {
      const r = rand();
      const word = !mixed || r < 0.6 ? pick(WORDS.en) : r < 0.8 ? pick(WORDS.pl) : r < 0.95 ? pick(WORDS.zh) : pick(WORDS.emoji);
      parts.push(word);
      size += word.length + 1;
    }
    return parts.join(' ');
  }

  /** Mixed lengths: mostly short chat lines, some paragraphs, a few long documents. */
  function contentLength() {
    const r = rand();
    if (r < 0.6) return 20 + Math.floor(rand() * 180);
    if (r < 0.92) return 200 + Math.floor(rand() * 1400);
    return 2000 + Math.floor(rand() * 5000);
  }

  let callSeq = 0;
  function toolCall() {
    callSeq += 1;
    const name = pick(TOOLS);
    return { name, arguments: { query: text(10 + Math.floor(rand() * 50)), limit: 1 + Math.floor(rand() * 9) }, id: `call_${callSeq}` };
  }

  const steps = [];
  const stepResults = [];
  const conversation = [];
  const total = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0, reasoning: 0 };
  const perStep = Math.ceil(messageCount / Math.max(1, stepCount));

  for (let i = 0; i < stepCount; i += 1) {
    const created = BASE + i * 7_000;
    const last = i === stepCount - 1;
    const failing = !last && i % 97 === 13;
    const calls = last ? [] : Array.from({ length: 1 + (i % 4) }, toolCall);
    const u = usage(rand);
    addUsage(total, u);

    // The messages this step added: a user turn, the assistant's tool calls (or answer),
    // one tool message per call, a short text reply, then plain exchanges up to perStep.
    const out = [];
    if (calls.length) {
      out.push({
        role: 'assistant',
        _metadata: {
          tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
        },
      });
      for (const c of calls) {
        const result = failing ? null : { status: 'ok', items: Math.floor(rand() * 20), summary: text(40 + Math.floor(rand() * 600)) };
        out.push({
          role: 'tool',
          content: result === null ? 'Error: Connection refused' : JSON.stringify(result),
          _metadata: { tool_call_id: c.id, tool_name: c.name, result },
        });
      }
    }
    out.push({ role: 'assistant', content: text(contentLength()) });
    const input = [{ role: 'user', content: text(contentLength()) }];
    const added = [...input, ...out];
    while (added.length < perStep) {
      added.push(added.length % 2 ? { role: 'assistant', content: text(contentLength()) } : { role: i % 50 === 0 ? 'developer' : 'user', content: text(contentLength()) });
    }
    conversation.push(...added);

    const finishReason = calls.length ? 'tool_calls' : 'stop';
    const responseContent = calls.length ? '' : out[out.length - 1].content;
    // The raw provider payload the producer keeps on every step (what slimming removes).
    const body = JSON.stringify({
      id: `chatcmpl-${i}`, object: 'chat.completion', created: Math.floor(created / 1000), model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, finish_reason: finishReason, message: { role: 'assistant', content: responseContent || null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) } }],
      usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
    });
    const step = {
      stepInfo: { id: `step-${i + 1}`, createdAt: atom(created) },
      inputMessages: input,
      outputMessages: out,
      toolCalls: calls,
      toolExecutions: calls.map((c, k) => ({
        toolCall: { id: c.id, name: c.name, arguments: c.arguments },
        tool: c.name,
        args: c.arguments,
        result: failing ? null : { status: 'ok' },
        error: failing ? 'Connection refused' : null,
        startedAt: atom(created + 1_000 + k * 500),
        endedAt: atom(created + 1_500 + k * 500),
      })),
      errors: failing ? [{ message: 'Connection refused', class: 'Cognesy\\Addons\\Agent\\Exceptions\\ToolExecutionException' }] : [],
      usage: u,
      inferenceResponse: {
        content: responseContent,
        finishReason,
        toolCalls: calls,
        reasoningContent: rand() < 0.2 ? text(contentLength()) : '',
        usage: u,
        responseData: { statusCode: 200, body, headers: { 'content-type': ['application/json'], 'x-request-id': [`req_${i}`] }, isStreamed: false },
        isPartial: false,
        id: `resp-step-${i + 1}`,
        createdAt: atom(created),
        updatedAt: atom(created),
      },
    };
    steps.push(step);
    const more = calls.length > 0;
    stepResults.push({
      step,
      outcome: {
        decision: more ? 'request' : 'stop',
        shouldContinue: more,
        resolvedBy: more ? 'Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck' : 'aggregate',
        stopReason: 'completed',
        evaluations: [
          { criterion: 'Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\StepsLimit', decision: 'allow',
            reason: `Steps under limit: ${i + 1}/${stepCount + 1}`, stopReason: null, context: { currentSteps: i + 1, maxSteps: stepCount + 1 } },
          { criterion: 'Cognesy\\Addons\\Agent\\Core\\Continuation\\ToolCallPresenceCheck', decision: more ? 'request' : 'stop',
            reason: more ? 'Tool calls present, requesting continuation' : 'No tool calls, allowing stop', stopReason: null, context: { hasToolCalls: more } },
        ],
      },
    });
  }
  // Exactly messageCount messages: a system prompt first, then the conversation.
  const messages = [{ role: 'system', content: `You are a careful assistant. ${text(400)}` }, ...conversation].slice(0, messageCount);
  while (messages.length < messageCount) messages.push({ role: 'user', content: text(contentLength()) });

  const endedAt = BASE + stepCount * 7_000;
  return {
    agentId: 'agent-bench',
    parentAgentId: null,
    currentStepStartedAt: null,
    executionStartedAt: null,
    metadata: { tenant: 'bench', user: { id: 42, name: 'Zoë Łukasiewicz' }, tags: ['bench', 'large'] },
    cachedContext: {
      messages: [],
      tools: TOOLS.map((name) => ({ type: 'function', function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } } } } })),
      toolChoice: 'auto',
      responseFormat: [],
    },
    usage: total,
    messageStore: {
      sections: [
        { name: 'summary', messages: [{ role: 'system', content: 'Earlier: the user asked for a catalogue search.' }] },
        { name: 'messages', messages },
      ],
      parameters: [],
    },
    stateInfo: { id: 'state-bench', startedAt: atom(BASE), updatedAt: atom(endedAt), cumulativeExecutionSeconds: stepCount * 6.5 },
    currentStep: steps.length ? steps[steps.length - 1] : null,
    status: 'completed',
    steps,
    stepResults,
  };
}

/** The state as JSON text, the form a backend reads from its database. */
export function generateStateText(options) {
  return JSON.stringify(generateState(options));
}

// As a script: print the state to stdout.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({ options: { messages: { type: 'string' }, steps: { type: 'string' }, seed: { type: 'string' } } });
  const num = (v) => (v === undefined ? undefined : Number(v));
  process.stdout.on('error', (error) => { if (error.code !== 'EPIPE') throw error; });
  process.stdout.write(generateStateText({ messages: num(values.messages), steps: num(values.steps), seed: num(values.seed) }));
}
