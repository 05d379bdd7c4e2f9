// The devtools panel's entry: loads stepline (the wasm package, imported the
// way users import it), builds the views, and opens the source the URL asks
// for: `?source=live&…` connects to a channel, `?recording=<url>` loads a
// recording from a URL (JSONL or a JSON array of events, any dialect),
// `?demo=<producer>` one of the bundled runs, anything else instructor's.
// A recording is shown by the `stepline` entry; `stepline/devtools` loads
// after that first paint (www/src/devtools.ts).
import { startCore } from './devtools';
import { keepInUrl, restore } from './deeplink';
import { h } from './dom';
import { mountPanel } from './mount';
import type { Panel } from './panel';
import { connect, settingsFromUrl } from './sources/live';
import { demoById, describe, loadBundled, loadFile, loadRecording } from './sources/recording';
import { SourceControls } from './views/sources';
import './style.css';

async function main(): Promise<void> {
  await startCore();
  const params = new URLSearchParams(location.search);
  const live = settingsFromUrl(params);
  // This page is one host of the panel (mount.ts): its runs come from the bundled
  // ones, files and the live form.
  const { panel, header } = mountPanel(document.getElementById('app')!, (p) => {
    const sources = new SourceControls(p, live);
    return { nav: sources.nav, below: [sources.liveForm], views: [sources] };
  });

  // Recordings can be dropped anywhere on the page.
  document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dropping'); });
  document.addEventListener('dragleave', () => document.body.classList.remove('dropping'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dropping');
    const file = e.dataTransfer?.files[0];
    if (file) header.run(() => loadFile(panel, file));
  });

  const source = params.get('source');
  const recording = params.get('recording');
  if (source === 'live') {
    if (params.get('connect') === '1' && live.key && (live.session || live.channel)) void connect(panel, live);
    else document.querySelector<HTMLButtonElement>('[data-testid="live-toggle"]')?.click();
  } else if (recording) {
    header.run(async () => {
      await loadRecording(panel, await fetchRecording(recording), { kind: 'file', label: recording, detail: '' });
      restore(panel, params);
      keepInUrl(panel);
    });
  } else {
    // `?demo=laravel-ai` (or ag-ui, ai-sdk): the bundled run of that producer.
    header.run(async () => {
      await loadBundled(panel, demoById(params.get('demo')));
      restore(panel, params);
      keepInUrl(panel);
    });
  }
  // For tests and the console: the panel (its fields are getters over the state; change it with dispatch).
  (window as unknown as { stepline: Panel }).stepline = panel;
}

/** A recording from a URL; a failure says what was tried and what to check. */
async function fetchRecording(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`The recording ${url} could not be fetched (${describe(error)}): check the address, that its server runs, and that it allows this page (CORS).`);
  }
  if (!response.ok) throw new Error(`The recording ${url} could not be fetched: the server answered ${response.status} ${response.statusText}. Check the address.`);
  return response.text();
}

main().catch((error: unknown) => {
  document.getElementById('app')!.replaceChildren(h('p', { class: 'banner', role: 'alert' }, `stepline could not start: ${describe(error)}`));
});
