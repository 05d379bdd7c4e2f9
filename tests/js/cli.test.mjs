// The `stepline` command line of the built package, run as users run it:
// `node node_modules/stepline/bin/stepline.mjs …` and through the bin link
// (node_modules/.bin/stepline, the link npm makes from the manifest's `bin`).
// What it prints is checked against the library it wraps and the reference vectors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Session, RunLog, diagnose, slimSnapshot, validateSnapshot, version } from 'stepline/devtools';

import { generateRecordingText } from '../../bench/generate-envelopes.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'node_modules', 'stepline', 'bin', 'stepline.mjs');
const binLink = join(root, 'node_modules', '.bin', 'stepline');
const vectorsDir = process.env.STEPLINE_VECTORS ?? join(root, 'tests', 'vectors', 'cognesy-v1.22');
const cases = JSON.parse(readFileSync(join(vectorsDir, 'slim-serializer.json'), 'utf8'));
const byName = (name) => {
  const c = cases.find((x) => x.name === name);
  assert.ok(c, `no vector named ${name}`);
  return c;
};

const tmp = mkdtempSync(join(tmpdir(), 'stepline-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function write(name, value) {
  const file = join(tmp, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

/** Runs the CLI with node; returns {status, stdout, stderr}. */
function run(args, { input, command = process.execPath, prefix = [cli] } = {}) {
  const result = spawnSync(command, [...prefix, ...args], { cwd: tmp, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(result.error, undefined, `could not run the CLI: ${result.error}`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** PHP writes an empty map as []: compare with [] and {} as equal where either is empty. */
function normalizeEmpty(value) {
  if (Array.isArray(value)) return value.length === 0 ? {} : value.map(normalizeEmpty);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeEmpty(v)]));
  }
  return value;
}

const conversation = byName('serialize [default] tool calls conversation with 3 steps (completed)');
const longConversation = byName('serialize [default] 65 messages');
const minimalConversation = byName('serialize [minimal] tool calls conversation with 3 steps (completed)');
const stateFile = write('state.json', conversation.input.state);
const longStateFile = write('long-state.json', longConversation.input.state);
const validFile = write('valid-snapshot.json', conversation.expected);

test('--help prints the usage to stdout and exits 0; no arguments print it to stderr and exit 2', () => {
  const help = run(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage:\n {2}stepline slim <state\.json> \[--preset minimal\|standard\|full\] \[--max-bytes N\] \[--json\]\n {2}stepline validate <snapshot\.json>\.\.\. \[--json\]/);
  assert.equal(help.stderr, '');

  const none = run([]);
  assert.equal(none.status, 2);
  assert.equal(none.stdout, '');
  assert.equal(none.stderr.trimEnd(), help.stdout.trimEnd());
});

test('bad usage exits 2 with the mistake named and the synopsis', () => {
  const mistakes = [
    [['frobnicate'], /unknown command "frobnicate"/],
    [['slim'], /slim takes exactly one state file/],
    [['slim', stateFile, stateFile], /slim takes exactly one state file/],
    [['slim', stateFile, '--preset', 'huge'], /--preset must be one of minimal, standard, full/],
    [['slim', stateFile, '--max-bytes', 'lots'], /--max-bytes must be a whole number/],
    [['slim', stateFile, '--max-bytes=-5'], /--max-bytes must be a whole number/],
    [['slim', stateFile, '--max-bytes'], /--max-bytes/],
    [['slim', stateFile, '--shiny'], /--shiny/],
    [['validate'], /validate takes one or more snapshot files/],
    [['replay'], /replay takes exactly one recording/],
    [['replay', stateFile, stateFile], /replay takes exactly one recording/],
    [['replay', stateFile, '--snapshot'], /--snapshot/],
    [['replay', stateFile, '--shiny'], /--shiny/],
    [['replay', '-', '--snapshot', '-'], /cannot both be read from stdin/],
  ];
  for (const [args, message] of mistakes) {
    const { status, stdout, stderr } = run(args);
    assert.equal(status, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stdout, '', args.join(' '));
    assert.match(stderr, /^stepline: /, args.join(' '));
    assert.match(stderr, message, args.join(' '));
    assert.match(stderr, /\nUsage:\n {2}stepline slim /, args.join(' '));
  }
});

test('--version prints version()', () => {
  const { status, stdout } = run(['--version']);
  assert.equal(status, 0);
  assert.equal(stdout, `${version()}\n`);
});

test('slim prints the snapshot as indented JSON, the same as slimSnapshot and the reference', () => {
  const { status, stdout, stderr } = run(['slim', stateFile]);
  assert.equal(status, 0, stderr);
  assert.ok(stdout.startsWith('{\n  "agent_id": '), 'not indented JSON');
  const snapshot = JSON.parse(stdout);
  const library = slimSnapshot(JSON.stringify(conversation.input.state));
  assert.deepEqual(snapshot, library.snapshot);
  // Seed 000's steps[].duration_ms is stepline's addition (the reference writes it
  // under no mode; slimSnapshot leaves it out under compat): null where the state
  // stores no step timing, as this one.
  assert.deepEqual(snapshot.steps.map((s) => s.duration_ms), [null, null, null]);
  const reference = { ...snapshot, steps: snapshot.steps.map(({ duration_ms, ...step }) => step) };
  assert.deepEqual(normalizeEmpty(reference), normalizeEmpty(conversation.expected));
  assert.equal(stderr, `slim: ${library.bytes.toLocaleString('en-US')} bytes, 7 messages, 3 steps (preset standard)\n`);
});

test('slim --preset minimal drops steps and tool results as the reference minimal preset does', () => {
  const { status, stdout, stderr } = run(['slim', write('minimal-state.json', minimalConversation.input.state), '--preset', 'minimal']);
  assert.equal(status, 0, stderr);
  const snapshot = JSON.parse(stdout);
  assert.deepEqual(snapshot.steps, []);
  assert.ok(snapshot.messages.filter((m) => m.role === 'tool').every((m) => m.content === '[tool result omitted]'));
  assert.deepEqual(snapshot, slimSnapshot(minimalConversation.input.state, { preset: 'minimal' }).snapshot);
  assert.match(stderr, /^slim: [\d,]+ bytes, 7 messages, 0 of 3 steps \(preset minimal\)\n$/);
});

test('slim --max-bytes fits the snapshot in the budget and says what it dropped', () => {
  const full = slimSnapshot(longConversation.input.state);
  assert.equal(full.truncation, null);
  const budget = Math.floor(full.bytes / 2);
  const { status, stdout, stderr } = run(['slim', longStateFile, '--max-bytes', String(budget), '--json']);
  assert.equal(status, 0, stderr);
  const lines = stdout.split('\n');
  assert.deepEqual([lines.length, lines[1]], [2, ''], 'expected one line of JSON');
  const result = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(result).sort(), ['bytes', 'snapshot', 'truncation']);
  assert.deepEqual(result, slimSnapshot(longConversation.input.state, { maxBytes: budget }));
  assert.ok(result.bytes <= budget, `${result.bytes} > ${budget}`);
  // bytes counts the encoding the core writes, PHP's (`"cumulative_seconds":0.0`), which is at
  // least as long as JSON.stringify of the returned object (`0`).
  assert.ok(Buffer.byteLength(JSON.stringify(result.snapshot)) <= result.bytes);
  assert.ok(result.truncation.messagesDropped > 0);
  const kept = result.snapshot.messages.length;
  assert.equal(stderr, `slim: ${result.bytes.toLocaleString('en-US')} bytes, ${kept} of 65 messages, 0 steps (preset standard); `
    + `to fit --max-bytes dropped ${result.truncation.messagesDropped} messages and ${result.truncation.stepsDropped} steps, `
    + `content limit ${result.truncation.contentLimit.toLocaleString('en-US')} bytes\n`);
});

test('slim reports library errors as "error: <code> at <path>: <message>" and exits 1', () => {
  const tooSmall = run(['slim', longStateFile, '--max-bytes', '10']);
  assert.equal(tooSmall.status, 1);
  assert.equal(tooSmall.stdout, '');
  assert.match(tooSmall.stderr, /^error: too_large( at \S+)?: .+\n$/);

  const broken = run(['slim', write('broken-state.json', { steps: [{ inferenceResponse: { content: 'hi' } }] })]);
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /^error: missing_field at \/steps\/0\/inferenceResponse\/responseData: .+\n$/);

  const notJson = run(['slim', write('not-json.json', '{"agentId": ')]);
  assert.equal(notJson.status, 1);
  assert.match(notJson.stderr, /^error: invalid_json: .+\n$/);

  // A file that is not there is exit status 2, as for replay and summary.
  const missing = run(['slim', join(tmp, 'nope.json')]);
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr, `error: cannot read ${join(tmp, 'nope.json')}: no such file\n`);
});

