// The devtools entry, `stepline/devtools`: the whole API in its own wasm (the core built
// with the `devtools` cargo feature), where `stepline` is the same core without what only a
// devtools needs (issue 29: each audience loads only what it uses). Pins the split: which
// names each entry has, that a session moves over by its recording to the same view, that
// both Node entries throw one SteplineError class, and that the panel's bundled run reads
// the same through either.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import * as core from 'stepline';
import * as devtools from 'stepline/devtools';

import { demoRun as demoRunOf } from '../../scripts/demo-run.mjs';

const require = createRequire(import.meta.url);
const { recording: demoRun } = await demoRunOf();

/** What only a devtools needs: its functions and classes, and its Session methods. */
const DEVTOOLS_NAMES = ['SessionTimeline', 'compareRuns', 'diagnose', 'pricesFromState'];
const DEVTOOLS_METHODS = ['cost', 'diagnose', 'envelopesOf', 'exportOtlp', 'replayContinuation', 'timeline'];

test('stepline/devtools exports every name of stepline and the devtools ones; stepline has none of those', () => {
  const coreNames = Object.keys(core).sort();
  const devtoolsNames = Object.keys(devtools).sort();
  assert.deepEqual(coreNames.filter((n) => !devtoolsNames.includes(n)), [], 'a stepline name the devtools entry lacks');
  assert.deepEqual(devtoolsNames.filter((n) => !coreNames.includes(n)), DEVTOOLS_NAMES);
  for (const method of DEVTOOLS_METHODS) {
    assert.equal(typeof devtools.Session.prototype[method], 'function', `stepline/devtools Session.${method}`);
    assert.equal(core.Session.prototype[method], undefined, `stepline's Session has no ${method}`);
  }
  // The stored-state what-if stays with the Node entry: only the streamed one moved.
  assert.equal(typeof core.replayContinuation, 'function');
  assert.equal(typeof core.Session.prototype.reconcile, 'function');
});

test('a stepline session moves to the devtools entry by its recording, to the same view, and its devtools methods then work', () => {
  const session = core.Session.fromRecording(demoRun);
  const moved = devtools.Session.fromRecording(session.toRecording());
  assert.deepEqual(moved.getSnapshot(), session.getSnapshot());
  const timeline = moved.timeline();
  assert.ok(timeline.length > 30, `the bundled run is longer than a snapshot window (${timeline.length} envelopes)`);
  assert.deepEqual(timeline.viewAt(timeline.length), session.getSnapshot());
  const spans = moved.exportOtlp({}).resourceSpans[0].scopeSpans[0].spans;
  assert.equal(spans.filter((s) => s.name === 'invoke_agent').length, session.getSnapshot().executions.length);
  assert.ok(Array.isArray(moved.diagnose()));
  session.free();
  moved.free();
});

test('both Node entries throw the one SteplineError class, with its code and path', () => {
  assert.equal(devtools.SteplineError, core.SteplineError);
  assert.equal(require('stepline/devtools').SteplineError, require('stepline').SteplineError);
  for (const entry of [core, devtools]) {
    const failure = (() => {
      try {
        entry.decodeEnvelope({ type: 'agent.status', payload: {} });
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(failure instanceof core.SteplineError, 'a typed error');
    assert.deepEqual([failure.code, failure.path], ['missing_field', '/session_id']);
  }
});

test('the browser form of stepline/devtools loads its own wasm and reads the bundled run as stepline does', async () => {
  // In Node the package's `node` condition picks devtools.mjs; the browser form is
  // devtools.js beside it, loaded here with its wasm's bytes, as a page would.
  const web = await import(new URL('./devtools.js', import.meta.resolve('stepline/devtools')).href);
  await web.default(readFileSync(require.resolve('stepline/devtools/stepline_bg.wasm')));
  const session = web.Session.fromRecording(demoRun);
  const reference = core.Session.fromRecording(demoRun);
  assert.deepEqual(session.getSnapshot(), reference.getSnapshot());
  const timeline = session.timeline();
  assert.deepEqual(timeline.viewAt(timeline.length), reference.getSnapshot());
  // One SteplineError class for the browser entries (entry.js).
  assert.equal(web.SteplineError, (await import('stepline/web')).SteplineError);
  session.free();
  reference.free();
});
