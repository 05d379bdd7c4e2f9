// Builds the DevTools extension (Manifest V3, Chromium) into dist/extension/ (load it
// unpacked from there) and packs it as dist/stepline-devtools-extension.zip. Its panel
// is www/src built again for an extension page: the same views as the standalone page
// and the overlay (www/src/mount.ts), with www/src/extension/panel.ts as the host; the
// content scripts (page.js in the page's world, relay.js in the isolated one) are each
// one classic script, as content scripts must be. The manifest is extension/manifest.json
// with the package's version. Needs pkg/ (the panel imports `stepline` as the page does).
//
// Usage: node scripts/build-extension.mjs   (`npm run build` calls buildExtension)
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zip } from './lib/zip.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const extensionDir = join(root, 'dist', 'extension');
export const extensionZip = join(root, 'dist', 'stepline-devtools-extension.zip');
const src = join(root, 'www', 'src', 'extension');

/** extension/manifest.json as built: the version is the package's (its numeric part). */
export function builtManifest() {
  const manifest = JSON.parse(readFileSync(join(root, 'extension', 'manifest.json'), 'utf8'));
  const version = JSON.parse(readFileSync(join(root, 'pkg', 'package.json'), 'utf8')).version;
  manifest.version = version.split(/[-+]/)[0];
  return manifest;
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  }).sort();
}

/** Builds dist/extension/ and the zip; returns the zip's path. */
export async function buildExtension() {
  if (!existsSync(join(root, 'pkg', 'package.json'))) throw new Error('build-extension: pkg/ is not built; run `npm run build`');
  const { build } = await import('vite');
  rmSync(extensionDir, { recursive: true, force: true });
  // `stepline` resolved to `stepline/devtools`, which has every name of it: the panel's
  // views need the devtools entry, and the extension then carries one wasm, not two.
  const common = { configFile: false, root: join(root, 'www'), logLevel: 'warn', publicDir: false, base: './',
    resolve: { alias: [{ find: /^stepline$/, replacement: 'stepline/devtools' }] } };
  // The extension's pages and service worker: ES modules, the wasm an asset beside them.
  await build({
    ...common,
    build: {
      outDir: extensionDir,
      emptyOutDir: false,
      target: 'es2022',
      reportCompressedSize: false,
      modulePreload: false,
      rollupOptions: {
        input: { panel: join(src, 'panel.ts'), devtools: join(src, 'devtools.ts'), worker: join(src, 'worker.ts') },
        output: { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]' },
        // www/src/devtools.ts imports `stepline/devtools` lazily for the standalone page;
        // here `stepline` is that entry already, so the lazy import has nothing to split
        // off, as intended: that one warning is not printed, every other one is.
        onwarn(warning, warn) {
          if (warning.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') warn(warning);
        },
      },
    },
  });
  // The content scripts: one classic script each.
  for (const name of ['page', 'relay']) {
    await build({
      ...common,
      build: {
        outDir: extensionDir,
        emptyOutDir: false,
        target: 'es2022',
        reportCompressedSize: false,
        lib: { entry: join(src, `${name}.ts`), formats: ['iife'], name: `stepline_${name}`, fileName: () => `${name}.js` },
      },
    });
  }
  for (const page of ['panel.html', 'devtools.html']) cpSync(join(root, 'extension', page), join(extensionDir, page));
  writeFileSync(join(extensionDir, 'manifest.json'), `${JSON.stringify(builtManifest(), null, 2)}\n`);
  mkdirSync(dirname(extensionZip), { recursive: true });
  const files = filesUnder(extensionDir).map((path) => [relative(extensionDir, path).split(sep).join('/'), readFileSync(path)]);
  writeFileSync(extensionZip, zip(files));
  return extensionZip;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = await buildExtension();
  console.log(`build-extension: ${relative(root, extensionDir)}/ and ${relative(root, out)} (${(statSync(out).size / 1024).toFixed(1)} KB)`);
}
