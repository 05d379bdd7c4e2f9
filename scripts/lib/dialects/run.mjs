// One run, described once, that every dialect's encoder expresses in its own
// wire form (instructor envelopes, laravel/ai broadcasts, AG-UI events, AI SDK
// UI message stream chunks). Tests, the demo and the bench replay the same run
// in every protocol from these descriptions.
//
// A run description:
// {
//   sessionId, executionId, provider, model,
//   startedAt: RFC 3339 string (events are spaced `stepMs`/`chunkMs` apart),
//   chunkChars: how many characters (code points) each text delta carries,
//   steps: [{
//     reasoning?: string,          // the model's reasoning before it answers
//     text?: string,               // streamed text of the step
//     tools?: [{ id, name, args: object, result?: any, error?: string,
//                approval?: 'approved' | 'denied' }],   // asked a person first (denied: never ran)
//     usage: { input, output, cacheRead, cacheWrite, reasoning },
//     finishReason: 'tool_calls' | 'stop' | 'length' | 'error',
//   }],
//   outcome: { status: 'completed' | 'failed', error?: string },
// }
// The last step's text is the final answer when the run completed. A tool with
// `error` failed (no `result`).

import { prng, WORDS } from '../../../bench/lib/random.mjs';

/** The run the issue names: tool steps (one failing), streamed non-ASCII text, reasoning and a final answer. */
export function canonicalRun() {
  return {
    sessionId: 'sess-dialects',
    executionId: 'run-0001',
    provider: 'openai',
    model: 'gpt-5-mini',
    startedAt: '2026-11-20T10:00:00.000Z',
    chunkChars: 7,
    steps: [
      {
        reasoning: 'Der Nutzer will das Wetter in Zürich — erst suchen, dann umrechnen.',
        text: 'Ich schaue das Wetter für Zürich nach… ☀️',
        tools: [
          { id: 'call_weather_1', name: 'get_weather', args: { city: 'Zürich', unit: 'celsius' }, result: { temp: 21.5, sky: 'sonnig' } },
          { id: 'call_forecast_2', name: 'get_forecast', args: { city: 'Zürich', days: 3 }, error: 'Forecast service timed out after 5000 ms' },
        ],
        usage: { input: 412, output: 58, cacheRead: 128, cacheWrite: 0, reasoning: 24 },
        finishReason: 'tool_calls',
      },
      {
        reasoning: 'Die Vorhersage fiel aus; ich rechne nur die aktuelle Temperatur um.',
        tools: [
          { id: 'call_convert_3', name: 'convert_units', args: { value: 21.5, from: 'C', to: 'F' }, result: '70.7 °F' },
        ],
        usage: { input: 530, output: 31, cacheRead: 384, cacheWrite: 64, reasoning: 12 },
        finishReason: 'tool_calls',
      },
      {
        text: 'In Zürich sind es 21,5 °C (70,7 °F) und sonnig. 天气晴朗 🌤️ — die 3-Tage-Vorhersage war leider nicht erreichbar.',
        usage: { input: 611, output: 44, cacheRead: 512, cacheWrite: 0, reasoning: 0 },
        finishReason: 'stop',
      },
    ],
    outcome: { status: 'completed' },
  };
}

/**
 * A run whose tools ask a person first: one approved (then run), one denied (never run), for the
 * dialects that carry approvals (laravel/ai `tool_approval_request`, AI SDK `tool-approval-request`
 * / `tool-output-denied`; AG-UI has interrupts instead).
 */
