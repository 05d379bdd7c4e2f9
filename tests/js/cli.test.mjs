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

import { slimSnapshot, validateSnapshot, version } from 'stepline';

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
  assert.deepEqual(normalizeEmpty(snapshot), normalizeEmpty(conversation.expected));
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

  const missing = run(['slim', join(tmp, 'nope.json')]);
  assert.equal(missing.status, 1);
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
