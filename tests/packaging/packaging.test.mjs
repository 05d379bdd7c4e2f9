// The packaging matrix: `npm pack` the built pkg/ into a temporary directory, install the
// tarball (offline: it has no dependencies) into throwaway projects under os.tmpdir(), and
// decode the same envelope in each place a user would run it: (a) Node ESM `import`,
// (b) Node CommonJS `require`, (c) a page built by Vite and loaded in headless Chromium,
// which does `await init()`, (d) a module worker on that page, and (e) a second page of that
// app using the live entry, `stepline/live`, which must load only the live wasm. Every one
// must give the exact decoded value in tests/packaging/fixtures/envelope.json. Then the framework
// adapters: (f) a React and (g) a Vue project type-check a component using stepline/react and
// stepline/vue strictly against the installed declarations, and (h) two pages of a Vite-built
// React app, one following a run by hand and one with useAgentRun, load only the live wasm and
// differ by the adapter's few KB of JS, and (i) the same for a Vue app; (j) the React app's
// production build holds no devtools overlay code (it imports the overlay behind
// `import.meta.env.DEV`) while its development build does, and so do the example apps'; (k) the
// React page's production build holds one wasm, the live entry's, and nothing of the full
// package's wasm or glue (and the same page on stepline/web fails that check). Those projects take react, vue, laravel-echo, the
// @laravel/echo-* packages and pusher-js from the repo's node_modules (the root devDependencies
// `npm ci` installed), never from a registry. Runs after `npm run build`
// (`node --test tests/packaging/*.test.mjs`); needs no network at test time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { servePanel } from '../../scripts/lib/panel-server.mjs';
import { openPage } from '../browser/lib/browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const pkgDir = join(root, 'pkg');
const fixtures = join(here, 'fixtures');
const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const fixture = JSON.parse(readFileSync(join(fixtures, 'envelope.json'), 'utf8'));
const manifest = existsSync(join(pkgDir, 'package.json')) ? JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) : null;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let work; // the temporary directory: the tarball, npm's cache and every project
let tarball; // { file, size, unpackedSize, files: [{ path, size }] }

/** npm with a private cache, no registry reachable and no network features. */
function npm(args, cwd) {
  const result = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_registry: 'http://127.0.0.1:9/', // nothing listens there: any registry access fails fast
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_loglevel: 'error',
    },
  });
  assert.equal(result.error, undefined, `npm ${args.join(' ')}: ${result.error}`);
  assert.equal(result.status, 0, `npm ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * A throwaway project in the work directory: package.json of `type`, the fixture files
 * from `fixtureDir` plus envelope.json, and the tarball installed as its only dependency.
 */
function makeProject(name, type, fixtureDir) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `stepline-packaging-${name}`, version: '0.0.0', private: true, type }, null, 2)}\n`);
  cpSync(join(fixtures, fixtureDir), dir, { recursive: true });
  cpSync(join(fixtures, 'envelope.json'), join(dir, 'envelope.json'));
  npm(['install', '--no-audit', '--no-fund', '--offline', '--ignore-scripts', '--no-package-lock', tarball.file], dir);
  const installed = join(dir, 'node_modules', 'stepline');
  assert.ok(lstatSync(installed).isDirectory() && !lstatSync(installed).isSymbolicLink(), `${installed} is not an installed copy`);
  assert.deepEqual(readdirSync(join(dir, 'node_modules')).filter((n) => !n.startsWith('.')), ['stepline'], 'stepline is the only package installed');
  return dir;
}

