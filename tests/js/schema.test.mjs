// The published JSON Schema for slim snapshots (stepline/schemas/snapshot.schema.json,
// written at build time from snapshotSchema()) checked with an independent validator,
// Ajv (draft 2020-12, formats on): it accepts every snapshot the reference produced,
// and it agrees with validateSnapshot on valid/invalid for a set of broken snapshots.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { snapshotSchema, validateSnapshot } from 'stepline';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const vectorsDir = process.env.STEPLINE_VECTORS ?? join(root, 'tests', 'vectors', 'cognesy-v1.22');
const cases = JSON.parse(readFileSync(join(vectorsDir, 'slim-serializer.json'), 'utf8'));

// Through the package's exports map ("./schemas/*"), as a user would load it.
const schema = require('stepline/schemas/snapshot.schema.json');
const ajv = new Ajv2020({ allErrors: true });
addFormats(ajv);
const ajvValidate = ajv.compile(schema);

/** Every snapshot the reference produced: `serialize …` expected and `roundtrip …` expected.slim. */
const referenceSnapshots = [
  ...cases.filter((c) => c.name.startsWith('serialize ')).map((c) => [c.name, c.expected]),
  ...cases.filter((c) => c.name.startsWith('roundtrip ')).map((c) => [c.name, c.expected.slim]),
];

/** Ajv's errors as JSON pointers to the offending value (a missing property: where it should be). */
function ajvPointers(errors) {
  return (errors ?? []).map((e) => (e.keyword === 'required' ? `${e.instancePath}/${e.params.missingProperty}` : e.instancePath));
}

/** True when one of `paths` is `path` or lies under it. */
const covers = (paths, path) => paths.some((p) => p === path || p.startsWith(`${path}/`));

test('the package ships the schema that snapshotSchema() returns, as draft 2020-12', () => {
  assert.equal(fileURLToPath(import.meta.resolve('stepline/schemas/snapshot.schema.json')), join(root, 'pkg', 'schemas', 'snapshot.schema.json'));
  assert.deepEqual(schema, snapshotSchema());
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(schema.type, 'object');
});

test('every reference snapshot in slim-serializer.json is valid for the schema and for validateSnapshot', () => {
  assert.equal(referenceSnapshots.length, 40);
  for (const [name, snapshot] of referenceSnapshots) {
    assert.ok(ajvValidate(snapshot), `${name}: ${ajv.errorsText(ajvValidate.errors)}`);
    const result = validateSnapshot(snapshot);
    assert.deepEqual([result.valid, result.errors], [true, []], name);
    assert.deepEqual(validateSnapshot(JSON.stringify(snapshot)), result, `${name}: string and object input differ`);
  }
});

// A snapshot from the reference with steps, tool calls and a last_continuation object.
const base = cases.find((c) => c.name === 'serialize [full] tool calls conversation, forbid outcome (steps_limit), subagent with metadata').expected;

/**
 * `base` with one change; `path` is where the problem is; `codes` the codes validateSnapshot
 * may give it (its vocabulary: missing_field, wrong_type, invalid_enum, invalid_timestamp,
 * out_of_range, inconsistent; unknown_field for warnings).
 */
const mutations = [
  ['missing agent_id', '/agent_id', ['missing_field'], (s) => { delete s.agent_id; }],
  ['agent_id is a number', '/agent_id', ['wrong_type'], (s) => { s.agent_id = 7; }],
  ['status is not a string', '/status', ['wrong_type'], (s) => { s.status = 3; }],
  ['status is not an allowed value', '/status', ['invalid_enum'], (s) => { s.status = 'paused'; }],
  ['step_count is negative', '/step_count', ['out_of_range'], (s) => { s.step_count = -1; }],
  ['step_count is a string', '/step_count', ['wrong_type'], (s) => { s.step_count = '3'; }],
  ['usage.input is a string', '/usage/input', ['wrong_type'], (s) => { s.usage.input = '520'; }],
  ['usage is missing', '/usage', ['missing_field'], (s) => { delete s.usage; }],
  ['messages is not an array', '/messages', ['wrong_type'], (s) => { s.messages = 'hello'; }],
  ['a message without role', '/messages/1/role', ['missing_field'], (s) => { delete s.messages[1].role; }],
  ['a message whose content is a number', '/messages/0/content', ['wrong_type'], (s) => { s.messages[0].content = 42; }],
  ['steps[0].step_number is 0', '/steps/0/step_number', ['out_of_range'], (s) => { s.steps[0].step_number = 0; }],
  ['steps[0].step_number is not an integer', '/steps/0/step_number', ['wrong_type'], (s) => { s.steps[0].step_number = 1.5; }],
  ['steps[1].has_tool_calls is a string', '/steps/1/has_tool_calls', ['wrong_type'], (s) => { s.steps[1].has_tool_calls = 'yes'; }],
  ['execution.started_at is not a date-time', '/execution/started_at', ['invalid_timestamp'], (s) => { s.execution.started_at = 'yesterday'; }],
  ['execution.updated_at is a number', '/execution/updated_at', ['wrong_type'], (s) => { s.execution.updated_at = 1768910399; }],
  ['last_continuation.should_continue is a string', '/last_continuation/should_continue', ['wrong_type'], (s) => { s.last_continuation.should_continue = 'no'; }],
  ['last_continuation is a string', '/last_continuation', ['wrong_type'], (s) => { s.last_continuation = 'stopped'; }],
  ['last_continuation lacks resolved_by', '/last_continuation/resolved_by', ['missing_field'], (s) => { delete s.last_continuation.resolved_by; }],
];