export function approvalRun() {
  return {
    sessionId: 'sess-approvals',
    executionId: 'run-approvals',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    startedAt: '2026-11-20T11:00:00.000Z',
    chunkChars: 5,
    steps: [
      {
        text: 'Ich lösche die alte Datei und sende danach die Mail.',
        tools: [
          { id: 'call_rm_1', name: 'delete_file', args: { path: '/tmp/alt.txt' }, approval: 'approved', result: { deleted: true } },
          { id: 'call_mail_2', name: 'send_mail', args: { to: 'ops@example.com' }, approval: 'denied' },
        ],
        usage: { input: 300, output: 40, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
        finishReason: 'tool_calls',
      },
      {
        text: 'Die Datei ist gelöscht; die Mail wurde nicht gesendet (abgelehnt).',
        usage: { input: 380, output: 22, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
        finishReason: 'stop',
      },
    ],
    outcome: { status: 'completed' },
  };
}

/**
 * A seeded run of many shapes: 1 to `maxSteps` steps, each with or without
 * reasoning, text and 0 to 3 tools (parallel), some tools failing, text of
 * 1- to 4-byte characters, and sometimes a failed run.
 */
export function randomRun(seed, { maxSteps = 6 } = {}) {
  const random = prng(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const words = (n) => Array.from({ length: n }, () => WORDS[int(0, WORDS.length - 1)]).join(' ');
  const stepCount = int(1, maxSteps);
  const steps = [];
  let call = 0;
  for (let i = 0; i < stepCount; i++) {
    const last = i === stepCount - 1;
    const step = { usage: { input: int(50, 900), output: int(1, 300), cacheRead: int(0, 1) * int(0, 400), cacheWrite: 0, reasoning: 0 } };
    if (random() < 0.5) {
      step.reasoning = words(int(1, 20));
      step.usage.reasoning = int(1, 60);
    }
    if (last || random() < 0.6) step.text = words(int(1, 40));
    if (!last) {
      step.tools = Array.from({ length: int(1, 3) }, () => {
        call += 1;
        const tool = { id: `call_${seed}_${call}`, name: `tool_${int(1, 4)}`, args: { q: words(int(1, 4)), n: int(0, 99) } };
        if (random() < 0.2) tool.error = `failed: ${words(int(1, 5))}`;
        else tool.result = random() < 0.5 ? words(int(1, 8)) : { ok: true, items: int(0, 9), note: words(2) };
        return tool;
      });
    }
    step.finishReason = last ? 'stop' : 'tool_calls';
    steps.push(step);
  }
  const failed = random() < 0.15;
  if (failed) steps[steps.length - 1].finishReason = 'error';
  return {
    sessionId: `sess-${seed}`,
    executionId: `run-${seed}`,
    provider: 'openai',
    model: 'gpt-5-mini',
    startedAt: '2026-11-20T10:00:00.000Z',
    chunkChars: int(1, 12),
    steps,
    outcome: failed ? { status: 'failed', error: `provider error: ${words(3)}` } : { status: 'completed' },
  };
}

/** A long run: `steps` tool steps and a final answer, longer than any snapshot window. */
export function longRun(steps = 39, seed = 7) {
  const run = randomRun(seed, { maxSteps: 1 });
  const random = prng(seed + 1);
  run.executionId = `run-long-${steps}`;
  run.steps = [];
  for (let i = 0; i < steps; i++) {
    const last = i === steps - 1;
    run.steps.push({
      text: last ? `Done after ${steps} steps ✅` : `Step ${i + 1}: checking source ${i + 1} — zażółć`,
      tools: last ? undefined : [{ id: `call_long_${i + 1}`, name: 'search', args: { page: i + 1 }, ...(random() < 0.1 ? { error: 'HTTP 503' } : { result: { hits: i } }) }],
      usage: { input: 100 + i, output: 10 + i, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      finishReason: last ? 'stop' : 'tool_calls',
    });
  }
  return run;
}

/** Splits `text` into deltas of `n` code points (never inside a surrogate pair). */
export function chunks(text, n) {
  const points = Array.from(text ?? '');
  const out = [];
  for (let i = 0; i < points.length; i += Math.max(1, n)) out.push(points.slice(i, i + Math.max(1, n)).join(''));
  return out;
}

/** A clock for a run: `tick(ms)` advances and returns the RFC 3339 time; `unix()` the seconds. */
export function clock(startedAt) {
  let t = Date.parse(startedAt);
  return {
    tick(ms = 10) { t += ms; return new Date(t).toISOString(); },
    now() { return new Date(t).toISOString(); },
    ms() { return t; },
    unix() { return Math.floor(t / 1000); },
  };
}
