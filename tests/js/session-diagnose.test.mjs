// Session.diagnose: the detectors over the session's own log, through the
// built package. What the panel's Diagnostics tab calls: one bad line of a
// recording must neither fail it nor reach it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Session, diagnose, SteplineError } from 'stepline/devtools';
import { v1Vectors } from './lib/vectors.mjs';

const runs = v1Vectors('agent-runs.json');
const run = (prefix) => runs.find((r) => r.name.startsWith(prefix));
const envelopesOf = (r) => r.expected.flatMap((turn) => turn.envelopes.map((e) => e.envelope));
const lastSlim = (r) => r.expected.at(-1).slim;

test('a session diagnoses its own envelopes exactly as diagnose() does given them', () => {
  let withFindings = 0;
  for (const r of runs) {
    const envelopes = envelopesOf(r);
    const session = new Session();
    const out = session.ingestJsonl(envelopes.map((e) => JSON.stringify(e)).join('\n'));
    assert.equal(out.errorCount, 0, r.name);
    const own = session.diagnose({ snapshot: lastSlim(r), includeToolResults: true });
    assert.deepEqual(own, diagnose({ envelopes, snapshot: lastSlim(r), includeToolResults: true }), r.name);
    if (own.length > 0) withFindings += 1;
    session.free();
  }
  assert.equal(withFindings, 2, 'the two runs whose tool throws never broadcast a final status');
});

test('a recording with broken lines still diagnoses, and the same as without them', () => {
  const r = run('tool throws (exception escapes ToolExecutor), default');
  const lines = envelopesOf(r).map((e) => JSON.stringify(e));
  const clean = new Session();
  clean.ingestJsonl(lines.join('\n'));
  const expected = clean.diagnose();
  assert.deepEqual(expected.map((d) => d.code), ['final_status_missing']);

  const broken = [...lines];
  broken.splice(1, 0, lines[1].slice(0, 40));
  broken.splice(3, 0, 'not json at all');
  const session = new Session();
  assert.equal(session.ingestJsonl(broken.join('\n')).errorCount, 2);
  assert.deepEqual(session.diagnose(), expected);
  assert.deepEqual(session.diagnose(null), expected);
  // diagnose() over the same lines, bad ones included, fails on the first bad one.
  assert.throws(() => diagnose(`{"envelopes":[${broken.join(",")}]}`), SteplineError);
});

test('the final snapshot passed to a session diagnosis is checked for leaked tool arguments', () => {
  const r = run('tool call then final answer');
  const snapshot = structuredClone(lastSlim(r));
  snapshot.messages[1].content = snapshot.messages[1]._metadata.tool_calls[0].function.arguments;
  const session = new Session();
  for (const e of envelopesOf(r)) session.ingest(e);
  const found = session.diagnose({ snapshot });
  assert.deepEqual(found.map((d) => [d.code, d.path, d.evidence.match]), [['tool_args_in_content', '/snapshot/messages/1/content', 'exact']]);
});

test('diagnose options of the wrong shape throw typed errors', () => {
  const session = new Session();
  for (const [options, code, path] of [
    [{ envelopes: [] }, 'invalid_value', null],
    [{ snapshot: 3 }, 'invalid_type', '/snapshot'],
    [[1], 'invalid_type', null],
  ]) {
    assert.throws(() => session.diagnose(options), (e) => e instanceof SteplineError && e.code === code && (path === null || e.path === path), JSON.stringify(options));
  }
  assert.deepEqual(session.diagnose({}), []);
});
