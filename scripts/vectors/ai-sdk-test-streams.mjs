// Copies the UI message chunk streams the AI SDK's own tests feed its reducer
// (`processUIMessageStream`, `readUIMessageStream`) into
// tests/vectors/dialects/ai-sdk/, one file per test group, with provenance.
//
// usage: node scripts/vectors/ai-sdk-test-streams.mjs <vercel/ai git dir> <rev> [out dir]
//   e.g. node scripts/vectors/ai-sdk-test-streams.mjs /work/.mirror/vercel+ai/repo release-v6.0
//
// Only streams that start from an empty message (`lastMessage: undefined`, or
// readUIMessageStream without `message`) are taken: stepline reads a stream
// from its start. The arrays are TypeScript object literals; they are
// evaluated as JavaScript after dropping `as const` casts.

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [gitDir, rev, outDir = 'tests/vectors/dialects/ai-sdk/upstream'] = process.argv.slice(2);
if (!gitDir || !rev) {
  console.error('usage: ai-sdk-test-streams.mjs <vercel/ai git dir> <rev> [out dir]');
  process.exit(2);
}

const git = (...args) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
const commit = git('rev-parse', `${rev}^{commit}`).trim();
const version = JSON.parse(git('show', `${commit}:packages/ai/package.json`)).version;

const FILES = [
  'packages/ai/src/ui/process-ui-message-stream.test.ts',
  'packages/ai/src/ui-message-stream/read-ui-message-stream.test.ts',
];

/** The index just past the bracket that closes the one at `open`, skipping strings and comments. */
function closing(text, open) {
  const pairs = { '[': ']', '{': '}', '(': ')' };
  const stack = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') { i = text.indexOf('\n', i); continue; }
    if (c === '/' && text[i + 1] === '*') { i = text.indexOf('*/', i) + 1; continue; }
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === ']' || c === '}' || c === ')') {
      if (stack.pop() !== c) throw new Error(`unbalanced ${c} at ${i}`);
      if (stack.length === 0) return i + 1;
    }
  }
  throw new Error('unterminated literal');
}

const lineOf = (text, at) => text.slice(0, at).split('\n').length;
const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

mkdirSync(outDir, { recursive: true });
const written = [];
for (const file of FILES) {
  const text = git('show', `${commit}:${file}`);
  // Every stream literal, named after the innermost describe/it that encloses it.
  const marker = /createUIMessageStream\(\s*\[/g;
  let m;
  const seen = new Set();
  while ((m = marker.exec(text))) {
    const open = text.indexOf('[', m.index);
    const end = closing(text, open);
    const literal = text.slice(open, end).replace(/\s+as const/g, '');
    let chunks;
    try {
      chunks = new Function(`return ${literal};`)();
    } catch {
      continue; // built from variables the test defines elsewhere: not a literal stream
    }
    const after = text.slice(end, end + 1200);
    const resumed = /lastMessage:\s*(?!\s|undefined)/.test(after.split(/\bdescribe\(|\bit\(/)[0])
      || /\bmessage:\s*\{/.test(after.split(/\bdescribe\(|\bit\(/)[0]);
    if (resumed) continue;
    const before = text.slice(0, m.index);
    const names = [...before.matchAll(/\b(describe|it)\(\s*(['"`])(.*?)\2/g)];
    const name = names.length ? names[names.length - 1][3] : 'stream';
    let id = slug(name);
    for (let k = 2; seen.has(id); k++) id = `${slug(name)}-${k}`;
    seen.add(id);
    const base = file.includes('read-ui') ? `read-${id}` : id;
    const vector = {
      name,
      source: { repository: 'https://github.com/vercel/ai', commit, version, file, line: lineOf(text, open) },
      chunks,
    };
    writeFileSync(join(outDir, `${base}.json`), JSON.stringify(vector, null, 2) + '\n');
    written.push(base);
  }
}
console.log(`ai@${version} ${commit}: ${written.length} streams`);
for (const w of written) console.log(`  ${w}`);
