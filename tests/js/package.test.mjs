// The built package's manifest: every path the exports map names exists, and
// TypeScript's `types` condition comes first wherever it appears (conditions are
// matched in order, so a `types` after `default` would never be seen).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('stepline/package.json');
const pkgDir = dirname(manifestPath);
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));

function* conditionObjects(node, where) {
  if (node && typeof node === 'object') {
    yield [where, node];
    for (const [key, value] of Object.entries(node)) yield* conditionObjects(value, `${where}.${key}`);
  }
}

function* targets(node) {
  if (typeof node === 'string') yield node;
  else if (node && typeof node === 'object') for (const value of Object.values(node)) yield* targets(value);
}

test('the package is named stepline and resolves to the built pkg/ directory', () => {
  assert.equal(manifest.name, 'stepline');
  const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  assert.equal(pkgDir, join(repoRoot, 'pkg'));
});

test('every file the exports map points at exists', () => {
  const paths = [...new Set([...targets(manifest.exports), manifest.main, manifest.types])];
  assert.ok(paths.length > 5, `too few targets: ${paths}`);
  for (const path of paths) {
    if (path.includes('*')) {
      // A subpath pattern ("./schemas/*"): its folder must hold at least one file.
      const dir = join(pkgDir, dirname(path));
      assert.ok(existsSync(dir) && readdirSync(dir).length > 0, `nothing in pkg/ matches ${path}`);
    } else {
      assert.ok(existsSync(join(pkgDir, path)), `${path} is missing from pkg/`);
    }
  }
});

test('types come first in every condition object that has them', () => {
  for (const [where, conditions] of conditionObjects(manifest.exports['.'], 'exports["."]')) {
    if ('types' in conditions) assert.equal(Object.keys(conditions)[0], 'types', `${where} lists types after ${Object.keys(conditions)[0]}`);
  }
});

test('Node resolves import to the ES module wrapper and require to the CommonJS entry', () => {
  assert.equal(fileURLToPath(import.meta.resolve('stepline')), join(pkgDir, 'index.mjs'));
  assert.equal(require.resolve('stepline'), join(pkgDir, 'index.cjs'));
});
