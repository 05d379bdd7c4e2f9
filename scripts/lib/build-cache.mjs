// The build cache `npm start` uses: a build's output directory holds `.build-hash`, the
// SHA-256 of every input file (path and bytes) as they were when the build began. A start
// whose inputs hash the same skips that build. Contents, not modification times: a
// `git checkout` that touches files without changing them keeps the cache, and an edit
// within the same second as the last build does not.
//
// Only `npm start` trusts the cache. `npm run build`, `npm test` and .ci/run always build
// (they never read it), and `trusted()` is false under CI=true whatever the hash says.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The file in an output directory that records what it was built from. */
export const HASH_FILE = '.build-hash';

/** What pkg/ is built from (scripts/build.mjs): every file under these paths, relative to the repo. */
export const PACKAGE_INPUTS = [
  'src', 'build.rs', 'Cargo.toml', 'Cargo.lock', 'pkg-template', 'schemas',
  'scripts/build.mjs', 'scripts/size-budget.json', 'scripts/wasm-bindgen-version.sh',
  // The overlay in the package is built from the panel's sources.
  'scripts/build-overlay.mjs', 'www/src',
];

/**
 * What www/dist is built from (scripts/build-www.mjs): the panel's sources, the scripts that
 * write the bundled runs, the locked Vite version, and the package it imports (through pkg/.build-hash, so a rebuilt
 * package rebuilds the panel). www/dist itself and the runs build-www writes into
 * www/public are outputs, not inputs.
 */
export const PANEL_INPUTS = [
  'www', 'scripts/build-www.mjs', 'scripts/demo-run.mjs', 'scripts/demo-run-dialects.mjs', 'scripts/lib/dialects',
  'package-lock.json', `pkg/${HASH_FILE}`,
];
const PANEL_OUTPUTS = ['www/dist', 'www/public/demo-run.jsonl', 'www/public/demo-laravel-ai.jsonl',
  'www/public/demo-ag-ui.jsonl', 'www/public/demo-ai-sdk.jsonl'];

function filesUnder(root, path, skip, out) {
  if (skip.has(path)) return;
  const full = join(root, path);
  if (!existsSync(full)) {
    out.push([path, null]);
    return;
  }
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) filesUnder(root, `${path}/${name}`, skip, out);
  } else {
    out.push([path, full]);
  }
}

/**
 * The SHA-256 (hex) of the inputs: each file's repo-relative path and bytes, in sorted order,
 * so a renamed, added or deleted file changes it as much as an edited one. A missing input
 * is hashed as missing (pkg/.build-hash before the first build).
 *
 * @param {string} root the repository
 * @param {string[]} inputs repo-relative files or directories
 * @param {string[]} [outputs] repo-relative paths under `inputs` to leave out
 */
export function inputHash(root, inputs, outputs = []) {
  const skip = new Set(outputs.map((p) => p.split(sep).join('/')));
  const files = [];
  for (const input of inputs) filesUnder(root, input, skip, files);
  const hash = createHash('sha256');
  for (const [path, full] of files) {
    hash.update(`${path}\0`);
    hash.update(full === null ? '\0missing\0' : readFileSync(full));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The hash recorded in `dir`, or null when there is none. */
export function recordedHash(dir) {
  try {
    return readFileSync(join(dir, HASH_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Records `hash` as what `dir` was built from (after a build succeeded). */
export function recordHash(dir, hash) {
  writeFileSync(join(dir, HASH_FILE), `${hash}\n`);
}

/**
 * Whether `dir` may be used without rebuilding: it records exactly `hash`, and this is not
 * CI (CI=true, as .ci/run and most CI services set it, always builds fresh).
 *
 * @returns {{ fresh: boolean, reason: string }}
 */
export function trusted(dir, hash, env = process.env) {
  if (env.CI && env.CI !== 'false' && env.CI !== '0') return { fresh: false, reason: 'CI is set: building fresh' };
  const recorded = recordedHash(dir);
  if (recorded === null) return { fresh: false, reason: `no ${HASH_FILE} in ${dir}` };
  if (recorded !== hash) return { fresh: false, reason: 'inputs changed since the last build' };
  return { fresh: true, reason: 'nothing changed since the last build' };
}

/** The package's cache entry: its directory and current input hash. */
export function packageCache(root) {
  return { dir: join(root, 'pkg'), hash: inputHash(root, PACKAGE_INPUTS) };
}

/** The panel's cache entry (call after the package is built: it hashes pkg/.build-hash). */
export function panelCache(root) {
  return { dir: join(root, 'www', 'dist'), hash: inputHash(root, PANEL_INPUTS, PANEL_OUTPUTS) };
}

/** For messages: `dir` relative to the repository. */
export function shown(root, dir) {
  return relative(root, dir);
}
