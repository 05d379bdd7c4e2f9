// Find: which steps the timeline shows. Matching is plain data over the
// session's view (step text, tool names, errors, the core's failure fields),
// nothing is re-derived; a step is "failed" exactly when the timeline marks
// it so (stepState, from the core's error / tool status fields).
import type { SessionView, StepView } from 'stepline/devtools';
import type { Find } from './state';
import { stepState } from './views/timeline';

/** Does the step match the search text (case-insensitive) and every filter? */
export function matches(find: Find, exec: number, s: StepView): boolean {
  if (find.turn !== null && find.turn !== exec) return false;
  if (find.failedOnly && stepState(s) !== 'failed') return false;
  if (find.tool && !s.tools.some((t) => t.name === find.tool)) return false;
  const q = find.text.trim().toLowerCase();
  if (!q) return true;
  if (s.text.toLowerCase().includes(q) || (s.error ?? '').toLowerCase().includes(q) || (s.type ?? '').includes(q)) return true;
  return s.tools.some((t) => t.name.toLowerCase().includes(q) || (t.error ?? '').toLowerCase().includes(q));
}

/** Is any filter on? (Off: the timeline shows every turn and step.) */
export function active(find: Find): boolean {
  return find.text.trim() !== '' || find.failedOnly || find.tool !== '' || find.turn !== null;
}

/** Every tool name in the run, sorted, for the tool filter. */
export function toolNames(view: SessionView | null): string[] {
  const names = new Set<string>();
  for (const e of view?.executions ?? []) for (const s of e.steps) for (const t of s.tools) names.add(t.name);
  return [...names].sort();
}

/**
 * The next (dir 1) or previous (dir -1) failed step after the selection,
 * among the steps shown, wrapping around; null when none failed.
 */
export function nextFailure(steps: readonly { exec: number; s: StepView }[], at: { exec: number; step: number }, dir: 1 | -1): { exec: number; step: number } | null {
  const n = steps.length;
  if (n === 0) return null;
  let i = steps.findIndex((r) => r.exec === at.exec && r.s.number === at.step);
  if (i < 0) i = dir === 1 ? -1 : n;
  for (let k = 1; k <= n; k += 1) {
    const r = steps[(((i + dir * k) % n) + n) % n];
    if (stepState(r.s) === 'failed') return { exec: r.exec, step: r.s.number };
  }
  return null;
}
