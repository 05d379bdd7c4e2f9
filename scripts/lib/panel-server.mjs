// A small static server for the built devtools panel (www/dist) in tests and
// demos, on loopback only. Besides files it answers POST /broadcasting/auth
// (the private-channel signature laravel-echo asks for) and any extra GET
// routes a test registers, e.g. the final snapshot at /final/<session>.json.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};
// Every build changes the files under the same names; a cached one would test the old build.
const NO_CACHE = { 'cache-control': 'no-store' };
const AUTH_PATH = '/broadcasting/auth';
const AUTH_PREFIX = 'private-agent.';
const MAX_BODY = 64 * 1024;

function isLoopback(host) {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function send(res, status, type, body, head = false) {
  const data = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  res.writeHead(status, { ...NO_CACHE, 'content-type': type, 'content-length': data.length });
  res.end(head ? undefined : data);
}

const text = (res, status, message) => send(res, status, 'text/plain; charset=utf-8', `${message}\n`);

function readBody(req) {
  return new Promise((resolveBody, reject) => {
    let size = 0;
    const chunks = [];
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('request body too large'), { status: 413 }));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** socket_id and channel_name from a form-urlencoded (pusher-js) or JSON body. */
function authFields(req, body) {
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    const fields = JSON.parse(body);
    return { socketId: fields?.socket_id, channel: fields?.channel_name };
  }
  const fields = new URLSearchParams(body);
  return { socketId: fields.get('socket_id'), channel: fields.get('channel_name') };
}

async function answerAuth(req, res, auth) {
  if (!auth) return text(res, 404, 'no channel authorization configured');
  let fields;
  try {
    fields = authFields(req, await readBody(req));
  } catch (error) {
    return text(res, error.status ?? 400, `bad request: ${error.message}`);
  }
  const { socketId, channel } = fields;
  if (typeof socketId !== 'string' || typeof channel !== 'string') return text(res, 400, 'expected socket_id and channel_name');
  if (!channel.startsWith(AUTH_PREFIX)) return text(res, 403, `only ${AUTH_PREFIX}* channels are authorized here`);
  try {
    return send(res, 200, 'application/json; charset=utf-8', auth(socketId, channel));
  } catch (error) {
    // pusher's authorizeChannel throws on a malformed socket id.
    return text(res, 400, `bad request: ${error.message}`);
  }
}

/** The file for a URL path inside root, or null (missing, or outside root). */
async function locate(root, pathname) {
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  let file = resolve(root, `.${decoded}`);
  if (file !== root && !file.startsWith(root + sep)) return null;
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    // Also check after symlinks: a link inside root may point outside it.
    const real = await realpath(file);
    if (!real.startsWith(root + sep)) return null;
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

/**
 * Serves `root` on http://host:port/. `auth` is authorizer() from ./publisher.mjs;
 * `routes` maps extra GET paths to `() => ({ status?, type?, body })`.
 * Returns `{ url, port, setRoute(path, handler), close() }`.
 */
export async function servePanel({ root, port = 0, host = '127.0.0.1', auth, routes } = {}) {
  if (!isLoopback(host)) throw new Error(`servePanel listens on loopback only, not ${host}`);
  const base = await realpath(resolve(root));
  const table = new Map(routes instanceof Map ? routes : Object.entries(routes ?? {}));

  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url, 'http://localhost');
      if (pathname === AUTH_PATH) {
        return req.method === 'POST' ? await answerAuth(req, res, auth) : text(res, 405, 'POST only');
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'GET or HEAD only');
      const head = req.method === 'HEAD';
      const route = table.get(pathname);
      if (route) {
        const { status = 200, type = 'application/json; charset=utf-8', body = '' } = await route(req);
        return send(res, status, type, body, head);
      }
      const file = await locate(base, pathname);
      if (!file) return text(res, 404, 'not found');
      const { size } = await stat(file);
      res.writeHead(200, { ...NO_CACHE, 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'content-length': size });
      if (head) return res.end();
      createReadStream(file).on('error', () => res.destroy()).pipe(res);
    } catch (error) {
      if (!res.headersSent) text(res, 500, `server error: ${error.message}`);
      else res.destroy();
    }
  });

  await new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolveListen);
  });
  const bound = server.address().port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${bound}/`,
    port: bound,
    setRoute(path, handler) {
      table.set(path, handler);
    },
    close() {
      return new Promise((resolveClose) => {
        server.close(() => resolveClose());
        // Browsers keep connections open; without this close() waits for them.
        server.closeAllConnections();
      });
    },
  };
}
