// Which Pusher event names carry envelopes (isAgentEventName, defaultEventName),
// the one decision every listener stepline ships asks: instructor-php v2's
// Laravel transport sends every envelope as `instructor.agent.event` or the
// app's configured name (v2.7 quirk 17 in tests/vectors/instructor-php-v2.7/README.md);
// v1.22 apps used names of their own, usually the envelope type. Same
// answers from the live entry; bad arguments are typed errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as full from 'stepline';
import * as live from 'stepline/live';

const { defaultEventName, isAgentEventName, SteplineError } = full;

test('the default is the Laravel transport name, with or without Echo\'s dot', () => {
  assert.equal(defaultEventName(), 'instructor.agent.event');
  assert.equal(isAgentEventName('instructor.agent.event'), true);
  assert.equal(isAgentEventName('.instructor.agent.event'), true);
  assert.equal(isAgentEventName('.instructor.agent.event', { eventName: null }), true);
});

test('agent.* names (v1.22 apps named events after the envelope type) are always read', () => {
  for (const name of ['agent.step.started', '.agent.stream.chunk', 'agent.status']) {
    assert.equal(isAgentEventName(name), true, name);
    assert.equal(isAgentEventName(name, { eventName: 'acme.agent' }), true, name);
  }
});

test('a configured name replaces the default; Echo\'s dot is ignored in it too', () => {
  assert.equal(isAgentEventName('acme.agent', { eventName: 'acme.agent' }), true);
  assert.equal(isAgentEventName('.acme.agent', { eventName: '.acme.agent' }), true);
  assert.equal(isAgentEventName('instructor.agent.event', { eventName: 'acme.agent' }), false);
  assert.equal(isAgentEventName('acme.agent'), false);
});

test('protocol events, an app\'s own events and near misses are not envelopes', () => {
  for (const name of [
    'pusher:subscription_succeeded', 'pusher_internal:subscription_succeeded', 'App\\Events\\OrderShipped',
    'OrderShipped', 'agent', 'agent.', 'client-agent.step.started', 'instructor.agent.event.v2', '..instructor.agent.event', '',
  ]) {
    assert.equal(isAgentEventName(name), false, name);
  }
});

test('a configured name no backend could broadcast is invalid_value at /options/eventName', () => {
  for (const eventName of ['', '.', '   ', 'pusher:subscription_succeeded', 'pusher_internal:member_added']) {
    assert.throws(() => isAgentEventName('agent.status', { eventName }), (e) => {
      assert.ok(e instanceof SteplineError);
      assert.equal(e.code, 'invalid_value', eventName);
      assert.equal(e.path, '/options/eventName');
      return true;
    });
  }
});

test('wrong argument types and unknown options are typed errors', () => {
  const cases = [
    [() => isAgentEventName(5), 'invalid_type', null],
    [() => isAgentEventName(undefined), 'invalid_type', null],
    [() => isAgentEventName('agent.status', { eventName: 5 }), 'invalid_type', '/options/eventName'],
    [() => isAgentEventName('agent.status', { event: 'x' }), null, null],
  ];
  for (const [call, code, path] of cases) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof SteplineError, String(e));
      if (code) assert.equal(e.code, code);
      if (path) assert.equal(e.path, path);
      return true;
    });
  }
});

test('the live entry answers the same', async () => {
  await live.default();
  assert.equal(live.defaultEventName(), defaultEventName());
  for (const name of ['instructor.agent.event', '.acme.agent', 'agent.status', 'pusher:x', 'App\\Events\\Foo']) {
    for (const opts of [undefined, { eventName: 'acme.agent' }]) {
      assert.equal(live.isAgentEventName(name, opts), isAgentEventName(name, opts), `${name} ${JSON.stringify(opts)}`);
    }
  }
});

test('laravel/ai stream events are read under their own type, given the data (any channel, any type it broadcasts)', async () => {
  const { encode, eventName } = await import('../../scripts/lib/dialects/laravel-ai.mjs');
  const { canonicalRun } = await import('../../scripts/lib/dialects/run.mjs');
  const events = encode(canonicalRun());
  const types = new Set(events.map((e) => e.type));
  for (const t of ['stream_start', 'text_delta', 'reasoning_delta', 'tool_call', 'tool_result', 'stream_end']) assert.ok(types.has(t), t);
  for (const event of events) {
    // Broadcast::on(...)->as($event->type()): Echo's listenToAll hands it over with a dot.
    assert.equal(isAgentEventName(`.${eventName(event)}`, { data: event }), true, event.type);
    assert.equal(isAgentEventName(eventName(event), { data: event, eventName: 'acme.agent' }), true, event.type);
    // Without the data the name alone says nothing; under another name it is not this event.
    assert.equal(isAgentEventName(eventName(event)), false, event.type);
    assert.equal(isAgentEventName('.App\\Events\\Chat', { data: event }), false, event.type);
  }
  // A name equal to a `type` no dialect reads, and envelopes under their names as before.
  assert.equal(isAgentEventName('order_shipped', { data: { type: 'order_shipped', id: 1 } }), false);
  assert.equal(isAgentEventName('.instructor.agent.event', { data: { anything: true } }), true);
});
