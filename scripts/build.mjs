// Builds the npm package `stepline` into pkg/:
//
//   cargo build (release, wasm32)  ->  wasm-bindgen --target nodejs  ->  pkg/node/
//                                  ->  wasm-bindgen --target web     ->  pkg/web/
//   cargo build --profile size --no-default-features (the live-UI subset, src/wasm/mod.rs)
//                                  ->  wasm-bindgen --target web     ->  pkg/live/
//   wasm-opt -Oz on the three .wasm files, then the entry files from pkg-template/,
//   the in-page devtools overlay (scripts/build-overlay.mjs: www/src bundled by Vite),
//   the CLI (bin/stepline.mjs, mode 755) and the JSON Schemas in schemas/, which
//   are written by the built package itself (snapshotSchema()); then, outside the
//   package, the DevTools extension (scripts/build-extension.mjs: dist/extension/
//   and dist/stepline-devtools-extension.zip).
//
// Every step that fails stops the build with a non-zero exit. The sizes of what
// ships are printed every time and checked before pkg/ is replaced: the build fails
// when wasm + glue, gzipped, exceeds the enforced ceiling in scripts/size-budget.json
// (a ratchet towards the 120 KB target, which is printed beside it; bench/findings.md, Size).
//
// Usage: node scripts/build.mjs   (npm run build)
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { buildExtension } from './build-extension.mjs';
import { buildOverlay } from './build-overlay.mjs';
import { writeEntriesTable } from './lib/entries-table.mjs';
import { inputHash, PACKAGE_INPUTS, recordHash } from './lib/build-cache.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 'wasm32-unknown-unknown';
const SIZE_BUDGET = JSON.parse(readFileSync(join(root, 'scripts', 'size-budget.json'), 'utf8'));
const EXPORTS_MARKER = /^\/\/ @stepline-exports.*$/m;

class BuildError extends Error {}

function log(message) {
  console.log(`build: ${message}`);
}

// Tools installed by `cargo install` (wasm-bindgen) live here; scripts/setup.sh does the same.
const cargoBin = join(process.env.CARGO_HOME ?? join(process.env.HOME ?? '', '.cargo'), 'bin');
const env = { ...process.env, PATH: `${cargoBin}${delimiter}${process.env.PATH ?? ''}` };

/** Runs a command, streaming its output; throws BuildError naming the step if it fails. */
function run(step, command, args, { capture = false } = {}) {
  const result = spawnSync(command, args, {
    cwd: root,
    env,
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw new BuildError(`${step}: could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    const how = result.signal ? `was killed by ${result.signal}` : `exited with status ${result.status}`;
    throw new BuildError(`${step}: \`${[command, ...args].join(' ')}\` ${how}`);
  }
  return result.stdout;
}

function buildId() {
  if (process.env.STEPLINE_BUILD_ID) return process.env.STEPLINE_BUILD_ID;
  const git = spawnSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : 'dev';
}

function crateMetadata() {
  const out = run('cargo metadata', 'cargo', ['metadata', '--no-deps', '--format-version', '1'], { capture: true });
  const meta = JSON.parse(out);
  const pkg = meta.packages.find((p) => p.name === 'stepline');
  if (!pkg) throw new BuildError('cargo metadata: no package named stepline');
  return { version: pkg.version, description: pkg.description, license: pkg.license, targetDir: meta.target_directory };
}

function checkWasmBindgen() {
  const wanted = run('read wasm-bindgen pin', 'bash', ['scripts/wasm-bindgen-version.sh'], { capture: true }).trim();
  const probe = spawnSync('wasm-bindgen', ['--version'], { env, encoding: 'utf8' });
  const found = probe.status === 0 ? probe.stdout.trim().split(/\s+/)[1] : null;
  if (found !== wanted) {
    throw new BuildError(
      `wasm-bindgen ${wanted} is required (the crate pins it) but found ${found ?? 'none'}; run: bash scripts/setup.sh`,
    );
  }
  return wanted;
}

/**
 * cargo build of one entry's wasm; returns the path of the cdylib .wasm cargo reports.
 * `core` (the `stepline` entry) is built with the release profile for speed and without
 * the `devtools` feature; `devtools` (the `stepline/devtools` entry) with every feature and
 * the `devtools` profile, the release profile under its own name; `live` without the
 * default features and with the `size` profile (Cargo.toml). Each profile has its own
 * output directory, so all three builds stay incremental.
 */
const VARIANTS = {
  core: ['--release', '--no-default-features', '--features', 'full'],
  devtools: ['--profile', 'devtools'],
  live: ['--profile', 'size', '--no-default-features'],
};
function cargoBuild(variant) {
  const out = run(`cargo build (${variant})`, 'cargo', [
    'build', ...VARIANTS[variant], '--target', TARGET, '--lib', '--message-format=json-render-diagnostics',
  ], { capture: true });
  let wasm = null;
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = JSON.parse(line);
    if (msg.reason === 'compiler-artifact' && msg.target?.name === 'stepline') {
      wasm = msg.filenames.find((f) => f.endsWith('.wasm')) ?? wasm;
    }
  }
  if (!wasm) throw new BuildError('cargo build: no .wasm artifact reported for stepline (is crate-type cdylib?)');
  return wasm;
}

