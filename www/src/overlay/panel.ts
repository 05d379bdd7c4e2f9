// The overlay's panel, loaded when <stepline-devtools> first opens: the same
// views as the standalone page (mount.ts) in the overlay's shadow root. Its
// runs are the page's Sessions; the panel never writes to one. It shows a
// Session of its own (full package, so reconcile, what-if and the timeline
// work whichever build the app uses), fed with what the app's Session
// recorded: on each change, the recording's new lines (sources/mirror.ts).
import init, { Session } from 'stepline/devtools';
import type { DevtoolsRun } from 'stepline/echo';
import { mountPanel } from '../mount';
import { feedLines } from '../sources/mirror';
import { describe, reconcileAt } from '../sources/recording';
import css from '../style.css?inline';

/** The panel's stylesheet for a shadow root: its page-level rules apply to the overlay's root. */
function shadowCss(): string {
  return css.replace(/:root/g, ':host').replace(/html, body \{[^}]*\}/, '')
    + '\n.overlay-panel { height: 100%; display: flex; flex-direction: column; background: var(--bg); color: var(--fg); font: 13px/1.45 system-ui, -apple-system, \'Segoe UI\', sans-serif; }'
    + '\n.overlay-panel .layout { min-height: 0; flex: 1; }'
    // The overlay's own bar already names it.
    + '\n.overlay-panel .bar h1 { display: none; }';
}

export interface OverlayOptions {
  /** A URL with `{session}`: fetched once the run's latest execution ended, and reconciled with. */
  finalState: string | null;
}

/**
 * Mounts the panel into `container` (inside `shadow`) and returns `show(run)`.
 *
 * @example
 * const overlay = await openPanel(body, shadowRoot, { finalState: '/agents/{session}/state' });
 * overlay.show(run);   // a DevtoolsRun of the registry
 */
export async function openPanel(container: HTMLElement, shadow: ShadowRoot, options: OverlayOptions): Promise<{ show(run: DevtoolsRun | null): void }> {
  await init();
  const style = document.createElement('style');
  style.textContent = shadowCss();
  shadow.append(style);
  const root = document.createElement('div');
  root.className = 'overlay-panel';
  container.replaceChildren(root);
  const { panel } = mountPanel(root, { keys: shadow });

  let current: DevtoolsRun | null = null;
  let stop: (() => void) | null = null;
  let frame = 0;
  let fed = 0;
  let mirror: Session | null = null;
  let finalAsked = false;
  /** The final state fetched for the current run, reconciled again when later events arrive. */
  let finalState: object | null = null;

  /** Feeds the recording's lines the mirror has not read yet. */
  const sync = () => {
    frame = 0;
    if (!current || !mirror) return;
    let text: string;
    try {
      text = (current.session as { toRecording(): string }).toRecording();
    } catch (error) {
      panel.dispatch({ type: 'error', error: `This run cannot be shown: its Session keeps no recording (${describe(error)}). Make it without \`record: false\`.` });
      return;
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const more = lines.length > fed;
    if (feedLines(panel, mirror, lines.slice(fed))) finalAsked = true;
    fed = lines.length;
    // Events can arrive after the run ended and its final state was fetched (the last
    // step's completion after the final status): the report is made again with them.
    if (more && finalState) reconcileAt(panel, mirror, finalState, 'Final state');
    askFinalState();
  };

  /**
   * Once the latest execution ended, its final state (from the `final-state` URL),
   * reconciled once. Ended, not stale: the panel's clock makes a run whose events carry
   * old timestamps stale at once, and a final state fetched then would be an interim one.
   */
  const askFinalState = () => {
    const run = mirror?.getSnapshot();
    const last = run?.executions.at(-1);
    if (!options.finalState || finalAsked || !mirror || !last || !last.ended) return;
    finalAsked = true;
    const session = mirror;
    const url = options.finalState.replace('{session}', encodeURIComponent(run?.session_id ?? ''));
    fetch(url, { cache: 'no-store' })
      .then((response) => {
        if (!response.ok) throw new Error(`${response.status} ${response.statusText} from ${url}`);
        return response.json() as Promise<object>;
      })
      .then((state) => {
        if (mirror !== session) return;
        finalState = state;
        reconcileAt(panel, session, state, 'Final state');
      })
      .catch((error: unknown) => panel.dispatch({ type: 'error', error: `The final state could not be used: ${describe(error)}` }));
  };

  return {
    show(run) {
      if (run === current) return;
      stop?.();
      stop = null;
      current = run;
      fed = 0;
      finalAsked = false;
      finalState = null;
      if (!run) return;
      mirror = new Session({ staleAfterMs: panel.staleAfterMs });
      // setSession frees the previous mirror: the overlay's own, never the app's.
      panel.setSession(mirror, { source: { kind: 'live', label: run.label || 'run', detail: 'followed by this page' }, finalStateUrl: options.finalState ?? '' });
      sync();
      stop = run.session.subscribe(() => {
        if (frame === 0) frame = requestAnimationFrame(sync);
      });
    },
  };
}
