// Type test for `stepline/devtools-overlay` and the registry stepline/echo writes: the
// element is typed as <stepline-devtools>, its `sessions` take either build's Session,
// and the page-global registry (`globalThis.__STEPLINE_DEVTOOLS__`) is what a browser
// extension reads. Wrong uses must not type-check.
import { Session } from 'stepline';
import { Session as LiveSession } from 'stepline/live';
import { registerRun, type DevtoolsRun } from 'stepline/echo';
import { badgeOf, SteplineDevtools, TAG } from 'stepline/devtools-overlay';

export async function overlay(): Promise<void> {
  // The documented guard: a dynamic import, so a bundler drops it with the branch.
  const module: typeof import('stepline/devtools-overlay') = await import('stepline/devtools-overlay');
  const el: SteplineDevtools = document.createElement(TAG);
  el.sessions = [new Session({ sessionId: 'a' }), new LiveSession({ sessionId: 'b' })];
  el.setAttribute('dock', 'right');
  const badge: { status: string; failures: number } = badgeOf(new LiveSession({ sessionId: 'c' }).getSnapshot());
  const unlist: () => void = registerRun({ session: new LiveSession({ sessionId: 'd' }), label: 'd' });
  unlist();
  const runs: DevtoolsRun[] = [...(globalThis.__STEPLINE_DEVTOOLS__?.runs ?? [])];
  globalThis.__STEPLINE_DEVTOOLS__?.listeners.add((type: 'add' | 'remove', run: DevtoolsRun) => void [type, run.label]);
  void [module, badge, runs];
  // @ts-expect-error a run needs its session
  registerRun({ label: 'no session' });
  // @ts-expect-error sessions are Sessions, not ids
  el.sessions = ['sess-1'];
}
