// stepline/echo's late resync: a page that subscribed after a run started asks for the
// server's log on the first event it sees, wherever in the run that is, and ends with
// the view of a page that saw the whole run; a page that saw the run's opening event
// asks for nothing (one whose producer opens with a step rather than a status asks once,
// and finds only duplicates). Every single-turn v2.7 reference run, joined at every
// event, on a running clock: the recordings' frozen test clock gives every event the
// same millisecond, where a merge cannot tell the order of identical tool events
// (README, "Redelivery, resync and merges").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { Session } from 'stepline';
import { createAgentFeed } from 'stepline/echo';

const runs = JSON.parse(readFileSync(new URL('../vectors/instructor-php-v2.7/agent-runs.json', import.meta.url), 'utf8'))
  .filter((r) => r.expected.length === 1 && r.expected[0].envelopes.length > 1);
const EVENT = '.instructor.agent.event';

/** A page that subscribes before event `k`: what it asked for and what it shows at the end. */
async function joinAt(envelopes, k) {
  const sessionId = envelopes[0].session_id;
  const asked = [];
  const feed = createAgentFeed(new Session({ sessionId }), {
    resync: async (reason) => {
      asked.push(reason);
      return envelopes.slice(0, k + 1); // the server's log: everything broadcast so far
    },
  });
  feed.receive(EVENT, envelopes[k]);
  for (let i = 0; i < 100 && feed.getSnapshot().catchingUp; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(feed.getSnapshot().catchingUp, false);
  for (const envelope of envelopes.slice(k + 1)) feed.receive(EVENT, envelope);
  return { asked, view: feed.getSnapshot().view };
}

// A step's continuation broadcast again later in the run (a guard's stop after the
// step's own continuation): when that later one is the first event a page sees, the
// merge applies the earlier one from the log after it, and the view keeps the earlier
// decision. A limit of the session's merge, not of the feed; the feed still resyncs.
const LATER_CONTINUATION = 'the session keeps the continuation merged last, not the later-timestamped one (core merge)';
const laterContinuation = (envelopes, k) =>
  envelopes[k].type === 'agent.continuation' &&
  envelopes.slice(0, k).some((e) => e.type === 'agent.continuation' && e.payload.step_number === envelopes[k].payload.step_number);

for (const run of runs) {
  test(`${run.name}: a page joining at any event ends with the whole run's view`, async (t) => {
    const start = Date.parse('2026-08-10T12:00:00.000Z');
    const envelopes = run.expected[0].envelopes.map(({ envelope }, i) => ({ ...envelope, timestamp: new Date(start + i).toISOString() }));
    const opensWithStatus = envelopes[0].type === 'agent.status';
    const whole = new Session({ sessionId: envelopes[0].session_id });
    for (const envelope of envelopes) whole.ingest(envelope);
    const reference = whole.getSnapshot();

    const fromStart = await joinAt(envelopes, 0);
    assert.deepEqual(fromStart.asked, opensWithStatus ? [] : ['late'], 'the opening event');
    assert.deepEqual(fromStart.view.executions, reference.executions);

    for (let k = 1; k < envelopes.length; k++) {
      const todo = laterContinuation(envelopes, k) && LATER_CONTINUATION;
      await t.test(`joined at event ${k} (${envelopes[k].type})`, { todo }, async () => {
        const late = await joinAt(envelopes, k);
        assert.deepEqual(late.asked, ['late']);
        assert.deepEqual(late.view.executions, reference.executions);
        assert.deepEqual(late.view.warnings, reference.warnings);
      });
    }
  });
}