/**
 * wasm-opt needs to be told which wasm features the module uses. Ask rustc which
 * ones it enables for the target (with the same RUSTFLAGS), so a new default in a
 * later Rust release shows up here as a clear error instead of a validation failure.
 */
function wasmOptFeatureFlags() {
  const flags = { 'bulk-memory': ['--enable-bulk-memory', '--enable-bulk-memory-opt'],
    'multivalue': ['--enable-multivalue'],
    'mutable-globals': ['--enable-mutable-globals'],
    'nontrapping-fptoint': ['--enable-nontrapping-float-to-int'],
    'reference-types': ['--enable-reference-types', '--enable-call-indirect-overlong'],
    'sign-ext': ['--enable-sign-ext'],
    'simd128': ['--enable-simd'],
    'relaxed-simd': ['--enable-relaxed-simd'],
    'tail-call': ['--enable-tail-call'],
    'extended-const': ['--enable-extended-const'],
    'exception-handling': ['--enable-exception-handling'],
    'atomics': ['--enable-threads'],
    'multimemory': ['--enable-multimemory'],
    'wide-arithmetic': ['--enable-wide-arithmetic'],
    'gc': ['--enable-gc'],
  };
  const rustflags = (process.env.RUSTFLAGS ?? '').split(/\s+/).filter(Boolean);
  const cfg = run('rustc --print cfg', 'rustc', ['--print', 'cfg', '--target', TARGET, ...rustflags], { capture: true });
  const enabled = [...cfg.matchAll(/^target_feature="([^"]+)"$/gm)].map((m) => m[1]);
  const unknown = enabled.filter((f) => !(f in flags));
  if (unknown.length) {
    throw new BuildError(`wasm-opt: rustc enables wasm features this script does not map to wasm-opt flags: ${unknown.join(', ')} (add them to wasmOptFeatureFlags in scripts/build.mjs)`);
  }
  return { enabled, args: enabled.flatMap((f) => flags[f]) };
}

function wasmOpt(file, featureArgs) {
  const bin = join(root, 'node_modules', 'binaryen', 'bin', 'wasm-opt');
  if (!existsSync(bin)) throw new BuildError('wasm-opt: node_modules/binaryen is missing; run: bash scripts/setup.sh');
  // --low-memory-unused lets wasm-opt fold constant offsets into loads and stores (-0.9 KB
  // gzipped on the live entry): rustc's wasm32 layout puts the 1 MiB stack first, so the low
  // 1 KiB is only reached by a stack about to overflow (the JSON depth limit stops far short).
  run(`wasm-opt ${relative(root, file)}`, process.execPath, [
    bin, '-Oz', '--low-memory-unused', '--strip-debug', '--strip-producers', ...featureArgs, file, '-o', file,
  ]);
}

