import { configureEcho } from '@laravel/echo-vue';
import init from 'stepline/live';
import { createApp } from 'vue';
import App from './App.vue';
import { settingsFrom } from '../../shared/settings.js';
import '../../shared/style.css';

const { key, host, port, tls, sessionId } = settingsFrom(new URL(window.location.href));

// Once, before any composable joins a channel (Laravel's starter kits do this in app.ts).
configureEcho({ broadcaster: 'reverb', key, wsHost: host, wsPort: port, wssPort: port, forceTLS: tls, enabledTransports: ['ws', 'wss'] });

// stepline/live: the web UI's build (a smaller wasm, no reconcile). Load it before mounting.
init().then(() => {
  createApp(App, { sessionId }).mount('#app');
});
