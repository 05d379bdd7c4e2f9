// The OpenTelemetry export (Session.exportOtlp, `stepline otel`) checked by the official
// protobuf JSON mapping, not by a hand-written checker: each recorded run's export is parsed
// strictly into opentelemetry-proto's ExportTraceServiceRequest by tests/otel/check_otlp.py,
// which also checks the nesting run -> inference -> tool and the span counts and usage
// against the session's own view. The Python packages live in .venv (scripts/setup.sh);
// without it the test fails in CI (CI=true) and is skipped, saying so, elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Session } from 'stepline/devtools';

import { encode as encodeAiSdk } from '../../scripts/lib/dialects/ai-sdk.mjs';
import { encode as encodeLaravel } from '../../scripts/lib/dialects/laravel-ai.mjs';
import { canonicalRun } from '../../scripts/lib/dialects/run.mjs';
import { longRun } from '../../scripts/long-run.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const python = join(root, '.venv', 'bin', 'python');
const checker = join(root, 'tests', 'otel', 'check_otlp.py');
const cli = join(root, 'node_modules', 'stepline', 'bin', 'stepline.mjs');
const venvMissing = existsSync(python)
  ? false
  : '.venv is missing: run scripts/setup.sh (it installs opentelemetry-proto and protobuf there)';
if (venvMissing && process.env.CI === 'true') {
  throw new Error(`the OTLP check needs the Python venv in CI: ${venvMissing}`);
}

const tmp = mkdtempSync(join(tmpdir(), 'stepline-otel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function session(envelopes) {
  const s = new Session();
  for (const e of envelopes) s.ingest(structuredClone(e));
  return s;
}

/** What the view says the export must hold: executions, per-step usage, tool calls. */
function expected(s) {
  const view = s.getSnapshot();
  const steps = view.executions.flatMap((e) => e.steps);
  return {
    executions: view.executions.length,
    steps: steps.map((st) => (st.usage ? [st.usage.input, st.usage.output] : null)),
    tools: steps.reduce((n, st) => n + st.tools.length, 0),
  };
}

let files = 0;
/** Runs the strict protobuf check on `text`; returns its span counts. */
function check(text, want) {
  files += 1;
  const out = join(tmp, `export-${files}.json`);
  const exp = join(tmp, `expected-${files}.json`);
  writeFileSync(out, text);
  writeFileSync(exp, JSON.stringify(want));
  const r = spawnSync(python, [checker, out, exp], { encoding: 'utf8' });
  assert.equal(r.status, 0, `check_otlp.py: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

function referenceRuns(dir) {
  const cases = JSON.parse(readFileSync(join(root, 'tests', 'vectors', dir, 'agent-runs.json'), 'utf8'));
  return cases.map((c) => [c.name, c.expected.flatMap((t) => t.envelopes.map((e) => e.envelope))]);
}

for (const dir of ['cognesy-v1.22', 'instructor-php-v2.7']) {
  test(`every ${dir} reference run exports spans the strict protobuf JSON parse accepts, nested run -> chat -> tool`, { skip: venvMissing }, () => {
    let tools = 0;
    for (const [name, envelopes] of referenceRuns(dir)) {
      const s = session(envelopes);
      const got = check(JSON.stringify(s.exportOtlp()), expected(s));
      assert.ok(got.runs >= 1, name);
      tools += got.tools;
    }
    assert.ok(tools > 0, 'some run calls a tool');
  });
}

test('a laravel/ai run and an AI SDK run export as they are viewed', { skip: venvMissing }, () => {
  for (const events of [encodeLaravel(canonicalRun()), encodeAiSdk(canonicalRun())]) {
    const s = session(events);
    const got = check(JSON.stringify(s.exportOtlp()), expected(s));
    assert.ok(got.chats > 0 && got.tools > 0);
  }
});

test('a 39-step run exports 39 chat spans with its parallel tool calls as siblings', { skip: venvMissing }, async () => {
  const { envelopes } = await longRun({ steps: 39 });
  const s = session(envelopes);
  const request = s.exportOtlp({ serviceName: 'long-run' });
  const got = check(JSON.stringify(request), expected(s));
  assert.equal(got.chats, 39);
  const spans = request.resourceSpans[0].scopeSpans[0].spans;
  // Step 3 calls two tools: both spans hang under step 3's chat span.
  const chat3 = spans.filter((sp) => sp.name === 'chat')[2];
  assert.equal(spans.filter((sp) => sp.parentSpanId === chat3.spanId).length, 2);
  assert.equal(request.resourceSpans[0].resource.attributes[0].value.stringValue, 'long-run');
});

test('the same recording exports the same spans; exportOtlp refuses unknown options', () => {
  const [, envelopes] = referenceRuns('cognesy-v1.22')[0];
  const a = session(envelopes).exportOtlp();
  const b = Session.fromRecording(session(envelopes).toRecording()).exportOtlp();
  assert.deepEqual(a, b);
  assert.throws(() => session(envelopes).exportOtlp({ service: 'x' }), { path: '/options/service' });
});

test('`stepline otel <recording> --service-name N -o out.json` writes the export', { skip: venvMissing }, () => {
  const [, envelopes] = referenceRuns('instructor-php-v2.7')[0];
  const s = session(envelopes);
  const recording = join(tmp, 'run.jsonl');
  writeFileSync(recording, s.toRecording());
  const outFile = join(tmp, 'cli-out.json');
  const r = spawnSync(process.execPath, [cli, 'otel', recording, '--service-name', 'cli-agent', '-o', outFile], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^wrote \d+ spans? to /);
  const text = readFileSync(outFile, 'utf8');
  check(text, expected(s));
  assert.deepEqual(JSON.parse(text), s.exportOtlp({ serviceName: 'cli-agent' }));
  const stdout = spawnSync(process.execPath, [cli, 'otel', recording], { encoding: 'utf8' });
  assert.equal(stdout.status, 0, stdout.stderr);
  assert.deepEqual(JSON.parse(stdout.stdout), s.exportOtlp());
});
