import { Session, diagnose } from 'stepline';
import { generateEnvelopes } from '../../bench/generate-envelopes.mjs';
const which = process.argv[2];
for (const n of [10_000, 20_000, 40_000, 80_000]) {
  const env = generateEnvelopes({ envelopes: n });
  const text = env.map((e) => JSON.stringify(e)).join('\n');
  const lines = text.split('\n');
  const times = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    if (which === 'bulk') new Session().ingestJsonl(text);
    if (which === 'chunked') { const s2 = new Session(); for (let i = 0; i < lines.length; i += 1000) s2.ingestJsonl(lines.slice(i, i + 1000).join('\n')); }
    if (which === 'diagnose') diagnose({ envelopes: env });
    if (which === 'diagnose-str') diagnose(`{"envelopes":[${lines.join(',')}]}`);
    if (which === 'snap') { const s = new Session(); s.ingestJsonl(text); const t2 = performance.now(); s.getSnapshot(); times.push(performance.now() - t2); continue; }
    if (which === 'json') lines.map((l) => JSON.parse(l));
    times.push(performance.now() - t);
  }
  console.log(which, n, times.map((x) => x.toFixed(0)).join(' '));
}