test('slim - reads the state from stdin', () => {
  const fromFile = run(['slim', stateFile]);
  const fromStdin = run(['slim', '-'], { input: readFileSync(stateFile) });
  assert.equal(fromStdin.status, 0, fromStdin.stderr);
  assert.equal(fromStdin.stdout, fromFile.stdout);
  assert.equal(fromStdin.stderr, fromFile.stderr);
});

/** A valid snapshot with one or more fields changed. */
function broken(edit) {
  const snapshot = structuredClone(conversation.expected);
  edit(snapshot);
  return snapshot;
}

test('validate prints ok for a valid snapshot and exits 0', () => {
  const { status, stdout, stderr } = run(['validate', validFile]);
  assert.equal(status, 0, stderr);
  assert.equal(stdout, `ok ${validFile}\n`);
});

test('validate prints every error of an invalid snapshot with its path and code, and exits 1', () => {
  const bad = write('bad.json', broken((s) => {
    s.status = 'paused';
    s.step_count = -1;
    delete s.messages[1].role;
  }));
  const { status, stdout } = run(['validate', validFile, bad]);
  assert.equal(status, 1);
  const lines = stdout.trimEnd().split('\n');
  assert.equal(lines[0], `ok ${validFile}`);
  assert.equal(lines[1], `invalid ${bad}`);
  const { errors, warnings } = validateSnapshot(readFileSync(bad, 'utf8'));
  assert.ok(errors.length >= 3, JSON.stringify(errors));
  assert.deepEqual(lines.slice(2), [
    ...errors.map((e) => `  ${e.path || '(root)'} ${e.code}: ${e.message}`),
    ...warnings.map((w) => `  warning ${w.path || '(root)'} ${w.code}: ${w.message}`),
  ]);
  for (const path of ['/status', '/step_count', '/messages/1/role']) {
    assert.ok(lines.some((l) => l.startsWith(`  ${path} `)), `no line for ${path} in:\n${stdout}`);
  }
  for (const line of lines.slice(2)) assert.match(line, /^ {2}(warning )?(\/\S*|\(root\)) [a-z_]+: \S/);
});