/** Runs a Node script in a project and returns the JSON report it prints. */
function runNode(dir, script) {
  const result = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, `node ${script} exited with ${result.status}:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** What every environment must report: the decoded fixture and a working SteplineError. */
function assertReport(report, where) {
  assert.deepEqual(report.decoded, fixture.decoded, `${where}: the envelope decodes differently`);
  assert.equal(report.version.split('+')[0], manifest.version, `${where}: version() names another build`);
  assert.deepEqual(report.failure, { isSteplineError: true, isError: true, code: 'invalid_json', path: null }, `${where}: errors are not SteplineErrors`);
}

before(() => {
  assert.ok(manifest, 'pkg/ is not built: run `npm run build` first');
  work = mkdtempSync(join(tmpdir(), 'stepline-packaging-'));
  const [packed] = JSON.parse(npm(['pack', pkgDir, '--pack-destination', work, '--ignore-scripts', '--json'], work));
  tarball = { ...packed, file: join(work, packed.filename) };
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every string an exports map (or main/types/bin) points at. */
function* targets(node) {
  if (typeof node === 'string') yield node;
  else if (node && typeof node === 'object') for (const value of Object.values(node)) yield* targets(value);
}

test('npm pack makes a tarball with every file the manifest points at and nothing outside its files list', (t) => {
  const files = tarball.files.map((f) => f.path).sort();
  t.diagnostic(`${tarball.filename}: ${tarball.size} bytes packed, ${tarball.unpackedSize} bytes unpacked, ${files.length} files`);
  for (const f of [...tarball.files].sort((a, b) => a.path.localeCompare(b.path))) t.diagnostic(`  ${String(f.size).padStart(8)}  ${f.path}`);
  assert.equal(tarball.name, 'stepline');
  assert.equal(tarball.version, manifest.version);
  const pointedAt = [...targets(manifest.exports), manifest.main, manifest.types, ...Object.values(manifest.bin ?? {})]
    .map((p) => p.replace(/^\.\//, ''));
  for (const path of new Set(pointedAt)) {
    if (path.includes('*')) {
      const prefix = path.slice(0, path.indexOf('*'));
      assert.ok(files.some((f) => f.startsWith(prefix)), `nothing in the tarball matches ${path}`);
    } else {
      assert.ok(files.includes(path), `${path} is named by package.json but missing from the tarball`);
    }
  }
  const allowed = manifest.files.map((f) => f.replace(/^\.\//, ''));
  for (const f of files) {
    const listed = f === 'package.json' || allowed.some((a) => (a.endsWith('/') ? f.startsWith(a) : f === a));
    assert.ok(listed, `${f} is in the tarball but not in package.json "files"`);
  }
  const wasms = ['devtools/stepline_bg.wasm', 'live/stepline_bg.wasm', 'web/stepline_bg.wasm'];
  for (const wasm of wasms) assert.ok(files.includes(wasm), `${wasm} is missing`);
  // One copy of each binary: the node entries load web/'s and devtools/'s (scripts/build.mjs).
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')).sort(), wasms);
  // Nor any other file twice: the tarball carried node/stepline_bg.wasm beside web/'s (1.3 MB),
  // and web/ and live/ the same `{ "type": "module" }` package.json.
  const byHash = new Map();
  for (const f of files) {
    const hash = createHash('sha256').update(readFileSync(join(pkgDir, f))).digest('hex');
    byHash.set(hash, [...(byHash.get(hash) ?? []), f]);
  }
  assert.deepEqual([...byHash.values()].filter((same) => same.length > 1), [], 'files in the tarball with the same bytes');
  assert.ok(!files.some((f) => f.endsWith('.map') || f.includes('/test') || f.endsWith('.rs')), 'no sources, tests or maps');
  assert.deepEqual(files.filter((f) => /(^|\/)(tests?|fixtures|__tests__|vectors)(\/|$)/.test(f)), [], 'no tests, fixtures or vectors');
  // No source map comment either: one would point at files outside the package (src/, the cargo target dir).
  const mapped = files.filter((f) => /\.(c|m)?js$/.test(f) && /sourceMappingURL=/.test(readFileSync(join(pkgDir, f), 'utf8')));
  assert.deepEqual(mapped, [], 'JavaScript files with a sourceMappingURL');
});

test('(a) a Node ESM project imports the installed tarball by name and decodes the envelope exactly', () => {
  const dir = makeProject('node-esm', 'module', 'node-esm');
  const report = runNode(dir, 'index.mjs');
  assert.equal(realpathSync(report.entry), realpathSync(join(dir, 'node_modules', 'stepline', 'index.mjs')), 'import resolved to another copy');
  assertReport(report, 'Node ESM');
});

test('(b) a Node CommonJS project requires the installed tarball by name and decodes the envelope exactly', () => {
  const dir = makeProject('node-cjs', 'commonjs', 'node-cjs');
  const report = runNode(dir, 'index.cjs');
  assert.equal(realpathSync(report.entry), realpathSync(join(dir, 'node_modules', 'stepline', 'index.cjs')), 'require resolved to another copy');
  assertReport(report, 'Node CJS');
});

/**
 * Links packages a project needs besides stepline from the repo's node_modules, after the
 * tarball's install (npm would prune what its package.json does not list).
 */
function linkFromRoot(dir, names) {
  for (const name of names) {
    const from = join(root, 'node_modules', name);
    assert.ok(existsSync(join(from, 'package.json')), `${name} is not in the repo's node_modules: run \`npm ci\``);
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(from, join(dir, 'node_modules', name), 'dir');
  }
}

