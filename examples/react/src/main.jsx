import { configureEcho } from '@laravel/echo-react';
import { createRoot } from 'react-dom/client';
import init from 'stepline/live';
import { App } from './App.jsx';
import { settingsFrom } from '../../shared/settings.js';
import '../../shared/style.css';

const { key, host, port, tls, sessionId } = settingsFrom(new URL(window.location.href));

// Once, before any hook joins a channel (Laravel's starter kits do this in app.tsx).
configureEcho({ broadcaster: 'reverb', key, wsHost: host, wsPort: port, wssPort: port, forceTLS: tls, enabledTransports: ['ws', 'wss'] });

// stepline/live: the web UI's build (a smaller wasm, no reconcile). Load it before rendering.
init().then(() => {
  createRoot(document.getElementById('root')).render(<App sessionId={sessionId} />);
});
