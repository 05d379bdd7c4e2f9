// Builds the devtools panel into www/dist. The page imports `stepline/devtools` as an
// application that installed it does: node_modules/stepline is the link to
// the built package that `npm run build` makes, and Vite picks the entry from
// its package.json `exports` under the `browser` condition (devtools.js, which
// loads devtools/stepline_bg.wasm; Vite emits the wasm as an asset).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  logLevel: 'warn',
});
