// Envelopes against a real broadcaster's message limit: sockudo (our Reverb
// stand-in) started with a 10 KB event limit refuses oversized events with 413,
// EnvelopeEncoder's default cap keeps every envelope of a huge run under it
// (by splitting chunks and shortening texts), and a pusher-js subscriber gets
// every one of them intact and in order. Run: node --test tests/browser/oversize.test.mjs
// (needs the built pkg/ and the sockudo binary from scripts/setup.sh).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Pusher from 'pusher-js';
import { EnvelopeEncoder, defaultEventName } from '../../pkg/index.mjs';
import { publisher } from '../../scripts/lib/publisher.mjs';
import { startSockudo } from '../../scripts/lib/sockudo.mjs';

const LIMIT_KB = 10;
const TIMEOUT_MS = 60_000;

let server;
let publish;

before(async () => {
  server = await startSockudo({ maxPayloadKb: LIMIT_KB });
  ({ publish } = publisher(server));
}, { timeout: 30_000 });

after(async () => {
  await server?.stop();
});

/** The envelopes of one run with every text far over 10 KB, in send order. */
function hugeRun(sessionId, config = {}) {
  const encoder = new EnvelopeEncoder({
    sessionId,
    executionId: 'exec-1',
    // maxArgLength this high leaves the tool arguments whole, so only the cap can shorten them.
    config: { preset: 'debug', maxArgLength: 1_000_000, ...config },
    now: '2026-01-20T12:00:00Z',
  });
  const events = [
    { event: 'AgentStepStarted', args: { stepNumber: 1, messageCount: 1, availableTools: 1 } },
    // Multi-byte text: the server counts UTF-8 bytes, not characters.
    { event: 'StreamEventReceived', args: { content: 'Zażółć 🚀 "q"\n'.repeat(2000) } },
    { event: 'ToolCallStarted', args: { tool: 'search', args: { q: 'x'.repeat(50_000) } } },
    {
      event: 'ToolCallCompleted',
      args: {
        tool: 'search',
        success: false,
        error: 'e'.repeat(40_000),
        startedAt: '2026-01-20T12:00:00.000Z',
        endedAt: '2026-01-20T12:00:00.005Z',
      },
    },
    { event: 'AgentStepCompleted', args: { stepNumber: 1, hasToolCalls: true, errorCount: 1, finishReason: 'stop', durationMs: 5 } },
  ];
  const broadcasts = events.flatMap((event) => encoder.push(event));
  broadcasts.push(encoder.status('failed', { error: 'f'.repeat(30_000) }));
  for (const { channel } of broadcasts) assert.equal(channel, `agent.${sessionId}`);
  return broadcasts.map(({ envelope }) => envelope);
}

/** Publishes in order; `{ status }` or `{ error }` for each envelope. */
async function publishAll(envelopes) {
  const results = [];
  for (const envelope of envelopes) {
    try {
      results.push({ envelope, status: await publish(envelope) });
    } catch (error) {
      results.push({ envelope, error });
    }
  }
  return results;
}

/** A pusher-js client in Node subscribed to `channel`, collecting every event. */
async function subscribe(channel) {
  const client = new Pusher(server.key, {
    cluster: 'mt1',
    wsHost: server.host,
    wsPort: server.port,
    forceTLS: false,
    enabledTransports: ['ws'],
  });
  const received = [];
  const subscription = client.subscribe(channel);
  subscription.bind_global((event, data) => {
    if (!event.startsWith('pusher')) received.push({ event, data });
  });
  await new Promise((resolve, reject) => {
    subscription.bind('pusher:subscription_succeeded', resolve);
    subscription.bind('pusher:subscription_error', (status) => reject(new Error(`subscription failed: ${JSON.stringify(status)}`)));
  });
  return { received, close: () => client.disconnect() };
}

async function until(condition, what, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('sockudo refuses an event over its 10 KB limit with 413', { timeout: TIMEOUT_MS }, async () => {
  const envelope = {
    type: 'agent.stream.chunk',
    session_id: 'oversize-by-hand',
    execution_id: 'exec-1',
    timestamp: '2026-01-20T12:00:00.000Z',
    payload: { content: 'x'.repeat(12_000), is_complete: false, chunk_index: 0 },
  };
  assert.ok(Buffer.byteLength(JSON.stringify(envelope)) > LIMIT_KB * 1024);
  await assert.rejects(publish(envelope), (error) => {
    assert.equal(error.status, 413);
    assert.match(error.body, /payload/i);
    return true;
  });
});

test('a capped huge run is accepted whole and arrives intact at a subscriber', { timeout: TIMEOUT_MS }, async () => {
  const sessionId = 'oversize-capped';
  const envelopes = hugeRun(sessionId);
  const chunks = envelopes.filter((e) => e.type === 'agent.stream.chunk');
  assert.ok(chunks.length > 1, `the stream chunk was split (${chunks.length} chunk envelopes)`);
  assert.ok(envelopes.some((e) => e.payload.truncated === true), 'some payload was shortened by the cap');
  for (const e of envelopes) assert.ok(Buffer.byteLength(JSON.stringify(e)) <= 10_000, `${e.type} within maxMessageBytes`);

  const subscriber = await subscribe(`agent.${sessionId}`);
  try {
    const results = await publishAll(envelopes);
    for (const { envelope, status, error } of results) {
      assert.equal(error, undefined, `${envelope.type} was refused: ${error?.message}`);
      assert.equal(status, 200);
    }
    await until(() => subscriber.received.length >= envelopes.length, `${envelopes.length} events at the subscriber`);
    // Under the Laravel transport's one event name, as instructor-php v2 sends them.
    assert.deepEqual(subscriber.received.map((r) => r.event), envelopes.map(() => defaultEventName()));
    assert.deepEqual(subscriber.received.map((r) => r.data), envelopes);
  } finally {
    subscriber.close();
  }
});

test('the same run without the cap has events the server refuses', { timeout: TIMEOUT_MS }, async () => {
  const envelopes = hugeRun('oversize-uncapped', { maxMessageBytes: null });
  const refused = (await publishAll(envelopes)).filter((r) => r.error);
  assert.ok(refused.length > 0, 'at least one uncapped envelope is refused');
  for (const { error } of refused) {
    assert.equal(error.status, 413, error.message);
    assert.match(error.body, /payload/i);
  }
});
