// `npm start`: the devtools panel on the bundled recorded run.
//
//   set-up (Rust target, wasm-bindgen, node_modules; not the browser or the
//   Pusher server, which only the tests and the live demo need), the package
//   build and the panel build, each skipped when its inputs hash the same as
//   when it was last built (scripts/lib/build-cache.mjs; never under CI=true),
//   then a static server on 127.0.0.1. PORT picks the port (default 5173, or
//   a free one when that is taken). Ctrl-C stops it.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageCache, panelCache, shown, trusted } from './lib/build-cache.mjs';
import { servePanel } from './lib/panel-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function step(label, command, args, env = {}) {
  console.log(`start: ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(`start: ${label} failed (${result.error?.message ?? `exit status ${result.status}`})`);
    process.exit(result.status ?? 1);
  }
}

step('set-up', 'bash', ['scripts/setup.sh'], { STEPLINE_SETUP: 'core' });
// The panel's hash covers pkg/.build-hash, so it is taken after the package is settled.
for (const [what, cache, script] of [['the package', packageCache, 'scripts/build.mjs'], ['the panel', panelCache, 'scripts/build-www.mjs']]) {
  const { dir, hash } = cache(root);
  const { fresh, reason } = trusted(dir, hash);
  if (fresh) console.log(`start: ${shown(root, dir)} is current (${reason}); not rebuilding ${what}`);
  else step(`building ${what} (${shown(root, dir)}: ${reason})`, process.execPath, [script]);
}

const wanted = Number(process.env.PORT ?? 5173);
let server;
try {
  server = await servePanel({ root: join(root, 'www', 'dist'), port: wanted });
} catch (error) {
  if (error.code !== 'EADDRINUSE' || process.env.PORT) throw error;
  server = await servePanel({ root: join(root, 'www', 'dist'), port: 0 });
}
console.log(`\nstepline devtools: ${server.url}`);
console.log('  the bundled run is loaded; open a recording with "Open recording…" or drop one on the page,');
console.log('  or follow a live run with "Live…" (npm run demo:live publishes one).');
console.log('  Ctrl-C stops the server.');
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
