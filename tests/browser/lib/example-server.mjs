// The server side of the example pages (examples/react, examples/vue) for the
// browser tests: the built page, and each run's event log at
// GET /agents/{session}/events, as a Laravel app returns what it stored of the
// broadcasts (every event published so far, oldest first). A test can hold
// the log's answers to see the page while it is still catching up.
import { build } from 'vite';
import { join } from 'node:path';
import { servePanel } from '../../../scripts/lib/panel-server.mjs';
import { root } from './browser.mjs';

/** Builds examples/<name> with its own vite.config.mjs into `outDir`. */
export async function buildExample(name, outDir) {
  const dir = join(root, 'examples', name);
  await build({ root: dir, configFile: join(dir, 'vite.config.mjs'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  return outDir;
}

/**
 * One run's event log: `record(event)` appends what the backend broadcast (whether or
 * not the broadcast reached anyone); `hold()` makes later answers wait until the
 * function it returns is called; the answer is read when it is released, as a server
 * reads its table when it gets to the request. `requests` counts the GETs.
 */
export function eventLog() {
  const events = [];
  let gate = null;
  const log = {
    events,
    requests: 0,
    record(event) {
      events.push(event);
    },
    hold() {
      let release;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = null;
        release();
      };
    },
    async answer() {
      log.requests += 1;
      await gate;
      return { body: events };
    },
  };
  return log;
}

/** Serves the built example in `dir`; `addLog(session, log)` routes /agents/{session}/events to it. */
export async function serveExample(dir) {
  const server = await servePanel({ root: dir });
  return {
    url: server.url,
    close: server.close,
    addLog(session, log) {
      server.setRoute(`/agents/${encodeURIComponent(session)}/events`, () => log.answer());
    },
  };
}
