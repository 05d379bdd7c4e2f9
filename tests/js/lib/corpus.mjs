// The runs every shape check goes over: each turn of both corpora's agent runs
// (as the producers recorded them), the bundled demo runs of both producer
// versions, and a 39-step run longer than any snapshot window.
import { readFileSync } from 'node:fs';

import { demoRun } from '../../../scripts/demo-run.mjs';
import { demoRunV2 } from '../../../scripts/demo-run-v2.mjs';
import { longRun } from '../../../scripts/long-run.mjs';
import { v1Vectors, v2Vectors, withIds } from './vectors.mjs';

/**
 * One run to check: `envelopes` as sent (objects), `jsonl` the same as JSONL
 * text, `finalState` the producer's stored state after it (when known), and
 * `slim` its slim snapshot (when the corpus has one).
 */
export async function corpusRuns() {
  const runs = [];
  for (const [version, cases] of [['v1.22', v1Vectors('agent-runs.json')], ['v2.7', v2Vectors('agent-runs.json')]]) {
    for (const c of cases) {
      for (const [i, turn] of Object.entries(c.expected)) {
        const finalState = version === 'v2.7' ? withIds(turn.finalState) : turn.finalState;
        add(runs, `${version} ${c.name} turn ${Number(i) + 1}`, version, turn.envelopes, finalState, turn.slim);
      }
    }
  }
  const demo = await demoRun();
  add(runs, 'demo run (v1.22)', 'v1.22', demo.envelopes, null, demo.snapshots?.at(-1)?.snapshot);
  const demo2 = await demoRunV2();
  add(runs, 'demo run (v2)', 'v2.7', demo2.envelopes, demo2.finalState, null);
  const long = await longRun({ steps: 39 });
  add(runs, '39-step run', 'v1.22', long.envelopes, long.state, null);
  return runs;
}

function add(runs, name, version, envelopes, finalState, slim) {
  if (!Array.isArray(envelopes) || envelopes.length === 0) return;
  // The corpora record each broadcast as `{channel, envelope}`; the generators give envelopes.
  const list = envelopes.map((e) => (typeof e === 'string' ? JSON.parse(e) : e)).map((e) => e.envelope ?? e);
  runs.push({ name, version, envelopes: list, jsonl: `${list.map((e) => JSON.stringify(e)).join('\n')}\n`, finalState: finalState ?? null, slim: slim ?? null });
}

/** A file of the repository, as text. */
export const repoText = (path) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
