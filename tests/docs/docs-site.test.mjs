// The docs site (issue 31), after `npm run docs:build` (the docs layer of scripts/test.mjs
// runs it first): the built pages' internal links lead to a page or file that exists and
// their anchors to an id on it (VitePress's own check knows pages, not anchors); the JS API
// reference has a section for every export of every entry of the package's exports map,
// runtime names and declared types alike; and every SteplineError code of src/error.rs has
// its section on the codes page. The pages' code blocks run in tests/js/readme.test.mjs.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { apiPages, declarations, entries } from '../../scripts/gen-api-docs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'docs', '.vitepress', 'dist');

/** `## name` / `### name` headings of a Markdown text. */
const headings = (text) => new Set([...text.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1].trim()));

test('every SteplineError code of src/error.rs has a section on docs/reference/errors.md', () => {
  const source = readFileSync(join(root, 'src', 'error.rs'), 'utf8');
  const codes = [...source.matchAll(/ErrorCode::\w+ => "(\w+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 9, `only ${codes.length} codes read from src/error.rs`);
  const documented = headings(readFileSync(join(root, 'docs', 'reference', 'errors.md'), 'utf8'));
  assert.deepEqual(codes.filter((c) => !documented.has(c)), [], 'codes without a section on docs/reference/errors.md');
});

test('the API reference has a page for every entry of the exports map', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'pkg', 'package.json'), 'utf8'));
  const expected = Object.keys(manifest.exports)
    .filter((k) => !k.endsWith('.wasm') && !k.includes('*') && k !== './package.json')
    .map((k) => (k === '.' ? 'stepline.md' : `${k.slice(2)}.md`));
  const pages = Object.keys(apiPages());
  assert.deepEqual(expected.filter((p) => !pages.includes(p)), []);
});

for (const [entry, , types] of entries()) {
  test(`the API reference lists every export of ${entry}`, async () => {
    const slug = entry === 'stepline' ? 'stepline' : entry.slice('stepline/'.length);
    const page = headings(apiPages()[`${slug}.md`]);
    // What the module exports at run time, and every type its declarations export.
    const runtime = Object.keys(await import(entry));
    const declared = declarations(types).map((d) => d.name);
    const missing = [...new Set([...runtime, ...declared])].filter((name) => !page.has(name));
    assert.deepEqual(missing, [], `exports of ${entry} missing from docs/reference/api/${slug}.md`);
    assert.ok(runtime.length > 0 && declared.length >= runtime.length - 1, `${entry}: ${runtime.length} runtime, ${declared.length} declared`);
  });
}

/** Every built page: path relative to dist -> { ids, links }. */
function builtPages() {
  const pages = new Map();
  for (const file of readdirSync(dist, { recursive: true })) {
    const rel = file.split('\\').join('/');
    if (!rel.endsWith('.html')) continue;
    const html = readFileSync(join(dist, file), 'utf8');
    const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
    const links = [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    pages.set(rel, { ids, links });
  }
  return pages;
}

test('the built site exists (npm run docs:build)', () => {
  assert.ok(existsSync(join(dist, 'index.html')), 'docs/.vitepress/dist/index.html is missing: run npm run docs:build');
});

test('every internal link of the built site leads to a page or file, and every anchor to an id on it', { skip: !existsSync(dist) && 'no built site' }, () => {
  const pages = builtPages();
  assert.ok(pages.size >= 30, `only ${pages.size} pages built`);
  const broken = [];
  for (const [page, { links }] of pages) {
    for (const href of links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // http:, mailto:, …
      const [pathPart, anchor] = href.split('#');
      let target = pathPart === '' ? page : pathPart.startsWith('/') ? pathPart.slice(1) : posix.join(posix.dirname(page), pathPart);
      target = decodeURIComponent(target);
      if (target === '' || target.endsWith('/')) target += 'index.html';
      if (!pages.has(target) && pages.has(`${target}.html`)) target += '.html';
      if (!pages.has(target) && !existsSync(join(dist, target))) {
        broken.push(`${page}: ${href} (no ${target})`);
        continue;
      }
      if (anchor && pages.has(target) && !pages.get(target).ids.has(decodeURIComponent(anchor))) {
        broken.push(`${page}: ${href} (no id "${anchor}" on ${target})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('every page of the site is in the sidebar (the JS API pages through its index)', () => {
  const config = readFileSync(join(root, 'docs', '.vitepress', 'config.mts'), 'utf8');
  const sidebar = config.slice(config.indexOf('sidebar:'));
  const linked = new Set([...sidebar.matchAll(/link: '([^']+)'/g)].map((m) => m[1]));
  const pages = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, 'docs', dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        // Source material (seeds), VitePress's own folder and the generated API pages.
        if (!['seeds', '.vitepress', 'reference/api'].includes(rel)) walk(rel);
      } else if (entry.name.endsWith('.md') && rel !== 'index.md') {
        pages.push(rel);
      }
    }
  };
  walk('');
  const route = (page) => `/${page.replace(/(^|\/)index\.md$/, '$1').replace(/\.md$/, '')}`;
  const missing = pages.filter((page) => !linked.has(route(page)));
  assert.deepEqual(missing, [], 'pages no sidebar entry links to');
  assert.ok(linked.has('/reference/api/'), 'the JS API index is in the sidebar');
});
