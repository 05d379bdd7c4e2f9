// BENCHMARKS.md, written by npm run bench from what this run measured: the machine and the
// versions, a summary of every target, then each section's tables and notes, in the order of
// ORDER whatever order the sections ran in.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';

import { fmtLoad, pkgBuiltNow } from './machine.mjs';

const ORDER = ['peers', 'bulk', 'slim', 'memory', 'size', 'live', 'decode', 'validate'];

export class Report {
  constructor(machine) {
    this.machine = machine;
    this.sections = new Map();
    this.targets = [];
  }

  /** A section's Markdown (lines, its own `##` heading first). */
  section(name, lines) {
    this.sections.set(name, lines);
  }

  /** A target and how this run did: met is true, false, or null for a figure without a target. */
  target(section, target, value, met = null) {
    this.targets.push({ section, target, value, met });
  }

  /**
   * A warning when pkg/ was rebuilt while the bench ran: this process keeps the build it
   * loaded, but the size section and the memory probes read pkg/ as they find it.
   */
  rebuildWarning() {
    const now = pkgBuiltNow();
    if (now === this.machine.pkgBuilt) return null;
    return `pkg/ was rebuilt during this run (${this.machine.pkgBuilt} -> ${now}): the size section and the memory probes `
      + 'may have measured the new build, everything else the one loaded at the start. Run the bench again for consistent figures.';
  }

  printSummary(elapsed) {
    console.log(`\n=== summary (${elapsed})`);
    const warning = this.rebuildWarning();
    if (warning) console.log(`  WARNING: ${warning}`);
    if (this.targets.length === 0) console.log('  no targets measured');
    for (const t of this.targets) {
      const mark = t.met === null ? '' : t.met ? '  met' : '  NOT met';
      console.log(`  ${t.section.padEnd(7)} ${t.target.padEnd(60)} ${t.value}${mark}`);
    }
  }

  write(path, { command, elapsed }) {
    const m = this.machine;
    const lines = [
      '# Benchmarks',
      '',
      `Written by \`${command}\` (scripts/bench.mjs) on ${m.date}; it took ${elapsed}. Do not edit by hand:`,
      'run the bench again. Figures are medians over rounds run round-robin in one Node process',
      '(each contender measured in turn within a round, a full GC before each timed call); the',
      'machine is shared and was busy, so read ratios, not absolute times. Where wall and CPU time part, the',
      'process was waiting for a core: CPU time is then the steadier figure.',
      '',
      ...(this.rebuildWarning() ? [`**Warning:** ${this.rebuildWarning()}`, ''] : []),
      '## Machine and versions',
      '',
      '| | |',
      '|---|---|',
      `| CPU | ${m.cpu} |`,
      `| cores | ${m.cores} (available parallelism ${m.parallelism}) |`,
      `| memory | ${m.memory} |`,
      `| OS | ${m.os} |`,
      `| Node | ${m.node} (V8 ${m.v8}), NODE_ENV ${m.nodeEnv} |`,
      `| load average (1, 5, 15 min) | ${fmtLoad(m.loadStart)} at the start, ${fmtLoad(loadavg())} at the end |`,
      `| stepline | ${m.stepline} (\`version()\` of pkg/, built ${m.pkgBuilt}) |`,
      ...m.peers.map((p) => `| ${p.name} | ${p.version} (${p.use}) |`),
      '',
      '## Summary of the targets (DESIGN.md section 11)',
      '',
      '| section | target | this run | met |',
      '|---|---|---|---|',
      ...this.targets.map((t) => `| ${t.section} | ${t.target} | ${t.value} | ${t.met === null ? '' : t.met ? 'yes' : '**no**'} |`),
      '',
    ];
    for (const name of [...ORDER, ...[...this.sections.keys()].filter((k) => !ORDER.includes(k))]) {
      if (this.sections.has(name)) lines.push(...this.sections.get(name), '');
    }
    // What profiling found where targets are missed: written by hand (bench/findings.md),
    // copied in so the figures and their explanation travel together.
    const findings = new URL('../findings.md', import.meta.url);
    if (existsSync(findings)) lines.push(readFileSync(findings, 'utf8').trim(), '');
    writeFileSync(path, `${lines.join('\n').replace(/\n+$/, '')}\n`);
  }
}
