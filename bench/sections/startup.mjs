// Section `startup`: what loading an entry costs before its first answer — loading the module
// and its wasm (`require`/`import` in Node, `await init()` in a browser) plus the first
// `session.ingest(envelope)` — per entry, in Node and in Chromium. Each round is a cold start:
// a fresh Node process, or a fresh browser context (no shared code cache) on a page served
// from loopback. Compiling the wasm is most of it, and it grows with the wasm's size: a cold
// start on serverless Node, and a page's first interaction.
//
//   node scripts/bench.mjs --only startup [--runs N]
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = join(root, 'pkg');
const CHROMIUM = '/usr/bin/chromium';

/** The first envelope a page receives. */
const ENVELOPE = {
  type: 'agent.status',
  session_id: 'sess-startup',
  execution_id: 'exec-1',
  timestamp: '2026-01-20T12:00:00.000Z',
  payload: { status: 'processing', previous_status: 'idle' },
};

/** Node: each entry as an application loads it, in its own process. */
const NODE_ENTRIES = {
  stepline: `const t0 = performance.now();
const { Session } = require('stepline');
const s = new Session(); s.ingest(ENVELOPE);
process.stdout.write(String(performance.now() - t0));`,
  'stepline/web': `const t0 = performance.now();
const { readFileSync } = require('node:fs');
import('stepline/web').then(async (m) => {
  await m.default(readFileSync(require.resolve('stepline/stepline_bg.wasm')));
  const s = new m.Session(); s.ingest(ENVELOPE);
  process.stdout.write(String(performance.now() - t0));
});`,
  'stepline/devtools': `const t0 = performance.now();
const { Session } = require('stepline/devtools');
const s = new Session(); s.ingest(ENVELOPE);
process.stdout.write(String(performance.now() - t0));`,
  'stepline/live': `const t0 = performance.now();
const { readFileSync } = require('node:fs');
import('stepline/live').then(async (m) => {
  await m.default(readFileSync(require.resolve('stepline/live/stepline_bg.wasm')));
  const s = new m.Session(); s.ingest(ENVELOPE);
  process.stdout.write(String(performance.now() - t0));
});`,
};

/** Chromium: the browser entries, fetched and compiled as a page does. */
const BROWSER_ENTRIES = { 'stepline/web': '/pkg/web.js', 'stepline/devtools': '/pkg/devtools.js', 'stepline/live': '/pkg/live.js' };

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ms = (x) => `${x.toFixed(1)} ms`;

async function nodeStartup(entry, runs) {
  const run = promisify(execFile);
  const script = `const ENVELOPE = ${JSON.stringify(ENVELOPE)};\n${NODE_ENTRIES[entry]}`;
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: root });
    times.push(Number(stdout));
  }
  return times;
}

/** Serves the repository's pkg/ (and a blank page) on loopback. */
function serve() {
  const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.html': 'text/html' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>startup</title>');
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(pkg + sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function browserStartup(runs) {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const out = {};
  try {
    for (const [entry, url] of Object.entries(BROWSER_ENTRIES)) {
      out[entry] = [];
      for (let i = 0; i < runs; i += 1) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${base}/`);
        const time = await page.evaluate(async ({ url, envelope }) => {
          const t0 = performance.now();
          const m = await import(url);
          await m.default();
          const s = new m.Session();
          s.ingest(envelope);
          return performance.now() - t0;
        }, { url, envelope: ENVELOPE });
        out[entry].push(time);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  return out;
}

export default async function startup({ runs, report }) {
  const rounds = Math.min(runs, 7);
  console.log(`\n=== startup: load the entry and its wasm, then the first ingest; a cold start each round (${rounds} rounds, medians)`);
  const rows = [];
  for (const entry of Object.keys(NODE_ENTRIES)) {
    const times = await nodeStartup(entry, rounds);
    rows.push(['Node', entry, median(times)]);
    console.log(`  Node      ${entry.padEnd(17)} ${ms(median(times))} (min ${ms(Math.min(...times))})`);
  }
  const browser = await browserStartup(rounds);
  if (browser) {
    for (const [entry, times] of Object.entries(browser)) {
      rows.push(['Chromium', entry, median(times)]);
      console.log(`  Chromium  ${entry.padEnd(17)} ${ms(median(times))} (min ${ms(Math.min(...times))})`);
    }
  } else {
    console.log(`  Chromium: ${CHROMIUM} not found (scripts/setup.sh installs it); skipped`);
  }
  report.section('startup', [
    '## Startup',
    '',
    'Loading an entry and its wasm, then the first `session.ingest(envelope)`, from a cold start each round: a fresh',
    'Node process (`require` or `import` + `init()`), or a fresh Chromium context on a page served from loopback',
    `(\`await import()\` + \`await init()\`, no cache). Medians of ${rounds} rounds.`,
    '',
    '| host | entry | load + init + first ingest |',
    '|---|---|--:|',
    ...rows.map(([host, entry, t]) => `| ${host} | \`${entry}\` | ${ms(t)} |`),
  ]);
}