/** Replaces the marker line in an entry template with generated export statements. */
function fillExports(file, statements) {
  const text = readFileSync(file, 'utf8');
  if (!EXPORTS_MARKER.test(text)) throw new BuildError(`assemble: ${relative(root, file)} has no "// @stepline-exports" line`);
  writeFileSync(file, text.replace(EXPORTS_MARKER, `// Generated by scripts/build.mjs from the wasm-bindgen exports.\n${statements}`));
}

/**
 * The public names are whatever wasm-bindgen generated, minus internal ones
 * (leading `__`, e.g. `__registerErrorClass`), plus SteplineError. Reading them from
 * the glue keeps the entry files free of a hand-maintained list.
 */
async function publicNames(staging, nodeDir = 'node', webDir = 'web') {
  const nodeGlue = createRequire(import.meta.url)(join(staging, NODE_GLUE[nodeDir]));
  const webGlue = await import(pathToFileURL(join(staging, webDir, 'stepline.js')).href);
  const isPublic = (name) => !name.startsWith('__') && name !== 'default';
  const nodeNames = Object.keys(nodeGlue).filter(isPublic).sort();
  const webNames = Object.keys(webGlue).filter((n) => isPublic(n) && n !== 'initSync').sort();
  if (nodeNames.join() !== webNames.join()) {
    throw new BuildError(`assemble: the nodejs and web glue (${nodeDir}/, ${webDir}/) export different names:\n  node: ${nodeNames}\n  web:  ${webNames}`);
  }
  if (nodeNames.includes('SteplineError')) throw new BuildError('assemble: the wasm itself exports SteplineError; the entry files define that class');
  for (const dir of [nodeDir, webDir]) {
    const dts = readFileSync(join(staging, dir, 'stepline.d.ts'), 'utf8');
    if (!/export class SteplineError extends Error/.test(dts)) {
      throw new BuildError(`assemble: ${dir}/stepline.d.ts does not declare SteplineError (the typescript_custom_section in src/wasm/ is missing)`);
    }
    const leaked = Object.keys(nodeGlue).filter((n) => n.startsWith('__') && new RegExp(`^export (?:declare )?(?:function|class|const|let) ${n}\\b`, 'm').test(dts));
    if (leaked.length) throw new BuildError(`assemble: ${dir}/stepline.d.ts declares internal ${leaked.join(', ')} (add skip_typescript)`);
  }
  return nodeNames;
}

/**
 * The live entry's public names, from its own glue. They must be a subset of the full
 * package's: `stepline/live` is the same API with parts left out, never a different one.
 */
async function liveNames(staging, fullNames) {
  const glue = await import(pathToFileURL(join(staging, 'live', 'stepline.js')).href);
  const names = Object.keys(glue).filter((n) => !n.startsWith('__') && n !== 'default' && n !== 'initSync').sort();
  const extra = names.filter((n) => !fullNames.includes(n));
  if (extra.length) throw new BuildError(`assemble: the live glue exports names the full package does not: ${extra.join(', ')}`);
  if (!names.includes('Session') || !names.includes('decodeEnvelope')) {
    throw new BuildError(`assemble: the live glue lacks Session or decodeEnvelope (exports: ${names.join(', ')})`);
  }
  return names;
}

/**
 * The devtools entry's public names: every name of `stepline` and the devtools' own
 * (`compareRuns`, `SessionTimeline`, ...). `stepline/devtools` is the whole API in one
 * wasm, so code moving to it from `stepline` changes only its import.
 */
async function devtoolsNames(staging, coreNames) {
  const names = await publicNames(staging, 'devtools-node', 'devtools');
  const missing = coreNames.filter((n) => !names.includes(n));
  if (missing.length) throw new BuildError(`assemble: the devtools glue lacks names of the stepline entry: ${missing.join(', ')}`);
  return names;
}

/**
 * One copy of each wasm: an entry's nodejs and web glue load the same module
 * (wasm-bindgen writes the same bytes for both targets), so the node glue reads the web
 * directory's stepline_bg.wasm (node/ reads web/'s, devtools-node/ reads devtools/'s) and
 * holds no wasm of its own (the tarball carried the 1.3 MB twice). Checked, not assumed: a wasm-bindgen whose targets differ fails the build here.
 */
