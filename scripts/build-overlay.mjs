// Builds `stepline/devtools-overlay` into a package directory (pkg/, or the build's
// staging copy): the panel's own sources (www/src, the same code the standalone page
// is built from) bundled with Vite as a library. The entry, devtools-overlay.js, is
// the dock and its badge; the panel is a chunk, devtools-overlay-panel.js, that the entry
// imports when the overlay first opens. `stepline/devtools` and `stepline/echo` stay
// imports of the package's own devtools.js and echo.js, so an app bundles one devtools
// wasm and one registry; the panel's imports of `stepline` are devtools.js's too (the
// devtools entry has every name of `stepline`): the overlay loads one wasm.
//
// Usage: node scripts/build-overlay.mjs [outDir]   (default pkg/; scripts/build.mjs calls buildOverlay)
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Writes devtools-overlay.js and devtools-overlay-*.js into `outDir`; returns the files written. */
export async function buildOverlay(outDir) {
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: join(root, 'www'),
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2022',
      minify: true,
      reportCompressedSize: false,
      lib: { entry: { 'devtools-overlay': join(root, 'www', 'src', 'overlay', 'element.ts') }, formats: ['es'] },
      rollupOptions: {
        external: ['stepline', 'stepline/devtools', 'stepline/echo'],
        output: {
          paths: { stepline: './devtools.js', 'stepline/devtools': './devtools.js', 'stepline/echo': './echo.js' },
          entryFileNames: '[name].js',
          // Next to devtools.js and echo.js: `paths` are written as they are, relative to every chunk.
          chunkFileNames: 'devtools-overlay-[name].js',
          minify: true,
        },
      },
    },
  });
  return readdirSync(outDir).filter((f) => f === 'devtools-overlay.js' || /^devtools-overlay-(?!react\.|vue\.).*\.js$/.test(f));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = await buildOverlay(process.argv[2] ?? join(root, 'pkg'));
  console.log(`build-overlay: ${files.join(', ')}`);
}