/** Debian's Chromium with the flags of tests/browser/lib/browser.mjs (whose launch() needs the panel's www/dist). */
async function launchChromium() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: run scripts/setup.sh (it installs Debian's chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// The Vite app is built once and loaded once; (c) reads the page's result, (d) the worker's.
let pageRun;
function viteAppInChromium() {
  pageRun ??= (async () => {
    const dir = makeProject('vite-app', 'module', 'vite-app');
    const build = spawnSync(process.execPath, [vite, 'build'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.equal(build.status, 0, `vite build failed:\n${build.stdout}\n${build.stderr}`);
    const dist = join(dir, 'dist');
    const assets = readdirSync(join(dist, 'assets'));
    assert.ok(assets.some((f) => f.endsWith('.wasm')), `vite emitted no .wasm asset: ${assets.join(', ')}`);
    const bundled = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(dist, 'assets', f), 'utf8')).join('\n');
    assert.ok(!bundled.includes(`${sep}node_modules${sep}stepline`) && !bundled.includes(root), 'the bundle refers to files outside dist/');

    const browser = await launchChromium();
    const server = await servePanel({ root: dist });
    try {
      /** Loads one page of the app; returns the listed elements' results and the wasm it fetched. */
      const load = async (path, ids) => {
        const page = await openPage(browser);
        const fetched = [];
        page.on('response', (r) => {
          if (r.url().endsWith('.wasm')) fetched.push(r.body().then((body) => ({ status: r.status(), type: r.headers()['content-type'], size: body.length })));
        });
        await page.goto(new URL(path, server.url).href);
        await page.waitForFunction((want) => want.every((id) => document.getElementById(id).dataset.state !== 'pending'), ids, { timeout: 30_000 });
        const results = {};
        for (const id of ids) results[id] = await page.$eval(`#${id}`, (el) => ({ state: el.dataset.state, text: el.textContent }));
        return { ...results, problems: page.problems, wasmResponses: await Promise.all(fetched) };
      };
      return { index: await load('./', ['main', 'worker']), live: await load('./live.html', ['live']) };
    } finally {
      await browser.close();
      await server.close();
    }
  })();
  return pageRun;
}

const wasmSize = (dir) => readFileSync(join(pkgDir, dir, 'stepline_bg.wasm')).length;

test('(c) a Vite-built page does `await init()` and shows the decoded envelope in the DOM, exactly', { timeout: 180_000 }, async () => {
  const { main, problems, wasmResponses } = (await viteAppInChromium()).index;
  assert.equal(main.state, 'done', `the page failed: ${main.text}`);
  assertReport(JSON.parse(main.text), 'Vite page');
  assert.ok(wasmResponses.length >= 1, 'no wasm was fetched');
  for (const r of wasmResponses) assert.deepEqual(r, { status: 200, type: 'application/wasm', size: wasmSize('web') });
  assert.deepEqual(problems, []);
});

test('(d) a module worker on that page imports stepline, awaits init() and posts the same decoded envelope', { timeout: 180_000 }, async () => {
  const { worker, problems } = (await viteAppInChromium()).index;
  assert.equal(worker.state, 'done', `the worker failed: ${worker.text}`);
  assertReport(JSON.parse(worker.text), 'module worker');
  assert.deepEqual(problems, []);
});

test('(e) a page of the same app using stepline/live loads only the live wasm, decodes exactly and ingests into a Session', { timeout: 180_000 }, async () => {
  const { live, problems, wasmResponses } = (await viteAppInChromium()).live;
  assert.equal(live.state, 'done', `the live page failed: ${live.text}`);
  const report = JSON.parse(live.text);
  assertReport(report, 'live page');
  assert.equal(report.ingested.applied, true);
  assert.equal(report.sessionId, fixture.decoded.session_id);
  assert.deepEqual(wasmResponses, [{ status: 200, type: 'application/wasm', size: wasmSize('live') }]);
  assert.deepEqual(problems, []);
});

const REACT_PACKAGES = ['react', 'react-dom', '@types/react', '@types/react-dom', 'laravel-echo', '@laravel/echo-react', 'pusher-js'];
const VUE_PACKAGES = ['vue', 'laravel-echo', '@laravel/echo-vue', 'pusher-js'];

/** The project's own `tsc --noEmit` (its tsconfig.json), with the repo's TypeScript. */
function typeCheck(dir) {
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.equal(result.status, 0, `tsc in ${dir} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
}

/** A framework project, installed once: the tarball, its framework packages, the pages' shared reporter. */
const frameworkProjects = new Map();
/**
 * The framework app's two pages (bare.html: the run followed by hand in bare.js; hook.html:
 * with the adapter in hook.js), alike but for their script; show-run.js writes into #run.
 */
function writeAdapterPages(dir, framework) {
  for (const page of ['bare', 'hook']) {
    writeFileSync(join(dir, `${page}.html`), `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <link rel="icon" href="data:,">
    <title>stepline packaging check: ${framework}, ${page}</title>
  </head>
  <body>
    <div id="root"></div>
    <pre id="run" data-state="pending"></pre>
    <script type="module" src="./${page}.js"></script>
  </body>
</html>
`);
  }
}

function frameworkApp(name, packages, framework) {
  if (!frameworkProjects.has(name)) {
    const dir = makeProject(name, 'module', name);
    linkFromRoot(dir, packages);
    cpSync(join(fixtures, 'show-run.js'), join(dir, 'show-run.js'));
    writeAdapterPages(dir, framework);
    frameworkProjects.set(name, dir);
  }
  return frameworkProjects.get(name);
}
const reactApp = () => frameworkApp('react-app', REACT_PACKAGES, 'React');
const vueApp = () => frameworkApp('vue-app', VUE_PACKAGES, 'Vue');

test('the installed tarball has stepline/echo, stepline/react and stepline/vue, each with its declarations', () => {
  const dir = reactApp();
  const installed = JSON.parse(readFileSync(join(dir, 'node_modules', 'stepline', 'package.json'), 'utf8'));
  for (const entry of ['echo', 'react', 'vue']) {
    assert.deepEqual(installed.exports[`./${entry}`], { types: `./${entry}.d.ts`, default: `./${entry}.js` }, entry);
    for (const file of [`${entry}.js`, `${entry}.d.ts`]) assert.ok(existsSync(join(dir, 'node_modules', 'stepline', file)), `${file} is not installed`);
  }
  // The devtools overlay and its wrappers (issue 30), with their declarations and the lazily loaded panel chunk.
  for (const [entry, file] of [['devtools-overlay', 'devtools-overlay'], ['devtools-overlay/react', 'devtools-overlay-react'], ['devtools-overlay/vue', 'devtools-overlay-vue']]) {
    assert.deepEqual(installed.exports[`./${entry}`], { types: `./${file}.d.ts`, default: `./${file}.js` }, entry);
    for (const f of [`${file}.js`, `${file}.d.ts`]) assert.ok(existsSync(join(dir, 'node_modules', 'stepline', f)), `${f} is not installed`);
  }
  assert.ok(existsSync(join(dir, 'node_modules', 'stepline', 'devtools-overlay-panel.js')), 'the overlay\'s panel chunk is not installed');
  // Framework packages stay the app's choice: optional peers, never dependencies.
  assert.equal(installed.dependencies, undefined);
  for (const peer of ['laravel-echo', '@laravel/echo-react', '@laravel/echo-vue', 'react', 'vue']) {
    assert.equal(installed.peerDependenciesMeta?.[peer]?.optional, true, `${peer} is an optional peer`);
  }
});

test('(f) a React project type-checks a useAgentRun component against the installed declarations (strict, no skipLibCheck)', { timeout: 180_000 }, () => {
  typeCheck(reactApp());
});

test('(g) a Vue project type-checks a useAgentRun composable against the installed declarations (strict, no skipLibCheck)', { timeout: 180_000 }, () => {
  typeCheck(vueApp());
});

// What an adapter may add to a page that already has its framework, @laravel/echo-react or
// -vue and stepline/live: stepline/react or /vue plus stepline/echo, minified (about 3 KB
// when written).
const ADAPTER_JS_BOUND = 8 * 1024;

/**
 * Builds a framework project's two pages with Vite and loads each in Chromium: bare.html
 * follows the run by hand, hook.html with the adapter. Returns what each shows in #run,
 * the JS bytes and the wasm it fetched, and its console problems.
 */
async function adapterPages(dir) {
  const build = spawnSync(process.execPath, [vite, 'build'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.equal(build.status, 0, `vite build failed:\n${build.stdout}\n${build.stderr}`);
  const browser = await launchChromium();
  const server = await servePanel({ root: join(dir, 'dist') });
  try {
    const load = async (path) => {
      const page = await openPage(browser);
      const js = [];
      const wasm = [];
      page.on('response', (r) => {
        const url = r.url();
        if (url.endsWith('.js')) js.push(r.body().then((body) => body.length));
        if (url.endsWith('.wasm')) wasm.push(r.body().then((body) => ({ status: r.status(), size: body.length })));
      });
      await page.goto(new URL(path, server.url).href);
      await page.waitForFunction(() => document.getElementById('run').dataset.state !== 'pending', null, { timeout: 30_000 });
      const run = await page.$eval('#run', (el) => ({ state: el.dataset.state, text: el.textContent }));
      const jsBytes = (await Promise.all(js)).reduce((a, b) => a + b, 0);
      return { run, jsBytes, wasm: await Promise.all(wasm), problems: page.problems };
    };
    return { bare: await load('./bare.html'), hook: await load('./hook.html') };
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Both pages show the run, load the live wasm and nothing else; the adapter's page costs at most the bound. */
function assertAdapterPages(t, adapter, { bare, hook }) {
  t.diagnostic(`JS loaded: ${bare.jsBytes} bytes by hand, ${hook.jsBytes} bytes with ${adapter} (+${hook.jsBytes - bare.jsBytes})`);
  t.diagnostic(`the ${adapter} page shows ${hook.run.text}`);
  for (const [name, page] of Object.entries({ bare, hook })) {
    assert.equal(page.run.state, 'done', `the ${name} page failed: ${page.run.text}`);
    assert.deepEqual(page.wasm, [{ status: 200, size: wasmSize('live') }], `the ${name} page loads the live wasm and no other`);
    assert.deepEqual(page.problems, [], name);
  }
  const shown = JSON.parse(hook.run.text);
  assert.deepEqual(shown, { ...JSON.parse(bare.run.text), catchingUp: false }, `${adapter} shows what the page built by hand shows`);
  assert.equal(shown.connection, 'connected');
  assert.deepEqual(shown.missingSteps, [1], 'the fixture is step 2 of a run: step 1 shows as missing');
  assert.ok(
    hook.jsBytes - bare.jsBytes <= ADAPTER_JS_BOUND,
    `${adapter} adds ${hook.jsBytes - bare.jsBytes} bytes of JS (${bare.jsBytes} -> ${hook.jsBytes}); the bound is ${ADAPTER_JS_BOUND}`,
  );
}

/** The built JS files under `dir` that hold code of the devtools overlay (its element's tag). */
function overlayFiles(dir) {
  const found = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js') && readFileSync(path, 'utf8').includes('stepline-devtools')) found.push(path.slice(d.length + 1));
    }
  };
  walk(dir);
  return found;
}

/**
 * `vite build` in `dir`; with `development`, NODE_ENV=development (Vite's import.meta.env.DEV
 * reads it); `config`, another config file than the project's vite.config.mjs.
 */
function viteBuild(dir, { development = false, outDir = 'dist', config } = {}) {
  const env = { ...process.env };
  if (development) env.NODE_ENV = 'development';
  else delete env.NODE_ENV;
  const args = [vite, 'build', '--outDir', outDir, '--emptyOutDir', ...(development ? ['--mode', 'development'] : []), ...(config ? ['--config', config] : [])];
  const build = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(build.status, 0, `vite build failed:\n${build.stdout}\n${build.stderr}`);
  return resolve(dir, outDir);
}

test('(j) a production build leaves the devtools overlay out when it is imported behind import.meta.env.DEV; a development build has it', { timeout: 300_000 }, () => {
  const dir = reactApp();
  assert.deepEqual(overlayFiles(viteBuild(dir)), [], 'the packaged React app built for production');
  const dev = overlayFiles(viteBuild(dir, { development: true, outDir: 'dist-dev' }));
  assert.ok(dev.length >= 1, 'the development build has the overlay (so the production check can fail)');
  // The example apps render the React and Vue wrappers under import.meta.env.DEV.
  for (const name of ['react', 'vue']) {
    const example = join(root, 'examples', name);
    const out = join(work, `example-${name}`);
    assert.deepEqual(overlayFiles(viteBuild(example, { outDir: out })), [], `examples/${name} built for production`);
    assert.ok(overlayFiles(viteBuild(example, { development: true, outDir: `${out}-dev` })).length >= 1, `examples/${name} built for development`);
  }
});

test(`(h) a React page with stepline/live + stepline/react loads only the live wasm and at most ${ADAPTER_JS_BOUND / 1024} KB more JS than the same page following the run by hand`, { timeout: 180_000 }, async (t) => {
  assertAdapterPages(t, 'stepline/react', await adapterPages(reactApp()));
});

test(`(i) a Vue page with stepline/live + stepline/vue loads only the live wasm and at most ${ADAPTER_JS_BOUND / 1024} KB more JS than the same page following the run by hand`, { timeout: 180_000 }, async (t) => {
  assertAdapterPages(t, 'stepline/vue', await adapterPages(vueApp()));
});

/** Every file under `dir`, as [path relative to dir, bytes]. */
function filesUnder(dir) {
  const found = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push([path.slice(dir.length + 1), readFileSync(path)]);
    }
  };
  walk(dir);
  return found;
}

/** The names a wasm module exports (wasm-bindgen's `session_exportotlp` and the like). */
const wasmExports = (bytes) => WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);

/**
 * What in a built app's output is not the live entry's: every `.wasm` other than a byte-equal
 * copy of pkg/live/stepline_bg.wasm, one copy too many, and any trace of the full package's
 * wasm (web/stepline_bg.wasm, which holds the devtools and Node-only code): one of 200 runs of
 * 63 bytes from it that the live wasm does not hold, raw or base64 (an inlined wasm), or the
 * name of an export only the full wasm has (what its glue calls). Returns the problems found
 * and the listing of the output's wasm files.
 */
function liveOnlyProblems(dist) {
  const live = readFileSync(join(pkgDir, 'live', 'stepline_bg.wasm'));
  const full = readFileSync(join(pkgDir, 'web', 'stepline_bg.wasm'));
  const files = filesUnder(dist);
  const wasm = files.filter(([path]) => path.endsWith('.wasm'));
  const listing = wasm.map(([path, bytes]) => `${String(bytes.length).padStart(9)} B  ${path}`);
  const problems = [];
  if (wasm.length !== 1) problems.push(`${wasm.length} wasm files, not one: ${wasm.map(([p]) => p).join(', ')}`);
  for (const [path, bytes] of wasm) if (!bytes.equals(live)) problems.push(`${path} is not the live entry's wasm`);
  // Runs at offsets that are multiples of 3, so a base64 copy of the whole module holds their base64 text.
  const base64 = full.toString('base64');
  const runs = [];
  for (let i = 0; i < 200; i++) {
    const at = Math.floor((full.length - 63) * (i / 200) / 3) * 3;
    const run = full.subarray(at, at + 63);
    if (!live.includes(run)) runs.push({ at, raw: run, b64: base64.slice((at / 3) * 4, (at / 3) * 4 + 84) });
  }
  if (runs.length < 150) problems.push(`only ${runs.length} of 200 runs of the full wasm are not in the live wasm: the check would see too little`);
  const liveNames = new Set(wasmExports(live));
  // Class members and wasm-bindgen's free functions (`session_exportOtlp`, `__wbg_runlog_free`): names no other code has.
  const fullOnly = wasmExports(full).filter((n) => !liveNames.has(n) && n.includes('_') && !n.startsWith('wasm_bindgen__'));
  if (fullOnly.length < 20) problems.push(`only ${fullOnly.length} exports are the full wasm's alone: ${fullOnly.join(', ')}`);
  for (const [path, bytes] of files) {
    const rawHits = runs.filter((r) => bytes.includes(r.raw)).length;
    const b64Hits = runs.filter((r) => bytes.includes(r.b64)).length;
    if (rawHits || b64Hits) problems.push(`${path} holds ${rawHits} raw and ${b64Hits} base64 runs of the full wasm (of ${runs.length})`);
    if (/\.(c|m)?js$/.test(path)) {
      const text = bytes.toString('utf8');
      const named = fullOnly.filter((n) => text.includes(n));
      if (named.length) problems.push(`${path} names ${named.length} exports only the full wasm has (${named.slice(0, 3).join(', ')}, …)`);
    }
  }
  return { problems, listing };
}

test('(k) a Vite production build of a page with stepline/react + stepline/live holds one wasm, the live entry\'s, and no byte of the full package\'s; the same page on stepline/web fails that check', { timeout: 300_000 }, (t) => {
  const dir = reactApp();
  // hook.html alone (the app's other page, bare.html, follows the run without stepline/react).
  const onePage = (html) => `import config from './vite.config.mjs';\nexport default { ...config, build: { ...config.build, rollupOptions: { input: { hook: '${html}' } } } };\n`;
  writeFileSync(join(dir, 'vite.live.config.mjs'), onePage('hook.html'));
  const { problems, listing } = liveOnlyProblems(viteBuild(dir, { outDir: 'dist-live-only', config: 'vite.live.config.mjs' }));
  t.diagnostic('wasm in the build of hook.html (stepline/react + stepline/live):');
  for (const line of listing) t.diagnostic(`  ${line}`);
  assert.deepEqual(problems, []);

  // The control: hook.html's page with stepline/web for stepline/live, built alone. The check
  // must see the full wasm there, or its pass above says nothing.
  writeFileSync(join(dir, 'hook-web.js'), readFileSync(join(fixtures, 'react-app', 'hook.js'), 'utf8').replace("from 'stepline/live'", "from 'stepline/web'"));
  writeFileSync(join(dir, 'hook-web.html'), readFileSync(join(dir, 'hook.html'), 'utf8').replace('./hook.js', './hook-web.js'));
  writeFileSync(join(dir, 'vite.web.config.mjs'), onePage('hook-web.html'));
  const control = liveOnlyProblems(viteBuild(dir, { outDir: 'dist-web-control', config: 'vite.web.config.mjs' }));
  t.diagnostic('wasm in the control build (stepline/react + stepline/web):');
  for (const line of control.listing) t.diagnostic(`  ${line}`);
  for (const problem of control.problems) t.diagnostic(`  control: ${problem}`);
  assert.ok(control.problems.some((p) => p.includes('is not the live entry\'s wasm')), 'the control build\'s wasm passed as the live one');
  assert.ok(control.problems.some((p) => /holds \d+ raw/.test(p)), 'the control build\'s full wasm was not seen');
  assert.ok(control.problems.some((p) => /names \d+ exports only the full wasm has/.test(p)), 'the control build\'s glue was not seen');
});