/**
 * The nodejs glue of each Node entry. node/'s is a `.js` file under its own
 * `{ "type": "commonjs" }` package.json; devtools-node/'s is renamed `.cjs`, since a
 * second package.json of the same bytes is a duplicate the tarball must not carry.
 */
const NODE_GLUE = { node: 'node/stepline.js', 'devtools-node': 'devtools-node/stepline.cjs' };

function shareWasm(staging, nodeDir, webDir) {
  const nodeWasm = join(staging, nodeDir, 'stepline_bg.wasm');
  const webWasm = join(staging, webDir, 'stepline_bg.wasm');
  // Compared as wasm-bindgen wrote them, before wasm-opt.
  if (!readFileSync(nodeWasm).equals(readFileSync(webWasm))) {
    throw new BuildError(`assemble: wasm-bindgen wrote different wasm for --target nodejs and --target web; ${nodeDir}/ cannot share ${webDir}/stepline_bg.wasm`);
  }
  const written = join(staging, nodeDir, 'stepline.js');
  const glue = readFileSync(written, 'utf8');
  const from = 'const wasmPath = `${__dirname}/stepline_bg.wasm`;';
  if (!glue.includes(from)) throw new BuildError(`assemble: ${nodeDir}/stepline.js no longer reads its wasm with \`${from}\``);
  rmSync(written);
  writeFileSync(join(staging, NODE_GLUE[nodeDir]), glue.replace(from, `const wasmPath = \`\${__dirname}/../${webDir}/stepline_bg.wasm\`;`));
  rmSync(nodeWasm);
  rmSync(join(staging, nodeDir, 'stepline_bg.wasm.d.ts'), { force: true });
}

/**
 * view.cjs, the CommonJS entry's copy of view.js (Session's view methods): the same text
 * with its one export made a CommonJS one, so the two entries cannot drift.
 */
function writeViewCjs(staging) {
  const source = readFileSync(join(staging, 'view.js'), 'utf8');
  const marker = 'export function installSessionView(';
  if (source.split(marker).length !== 2 || /^\s*(import|export)\b/m.test(source.replace(marker, ''))) {
    throw new BuildError('assemble: pkg-template/view.js must have exactly one export, `export function installSessionView(`, and no import');
  }
  const cjs = `'use strict';\n${source.replace(marker, 'function installSessionView(')}\nexports.installSessionView = installSessionView;\n`;
  writeFileSync(join(staging, 'view.cjs'), cjs);
}

