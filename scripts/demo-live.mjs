// `npm run demo:live`: the devtools panel following a live run, end to end on
// this machine. Starts sockudo (a Pusher-protocol server standing in for
// Reverb, with Reverb's 10 KB message limit), serves the built panel from
// www/dist, prints the panel's live-mode URL, then publishes the bundled demo
// run (scripts/demo-run.mjs) at a human pace through the `pusher` server
// library, as a Laravel backend would: every envelope on agent.<session> under
// one event name, `instructor.agent.event` (instructor-php v2's Laravel
// transport) unless told otherwise. Ctrl-C stops everything.
//
//   node scripts/demo-live.mjs [--private] [--event-name <name>] [--producer v1.22|v2|laravel-ai]
//     --private            on private-agent.<session>, signed by the panel
//                          server's /broadcasting/auth
//     --event-name <name>  publish under <name>, as an app that set
//                          instructor.agents.broadcasting.event_name does; the
//                          panel URL carries it (event=<name>)
//     --producer v2        publish the run as instructor-php v2.7 makes it
//                          (scripts/demo-run-v2.mjs: the v2 envelope dialect,
//                          raw provider frames among the stream chunks) and
//                          serve its final v2 AgentState, which the panel
//                          slims itself; v1.22 (the default) publishes the
//                          bundled run (scripts/demo-run.mjs) and serves its
//                          final slim snapshot
//     --producer laravel-ai  publish one run (scripts/lib/dialects/run.mjs
//                          canonicalRun()) as laravel/ai's BroadcastAgent does:
//                          each stream event under its own type on the app's
//                          channel (here chat.<session>); no final state
//
// On a fresh clone it first runs the set-up (which installs sockudo) and the
// builds of pkg/ and www/dist; later runs reuse what is built.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { demoRun } from './demo-run.mjs';
import { demoRunV2 } from './demo-run-v2.mjs';
import * as laravelAi from './lib/dialects/laravel-ai.mjs';
import { canonicalRun } from './lib/dialects/run.mjs';
import { servePanel } from './lib/panel-server.mjs';
import { authorizer, publisher } from './lib/publisher.mjs';
import { startSockudo } from './lib/sockudo.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'www', 'dist');
const WAIT_MS = 5_000;
// Stream chunks come fast, like a model's deltas; other events slowly enough to follow.
const CHUNK_GAP_MS = 150;
const EVENT_GAP_MS = 600;
const USAGE = 'usage: node scripts/demo-live.mjs [--private] [--event-name <name>] [--producer v1.22|v2|laravel-ai]';
const PRODUCERS = ['v1.22', 'v2', 'laravel-ai'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function fail(message) {
  console.error(`demo:live: ${message}`);
  process.exit(1);
}

/** Resolves on Enter or after `ms`, whichever comes first. */
function enterOrTimeout(ms) {
  // terminal: false keeps the TTY out of raw mode, so Ctrl-C stays a SIGINT.
  const rl = createInterface({ input: process.stdin, terminal: false });
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      rl.close();
      process.stdin.pause();
      resolve();
    };
    const timer = setTimeout(done, ms);
    rl.once('line', done);
  });
}

/** Opens the URL in the desktop's browser; only where there is a desktop. */
function openBrowser(url) {
  if (!process.env.DISPLAY) return;
  const child = spawn('xdg-open', [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {}); // no xdg-open: the printed URL is enough
  child.unref();
}

let server;
let panel;
let stopping = false;

/** Stops the panel server and sockudo (and removes its temp dir), then exits. */
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  await panel?.close();
  await server?.stop();
  process.exit(code);
}

