// The docs site (issue 31). VitePress because the Laravel/Vue world reads VitePress docs
// daily; it builds a static site fast, from plain Markdown with code groups. The pages'
// code blocks run in tests/js/readme.test.mjs; tests/docs/docs-site.test.mjs checks the
// built site's links and anchors and that the API reference covers every export.
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'stepline',
  description: 'One Rust/WebAssembly core for AI-agent event streams and agent states, in the browser and in Node.',
  // The design seeds are cited by tests at their repository paths; they are source
  // material, not pages.
  srcExclude: ['seeds/**'],
  cleanUrls: false,
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Getting started', link: '/getting-started/' },
      { text: 'Web UIs', link: '/web/' },
      { text: 'Node backends', link: '/node/' },
      { text: 'Devtools', link: '/devtools/panel' },
      { text: 'Reference', link: '/reference/' },
      { text: 'Concepts', link: '/concepts/steps' },
    ],
    sidebar: [
      { text: 'Getting started', items: [
        { text: 'Overview and install', link: '/getting-started/' },
        { text: 'Laravel + Reverb + instructor-php', link: '/getting-started/laravel-reverb' },
        { text: 'laravel/ai, AG-UI, AI SDK', link: '/getting-started/other-producers' },
      ] },
      { text: 'Web UIs', items: [
        { text: 'Which entry', link: '/web/' },
        { text: 'echo, React, Vue', link: '/web/laravel-front-ends' },
        { text: 'Resync and final state', link: '/web/resync' },
        { text: 'Rendering steps', link: '/web/rendering-steps' },
        { text: 'Reconcile', link: '/web/reconcile' },
        { text: 'Envelopes and event names', link: '/web/envelopes' },
        { text: 'Bundle sizes', link: '/web/bundle-sizes' },
      ] },
      { text: 'Node backends', items: [
        { text: 'Overview', link: '/node/' },
        { text: 'Parse a stored state', link: '/node/parse' },
        { text: 'Slim, restore, validate', link: '/node/snapshots' },
        { text: 'Secrets', link: '/node/secrets' },
        { text: 'Continuation and what-if', link: '/node/continuation' },
        { text: 'Provider responses and roles', link: '/node/inference' },
        { text: 'Bulk replay', link: '/node/bulk-replay' },
        { text: 'Cost', link: '/node/cost' },
        { text: 'Errors', link: '/node/errors' },
        { text: 'The CLI', link: '/reference/cli' },
      ] },
      { text: 'Devtools', items: [
        { text: 'The panel', link: '/devtools/panel' },
        { text: 'The overlay in your page', link: '/devtools/overlay' },
        { text: 'The DevTools extension', link: '/devtools/extension' },
        { text: 'Recordings', link: '/devtools/recordings' },
        { text: 'Diagnostics', link: '/devtools/diagnostics' },
        { text: 'OTLP export', link: '/devtools/otlp' },
        { text: 'Comparing runs', link: '/devtools/compare' },
      ] },
      { text: 'Reference', items: [
        { text: 'Overview', link: '/reference/' },
        { text: 'JS API', link: '/reference/api/' },
        { text: 'SteplineError codes', link: '/reference/errors' },
        { text: 'Types and JSON Schemas', link: '/reference/types' },
        { text: 'Recording format', link: '/reference/recording-format' },
        { text: 'Slim snapshot schema', link: '/reference/snapshot-schema' },
        { text: 'CLI', link: '/reference/cli' },
        { text: 'Rust crate', link: '/reference/rust' },
      ] },
      { text: 'Concepts', items: [
        { text: 'The step model', link: '/concepts/steps' },
        { text: 'Continuation', link: '/concepts/continuation' },
        { text: 'Reconciliation', link: '/concepts/reconciliation' },
        { text: 'Dialects', link: '/concepts/dialects' },
        { text: 'Design notes', link: '/concepts/design-notes' },
      ] },
      { text: 'More', items: [
        { text: 'Performance', link: '/performance' },
        { text: 'Architecture', link: '/architecture' },
        { text: 'Developing stepline', link: '/development' },
      ] },
    ],
  },
});
