// Single-file components need @vitejs/plugin-vue; `stepline` resolves through
// node_modules like any other package.
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

export default defineConfig({ plugins: [vue()] });
