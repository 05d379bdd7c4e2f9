// A v2 state stores the resolved llmConfig, API key included. A recognisable key is
// seeded into v2 states (llmConfig.apiKey, an Authorization header in its options,
// metadata), into snapshots and into recordings, and EVERY output of the package's
// public functions and of every CLI command (slim, validate, replay, summary, help,
// version) is searched for it. validateSnapshot and diagnose flag a key by path.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as stepline from 'stepline/devtools';
import { V2_NOW as NOW, v2Vectors, withIds } from './lib/vectors.mjs';

const { parseAgentState, slimSnapshot, restoreState, validateSnapshot, diagnose, evaluateGuards, replayGuards, Session, RunLog } = stepline;

const KEY = 'sk-test-SEEDED-4f1c9a7e2b6d8053abcdef';
const SEED = 'SEEDED';
const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'node_modules', 'stepline', 'bin', 'stepline.mjs');
const runs = v2Vectors('agent-runs.json');

const tmp = mkdtempSync(join(tmpdir(), 'stepline-secrets-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A final state with the key where a real app has it, and where an app may put it. */
function seed(state) {
  const s = withIds(state);
  s.llmConfig = { ...s.llmConfig, apiKey: KEY, options: { headers: { Authorization: `Bearer ${KEY}` } } };
  s.context = { ...s.context, metadata: { tenant: 't1', apiKey: KEY } };
  return s;
}

function clean(what, value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  assert.ok(!text.includes(SEED), `${what}: the seeded key is in the output`);
}

function caught(fn) {
  try { return fn(); } catch (error) { return { thrown: `${error.name} ${error.code} ${error.path} ${error.message} ${error.stack}` }; }
}

function run(args, input) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: tmp, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(result.error, undefined);
  return result;
}

const seeded = runs.flatMap((r) => r.expected.map((turn, i) => [`${r.name} turn ${i}`, seed(turn.finalState), turn]));
const guards = [{ kind: 'steps_limit', max: 1 }, { kind: 'token_usage_limit', max: 10 }, { kind: 'execution_time_limit', max: 0 }, { kind: 'finish_reason', stopReasons: ['stop'] }];

test('no public function\'s output or error contains a key seeded into a v2 state', () => {
  assert.equal(seeded.length, 47);
  for (const [name, state] of seeded) {
    assert.ok(JSON.stringify(state).includes(KEY));
    const view = parseAgentState(state, { now: NOW });
    clean(`${name}: parseAgentState`, view);
    assert.equal(view.llmConfig.apiKey, '[redacted]');
    clean(`${name}: parseAgentState(text)`, parseAgentState(JSON.stringify(state), { now: NOW }));
    for (const preset of ['minimal', 'standard', 'full']) {
      const result = slimSnapshot(state, { preset });
      clean(`${name} [${preset}]: slimSnapshot`, result);
      clean(`${name} [${preset}]: slimSnapshot(maxBytes)`, caught(() => slimSnapshot(JSON.stringify(state), { preset, maxBytes: Math.floor(result.bytes / 2) + 400 })));
      clean(`${name} [${preset}]: validateSnapshot`, validateSnapshot(result.snapshot));
      clean(`${name} [${preset}]: restoreState`, restoreState(result.snapshot, { now: NOW }));
    }
    clean(`${name}: evaluateGuards`, evaluateGuards(state, guards, { now: NOW }));
    clean(`${name}: replayGuards`, replayGuards(state, guards));
    const found = diagnose({ state });
    clean(`${name}: diagnose`, found);
    assert.deepEqual(found.filter((d) => d.code === 'secret_in_state').map((d) => d.path),
      ['/state/context/metadata/apiKey', '/state/llmConfig/apiKey', '/state/llmConfig/options/headers/Authorization'], name);
    // Errors about a state holding the key never quote it.
    for (const broken of [{ ...state, executionCount: 'many' }, { ...state, steps: [] }, { ...state, llmConfig: KEY }, { ...state, execution: { status: 'paused' } }]) {
      const error = caught(() => parseAgentState(broken));
      assert.ok(error.thrown, name);
      clean(`${name}: error`, error);
      clean(`${name}: slim error`, caught(() => slimSnapshot(broken)));
    }
  }
});

test('validateSnapshot and diagnose flag a snapshot that carries a key, by path, without its value', () => {
  const [, state] = seeded[0];
  const { snapshot } = slimSnapshot(state);
  const leaky = { ...snapshot, metadata: { llm: { api_key: KEY } } };
  const report = validateSnapshot(JSON.stringify(leaky));
  assert.equal(report.valid, false);
  assert.deepEqual(report.errors.map((e) => [e.path, e.code]), [['/metadata/llm/api_key', 'secret_in_state']]);
  clean('validateSnapshot', report);
  const found = diagnose({ snapshot: leaky });
  assert.deepEqual(found.map((d) => [d.code, d.severity, d.path]), [['secret_in_state', 'error', '/snapshot/metadata/llm/api_key']]);
  clean('diagnose', found);
});

test('a session fed a real-driver run and reconciled against a seeded state\'s snapshot, its recording and run log never show the key', () => {
  const realRuns = runs.filter((r) => r.name.startsWith('real driver'));
  for (const r of realRuns) {
    const turn = r.expected[0];
    const session = new Session();
    for (const { envelope } of turn.envelopes) session.ingest(envelope);
    const { snapshot } = slimSnapshot(seed(turn.finalState));
    clean(`${r.name}: reconcile`, session.reconcile(snapshot));
    clean(`${r.name}: view`, session.getSnapshot());
    clean(`${r.name}: toRecording`, session.toRecording());
    const log = new RunLog();
    log.ingestJsonl(session.toRecording());
    log.addSnapshot(turn.envelopes[0].envelope.session_id, snapshot);
    clean(`${r.name}: summary`, log.summary());
    clean(`${r.name}: sessions`, log.sessions());
    clean(`${r.name}: save`, log.save());
  }
});

test('every CLI command keeps the key out of what it prints', () => {
  const [, state, turn] = seeded.find(([name]) => name.startsWith('real driver: non-streaming tool call then answer [debug]'));
  const stateFile = join(tmp, 'state.json');
  writeFileSync(stateFile, JSON.stringify(state));
  for (const args of [['slim', stateFile], ['slim', stateFile, '--json'], ['slim', stateFile, '--preset', 'full', '--max-bytes', '4000'], ['slim', stateFile, '--preset', 'minimal']]) {
    const out = run(args);
    assert.equal(out.status, 0, `${args.join(' ')}: ${out.stderr}`);
    clean(`stepline ${args.join(' ')} (stdout)`, out.stdout);
    clean(`stepline ${args.join(' ')} (stderr)`, out.stderr);
  }
  // A snapshot that carries a key: validate flags it and does not print it.
  const { snapshot } = slimSnapshot(state);
  const leakyFile = join(tmp, 'leaky.json');
  writeFileSync(leakyFile, JSON.stringify({ ...snapshot, metadata: { apiKey: KEY } }));
  for (const args of [['validate', leakyFile], ['validate', leakyFile, '--json']]) {
    const out = run(args);
    assert.equal(out.status, 1, args.join(' '));
    assert.match(out.stdout, /secret_in_state/);
    clean(`stepline ${args.join(' ')}`, out.stdout + out.stderr);
  }
  // A recording of the run whose snapshot line carries the key (an old, unredacted store).
  const lines = [JSON.stringify({ stepline_recording: 1 }), ...turn.envelopes.map(({ envelope }) => JSON.stringify(envelope)),
    JSON.stringify({ stepline_snapshot: { ...snapshot, metadata: { apiKey: KEY } } })];
  const recording = join(tmp, 'run.jsonl');
  writeFileSync(recording, `${lines.join('\n')}\n`);
  for (const args of [['replay', recording], ['replay', recording, '--json'], ['replay', recording, '--snapshot', leakyFile], ['summary', recording], ['summary', recording, '--json']]) {
    const out = run(args);
    clean(`stepline ${args.join(' ')}`, out.stdout + out.stderr);
  }
  const piped = run(['slim', '-'], JSON.stringify(state));
  assert.equal(piped.status, 0);
  clean('stepline slim -', piped.stdout + piped.stderr);
  for (const args of [['--help'], ['--version'], ['slim'], ['nonsense']]) clean(`stepline ${args.join(' ')}`, run(args).stdout);
});