test('validate --json prints one {file, valid, errors, warnings} per file; unreadable and non-JSON files are invalid', () => {
  const bad = write('bad-type.json', broken((s) => { s.step_count = 'three'; }));
  const notJson = write('not-json-snapshot.json', '{"agent_id": "a",');
  const missing = join(tmp, 'missing.json');
  const { status, stdout } = run(['validate', '--json', validFile, bad, notJson, missing]);
  assert.equal(status, 1);
  assert.equal(stdout.split('\n').length, 2, 'expected one line of JSON');
  const reports = JSON.parse(stdout);
  assert.deepEqual(reports.map((r) => [r.file, r.valid]), [[validFile, true], [bad, false], [notJson, false], [missing, false]]);
  for (const r of reports) assert.deepEqual(Object.keys(r), ['file', 'valid', 'errors', 'warnings']);
  assert.deepEqual(reports[0].errors, []);
  assert.deepEqual(reports[1], { file: bad, ...validateSnapshot(readFileSync(bad, 'utf8')) });
  assert.ok(reports[1].errors.some((e) => e.path === '/step_count'), JSON.stringify(reports[1].errors));
  assert.equal(reports[2].errors[0].code, 'invalid_json');
  assert.deepEqual(reports[3].errors, [{ path: '', code: 'unreadable', message: 'no such file' }]);

  const text = run(['validate', missing, notJson]);
  assert.equal(text.status, 1);
  assert.match(text.stdout, new RegExp(`^unreadable ${missing}: no such file\ninvalid ${notJson}\n {2}\\(root\\) invalid_json: .+\n$`));
});

test('validate - reads a snapshot from stdin', () => {
  const ok = run(['validate', '-'], { input: JSON.stringify(conversation.expected) });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, 'ok -\n');
  const bad = run(['validate', '-'], { input: JSON.stringify(broken((s) => { delete s.agent_id; })) });
  assert.equal(bad.status, 1);
  assert.match(bad.stdout, /^invalid -\n {2}\/agent_id [a-z_]+: /);
});

