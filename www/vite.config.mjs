// Builds the devtools panel into www/dist. The page imports `stepline` as an
// application that installed it would; here the name points at the built
// package's browser entry (pkg/web.js, what its `exports` give under the
// `browser` condition), since pkg/ is built in place rather than installed.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const browserEntry = fileURLToPath(new URL('../pkg/web.js', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: { alias: { stepline: browserEntry } },
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
