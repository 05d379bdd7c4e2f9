// What the README documents and used to fail when run as written (issue 15): the
// view methods passed unbound, every documented way to start the browser entries
// (in Node too, without wasm-bindgen's deprecation warning), `init` from the Node
// entry, the encoder's optional arguments, the CLI's figures and messages, and
// scripts/demo-run.mjs --help. readme.test.mjs runs the examples themselves.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as node from 'stepline';
import initWeb, * as web from 'stepline/web';
import initLive, * as live from 'stepline/live';

import { demoRunArgs } from '../../scripts/demo-run.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const vectorsDir = process.env.STEPLINE_VECTORS ?? join(root, 'tests', 'vectors', 'cognesy-v1.22');
const runs = JSON.parse(readFileSync(join(vectorsDir, 'agent-runs.json'), 'utf8'));
const envelopes = runs.find((r) => r.name === 'tool call then final answer [debug]').expected[0].envelopes.map((b) => b.envelope);
const webWasm = readFileSync(require.resolve('stepline/stepline_bg.wasm'));
const liveWasm = readFileSync(require.resolve('stepline/live/stepline_bg.wasm'));

const tmp = mkdtempSync(join(tmpdir(), 'stepline-readme-fixes-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

await initWeb({ module_or_path: webWasm });
await initLive({ module_or_path: liveWasm });

for (const [entry, api] of [['stepline', node], ['stepline/web', web], ['stepline/live', live]]) {
  test(`${entry}: session.subscribe and session.getSnapshot work unbound, as useSyncExternalStore calls them`, () => {
    const session = new api.Session({ sessionId: 'sess-e2e' });
    const { subscribe, getSnapshot } = session;
    let calls = 0;
    const unsubscribe = subscribe(() => { calls += 1; });
    const before = getSnapshot();
    assert.deepEqual(before.executions, []);
    for (const e of envelopes) session.ingest(e);
    assert.equal(calls, envelopes.length);
    assert.equal(getSnapshot(), session.getSnapshot());
    assert.equal(getSnapshot().executions[0].steps.length, 2);
    unsubscribe();
    session.ingest({ ...envelopes[0], timestamp: '2026-01-20T12:00:01.000Z', payload: { status: 'processing', previous_status: 'idle' } });
    assert.equal(calls, envelopes.length);
    session.free();
  });

  test(`${entry}: the bound methods are the same functions on every read, and each session has its own`, () => {
    const a = new api.Session({ sessionId: 'a' });
    const b = new api.Session({ sessionId: 'b' });
    assert.equal(a.subscribe, a.subscribe);
    assert.equal(a.getSnapshot, a.getSnapshot);
    assert.notEqual(a.subscribe, b.subscribe);
    assert.equal(a.getSnapshot().session_id, 'a');
    assert.equal(b.getSnapshot.call(a).session_id, 'b', 'a bound method keeps its session whatever `this` is');
    // The prototype keeps the plain methods, and sessions made without the constructor are bound too.
    assert.equal(typeof api.Session.prototype.subscribe, 'function');
    const recorded = api.Session.fromRecording(a.toRecording());
    const { getSnapshot } = recorded;
    assert.equal(getSnapshot().session_id, 'a');
    a.free();
    b.free();
    recorded.free();
  });
}

/** Runs `code` as an ES module in a fresh Node process (a fresh wasm instance) in the repo. */
function fresh(code) {
  const file = join(root, 'node_modules', `.stepline-init-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  try {
    return spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8' });
  } finally {
    rmSync(file, { force: true });
  }
}

const FORMS = {
  'init()': 'await init();',
  'init(bytes)': 'await init(readFileSync(wasm));',
  'init(URL)': 'await init(pathToFileURL(wasm));',
  'init(file: URL string)': 'await init(pathToFileURL(wasm).href);',
  'init(Response)': "await init(new Response(readFileSync(wasm), { headers: { 'content-type': 'application/wasm' } }));",
  'init(WebAssembly.Module)': 'await init(new WebAssembly.Module(readFileSync(wasm)));',
  'init(Promise<Response>)': 'await init(Promise.resolve(new Response(readFileSync(wasm), { headers: { "content-type": "application/wasm" } })));',
  'init({ module_or_path })': 'await init({ module_or_path: readFileSync(wasm) });',
  'initSync()': 'initSync();',
  'initSync(bytes)': 'initSync(readFileSync(wasm));',
  'initSync(WebAssembly.Module)': 'initSync(new WebAssembly.Module(readFileSync(wasm)));',
  'initSync({ module })': 'initSync({ module: readFileSync(wasm) });',
};

for (const [entry, wasmName] of [['stepline/web', 'stepline/stepline_bg.wasm'], ['stepline/live', 'stepline/live/stepline_bg.wasm']]) {
  test(`${entry} in Node: every documented init form works and logs nothing`, () => {
    for (const [form, call] of Object.entries(FORMS)) {
      const r = fresh(`
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import init, { initSync, version, decodeEnvelope, SteplineError } from '${entry}';
const wasm = createRequire(import.meta.url).resolve('${wasmName}');
${call}
let code = null;
try { decodeEnvelope('{'); } catch (e) { code = e instanceof SteplineError ? e.code : String(e); }
console.log(JSON.stringify({ version: version(), code }));
`);
      assert.equal(r.status, 0, `${form}: ${r.stderr}`);
      assert.equal(r.stderr, '', `${form} wrote to stderr`);
      assert.deepEqual(JSON.parse(r.stdout), { version: node.version(), code: 'invalid_json' }, form);
    }
  });
}

test("stepline in Node ESM: `import init, { initSync } from 'stepline'` works, as bundler-mode TypeScript accepts it", () => {
  const r = fresh(`
import init, { initSync, version } from 'stepline';
const before = version();
const result = await init();
initSync();
console.log(JSON.stringify({ same: before === version(), result: result ?? null }));
`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.deepEqual(JSON.parse(r.stdout), { same: true, result: null });
});

test('EnvelopeEncoder: status() without details and reset() without an id', () => {
  const enc = new node.EnvelopeEncoder({ sessionId: 's', executionId: 'e1', now: '2026-01-20T12:00:00Z' });
  const { envelope } = enc.status('processing');
  assert.equal(envelope.payload.status, 'processing');
  assert.equal(envelope.payload.error_message ?? null, null);
  enc.reset();
  assert.equal(enc.currentStatus, 'idle');
  assert.equal(enc.status('processing').envelope.execution_id, 'e1', 'reset() keeps the id');
  enc.reset(null);
  assert.throws(() => enc.reset(42), (e) => e instanceof node.SteplineError && e.code === 'invalid_type');
  enc.free();
});

test('validateSnapshot reports on any input, so its argument is `unknown`', () => {
  for (const input of [42, null, [], true]) {
    const { valid, errors } = node.validateSnapshot(input);
    assert.equal(valid, false);
    assert.ok(errors.length > 0);
  }
});

const cli = join(root, 'node_modules', 'stepline', 'bin', 'stepline.mjs');
const runCli = (args) => spawnSync(process.execPath, [cli, ...args], { cwd: tmp, encoding: 'utf8' });

test('stepline summary prints figures with thousands separators, as replay does', () => {
  // Enough tokens for a separator: the reference run's usage scaled up.
  const big = envelopes.map((e) => (e.type === 'agent.step.completed'
    ? { ...e, payload: { ...e.payload, usage: Object.fromEntries(Object.entries(e.payload.usage).map(([k, v]) => [k, v * 1000])) } }
    : e));
  const file = join(tmp, 'big.jsonl');
  writeFileSync(file, big.map((e) => JSON.stringify(e)).join('\n'));
  const log = new node.RunLog();
  log.ingestJsonl(readFileSync(file, 'utf8'));
  const { tokens } = log.summary();
  assert.ok(tokens.total >= 1000);
  const summary = runCli(['summary', file]);
  assert.equal(summary.status, 0, summary.stderr);
  const n = (x) => x.toLocaleString('en-US');
  assert.match(summary.stdout, new RegExp(`^tokens +${n(tokens.total)} \\(input ${n(tokens.input)}, output ${n(tokens.output)}\\)$`, 'm'));
  const replay = runCli(['replay', file]);
  assert.match(replay.stdout, new RegExp(`${n(tokens.total)} tokens`));
});

test('an unknown CLI option is named in a message whose quotes are balanced', () => {
  for (const option of ['--bogus', '-z']) {
    const r = runCli(['summary', option, 'x.jsonl']);
    assert.equal(r.status, 2);
    const first = r.stderr.split('\n')[0];
    assert.equal(first, `stepline: unknown option '${option}' (a file whose name starts with '-' goes after '--': -- ${option})`);
    assert.equal((first.match(/'/g) ?? []).length % 2, 0);
    assert.equal((first.match(/"/g) ?? []).length % 2, 0);
  }
});

test('scripts/demo-run.mjs --help prints its usage and writes no file named --help', () => {
  assert.deepEqual(demoRunArgs(['--help']), { help: true });
  assert.deepEqual(demoRunArgs(['-h']), { help: true });
  assert.deepEqual(demoRunArgs(['out.jsonl']), { out: 'out.jsonl' });
  assert.match(demoRunArgs(['--out']).error, /unknown option "--out"/);
  assert.match(demoRunArgs(['a', 'b']).error, /at most one output file/);
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'demo-run.mjs'), '--help'], { cwd: tmp, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^usage: node scripts\/demo-run\.mjs \[out\.jsonl\]/);
  assert.equal(existsSync(join(tmp, '--help')), false);
  const bad = spawnSync(process.execPath, [join(root, 'scripts', 'demo-run.mjs'), '--bogus'], { cwd: tmp, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(existsSync(join(tmp, '--bogus')), false);
});

