// The server side of the example pages (examples/react, examples/vue) for the
// browser tests: the built page, and each run's event log at
// GET /agents/{session}/events, as a Laravel app returns what it stored of the
// broadcasts (every event published so far, oldest first). A test can hold
// the log's answers to see the page while it is still catching up.
import { build } from 'vite';
import { join } from 'node:path';
import { servePanel } from '../../../scripts/lib/panel-server.mjs';
import { root } from './browser.mjs';

/**
 * Builds examples/<name> with its own vite.config.mjs into `outDir`; `development: true`
 * for a build whose `import.meta.env.DEV` is true (the devtools overlay is in it): Vite
 * reads DEV from NODE_ENV, not from the mode, so it is set for the build.
 */
export async function buildExample(name, outDir, { development = false } = {}) {
  const dir = join(root, 'examples', name);
  const nodeEnv = process.env.NODE_ENV;
  if (development) process.env.NODE_ENV = 'development';
  try {
    await build({ root: dir, configFile: join(dir, 'vite.config.mjs'), logLevel: 'warn', mode: development ? 'development' : undefined, build: { outDir, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
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

/**
 * Serves the built example in `dir`; `addLog(session, log)` routes /agents/{session}/events
 * to it, `addFinalState(session, state)` answers /agents/{session}/state with the state.
 */
export async function serveExample(dir) {
  const server = await servePanel({ root: dir });
  return {
    url: server.url,
    close: server.close,
    addLog(session, log) {
      server.setRoute(`/agents/${encodeURIComponent(session)}/events`, () => log.answer());
    },
    addFinalState(session, state) {
      server.setRoute(`/agents/${encodeURIComponent(session)}/state`, () => ({ body: state }));
    },
  };
}
