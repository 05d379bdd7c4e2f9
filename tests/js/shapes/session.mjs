// Shape checks of Session, RunLog and the session-level functions: each call
// yields `[where, value]` for every run (see tests/js/shapes.test.mjs).

/** `name` → a generator of `[where, returned value]` over the corpus. */
export const calls = {
  async *'Session.ingest'({ stepline, runs }) {
    for (const run of runs) {
      const session = new stepline.Session();
      for (const [i, envelope] of run.envelopes.entries()) yield [`${run.name} #${i}`, session.ingest(envelope)];
      // Again: every one a duplicate.
      yield [`${run.name} redelivered`, session.ingest(run.envelopes[0])];
      session.free();
    }
    const other = new stepline.Session({ sessionId: 'someone-else' });
    yield ['a foreign session', other.ingest(runs[0].envelopes[0])];
    yield ['an unknown type', other.ingest({ ...runs[0].envelopes[0], type: 'agent.future.thing', session_id: 'someone-else' })];
    other.free();
  },
};

/** Exports whose result is not data, and why. */
export const notData = {
  'Session.free': 'releases the wasm memory',
};
