// The one test command (`npm test`, also what .ci/run runs):
//
//   scripts/setup.sh, npm run build, then nine layers, each ending in its own
//   "<layer>: N passed, M failed" line:
//     native  cargo test --all-targets                     the Rust core
//     wasm    cargo test --target wasm32-unknown-unknown   #[wasm_bindgen_test]s, in Node
//     js      node --test tests/js/*.test.{mjs,cjs}        the built package, via `stepline`; the README examples
//     bench   scripts/bench-check.mjs                      short side-by-side timings and memory of the built
//                                                          package against the peers and JSON.parse: one check
//                                                          per ratio, failed over its ceiling (scripts/bench-budget.json)
//     types   tsc --noEmit -p tests/types/..., www/        the emitted declarations, the panel
//     browser node --test tests/browser/*.test.mjs         the panel in Chromium, live via sockudo
//     packaging node --test tests/packaging/*.test.mjs     npm pack into ESM, CJS, Vite page, worker
//     docs    npm run docs:build, node --test tests/docs     the VitePress site builds (no dead links); its
//                                                          anchors, the API reference's coverage, the error codes
//     lint    scripts/lint.sh                              rustfmt + clippy, native and wasm32
//
// Every layer runs even when an earlier one failed; the exit code is non-zero if
// any did. The last line is the total.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cargoBin = join(process.env.CARGO_HOME ?? join(process.env.HOME ?? '', '.cargo'), 'bin');
// A CI run is a fresh clone built once: cargo's incremental caches would only take disk
// (gigabytes across the native, wasm and lint builds) on a machine it shares.
const env = {
  ...process.env,
  PATH: `${cargoBin}${delimiter}${process.env.PATH ?? ''}`,
  ...(process.env.CI ? { CARGO_INCREMENTAL: process.env.CARGO_INCREMENTAL ?? '0' } : {}),
};

/** Commands whose output said the disk was full: named in the summary, since a failure they
 * cause reads like a broken build. */
const diskFull = new Set();

