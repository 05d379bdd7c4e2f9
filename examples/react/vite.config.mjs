// Nothing to configure: Vite 8 compiles .jsx with oxc and React's automatic runtime by
// default, so this page needs no @vitejs/plugin-react (add it for Fast Refresh while
// developing). `stepline` resolves through node_modules like any other package.
import { defineConfig } from 'vite';

export default defineConfig({});
