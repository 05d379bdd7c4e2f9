// What npm run bench ran on, for the console header and the top of BENCHMARKS.md: the
// machine (CPU, cores, memory, OS, load), Node and V8, and the version of stepline and of
// every package it is compared with, read from the installed package.json files so the
// report names what actually ran.
import { readFileSync, statSync } from 'node:fs';
import { cpus, availableParallelism, loadavg, release, totalmem, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { version as steplineVersion } from 'stepline';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The packages compared with stepline, and what each is used for. */
export const PEERS = [
  ['@ag-ui/client', 'live loop: defaultApplyEvents'],
  ['@ag-ui/core', 'live loop: AG-UI event types'],
  ['rxjs', 'live loop: the Observable @ag-ui/client is fed with'],
  ['ai', 'live loop: readUIMessageStream'],
  ['zod', 'bulk replay: JSON.parse + zod validation'],
];

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'not installed';
  }
}

function osName() {
  try {
    const line = readFileSync('/etc/os-release', 'utf8').split('\n').find((l) => l.startsWith('PRETTY_NAME='));
    if (line) return `${line.slice('PRETTY_NAME='.length).replace(/^"|"$/g, '')} (${type()} ${release()})`;
  } catch { /* not Linux */ }
  return `${type()} ${release()}`;
}

export function describeMachine() {
  const cpu = cpus();
  return {
    date: new Date().toISOString(),
    cpu: cpu[0]?.model?.trim() ?? 'unknown CPU',
    cores: cpu.length,
    parallelism: availableParallelism(),
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: osName(),
    node: process.version,
    v8: process.versions.v8,
    nodeEnv: process.env.NODE_ENV ?? '(unset)',
    loadStart: loadavg(),
    // version() names the crate version and the commit pkg/ was built from.
    stepline: steplineVersion(),
    // Others rebuild pkg/ while the bench runs; this says which build was measured.
    pkgBuilt: pkgBuiltNow(),
    peers: PEERS.map(([name, use]) => ({ name, version: installedVersion(name), use })),
  };
}

/** When pkg/ was last built, to tell whether it was rebuilt while the bench ran. */
export const pkgBuiltNow = () => statSync(join(root, 'pkg', 'package.json')).mtime.toISOString();

export const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(', ');
