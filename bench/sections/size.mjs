// Section `size`: raw, gzip and brotli sizes of the built package's wasm and JS glue, per
// entry (`stepline` for Node and for browsers, `stepline/devtools`, and the live entry a web UI loads),
// against the budget of 120 KB gzipped for wasm plus glue (bench/findings.md, Size). Reported
// here; the build fails when the live entry is over the budget or an entry over
// its ceiling in scripts/size-budget.json (a ratchet towards the budget). Same files, gzip
// level and KB (1,024 bytes) as scripts/build.mjs, plus brotli at its best quality.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pkg');
const { targetBytes: BUDGET, ceilingBytes: CEILING } = JSON.parse(readFileSync(join(pkg, '..', 'scripts', 'size-budget.json'), 'utf8'));
const GROUPS = {
  web: ['web/stepline_bg.wasm', 'web/stepline.js', 'web.js', 'entry.js'],
  node: ['web/stepline_bg.wasm', 'node/stepline.js', 'index.cjs', 'index.mjs', 'error.cjs'],
  live: ['live/stepline_bg.wasm', 'live/stepline.js', 'live.js', 'entry.js'],
  devtools: ['devtools/stepline_bg.wasm', 'devtools/stepline.js', 'devtools.js', 'entry.js'],
};

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

function sizes(file) {
  const data = readFileSync(join(pkg, file));
  return {
    raw: data.length,
    gzip: gzipSync(data, { level: 9 }).length,
    brotli: brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }).length,
  };
}

export default async function size({ report }) {
  console.log('\n=== size: the package\'s wasm and JS glue, raw, gzip (level 9) and brotli (quality 11)');
  const rows = [];
  const totals = {};
  for (const [group, files] of Object.entries(GROUPS)) {
    const total = { raw: 0, gzip: 0, brotli: 0 };
    for (const file of files) {
      const s = sizes(file);
      rows.push({ file, ...s });
      for (const k of Object.keys(total)) total[k] += s[k];
    }
    totals[group] = total;
    rows.push({ file: `total ${group} (wasm + glue)`, ...total });
  }
  console.log(`\n  ${'file'.padEnd(28)}  ${'raw'.padStart(10)}  ${'gzip'.padStart(10)}  ${'brotli'.padStart(10)}`);
  for (const r of rows) console.log(`  ${r.file.padEnd(28)}  ${kb(r.raw).padStart(10)}  ${kb(r.gzip).padStart(10)}  ${kb(r.brotli).padStart(10)}`);
  const verdict = (g) => (g <= BUDGET ? 'within' : 'OVER');
  for (const [group, t] of Object.entries(totals)) {
    console.log(`  ${group}: ${kb(t.gzip)} gzipped, ${verdict(t.gzip)} the ${kb(BUDGET)} budget (${(100 * t.gzip / BUDGET).toFixed(0)}%)`);
    report.target('size', `${group}: wasm + glue ≤ 120 KB gzipped`, `${kb(t.gzip)} (brotli ${kb(t.brotli)})`, t.gzip <= BUDGET);
  }
  report.section('size', [
    '## Size',
    '',
    'The built package (pkg/) as shipped: the wasm and the JS glue each entry loads. `web` and `node` are `stepline`',
    '(the core without the `devtools` feature); `devtools` is `stepline/devtools`, the whole API; `live` is',
    '`stepline/live`, the same core built without the `full` feature: decoding, `channelFor`, `Session` without',
    '`reconcile`, the role tests (what a web UI needs to show a run as it streams).',
    'gzip at level 9 and KB of 1,024 bytes, as `npm run build` reports them; brotli at quality 11. Budget (DESIGN.md',
    'section 11): 120 KB gzipped for wasm plus glue. The build fails when the live entry is over its ratchet, and when the',
    `\`stepline\` entry is over its ceiling of ${kb(CEILING)} (scripts/size-budget.json), a ratchet lowered as it shrinks.`,
    '',
    '| file | raw | gzip | brotli |',
    '|---|--:|--:|--:|',
    ...rows.map((r) => (r.file.startsWith('total')
      ? `| **${r.file}** | **${kb(r.raw)}** | **${kb(r.gzip)}** | **${kb(r.brotli)}** |`
      : `| ${r.file} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.brotli)} |`)),
    '',
    ...Object.entries(totals).map(([group, t]) => `- ${group}: ${kb(t.gzip)} gzipped, ${verdict(t.gzip).toLowerCase()} the 120 KB budget (${(100 * t.gzip / BUDGET).toFixed(0)}% of it).`),
  ]);
}
