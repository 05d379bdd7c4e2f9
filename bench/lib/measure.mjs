// Timing for npm run bench: operations run round-robin in one process (so drift on a shared
// machine hits every contender alike), a full garbage collection before each timed call (so
// one operation's garbage is not billed to the next), medians over the rounds. Each call's
// wall time is the figure; its CPU time (the process's, all threads) is kept next to it,
// because on a busy machine a process can wait for a core, which wall time counts and CPU
// time does not.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// `gc` without requiring `node --expose-gc` on the command line.
setFlagsFromString('--expose-gc');
export const gc = runInNewContext('gc');

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
export const ms = (x) => x.toFixed(1);
export const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
export const int = (n) => Math.round(n).toLocaleString('en-US');
export const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
export const rate = (n, msTime) => `${int(n / (msTime / 1000))}/s`;

/** Frees the wasm handle an operation returned (a Session, or `{handle}`), outside the timing. */
function dispose(result) {
  const handle = result && typeof result.free === 'function' ? result : result?.handle;
  if (handle && typeof handle.free === 'function') handle.free();
}

/**
 * Runs `ops` ({label: () => result or promise}) round-robin: `warmup` untimed rounds, then
 * `runs` timed ones; `runsFor[label]` gives a label fewer timed rounds (it sits out the later
 * ones). `check(label, result)`, if given, sees each label's first result (warm-up or timed)
 * before it is freed. A result with `partial` (a run stopped at its time budget) is recorded
 * as such. Prints every round; returns {label: {times: [ms], partial: [bool]}}.
 */
export async function measure(ops, { warmup = 0, runs = 1, runsFor = {}, check } = {}) {
  const labels = Object.keys(ops);
  const checked = new Set();
  const once = (label, result) => {
    if (check && !checked.has(label)) {
      checked.add(label);
      check(label, result);
    }
  };
  const out = Object.fromEntries(labels.map((l) => [l, { times: [], cpu: [], partial: [] }]));
  for (let i = 0; i < warmup; i += 1) {
    for (const label of labels) {
      gc();
      const result = await ops[label]();
      once(label, result);
      dispose(result);
    }
  }
  for (let round = 1; round <= runs; round += 1) {
    const cells = [];
    for (const label of labels) {
      if (round > (runsFor[label] ?? runs)) continue;
      gc();
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const result = await ops[label]();
      const elapsed = performance.now() - start;
      const cpu = process.cpuUsage(cpuStart);
      once(label, result);
      dispose(result);
      out[label].times.push(elapsed);
      out[label].cpu.push((cpu.user + cpu.system) / 1000);
      out[label].partial.push(Boolean(result?.partial));
      cells.push(`${label} ${ms(elapsed).padStart(8)}${result?.partial ? ' (stopped)' : ''}`);
    }
    console.log(`  run ${String(round).padStart(2)}: ${cells.join('  ')}`);
  }
  return out;
}

/**
 * Medians, minima and ratios to `baseline`, of wall and of CPU time:
 * [{label, median, min, ratio, cpu, cpuRatio, runs, partial}].
 */
export function summarize(results, baseline) {
  const base = median(results[baseline].times);
  const cpuBase = median(results[baseline].cpu);
  return Object.entries(results).map(([label, { times, cpu, partial }]) => ({
    label,
    median: median(times),
    min: Math.min(...times),
    ratio: median(times) / base,
    cpu: median(cpu),
    cpuRatio: median(cpu) / cpuBase,
    runs: times.length,
    partial: partial.some(Boolean),
  }));
}

/**
 * The median over rounds of `b`'s time divided by `a`'s in the same round: on a shared
 * machine the load drifts between rounds, and a pair timed back to back sees the same load.
 */
export function pairedRatio(results, a, b, key = 'times') {
  const n = Math.min(results[a][key].length, results[b][key].length);
  return median(Array.from({ length: n }, (_, i) => results[b][key][i] / results[a][key][i]));
}

/** Prints the rows of `summarize` as a console table. */
export function printTable(rows, baseline) {
  const width = Math.max(...rows.map((r) => r.label.length), 'operation'.length);
  console.log(`\n  ${'operation'.padEnd(width)}  ${'median ms'.padStart(10)}  ${'min ms'.padStart(9)}  ${'runs'.padStart(4)}  ${('x ' + baseline).padStart(9)}  ${'CPU ms'.padStart(9)}  CPU x`);
  for (const r of rows) {
    const bound = r.partial ? '>' : ' ';
    console.log(`  ${r.label.padEnd(width)}  ${(bound + ms(r.median)).padStart(10)}  ${ms(r.min).padStart(9)}  ${String(r.runs).padStart(4)}  ${(bound + r.ratio.toFixed(2) + 'x').padStart(9)}  ${ms(r.cpu).padStart(9)}  ${bound}${r.cpuRatio.toFixed(2)}x`);
  }
}

/** The rows of `summarize` as a Markdown table (lines). */
export function markdownTable(rows, baseline) {
  const lines = [`| operation | median ms | min ms | runs | × ${baseline} | median CPU ms | CPU × |`, '|---|--:|--:|--:|--:|--:|--:|'];
  for (const r of rows) {
    const bound = r.partial ? '> ' : '';
    lines.push(`| ${r.label} | ${bound}${ms(r.median)} | ${ms(r.min)} | ${r.runs} | ${bound}${r.ratio.toFixed(2)}× | ${bound}${ms(r.cpu)} | ${bound}${r.cpuRatio.toFixed(2)}× |`);
  }
  return lines;
}
