// Section `echo`: what stepline/echo's feed costs a live page on top of the bare live loop.
// Both loops read the view after every event, as a rendering page does: the bare one is
// `session.ingest(envelope)` + `session.getSnapshot()`, the feed's is `feed.receive(name,
// envelope)` (Echo's `listenToAll` callback: the core decides the name, ingests, and the
// feed looks for a late page's gaps) + `feed.getSnapshot()` (the view with the connection
// state). Same run (bench/generate-envelopes.mjs, 10,000 envelopes), rounds run back to
// back; the figure is the median of the rounds' ratios. No target: issue 19 sets none.
import { Session } from 'stepline';
import { createAgentFeed } from 'stepline/echo';

import { generateEnvelopes } from '../generate-envelopes.mjs';
import { loop as bare } from './live.mjs';
import { int, markdownTable, measure, pairedRatio, printTable, rate, summarize } from '../lib/measure.mjs';

const N = 10_000;
const BARE = 'session.ingest + getSnapshot';
const FEED = 'feed.receive + getSnapshot';

function fed(envelopes) {
  return () => {
    const session = new Session();
    // A page's feed has a resync: the gap check runs on every event until one ran.
    const feed = createAgentFeed(session, { resync: () => [] });
    let view;
    for (const envelope of envelopes) {
      feed.receive('.instructor.agent.event', envelope);
      view = feed.getSnapshot().view;
    }
    feed.dispose();
    return { handle: session, view };
  };
}

export default async function echo({ runs, report }) {
  console.log(`\n=== stepline/echo: the feed next to the bare live loop (${int(N)} envelopes, view read after each)`);
  const envelopes = generateEnvelopes({ envelopes: N });
  const check = (label, { view }) => {
    if (view.counts.applied !== envelopes.length) throw new Error(`${label} did not apply every envelope`);
  };
  const results = await measure({ [BARE]: bare(envelopes), [FEED]: fed(envelopes) }, { warmup: 1, runs, check });
  const rows = summarize(results, BARE);
  printTable(rows, BARE);
  const overhead = pairedRatio(results, BARE, FEED);
  console.log(`\n  feed / bare, median of the rounds' ratios: ${overhead.toFixed(2)}x`);
  report.section('echo', [
    '## stepline/echo\'s feed next to the bare live loop',
    '',
    `bench/generate-envelopes.mjs's run, ${int(N)} envelopes, the view read after every one. The feed's loop is what`,
    'an Echo page runs: `feed.receive(".instructor.agent.event", envelope)` (the core decides the name and',
    'ingests; the feed looks for a late page\'s gaps) and `feed.getSnapshot()`.',
    '',
    ...markdownTable(rows, BARE),
    '',
    `- ${BARE}: ${rate(N, rows[0].median)} envelopes`,
    `- ${FEED}: ${rate(N, rows[1].median)} envelopes`,
    '',
    `feed / bare: ${overhead.toFixed(2)}× (median of the rounds' ratios).`,
  ]);
}
