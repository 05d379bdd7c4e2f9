// Starts a throwaway `sockudo` (a Pusher-protocol server, our stand-in for Laravel
// Reverb) on a free loopback port for tests and demos, and stops it again.
//
// Everything it could reach for is pinned to memory drivers and loopback: no
// Redis, no metrics listener on 0.0.0.0:9601, no config file picked up from the
// working directory (it runs from a fresh empty temp dir).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 3_000;
// Enough of the server's output to explain a failed start, not a whole log.
const OUTPUT_LIMIT = 16_384;

/** The sockudo binary on PATH or in cargo's bin directory, or null. */
export function findSockudo() {
  const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin');
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), cargoBin];
  for (const dir of dirs) {
    const candidate = join(dir, 'sockudo');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** A port nobody listens on right now (the OS picks it; sockudo binds it next). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function randomId(prefix, bytes = 8) {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts sockudo with one app and resolves once `/up/<appId>` answers 200.
 * `port` reuses a port (a restarted server, as after a Reverb restart: clients
 * reconnect to the same address); by default the OS picks a free one.
 * Returns `{ host, port, appId, key, secret, stop(), output() }` (`output()`: the
 * last 16 KB the server printed, to explain a failure).
 */
export async function startSockudo({ appId, key, secret, maxPayloadKb = 10, port: wanted } = {}) {
  const binary = findSockudo();
  if (!binary) {
    throw new Error('sockudo not found on PATH or in ~/.cargo/bin; run scripts/setup.sh (it runs `cargo install sockudo`)');
  }
  appId ??= randomId('app-');
  key ??= randomId('key-');
  secret ??= randomId('', 16);
  const port = wanted ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'stepline-sockudo-'));

  // A minimal environment instead of ours: sockudo reads dozens of variables
  // (DEBUG, REDIS_*, DATABASE_*, OTEL_*, ...), and a stray one from the
  // developer's shell must not change what the tests see.
  const env = {
    PATH: process.env.PATH ?? '',
    HOST,
    PORT: String(port),
    ADAPTER_DRIVER: 'local',
    CACHE_DRIVER: 'memory',
    QUEUE_DRIVER: 'memory',
    APP_MANAGER_DRIVER: 'memory',
    RATE_LIMITER_DRIVER: 'memory',
    // The HTTP API limit is 100 requests a minute per client by default: a long
    // test or demo would start getting 429s.
    RATE_LIMITER_ENABLED: 'false',
    // Metrics would listen on 0.0.0.0:9601; keep the host on loopback even so.
    METRICS_ENABLED: 'false',
    METRICS_HOST: HOST,
    CLUSTER_HEALTH_ENABLED: 'false',
    UNIX_SOCKET_ENABLED: 'false',
    SSL_ENABLED: 'false',
    LOG_COLORS_ENABLED: 'false',
    SHUTDOWN_GRACE_PERIOD: '0',
    SOCKUDO_DEFAULT_APP_ID: appId,
    SOCKUDO_DEFAULT_APP_KEY: key,
    SOCKUDO_DEFAULT_APP_SECRET: secret,
    SOCKUDO_DEFAULT_APP_ENABLED: 'true',
    SOCKUDO_DEFAULT_APP_MAX_EVENT_PAYLOAD_IN_KB: String(maxPayloadKb),
    // 100 a second by default; a test that publishes a run back to back can exceed it.
    SOCKUDO_DEFAULT_APP_MAX_BACKEND_EVENTS_PER_SECOND: '10000',
    // Reverb queues what a slow client has not read yet; sockudo disconnects a client
    // 1000 messages behind (and it misses the rest). A page on a busy machine receiving
    // a run published by concurrent batch requests can fall that far behind.
    WEBSOCKET_MAX_MESSAGES: '1000000',
  };

  // detached: its own process group, so stop() also reaches anything it forks.
  const child = spawn(binary, [], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const capture = (chunk) => {
    output = (output + chunk).slice(-OUTPUT_LIMIT);
  };
  child.stdout.on('data', capture);
  child.stderr.on('data', capture);
  let exited = null;
  const exit = new Promise((resolve) => {
    child.on('error', (error) => {
      exited ??= `could not run ${binary}: ${error.message}`;
      resolve();
    });
    child.on('exit', (code, signal) => {
      exited ??= `exited with ${signal ?? `status ${code}`}`;
      resolve();
    });
  });

  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  // If the host process dies without calling stop(), do not leave sockudo behind.
  const onExit = () => killGroup('SIGKILL');
  process.on('exit', onExit);

  let stopped = null;
  const stop = () => {
    stopped ??= (async () => {
      if (exited === null && child.pid) {
        killGroup('SIGTERM');
        const late = await Promise.race([exit.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)]);
        if (late) {
          killGroup('SIGKILL');
          await exit;
        }
      }
      process.off('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  const describe = (why) => `sockudo ${why} (port ${port}, ${binary}); its output:\n${output.trim() || '(none)'}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited !== null) {
      await stop();
      throw new Error(describe(`${exited} before it was up`));
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(describe(`was not up after ${START_TIMEOUT_MS / 1000} s`));
    }
    try {
      const res = await fetch(`http://${HOST}:${port}/up/${encodeURIComponent(appId)}`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }

  return { host: HOST, port, appId, key, secret, stop, output: () => output };
}
