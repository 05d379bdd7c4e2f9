// The README's entries table (and the docs site's copy, docs/web/bundle-sizes.md) is the one the last build's figures make (pkg/sizes.json,
// written by scripts/build.mjs, which also rewrites the table): its sizes cannot drift from
// what ships.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ENTRIES, entriesTable, tableIn } from '../../scripts/lib/entries-table.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sizes = JSON.parse(readFileSync(join(root, 'pkg', 'sizes.json'), 'utf8'));

// Within half a kilobyte: the build id compiled into the wasm (the commit) moves the gzipped
// size by a few bytes from one commit to the next.
for (const page of ['README.md', 'docs/web/bundle-sizes.md']) test(`${page} lists every entry with the size the build measured`, () => {
  const readme = readFileSync(join(root, page), 'utf8');
  const table = tableIn(readme);
  assert.ok(table, `${page} has the entries table markers`);
  const sized = (text) => text.split('\n').filter((l) => l.startsWith('| `'))
    .map((l) => [l.slice(3, l.indexOf('`', 3)), l.match(/\| ([\d.]+) KB \|$/)?.[1]]);
  const stale = `${page}'s entries table is stale: run npm run build and commit ${page}`;
  const ours = sized(table);
  const built = sized(entriesTable(sizes));
  assert.deepEqual(ours.map(([name]) => name), built.map(([name]) => name), stale);
  for (const [i, [name, kb]] of ours.entries()) {
    assert.ok(Math.abs(Number(kb) - Number(built[i][1])) <= 0.5, `${name}: ${kb} KB in ${page}, ${built[i][1]} KB built; ${stale}`);
  }
  assert.equal(table.replace(/[\d.]+ KB \|/g, ''), entriesTable(sizes).replace(/[\d.]+ KB \|/g, ''), stale);
});

test('every entry the package exports is in the table, and only those', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'pkg', 'package.json'), 'utf8'));
  const exported = Object.keys(manifest.exports)
    .filter((k) => !k.endsWith('.wasm') && !k.includes('*') && k !== './package.json')
    .map((k) => (k === '.' ? 'stepline' : `stepline/${k.slice(2)}`))
    .sort();
  assert.deepEqual(ENTRIES.map(([name]) => name).sort(), exported);
});

test('the adapters load no wasm, so their figure is JavaScript only and small', () => {
  for (const name of ['stepline/echo', 'stepline/react', 'stepline/vue']) {
    assert.ok(sizes.entries[name].gz < 20 * 1024, `${name}: ${sizes.entries[name].gz} B`);
    assert.ok(sizes.entries[name].gz < sizes.entries['stepline/live'].gz / 4);
  }
});