/** Runs a command with its output passed through, and also returns that output. */
function run(command, args, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; process.stdout.write(chunk); });
    child.stderr.on('data', (chunk) => { output += chunk; process.stderr.write(chunk); });
    child.on('error', (error) => resolve({ code: 127, output: `${output}\ncould not run ${command}: ${error.message}` }));
    child.on('close', (code, signal) => {
      if (output.includes('No space left on device')) diskFull.add(`${command} ${args.join(' ')}`);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

function banner(text) {
  console.log(`\n=== ${text} ${'='.repeat(Math.max(0, 72 - text.length))}`);
}

/** Sums libtest's (and wasm-bindgen-test-runner's) "test result: ..." lines. */
function cargoCounts(output) {
  let passed = 0;
  let failed = 0;
  for (const match of output.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed;/gm)) {
    passed += Number(match[1]);
    failed += Number(match[2]);
  }
  return { passed, failed };
}

const results = [];

/** Each failed node:test test's name and the first lines of its error, printed again in the
 * summary: a CI log is often read from its tail, far below the test that failed. */
const failures = [];

/** The failing tests of a node:test TAP file: `layer: name`, where, and the error's first lines. */
function tapFailures(layer, text) {
  const lines = text.split('\n');
  const found = [];
  for (const [i, line] of lines.entries()) {
    const failed = line.match(/^(\s*)not ok \d+ - (.*)$/);
    // A todo's failure is expected and not counted (node:test's `# TODO`).
    if (!failed || / # (TODO|SKIP)\b/.test(failed[2])) continue;
    // The YAML block under it: `---`, keys two spaces in, `...`; the stack is left out.
    const keyIndent = failed[1].length + 2;
    const block = [];
    for (const next of lines.slice(i + 2)) {
      const key = next.slice(keyIndent);
      if (key.startsWith('...') || key.startsWith('stack:')) break;
      if (/^(duration_ms|failureType|code|name|operator):/.test(key)) continue;
      block.push(key.trimEnd());
    }
    // A suite fails when its tests do; its own entry adds nothing.
    if (block.includes("type: 'suite'")) continue;
    const detail = block.filter((d) => d.trim() !== '').slice(0, 10).map((d) => `    ${d.slice(0, 300)}`);
    found.push(`${layer}: ${failed[2]}\n${detail.join('\n')}`);
  }
  return found;
}

/** Records a layer's counts and prints its one-line summary. */
function report(name, { passed, failed, exitCode, note = '' }) {
  // A runner that failed without a failing test (a compile error, a crash) still fails the layer.
  const broken = exitCode !== 0 && failed === 0;
  if (broken) failed = 1;
  const extra = broken ? ` (${note || `exited with status ${exitCode} before any test failed`})` : note ? ` (${note})` : '';
  const line = `${name}: ${passed} passed, ${failed} failed${extra}`;
  results.push({ name, passed, failed, line });
  console.log(`\n${line}`);
}

async function nativeLayer() {
  banner('native: cargo test --all-targets');
  const { code, output } = await run('cargo', ['test', '--all-targets', '--no-fail-fast']);
  const { passed, failed } = cargoCounts(output);
  report('native', { passed, failed, exitCode: code, note: code !== 0 && failed === 0 ? 'cargo test failed before running tests: see the output above' : '' });
}

async function wasmLayer() {
  banner('wasm: cargo test --target wasm32-unknown-unknown --test wasm_boundary (wasm-bindgen-test-runner, Node)');
  const { code, output } = await run('cargo', ['test', '--target', 'wasm32-unknown-unknown', '--test', 'wasm_boundary', '--no-fail-fast'], {
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: 'wasm-bindgen-test-runner',
  });
  const { passed, failed } = cargoCounts(output);
  const note = code !== 0 && failed === 0
    ? 'cargo test failed before running tests: see the output above'
    : passed + failed === 0 ? 'no #[wasm_bindgen_test] tests yet' : '';
  report('wasm', { passed, failed, exitCode: code, note });
}

async function jsLayer(built) {
  banner('js: node --test tests/js (against the built pkg/)');
  if (!built) return report('js', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the build failed' });
  if (!existsSync(join(root, 'node_modules', 'stepline', 'package.json'))) {
    return report('js', { passed: 0, failed: 1, exitCode: 1, note: 'node_modules/stepline does not link to pkg/ (the build creates it)' });
  }
  await nodeTests('js', join('tests', 'js'));
}

/**
 * scripts/bench-check.mjs (npm run bench:check): ratios of stepline's time and memory to the
 * peers' and JSON.parse's, measured side by side; a ratio over its ceiling in
 * scripts/bench-budget.json fails its check. About two minutes on two cores.
 */
async function benchLayer(built) {
  banner('bench: scripts/bench-check.mjs (ratios against the peers and JSON.parse, ceilings in scripts/bench-budget.json)');
  if (!built) return report('bench', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the build failed' });
  const { code, output } = await run(process.execPath, [join('scripts', 'bench-check.mjs')]);
  const counts = output.match(/^bench: (\d+) passed, (\d+) failed$/m);
  report('bench', { passed: Number(counts?.[1] ?? 0), failed: Number(counts?.[2] ?? 0), exitCode: code });
}

/** Runs node:test over `dir`'s *.test.mjs/cjs files and reports their counts as `layer`. */
async function nodeTests(layer, dir) {
  const files = readdirSync(join(root, dir)).filter((f) => /\.test\.(mjs|cjs)$/.test(f)).sort().map((f) => join(dir, f));
  if (files.length === 0) return report(layer, { passed: 0, failed: 1, exitCode: 1, note: `no ${dir}/*.test.mjs or *.test.cjs files` });
  const tmp = mkdtempSync(join(tmpdir(), 'stepline-test-'));
  const tap = join(tmp, `${layer}.tap`);
  try {
    const { code } = await run(process.execPath, [
      '--test',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      ...files,
    ]);
    const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
    const count = (key) => Number(text.match(new RegExp(`^# ${key} (\\d+)$`, 'm'))?.[1] ?? 0);
    failures.push(...tapFailures(layer, text));
    report(layer, { passed: count('pass'), failed: count('fail') + count('cancelled'), exitCode: code });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The devtools panel in Debian's Chromium (playwright-core), with sockudo as
 * the Pusher-protocol server for the live tests: builds www/dist first.
 */
async function browserLayer(built) {
  banner('browser: the panel in headless Chromium, live over sockudo (tests/browser)');
  if (!built) return report('browser', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the build failed' });
  const www = await run(process.execPath, [join('scripts', 'build-www.mjs')]);
  if (www.code !== 0) return report('browser', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the panel build failed' });
  await nodeTests('browser', join('tests', 'browser'));
}

/**
 * The packed package installed into throwaway projects: Node ESM and CJS, a
 * Vite-built page and a module worker in Chromium (tests/packaging).
 */
async function packagingLayer(built) {
  banner('packaging: npm pack, installed into Node ESM, Node CJS, a Vite page and a web worker (tests/packaging)');
  if (!built) return report('packaging', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the build failed' });
  await nodeTests('packaging', join('tests', 'packaging'));
}

/**
 * The docs site (docs/, VitePress): `npm run docs:build` generates the API reference from
 * pkg/ and builds the site, failing on a dead link; tests/docs then checks the built
 * pages' links and anchors, that the API reference lists every export of every entry and
 * that every SteplineError code has its section. (The pages' code blocks run in the js
 * layer, tests/js/readme.test.mjs.)
 */
async function docsLayer(built) {
  banner('docs: npm run docs:build (VitePress), then node --test tests/docs');
  if (!built) return report('docs', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the build failed' });
  const started = Date.now();
  const site = await run('npm', ['run', 'docs:build']);
  console.log(`docs:build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (site.code !== 0) return report('docs', { passed: 0, failed: 1, exitCode: 1, note: 'npm run docs:build failed: see the output above' });
  await nodeTests('docs', join('tests', 'docs'));
}

/** rustfmt and clippy (native and wasm32), warnings as errors: scripts/lint.sh. */
async function lintLayer() {
  banner('lint: scripts/lint.sh (cargo fmt --check, clippy -D warnings native + wasm32, rustdoc -D warnings)');
  const { code, output } = await run('bash', ['scripts/lint.sh']);
  const passed = (output.match(/^lint: \S+ ok$/gm) ?? []).length;
  const failed = (output.match(/^lint: \S+ FAILED$/gm) ?? []).length;
  report('lint', { passed, failed, exitCode: code });
}

async function typesLayer(built) {
  banner('types: tsc --noEmit over pkg/ declarations, tests/types and the panel (www/)');
  if (!built) return report('types', { passed: 0, failed: 1, exitCode: 1, note: 'not run: the build failed' });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  let passed = 0;
  let failed = 0;
  for (const project of ['tests/types/tsconfig.json', 'tests/types/tsconfig.browser.json', 'www/tsconfig.json']) {
    console.log(`tsc --noEmit -p ${project}`);
    const { code } = await run(process.execPath, [tsc, '--noEmit', '-p', project]);
    if (code === 0) passed += 1;
    else failed += 1;
  }
  report('types', { passed, failed, exitCode: failed ? 1 : 0 });
}

async function main() {
  const started = Date.now();
  banner('setup');
  const setup = await run('bash', ['scripts/setup.sh']);
  if (setup.code !== 0) {
    console.error('\ntest: scripts/setup.sh failed; nothing can be tested without the toolchain');
    console.log('total: 0 passed, 1 failed');
    process.exit(1);
  }

  banner('build: npm run build');
  const build = await run('npm', ['run', 'build']);
  const built = build.code === 0;
  if (!built) console.error('\ntest: the build failed; the js, bench and types layers will not run');

  await nativeLayer();
  await wasmLayer();
  await jsLayer(built);
  await benchLayer(built);
  await typesLayer(built);
  await browserLayer(built);
  await packagingLayer(built);
  await docsLayer(built);
  await lintLayer();

  banner(`summary (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  if (!built) console.log('build: FAILED');
  for (const command of diskFull) console.log(`disk full: \`${command}\` ran out of disk space (free some and run again)`);
  if (failures.length) console.log(`failed tests:\n${failures.join('\n')}\n`);
  for (const { line } of results) console.log(line);
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0) + (built ? 0 : 1);
  console.log(`total: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main();