/** Changes both validators must accept: the [] / {} spellings of empty maps, nulls where allowed. */
const acceptable = [
  ['metadata as {}', (s) => { s.metadata = {}; }],
  ['metadata as []', (s) => { s.metadata = []; }],
  ['_metadata as {}', (s) => { s.messages[0]._metadata = {}; }],
  ['last_continuation null', (s) => { s.last_continuation = null; }],
  ['parent_agent_id null', (s) => { s.parent_agent_id = null; }],
  ['no steps', (s) => { s.steps = []; }],
];

test('the schema and validateSnapshot agree: each broken snapshot is invalid, with the path of the problem', () => {
  assert.ok(ajvValidate(base), ajv.errorsText(ajvValidate.errors));
  assert.ok(mutations.length >= 12);
  const problems = [];
  for (const [name, path, codes, edit] of mutations) {
    const snapshot = structuredClone(base);
    edit(snapshot);
    const schemaValid = ajvValidate(snapshot);
    const fromAjv = ajvPointers(ajvValidate.errors);
    const result = validateSnapshot(snapshot);
    const at = result.errors.filter((e) => e.path === path);
    if (schemaValid) problems.push(`${name}: the schema accepts it`);
    else if (!covers(fromAjv, path)) problems.push(`${name}: ajv reports ${JSON.stringify(fromAjv)}, not ${path}`);
    if (result.valid) problems.push(`${name}: validateSnapshot accepts it`);
    else if (at.length === 0) problems.push(`${name}: validateSnapshot reports ${JSON.stringify(result.errors.map((e) => [e.path, e.code]))}, not ${path}`);
    else if (!at.some((e) => codes.includes(e.code))) problems.push(`${name}: validateSnapshot's code at ${path} is ${at.map((e) => e.code)}, expected one of ${codes}`);
    for (const e of result.errors) {
      assert.equal(typeof e.message, 'string', name);
      assert.ok(e.message.length > 0, name);
    }
  }
  assert.deepEqual(problems, []);
});

test('the schema and validateSnapshot both accept the other spellings the format allows', () => {
  for (const [name, edit] of acceptable) {
    const snapshot = structuredClone(base);
    edit(snapshot);
    assert.ok(ajvValidate(snapshot), `${name}: ${ajv.errorsText(ajvValidate.errors)}`);
    const result = validateSnapshot(snapshot);
    assert.equal(result.valid, true, `${name}: ${JSON.stringify(result.errors)}`);
  }
});

test('validateSnapshot collects every problem, not only the first', () => {
  const snapshot = structuredClone(base);
  for (const [, , , edit] of [mutations[0], mutations[3], mutations[6], mutations[11], mutations[14]]) edit(snapshot);
  const result = validateSnapshot(snapshot);
  assert.equal(result.valid, false);
  const paths = result.errors.map((e) => e.path);
  for (const path of ['/agent_id', '/status', '/usage/input', '/steps/0/step_number', '/execution/started_at']) {
    assert.ok(paths.includes(path), `${path} missing from ${JSON.stringify(paths)}`);
  }
  assert.equal(ajvValidate(snapshot), false);
  for (const path of ['/agent_id', '/status', '/usage/input', '/steps/0/step_number', '/execution/started_at']) {
    assert.ok(covers(ajvPointers(ajvValidate.errors), path), `ajv: ${path}`);
  }
});

test('a snapshot that is not an object is invalid for both', () => {
  for (const value of [null, 42, 'snapshot', [1, 2]]) {
    assert.equal(ajvValidate(value), false, JSON.stringify(value));
    const result = validateSnapshot(JSON.stringify(value));
    assert.equal(result.valid, false, JSON.stringify(value));
    assert.ok(result.errors.length > 0);
  }
});

test('where they differ by design: cross-field checks are validateSnapshot only, unknown properties only warn', () => {
  // JSON Schema cannot say "step_number is the index + 1" or "step_count >= steps.length".
  const renumbered = structuredClone(base);
  renumbered.steps[0].step_number = 2;
  renumbered.step_count = 1;
  assert.equal(ajvValidate(renumbered), true, ajv.errorsText(ajvValidate.errors));
  const result = validateSnapshot(renumbered);
  assert.equal(result.valid, false);
  assert.deepEqual(result.errors.map((e) => [e.path, e.code]), [['/step_count', 'inconsistent'], ['/steps/0/step_number', 'inconsistent']]);

  // Unknown properties are allowed by the schema and reported as warnings, never errors.
  const extended = { ...structuredClone(base), extra: { note: 'kept' } };
  extended.messages[0].flag = true;
  assert.equal(ajvValidate(extended), true, ajv.errorsText(ajvValidate.errors));
  const warned = validateSnapshot(extended);
  assert.deepEqual([warned.valid, warned.errors], [true, []]);
  assert.deepEqual(warned.warnings.map((w) => [w.path, w.code]).sort(), [['/extra', 'unknown_field'], ['/messages/0/flag', 'unknown_field']]);
});