test('the npm bin link runs the CLI directly (shebang, executable mode)', { skip: !existsSync(binLink) && 'no node_modules/.bin/stepline' }, () => {
  const version_ = run(['--version'], { command: binLink, prefix: [] });
  assert.equal(version_.status, 0, version_.stderr);
  assert.equal(version_.stdout, `${version()}\n`);
  const slim = run(['slim', stateFile, '--json'], { command: binLink, prefix: [] });
  assert.equal(slim.status, 0, slim.stderr);
  assert.deepEqual(JSON.parse(slim.stdout), slimSnapshot(conversation.input.state));
  assert.equal(run(['validate', validFile], { command: binLink, prefix: [] }).stdout, `ok ${validFile}\n`);
});

// ---------------------------------------------------------------------------------------
// replay: recordings built from the reference's agent runs (agent-runs.json), each turn's
// envelopes one per line, its final slim snapshot as the reference.

const runs = JSON.parse(readFileSync(join(vectorsDir, 'agent-runs.json'), 'utf8'));
const runNamed = (prefix) => {
  const r = runs.find((x) => x.name.startsWith(prefix));
  assert.ok(r, `no agent run named ${prefix}…`);
  return r.expected[0];
};
const cleanRun = runNamed('tool call then final answer');
const throwsRun = runNamed('tool throws (exception escapes ToolExecutor), default policy');
const envelopesOf = (turn) => turn.envelopes.map((e) => e.envelope);
const jsonl = (lines) => `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

/** What the library says about the same envelopes: the CLI must print exactly this. */
function library(envelopes, snapshot) {
  const session = new Session();
  for (const e of envelopes) session.ingest(e);
  return {
    view: session.getSnapshot(),
    diagnostics: diagnose({ envelopes, snapshot }),
    reconciliation: snapshot ? session.reconcile(snapshot) : null,
  };
}
const plain = (value) => JSON.parse(JSON.stringify(value));

const cleanFile = write('clean.jsonl', jsonl(envelopesOf(cleanRun)));
const cleanSlimFile = write('clean-slim.json', cleanRun.slim);
const throwsSlimFile = write('throws-slim.json', throwsRun.slim);
const throwsFile = write('throws.jsonl', jsonl(envelopesOf(throwsRun)));
// The clean run without its first agent.step.completed (envelope 5).
const droppedEnvelopes = envelopesOf(cleanRun).filter((_, i) => i !== 5);
assert.equal(cleanRun.envelopes[5].envelope.type, 'agent.step.completed');
const droppedFile = write('dropped.jsonl', jsonl(droppedEnvelopes));

test('--help describes replay', () => {
  const { status, stdout } = run(['--help']);
  assert.equal(status, 0);
  assert.match(stdout, /\n {2}stepline replay <events\.jsonl> \[--snapshot final\.json\] \[--json\]\n/);
  assert.match(stdout, /\n {2}replay {4}Replay a recorded run/);
});

test('replay of a clean run prints the view summary and exits 0', () => {
  const { status, stdout, stderr } = run(['replay', cleanFile]);
  assert.equal(status, 0, stderr);
  assert.equal(stderr, '');
  assert.deepEqual(stdout.split('\n'), [
    `replay ${cleanFile}: 10 envelopes ingested, 0 lines refused, 0 snapshot lines`,
    'session sess-e2e: completed (state completed), 1 execution, 312 tokens (270 in, 42 out)',
    '  envelopes: 10 applied, 0 duplicates, 0 rejected',
    '  execution exec-1: completed (state completed), 2 steps, 312 tokens (270 in, 42 out), text 0 characters',
    '    step 1: tool_execution, finish tool_calls, 1 tool, 150 tokens (120 in, 30 out), 0 ms',
    '    step 2: final_response, finish stop, 0 tools, 162 tokens (150 in, 12 out), 0 ms',
    'diagnostics: none',
    'reconciliation: no snapshot (pass --snapshot, or record a stepline_snapshot line)',
    '',
  ]);
  const { view } = library(envelopesOf(cleanRun));
  assert.equal(view.status, 'completed');

  const reconciled = run(['replay', cleanFile, '--snapshot', cleanSlimFile]);
  assert.equal(reconciled.status, 0, reconciled.stderr);
  assert.match(reconciled.stdout, new RegExp(`\nreconciliation against ${cleanSlimFile}: consistent\n$`));
});

test('replay of the "tool throws" run lists the differences the reference causes, and exits 0', () => {
  const { status, stdout, stderr } = run(['replay', throwsFile, '--snapshot', throwsSlimFile]);
  assert.equal(status, 0, stderr);
  const { reconciliation, diagnostics } = library(envelopesOf(throwsRun), throwsRun.slim);
  assert.equal(reconciliation.consistent, false);
  assert.ok(reconciliation.differences.length > 0);
  assert.ok(reconciliation.differences.every((d) => d.cause === 'reference_exception_path'), JSON.stringify(reconciliation.differences));
  assert.match(stdout, /^session sess-e2e: processing \(state in_progress\),/m);
  assert.match(stdout, /^ {4}step 1: tool_execution, finish unknown, 1 tool, no usage, not completed$/m);
  const n = reconciliation.differences.length;
  const lines = stdout.split('\n');
  const at = lines.indexOf(`reconciliation against ${throwsSlimFile}: inconsistent, ${n} differences (${n} caused by the reference)`);
  assert.ok(at > 0, stdout);
  assert.deepEqual(lines.slice(at + 1, at + 1 + n), reconciliation.differences.map((d) => `  ${d.kind} at ${d.path}: ${d.message} (cause: reference_exception_path)`));
  assert.ok(lines.includes('  status_mismatch at /status: ' + reconciliation.differences.find((d) => d.kind === 'status_mismatch').message + ' (cause: reference_exception_path)'));
  // The diagnostic names the envelope and the line it came from (line = index + 1 here).
  assert.equal(diagnostics.length, 1);
  const [d] = diagnostics;
  assert.equal(d.code, 'final_status_missing');
  assert.ok(lines.includes('diagnostics: 1'), stdout);
  assert.ok(lines.includes(`  ${d.severity} ${d.code} at ${d.path} (line 3): ${d.message}`), stdout);
});

test('replay of a run with an envelope dropped exits 1 and names the difference', () => {
  const { status, stdout, stderr } = run(['replay', droppedFile, '--snapshot', cleanSlimFile]);
  assert.equal(status, 1, stdout);
  assert.equal(stderr, '');
  const { reconciliation } = library(droppedEnvelopes, cleanRun.slim);
  assert.deepEqual(reconciliation.differences.map((d) => [d.kind, d.cause]), [['step_not_completed', null]]);
  const [d] = reconciliation.differences;
  assert.match(stdout, new RegExp(`\nreconciliation against ${cleanSlimFile}: inconsistent, 1 difference\n {2}step_not_completed at /steps/0/step_number: ${d.message}\n$`));
  assert.doesNotMatch(stdout, /cause:/);
  assert.match(stdout, /^ {4}step 1: tool_execution, finish unknown, 1 tool, no usage, not completed$/m);

  // A reference-caused difference next to a real one still fails.
  const mixed = run(['replay', throwsFile, '--snapshot', cleanSlimFile]);
  assert.equal(mixed.status, 1, mixed.stdout);
  assert.match(mixed.stdout, /^ {2}missing_step at \/steps\/1: .+[^)]$/m);
});

test('replay --json prints {view, diagnostics, reconciliation, errors}, the library\'s own results', () => {
  const { status, stdout, stderr } = run(['replay', throwsFile, '--snapshot', throwsSlimFile, '--json']);
  assert.equal(status, 0, stderr);
  const lines = stdout.split('\n');
  assert.deepEqual([lines.length, lines[1]], [2, ''], 'expected one line of JSON');
  const report = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(report), ['view', 'diagnostics', 'reconciliation', 'errors']);
  const expected = library(envelopesOf(throwsRun), throwsRun.slim);
  assert.deepEqual(report.view, plain(expected.view));
  assert.deepEqual(report.diagnostics, plain(expected.diagnostics));
  assert.deepEqual(report.reconciliation, plain(expected.reconciliation));
  assert.deepEqual(report.errors, []);

  const none = run(['replay', cleanFile, '--json']);
  assert.equal(none.status, 0, none.stderr);
  const bare = JSON.parse(none.stdout);
  assert.equal(bare.reconciliation, null);
  assert.deepEqual(bare.view, plain(library(envelopesOf(cleanRun)).view));

  const dropped = run(['replay', droppedFile, '--snapshot', cleanSlimFile, '--json']);
  assert.equal(dropped.status, 1);
  assert.deepEqual(JSON.parse(dropped.stdout).reconciliation.differences.map((d) => d.kind), ['step_not_completed']);
});

test('replay picks up the recording\'s header and its last snapshot line; --snapshot overrides it', () => {
  const file = write('recorded.jsonl', jsonl([
    { stepline_recording: 1, session_id: 'sess-e2e' },
    { stepline_snapshot: cleanRun.slim, session_id: 'sess-e2e' }, // superseded by the last one
    ...envelopesOf(throwsRun),
    '',
    { stepline_snapshot: throwsRun.slim, session_id: 'sess-e2e', execution_id: 'exec-1' },
  ]));
  const { status, stdout, stderr } = run(['replay', file]);
  assert.equal(status, 0, stderr);
  const { reconciliation } = library(envelopesOf(throwsRun), throwsRun.slim);
  const n = reconciliation.differences.length;
  assert.match(stdout, new RegExp(`^replay ${file}: 3 envelopes ingested, 0 lines refused, 2 snapshot lines\n`));
  assert.match(stdout, new RegExp(`\nreconciliation against the recorded snapshot: inconsistent, ${n} differences \\(${n} caused by the reference\\)\n`));
  // Diagnostics name file lines: the header and a snapshot line come first.
  assert.match(stdout, /\n {2}warning final_status_missing at \/envelopes\/2 \(line 5\): /);

  const json = JSON.parse(run(['replay', file, '--json']).stdout);
  assert.deepEqual(json.reconciliation, plain(reconciliation));

  const overridden = run(['replay', file, '--snapshot', cleanSlimFile]);
  assert.equal(overridden.status, 1, overridden.stdout);
  assert.match(overridden.stdout, new RegExp(`\nreconciliation against ${cleanSlimFile}: inconsistent`));

  // The header's session: another session's envelopes are rejected, not adopted.
  const foreign = write('foreign.jsonl', jsonl([{ stepline_recording: 1, session_id: 'sess-other' }, ...envelopesOf(cleanRun)]));
  const rejected = run(['replay', foreign]);
  assert.equal(rejected.status, 0, rejected.stderr);
  assert.match(rejected.stdout, /^ {2}envelopes: 0 applied, 0 duplicates, 10 rejected\n {2}rejected \(other sessions\): sess-e2e 10$/m);
});

test('replay reports lines it cannot ingest with their line numbers, replays the rest, and exits 1', () => {
  const lines = envelopesOf(cleanRun).map((e) => JSON.stringify(e));
  lines.splice(3, 0, '{"type": "agent.status", "session_id": ');   // line 4: not JSON
  lines.splice(6, 0, '');                                           // line 7: blank, skipped
  lines.splice(8, 0, JSON.stringify({ type: 'agent.step.started', session_id: 'sess-e2e', execution_id: 'exec-1', timestamp: '2026-01-20T12:00:00.250Z', payload: {} }));
  lines.push(JSON.stringify({ stepline_snapshot: 'final' }));       // line 14: not an object
  const file = write('bad-lines.jsonl', jsonl(lines));
  const { status, stdout, stderr } = run(['replay', file, '--json']);
  assert.equal(status, 1, stderr);
  const report = JSON.parse(stdout);
  assert.deepEqual(report.errors.map((e) => [e.line, e.error.code]), [[4, 'invalid_json'], [9, 'missing_field'], [14, 'invalid_type']]);
  assert.equal(report.errors[1].error.path, '/payload/step_number');
  assert.deepEqual(report.view, plain(library(envelopesOf(cleanRun)).view));
  assert.equal(report.reconciliation, null);

  const text = run(['replay', file]);
  assert.equal(text.status, 1, text.stderr);
  assert.match(text.stdout, /^replay \S+: 10 envelopes ingested, 3 lines refused, 1 snapshot line\n/);
  const at = text.stdout.split('\n').indexOf('line errors: 3');
  assert.ok(at > 0, text.stdout);
  const listed = text.stdout.split('\n').slice(at + 1, at + 4);
  assert.match(listed[0], /^ {2}line 4 invalid_json: .+/);
  assert.match(listed[1], /^ {2}line 9 missing_field at \/payload\/step_number: .+/);
  assert.match(listed[2], /^ {2}line 14 invalid_type at \/stepline_snapshot: expected the snapshot as an object, found a string$/);
});

test('replay exits 2 when the recording or the snapshot cannot be read; a snapshot that is not JSON is an error', () => {
  const missing = join(tmp, 'no-such-run.jsonl');
  const noRun = run(['replay', missing]);
  assert.equal(noRun.status, 2);
  assert.equal(noRun.stdout, '');
  assert.equal(noRun.stderr, `error: cannot read ${missing}: no such file\n`);

  const noSnapshot = run(['replay', cleanFile, '--snapshot', join(tmp, 'no-such-snapshot.json')]);
  assert.equal(noSnapshot.status, 2);
  assert.equal(noSnapshot.stdout, '');
  assert.equal(noSnapshot.stderr, `error: cannot read ${join(tmp, 'no-such-snapshot.json')}: no such file\n`);

  const directory = run(['replay', tmp]);
  assert.equal(directory.status, 2);
  assert.equal(directory.stderr, `error: cannot read ${tmp}: is a directory\n`);

  const notJson = write('not-json-final.json', '{"agent_id": ');
  const bad = run(['replay', cleanFile, '--snapshot', notJson]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, new RegExp(`^error: ${notJson} is not JSON: .+\n$`));
});

test('replay - reads the recording from stdin', () => {
  const fromFile = run(['replay', droppedFile, '--snapshot', cleanSlimFile]);
  const fromStdin = run(['replay', '-', '--snapshot', cleanSlimFile], { input: readFileSync(droppedFile) });
  assert.equal(fromStdin.status, 1);
  assert.equal(fromStdin.stdout, fromFile.stdout.replace(`replay ${droppedFile}:`, 'replay -:'));
});

test('replay shows a progress bar on stderr only on a terminal, and only for recordings over 1 MB', () => {
  const text = generateRecordingText({ envelopes: 6_000, header: true });
  assert.ok(Buffer.byteLength(text) > 1024 * 1024, `${Buffer.byteLength(text)} bytes`);
  const big = write('big.jsonl', text);
  const piped = run(['replay', big]);
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stderr, '');
  assert.match(piped.stdout, /^session sess-bench: completed \(state completed\), 1 execution,/m);
  assert.match(piped.stdout, /^ {2}envelopes: 6,000 applied, 0 duplicates, 0 rejected$/m);

  // stderr as a terminal: the bar is drawn in place and cleared at the end.
  const tty = ['--import', 'data:text/javascript,process.stderr.isTTY=true', cli];
  const shown = run(['replay', big], { prefix: tty });
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.stdout, piped.stdout);
  assert.match(shown.stderr, /^\rreplay \S+big\.jsonl \[[#-]{30}\] +\d+% of 1\.\d MB\r/);
  assert.match(shown.stderr, /\[#{30}\] 100% of 1\.\d MB\r\x1b\[2K$/);
  const small = run(['replay', cleanFile], { prefix: tty });
  assert.equal(small.stderr, '');
});

test('summary: several recordings into one run log, the same figures as RunLog.summary(); a bad line exits 1', () => {
  const streams = runs.map((r, i) => r.expected.flatMap((t) => envelopesOf(t)).map((e) => ({ ...e, session_id: `run-${i}` })));
  const first = write('day-1.jsonl', jsonl(streams.slice(0, 5).flat()));
  const second = write('day-2.jsonl', jsonl([...streams.slice(5).flat(), '{broken']));
  const r = run(['summary', first, second, '--json']);
  assert.equal(r.status, 1, r.stderr);
  const { summary, errors } = JSON.parse(r.stdout);
  const log = new RunLog();
  for (const e of streams.flat()) log.ingest(e);
  assert.deepEqual(summary, log.summary());
  assert.equal(summary.sessions, runs.length);
  assert.deepEqual(errors.map((e) => [e.file, e.line, e.code]), [[second, streams.slice(5).flat().length + 1, 'invalid_json']]);
  const human = run(['summary', first, second]);
  assert.equal(human.status, 1);
  const clean = run(['summary', first]);
  assert.equal(clean.status, 0, clean.stderr);
  assert.match(human.stdout, new RegExp(`^sessions +${runs.length} \\(`, 'm'));
  assert.match(human.stdout, /^tool calls +.*search \d+/m);
  assert.match(human.stdout, /day-2\.jsonl:\d+ invalid_json: /);
});

test('summary: usage errors exit 2, an unreadable file exits 2', () => {
  assert.equal(run(['summary']).status, 2);
  assert.equal(run(['summary', 'nope.jsonl']).status, 2);
});