/** Runs a set-up or build step with its output shown; stops the demo if it fails. */
function prepare(label, command, args) {
  console.log(`demo:live: ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) fail(`${label} failed (${result.error?.message ?? `exit status ${result.status}`})`);
}

/** `{ usePrivate, eventName, producer }` from the command line; stops the demo on a wrong option. */
function readArgs() {
  let values;
  try {
    ({ values } = parseArgs({ options: { private: { type: 'boolean' }, 'event-name': { type: 'string' }, producer: { type: 'string' } }, strict: true }));
  } catch (error) {
    fail(`${error.message}\n${USAGE}`);
  }
  const producer = values.producer ?? 'v1.22';
  if (!PRODUCERS.includes(producer)) fail(`--producer: expected one of ${PRODUCERS.join(', ')}, got ${JSON.stringify(producer)}\n${USAGE}`);
  if (producer === 'laravel-ai' && (values.private || values['event-name'])) fail(`--producer laravel-ai: laravel/ai names each event after its type on a public channel; --private and --event-name do not apply\n${USAGE}`);
  return { usePrivate: values.private === true, eventName: values['event-name'], producer };
}

/**
 * The run to publish: its envelopes and the body the final-state URL serves
 * (v1.22: the last turn's slim snapshot; v2: the last turn's whole AgentState).
 */
async function theRun(producer, options) {
  if (producer === 'laravel-ai') {
    const run = { ...canonicalRun(), sessionId: options.sessionId, executionId: options.executionId };
    // Each event under its own type, as StreamEvent::broadcast names it.
    return { envelopes: laravelAi.encode(run).map((event) => ({ event, eventName: laravelAi.eventName(event) })), finalBody: null };
  }
  if (producer === 'v2') {
    const { envelopes, finalState } = await demoRunV2(options);
    return { envelopes, finalBody: finalState };
  }
  const { envelopes, snapshots } = await demoRun(options);
  return { envelopes, finalBody: snapshots.at(-1).snapshot };
}

async function main() {
  const { usePrivate, eventName: given, producer } = readArgs();
  prepare('set-up', 'bash', [join('scripts', 'setup.sh')]);
  if (!existsSync(join(root, 'pkg', 'index.mjs'))) prepare('building the package (pkg/)', process.execPath, [join('scripts', 'build.mjs')]);
  if (!existsSync(join(dist, 'index.html'))) prepare('building the panel (www/dist)', process.execPath, [join('scripts', 'build-www.mjs')]);
  const { defaultEventName, isAgentEventName } = await import(join(root, 'pkg', 'index.mjs'));
  const eventName = given ?? defaultEventName();
  try {
    // The core refuses a name no listener could receive (empty, `pusher:…`).
    isAgentEventName(eventName, { eventName });
  } catch (error) {
    fail(`--event-name: ${error.message}`);
  }
  process.on('SIGINT', () => shutdown(130));
  process.on('SIGTERM', () => shutdown(143));

  server = await startSockudo({ maxPayloadKb: 10 });
  panel = await servePanel({ root: dist, auth: authorizer(server) });

  const sessionId = `demo-${randomBytes(4).toString('hex')}`;
  const executionId = `exec-${randomBytes(4).toString('hex')}`;
  const finalPath = `/final/${sessionId}.json`;
  const params = {
    source: 'live', key: server.key, host: server.host, port: server.port, tls: 0,
    session: sessionId, ...(usePrivate ? { private: 1 } : {}), event: eventName, final: finalPath, connect: 1,
  };
  const channel = producer === 'laravel-ai' ? `chat.${sessionId}` : `${usePrivate ? 'private-' : ''}agent.${sessionId}`;
  if (producer === 'laravel-ai') {
    // laravel/ai apps broadcast on a channel of their choosing, with no final-state URL.
    Object.assign(params, { channel });
    delete params.final;
  }
  // Slashes stay readable (final=/final/<id>.json); everything else is encoded.
  const query = Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v).replaceAll('%2F', '/')}`).join('&');
  const url = `${panel.url}?${query}`;
  console.log(`sockudo on ${server.host}:${server.port} (app ${server.appId}, 10 KB event limit), channel ${channel}, event ${eventName}, producer ${producer}`);
  console.log(`panel: ${url}`);
  openBrowser(url);
  console.log(`press Enter to start the run (it starts by itself in ${WAIT_MS / 1000} s)`);
  await enterOrTimeout(WAIT_MS);

  const { envelopes, finalBody } = await theRun(producer, { sessionId, executionId, startMs: Date.now() });
  const { publish } = publisher(server, { eventName });
  let failed = 0;
  for (const [i, item] of envelopes.entries()) {
    if (stopping) return;
    // laravel/ai items carry their own event name; instructor envelopes go under one.
    const { event: envelope, eventName: name } = item.eventName ? item : { event: item, eventName: undefined };
    if (i > 0) await sleep(/^(agent\.stream\.chunk|text_delta|reasoning_delta)$/.test(envelope.type) ? CHUNK_GAP_MS : EVENT_GAP_MS);
    // Ready before the last envelope: a panel may fetch it as soon as it sees the run end.
    if (i === envelopes.length - 1 && finalBody !== null) panel.setRoute(finalPath, () => ({ body: finalBody }));
    const progress = `${i + 1}/${envelopes.length} ${envelope.type}`;
    try {
      await publish(envelope, { channel, ...(name ? { eventName: name } : {}) });
      console.log(`published ${progress}`);
    } catch (error) {
      failed += 1;
      console.log(`FAILED ${progress}: ${error.message}`);
    }
  }
  const final = finalBody === null ? '' : `; final ${producer === 'v2' ? 'state' : 'snapshot'} at ${panel.url.slice(0, -1)}${finalPath}`;
  console.log(`run published: ${envelopes.length - failed} events${failed ? `, ${failed} refused` : ''}${final}`);
  console.log('the panel stays up; Ctrl-C to stop');
}

main().catch((error) => {
  console.error(`demo:live: ${error.message}`);
  shutdown(1);
});