async function assemble(staging, crate) {
  cpSync(join(root, 'pkg-template'), staging, { recursive: true });
  // wasm-bindgen's nodejs glue is CommonJS and its web glue an ES module, both as .js. The
  // web and live glue need no package.json of their own: the package's is `"type": "module"`
  // (two identical 24-byte files in the tarball otherwise, which the packaging test refuses).
  writeFileSync(join(staging, 'node', 'package.json'), '{ "type": "commonjs" }\n');

  const manifestPath = join(staging, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  Object.assign(manifest, { version: crate.version, description: crate.description, license: crate.license });
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

  writeViewCjs(staging);
  const names = await publicNames(staging);
  fillExports(join(staging, 'index.cjs'), names.map((n) => `exports.${n} = glue.${n};`).join('\n'));
  fillExports(join(staging, 'index.mjs'), `export const {\n${['SteplineError', ...names].map((n) => `  ${n},`).join('\n')}\n} = stepline;`);
  fillExports(join(staging, 'web.js'), `export {\n${names.map((n) => `  ${n},`).join('\n')}\n} from './web/stepline.js';`);
  const live = await liveNames(staging, names);
  fillExports(join(staging, 'live.js'), `export {\n${live.map((n) => `  ${n},`).join('\n')}\n} from './live/stepline.js';`);
  const devtools = await devtoolsNames(staging, names);
  fillExports(join(staging, 'devtools.cjs'), devtools.map((n) => `exports.${n} = glue.${n};`).join('\n'));
  fillExports(join(staging, 'devtools.mjs'), `export const {\n${['SteplineError', ...devtools].map((n) => `  ${n},`).join('\n')}\n} = stepline;`);
  fillExports(join(staging, 'devtools.js'), `export {\n${devtools.map((n) => `  ${n},`).join('\n')}\n} from './devtools/stepline.js';`);
  // npm sets the mode of `bin` files on install, but pkg/ is also used straight from the
  // repo (node_modules/stepline links to it): make the CLI executable here as well.
  chmodSync(join(staging, 'bin', 'stepline.mjs'), 0o755);
  return { names, live, devtools };
}

/**
 * schemas/snapshot.schema.json, the slim snapshot JSON Schema (seed 000's format), is what
 * the built package's own snapshotSchema() returns, so the published file cannot drift from
 * what validateSnapshot checks. Asked in a fresh Node process, like the smoke check.
 */
function writeSchemas(staging) {
  const entry = join(staging, 'index.cjs');
  const script = [
    `const stepline = require(${JSON.stringify(entry)});`,
    "if (typeof stepline.snapshotSchema !== 'function') process.exit(3);",
    'process.stdout.write(JSON.stringify(stepline.snapshotSchema()));',
  ].join('\n');
  const result = spawnSync(process.execPath, ['-e', script], {
    cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw new BuildError(`schemas: could not run node: ${result.error.message}`);
  if (result.status === 3) throw new BuildError('schemas: pkg/index.cjs does not export snapshotSchema() (src/wasm/ must export it)');
  if (result.status !== 0) throw new BuildError(`schemas: snapshotSchema() failed in pkg/index.cjs (exit status ${result.status})`);
  let schema;
  try {
    schema = JSON.parse(result.stdout);
  } catch (error) {
    throw new BuildError(`schemas: snapshotSchema() did not return JSON-serialisable data: ${error.message}`);
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new BuildError('schemas: snapshotSchema() did not return an object');
  if (schema.$schema !== 'https://json-schema.org/draft/2020-12/schema') {
    throw new BuildError(`schemas: snapshotSchema().$schema is ${JSON.stringify(schema.$schema)}, expected the draft 2020-12 URI`);
  }
  mkdirSync(join(staging, 'schemas'), { recursive: true });
  writeFileSync(join(staging, 'schemas', 'snapshot.schema.json'), `${JSON.stringify(schema, null, 2)}\n`);
  // Every shape of the API, generated from the Rust declarations by `npm run gen` (the lint
  // layer checks the committed file is current). Not read by the package's code (the wasm
  // carries what it checks), but documented for validators (docs/reference/types.md), so it
  // ships, without its indentation: 313 KB unpacked as committed, 190 KB so.
  const bundle = JSON.parse(readFileSync(join(root, 'schemas', 'stepline.schema.json'), 'utf8'));
  writeFileSync(join(staging, 'schemas', 'stepline.schema.json'), `${JSON.stringify(bundle)}\n`);
  // One schema per envelope type (for PHP or any other backend), cut from the same bundle by `npm run gen`.
  cpSync(join(root, 'schemas', 'envelopes'), join(staging, 'schemas', 'envelopes'), { recursive: true });
  return ['schemas/snapshot.schema.json', 'schemas/stepline.schema.json', 'schemas/envelopes/*.schema.json'];
}

function fmt(bytes) {
  return `${bytes.toLocaleString('en-US')} B`;
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function reportSizes(pkgDir) {
  const groups = {
    node: ['web/stepline_bg.wasm', 'node/stepline.js', 'index.cjs', 'index.mjs', 'error.cjs', 'view.cjs'],
    web: ['web/stepline_bg.wasm', 'web/stepline.js', 'web.js', 'entry.js', 'view.js'],
    live: ['live/stepline_bg.wasm', 'live/stepline.js', 'live.js', 'entry.js', 'view.js'],
    devtools: ['devtools/stepline_bg.wasm', 'devtools/stepline.js', 'devtools.js', 'entry.js', 'view.js'],
    'devtools-node': ['devtools/stepline_bg.wasm', 'devtools-node/stepline.cjs', 'devtools.cjs', 'devtools.mjs', 'error.cjs', 'view.cjs'],
  };
  const rows = [];
  const totals = {};
  for (const [group, files] of Object.entries(groups)) {
    totals[group] = { raw: 0, gz: 0 };
    for (const file of files) {
      const data = readFileSync(join(pkgDir, file));
      const gz = gzipSync(data, { level: 9 }).length;
      rows.push([file, data.length, gz]);
      totals[group].raw += data.length;
      totals[group].gz += gz;
    }
  }
  const width = Math.max(...rows.map((r) => r[0].length), 28);
  console.log(`\n  ${'file'.padEnd(width)}  ${'raw'.padStart(10)}  ${'gzip'.padStart(10)}`);
  for (const [file, raw, gz] of rows) {
    console.log(`  ${file.padEnd(width)}  ${fmt(raw).padStart(10)}  ${fmt(gz).padStart(10)}`);
  }
  for (const [group, t] of Object.entries(totals)) {
    const label = `total ${group} (wasm + glue)`;
    console.log(`  ${label.padEnd(width)}  ${fmt(t.raw).padStart(10)}  ${fmt(t.gz).padStart(10)}`);
  }
  const full = Math.max(totals.node.gz, totals.web.gz);
  const live = totals.live.gz;
  // What each entry loads, for the README's table (scripts/lib/entries-table.mjs).
  const adapter = (...files) => files.reduce((sum, file) => {
    const data = readFileSync(join(pkgDir, file));
    return { raw: sum.raw + data.length, gz: sum.gz + gzipSync(data, { level: 9 }).length };
  }, { raw: 0, gz: 0 });
  const entries = {
    stepline: totals.node,
    'stepline/web': totals.web,
    'stepline/live': totals.live,
    'stepline/devtools': { raw: Math.max(totals.devtools.raw, totals['devtools-node'].raw), gz: Math.max(totals.devtools.gz, totals['devtools-node'].gz) },
    'stepline/echo': adapter('echo.js'),
    'stepline/react': adapter('react.js', 'echo.js'),
    'stepline/vue': adapter('vue.js', 'echo.js'),
    // What an app loads in development only: the dock and badge, then, when opened, the
    // panel (its wasm is stepline/devtools's devtools/stepline_bg.wasm, counted there).
    'stepline/devtools-overlay': adapter('devtools-overlay.js'),
    'stepline/devtools-overlay/react': adapter('devtools-overlay-react.js', 'devtools-overlay.js'),
    'stepline/devtools-overlay/vue': adapter('devtools-overlay-vue.js', 'devtools-overlay.js'),
    'stepline/devtools-overlay (panel chunk)': adapter('devtools-overlay-panel.js'),
  };
  console.log(`\n  devtools overlay (development only): entry ${fmt(entries['stepline/devtools-overlay'].gz)}, `
    + `panel chunk ${fmt(entries['stepline/devtools-overlay (panel chunk)'].gz)} gzipped, loaded when opened`);
  writeFileSync(join(pkgDir, 'sizes.json'), `${JSON.stringify({ entries }, null, 2)}\n`);
  const { targetBytes, ceilingBytes, devtoolsCeilingBytes, budgets } = SIZE_BUDGET;
  const devtools = entries['stepline/devtools'].gz;
  const versus = (bytes) => (bytes <= targetBytes ? `within the ${kb(targetBytes)} budget` : `${kb(bytes - targetBytes)} over the ${kb(targetBytes)} budget`);
  console.log(`\n  gzipped wasm + glue: live ${kb(live)}, ${versus(live)} (enforced; targetBytes in scripts/size-budget.json)`);
  console.log(`                       stepline: node ${kb(totals.node.gz)}, web ${kb(totals.web.gz)}; enforced ceiling ${kb(ceilingBytes)}`);
  console.log(`                       stepline/devtools: web ${kb(totals.devtools.gz)}, node ${kb(totals['devtools-node'].gz)}; enforced ceiling ${kb(devtoolsCeilingBytes)}\n`);
  // Issue 17's budgets. One that is met is enforced (`enforced: true`); one that is not
  // yet met is printed with its figure, and the ratchets above keep it from growing.
  for (const [name, bytes] of [['live', live], ['stepline', full]]) {
    const budget = budgets?.[name];
    if (!budget) continue;
    const state = bytes <= budget.bytes ? `met, ${kb(budget.bytes - bytes)} to spare` : `NOT met: ${fmt(bytes)}, ${kb(bytes - budget.bytes)} over`;
    console.log(`  budget ${name} ${kb(budget.bytes)}: ${state}${budget.enforced ? ' (enforced)' : ' (not enforced yet)'}`);
    if (budget.enforced && bytes > budget.bytes) {
      throw new BuildError(`size: the ${name} entry's wasm + glue is ${fmt(bytes)} gzipped, over its budget of ${fmt(budget.bytes)} `
        + `(budgets.${name} in scripts/size-budget.json). Find what grew with \`twiggy top\` (bench/findings.md "Size"). pkg/ was left as it was.`);
    }
  }
  if (budgets) console.log('');
  if (live > targetBytes) {
    throw new BuildError(`size: the live entry's wasm + glue is ${fmt(live)} gzipped, over the budget of ${fmt(targetBytes)} `
      + '(targetBytes in scripts/size-budget.json). It is what a web UI loads: find what grew with '
      + '`twiggy top` on the live .wasm, or move the new export behind the `full` feature (src/wasm/mod.rs). pkg/ was left as it was.');
  }
  if (full > ceilingBytes) {
    throw new BuildError(`size: the stepline entry's wasm + glue is ${fmt(full)} gzipped, over the enforced ceiling of ${fmt(ceilingBytes)} `
      + '(scripts/size-budget.json). Find what grew with `twiggy top` on the cargo .wasm, or, if the growth is '
      + 'worth it, raise the ceiling in the same commit and say why. pkg/ was left as it was.');
  }
  if (devtools > devtoolsCeilingBytes) {
    throw new BuildError(`size: the devtools entry's wasm + glue is ${fmt(devtools)} gzipped, over its enforced ceiling of ${fmt(devtoolsCeilingBytes)} `
      + '(devtoolsCeilingBytes in scripts/size-budget.json). Find what grew with `twiggy top` on the cargo .wasm, or, if the growth is '
      + 'worth it, raise the ceiling in the same commit and say why. pkg/ was left as it was.');
  }
  if (devtoolsCeilingBytes - devtools > 1024) log(`size: ${kb(devtoolsCeilingBytes - devtools)} under the devtools ceiling; lower devtoolsCeilingBytes in scripts/size-budget.json to ${Math.ceil(devtools / 1024) * 1024} to keep the gain`);
  if (ceilingBytes - full > 1024) log(`size: ${kb(ceilingBytes - full)} under the ceiling; lower ceilingBytes in scripts/size-budget.json to ${Math.ceil(full / 1024) * 1024} to keep the gain`);
}

/**
 * Replaces whatever is at `link` with a symlink to `target`; leaves it alone when it already
 * is that symlink (a git worktree whose node_modules links to another checkout's then does not
 * rewrite that checkout's links on every build).
 */
function replaceWithSymlink(target, link, type) {
  try {
    if (lstatSync(link).isSymbolicLink() && readlinkSync(link) === target) return;
    rmSync(link, { recursive: true, force: true });
  } catch { /* not there */ }
  symlinkSync(target, link, type);
}

/**
 * node_modules/stepline -> ../pkg, so tests and tools resolve `stepline` through its exports map,
 * and node_modules/.bin/stepline -> the CLI, the link npm would make from the manifest's `bin`.
 */
function linkPackage() {
  const nodeModules = join(root, 'node_modules');
  if (!existsSync(nodeModules)) return;
  replaceWithSymlink(join('..', 'pkg'), join(nodeModules, 'stepline'), 'dir');
  mkdirSync(join(nodeModules, '.bin'), { recursive: true });
  replaceWithSymlink(join('..', 'stepline', 'bin', 'stepline.mjs'), join(nodeModules, '.bin', 'stepline'), 'file');
}

async function main() {
  const started = Date.now();
  // Hashed before building, so an edit made during the build makes the next `npm start` rebuild.
  const inputs = inputHash(root, PACKAGE_INPUTS);
  env.STEPLINE_BUILD_ID = buildId();
  const crate = crateMetadata();
  const wbVersion = checkWasmBindgen();
  log(`stepline ${crate.version}+${env.STEPLINE_BUILD_ID}, wasm-bindgen ${wbVersion}`);

  log(`cargo build --release --target ${TARGET} --no-default-features --features full (the stepline entry)`);
  const wasm = cargoBuild('core');
  log(`cargo build --profile devtools --target ${TARGET} (the stepline/devtools entry)`);
  const devtoolsWasm = cargoBuild('devtools');
  log(`cargo build --profile size --target ${TARGET} --no-default-features (the live entry)`);
  const liveWasm = cargoBuild('live');

  const staging = join(crate.targetDir, 'stepline-pkg');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const glues = [['node', 'nodejs', wasm], ['web', 'web', wasm], ['devtools-node', 'nodejs', devtoolsWasm], ['devtools', 'web', devtoolsWasm], ['live', 'web', liveWasm]];
  for (const [dir, target, input] of glues) {
    log(`wasm-bindgen --target ${target} --weak-refs -> pkg/${dir}/`);
    run(`wasm-bindgen --target ${target} (${dir})`, 'wasm-bindgen', [
      '--target', target, '--weak-refs', '--out-dir', join(staging, dir), '--out-name', 'stepline', input,
    ]);
  }

  const features = wasmOptFeatureFlags();
  log(`wasm-opt -Oz (features: ${features.enabled.join(', ')})`);
  shareWasm(staging, 'node', 'web');
  shareWasm(staging, 'devtools-node', 'devtools');
  for (const dir of ['web', 'devtools', 'live']) wasmOpt(join(staging, dir, 'stepline_bg.wasm'), features.args);

  log('assembling pkg/ from pkg-template/');
  const { names, live, devtools } = await assemble(staging, crate);
  log(`devtools overlay: ${(await buildOverlay(staging)).map((f) => `pkg/${f}`).join(', ')}`);
  log(`exports: ${['SteplineError', ...names].join(', ')}`);
  log(`live exports: ${['SteplineError', ...live].join(', ')}`);
  log(`devtools exports beyond stepline's: ${devtools.filter((n) => !names.includes(n)).join(', ')}`);
  const schemas = writeSchemas(staging);
  log(`wrote ${schemas.map((f) => `pkg/${f}`).join(', ')}`);

  // Before pkg/ is replaced, so a build over the size ceiling leaves the last good package.
  reportSizes(staging);
  // The same table is in the README and on the docs site's bundle-size page.
  for (const page of ['README.md', 'docs/web/bundle-sizes.md']) {
    if (writeEntriesTable(join(root, page), JSON.parse(readFileSync(join(staging, 'sizes.json'), 'utf8')))) {
      log(`${page}: the entries table now has this build's sizes (commit it)`);
    }
  }

  const pkgDir = join(root, 'pkg');
  rmSync(pkgDir, { recursive: true, force: true });
  try {
    renameSync(staging, pkgDir);
  } catch {
    cpSync(staging, pkgDir, { recursive: true }); // target dir on another filesystem
    rmSync(staging, { recursive: true, force: true });
  }
  linkPackage();
  // What `npm start` compares to skip this build next time (scripts/lib/build-cache.mjs);
  // `npm run build` itself never reads it. Not in the package's `files`, so never published.
  recordHash(pkgDir, inputs);

  // Smoke check in a fresh process: the package loads and names its build.
  const smoke = run('smoke check', process.execPath, ['-p', "require('./pkg/index.cjs').version()"], { capture: true }).trim();
  log(`pkg/ loads in Node: version() = ${smoke}`);

  // The DevTools extension: the panel built again for an extension page, from the pkg/ just made.
  log(`devtools extension: ${relative(root, await buildExtension())} (unpacked in dist/extension/)`);

  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${readdirSync(pkgDir).length} entries in pkg/`);
}

main().catch((error) => {
  if (error instanceof BuildError) {
    console.error(`build: FAILED: ${error.message}`);
  } else {
    console.error('build: FAILED with an unexpected error:');
    console.error(error);
  }
  process.exit(1);
});
