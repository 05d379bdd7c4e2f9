// The README's "Which entry do I import" table, written from the build's own figures
// (pkg/sizes.json) so its sizes cannot drift from what ships. scripts/build.mjs calls
// `writeEntriesTable` after every build; tests/js/entries-table.test.mjs checks that the
// README's table is the one these figures make.
//
//   import { entriesTable } from './scripts/lib/entries-table.mjs';
//   entriesTable({ entries: { stepline: { gz: 575051, raw: 1489121 }, ... } });  // markdown

import { readFileSync, writeFileSync } from 'node:fs';

export const BEGIN = '<!-- entries-table: written by scripts/build.mjs from pkg/sizes.json -->';
export const END = '<!-- /entries-table -->';

/** Who imports each entry and what it holds, in the order the table lists them. */
export const ENTRIES = [
  ['stepline', 'Node backends, bulk replay',
    'snapshots (slim, restore, validate, parse), continuation (evaluate, replay a stored state, guards, stop reasons), reconcile, recordings, the envelope encoder, the laravel/ai, AG-UI and AI SDK dialects'],
  ['stepline/web', 'the same, in a browser or worker under any condition',
    'the `stepline` API, as an ES module that loads its wasm with `init()`; the same wasm file as `stepline`'],
  ['stepline/live', 'a web page following one instructor-php run',
    '`Session` (without `reconcile`), the envelope decoders, `channelFor`, the event-name and role tests, built small (opt-level "s")'],
  ['stepline/devtools', 'a devtools panel, loaded after the run is shown; tooling in Node',
    'the whole API in its own wasm: `stepline`\'s and the timeline and `envelopesOf`, OTLP export, cost, `compareRuns`, `diagnose` with the payload lint, the what-if of a streamed run'],
  ['stepline/echo', 'a Laravel Echo page (any framework)', 'the feed over laravel-echo: joins the channel, resyncs, fetches the final state; no wasm of its own'],
  ['stepline/react', 'a React page', '`useAgentRun` over `stepline/echo`; no wasm of its own'],
  ['stepline/vue', 'a Vue page', '`useAgentRun` over `stepline/echo`; no wasm of its own'],
  ['stepline/devtools-overlay', 'your page, in development only', '`<stepline-devtools>`: the dock and badge; the panel and the `stepline/devtools` wasm load when it is opened'],
  ['stepline/devtools-overlay/react', 'the same in React', '`<SteplineDevtools />` over `stepline/devtools-overlay`'],
  ['stepline/devtools-overlay/vue', 'the same in Vue', '`<SteplineDevtools />` over `stepline/devtools-overlay`'],
];

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The table's markdown for the figures of one build (`sizes.entries[name].gz`). */
export function entriesTable(sizes) {
  const rows = ENTRIES.map(([name, who, what]) => {
    const size = sizes.entries[name];
    if (!size) throw new Error(`pkg/sizes.json has no figure for ${name}`);
    return `| \`${name}\` | ${who} | ${what} | ${kb(size.gz)} |`;
  });
  return [
    BEGIN,
    '| entry | for | holds | gzipped (wasm + JS) |',
    '|---|---|---|--:|',
    ...rows,
    END,
  ].join('\n');
}

/** The table as it stands in `text` (a README), or null when its markers are missing. */
export function tableIn(text) {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  return start === -1 || end < start ? null : text.slice(start, end + END.length);
}

/** Rewrites the table in the README at `path` from `sizes`; returns whether it changed. */
export function writeEntriesTable(path, sizes) {
  const text = readFileSync(path, 'utf8');
  const old = tableIn(text);
  if (old === null) throw new Error(`${path} has no entries table (the ${BEGIN} and ${END} markers)`);
  const table = entriesTable(sizes);
  if (table === old) return false;
  writeFileSync(path, text.replace(old, table));
  return true;
}
