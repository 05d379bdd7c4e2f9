// What the JS tests share: the reference producers' vectors (the v1.22 corpus
// from STEPLINE_VECTORS when set, as the native conformance runner does), the
// v2.7 corpus' frozen instant and uuid placeholders, and catching a throw.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../../', import.meta.url);
const v1Dir = process.env.STEPLINE_VECTORS
  ? new URL(`file://${process.env.STEPLINE_VECTORS.replace(/\/?$/, '/')}`)
  : new URL('tests/vectors/cognesy-v1.22/', root);
const v2Dir = new URL('tests/vectors/instructor-php-v2.7/', root);

/** The cases of one v1.22 vector file, e.g. `v1Vectors('agent-runs.json')`. */
export const v1Vectors = (file) => JSON.parse(readFileSync(new URL(file, v1Dir), 'utf8'));

/** The cases of one v2.7 vector file, e.g. `v2Vectors('agent-runs.json')`. */
export const v2Vectors = (file) => JSON.parse(readFileSync(new URL(file, v2Dir), 'utf8'));

/** The instant the v2.7 producer was frozen at when it recorded its vectors. */
export const V2_NOW = '2026-08-10T12:00:00.250Z';

/** The corpus shows generated ids as "<uuid>"; a stored state has real ones. */
export function withIds(value) {
  let n = 0;
  return JSON.parse(JSON.stringify(value), (_, v) => (v === '<uuid>' ? `9e000000-0000-4000-8000-${String(++n).padStart(12, '0')}` : v));
}

/** What `fn` throws; fails the test when it returns. */
export function thrown(fn) {
  try { fn(); } catch (error) { return error; }
  assert.fail('expected a throw');
}
