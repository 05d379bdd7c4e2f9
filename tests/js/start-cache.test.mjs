// `npm start`'s build cache (scripts/lib/build-cache.mjs): a second start with nothing
// changed does not rebuild, any change to an input does, and CI never trusts the cache.
// Pinned through the hash-file logic on a throwaway tree, not by timing a start.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { HASH_FILE, inputHash, PACKAGE_INPUTS, PANEL_INPUTS, recordHash, recordedHash, trusted } from '../../scripts/lib/build-cache.mjs';

const tree = mkdtempSync(join(tmpdir(), 'stepline-start-cache-'));
after(() => rmSync(tree, { recursive: true, force: true }));
mkdirSync(join(tree, 'src', 'lint'), { recursive: true });
mkdirSync(join(tree, 'out'));
writeFileSync(join(tree, 'src', 'lib.rs'), 'pub fn a() {}\n');
writeFileSync(join(tree, 'src', 'lint', 'mod.rs'), '// lint\n');
writeFileSync(join(tree, 'Cargo.toml'), '[package]\n');
const inputs = ['src', 'Cargo.toml'];
const out = join(tree, 'out');
const local = {}; // no CI variable

test('a second start with nothing changed does not rebuild', () => {
  const built = inputHash(tree, inputs);
  assert.equal(trusted(out, built, local).fresh, false, 'no hash file yet: the first start builds');
  recordHash(out, built);
  assert.equal(recordedHash(out), built);
  const again = trusted(out, inputHash(tree, inputs), local);
  assert.deepEqual(again, { fresh: true, reason: 'nothing changed since the last build' });
});

test('an edited, added or removed input rebuilds', () => {
  const base = inputHash(tree, inputs);
  recordHash(out, base);
  writeFileSync(join(tree, 'src', 'lint', 'mod.rs'), '// lint, edited\n');
  assert.equal(trusted(out, inputHash(tree, inputs), local).fresh, false, 'edited');
  writeFileSync(join(tree, 'src', 'lint', 'mod.rs'), '// lint\n');
  assert.equal(inputHash(tree, inputs), base, 'the same bytes hash the same (contents, not mtimes)');
  writeFileSync(join(tree, 'src', 'lint', 'new.rs'), '');
  assert.notEqual(inputHash(tree, inputs), base, 'added');
  rmSync(join(tree, 'src', 'lint', 'new.rs'));
  rmSync(join(tree, 'Cargo.toml'));
  assert.notEqual(inputHash(tree, inputs), base, 'removed');
  writeFileSync(join(tree, 'Cargo.toml'), '[package]\n');
  assert.equal(inputHash(tree, inputs), base);
});

test('outputs inside an input directory are not inputs', () => {
  const base = inputHash(tree, ['src'], ['src/lint']);
  writeFileSync(join(tree, 'src', 'lint', 'mod.rs'), '// rewritten by the build\n');
  assert.equal(inputHash(tree, ['src'], ['src/lint']), base);
  writeFileSync(join(tree, 'src', 'lint', 'mod.rs'), '// lint\n');
});

test('CI=true never trusts the cache, even when the hash matches', () => {
  const built = inputHash(tree, inputs);
  recordHash(out, built);
  assert.equal(trusted(out, built, { CI: 'true' }).fresh, false);
  assert.equal(trusted(out, built, { CI: '1' }).fresh, false);
  assert.equal(trusted(out, built, { CI: 'false' }).fresh, true);
});

test('the package and panel input lists name the sources their builds read', () => {
  for (const path of ['src', 'Cargo.toml', 'Cargo.lock', 'build.rs', 'pkg-template', 'scripts/build.mjs']) {
    assert.ok(PACKAGE_INPUTS.includes(path), `PACKAGE_INPUTS lacks ${path}`);
  }
  // A rebuilt package rebuilds the panel: the panel hashes the package's own hash file.
  assert.ok(PANEL_INPUTS.includes(`pkg/${HASH_FILE}`));
  assert.ok(PANEL_INPUTS.includes('www'));
});
