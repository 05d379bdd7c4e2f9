// Writes the docs site's JS API reference (docs/reference/api/, not committed) from the
// built package: one page per entry of pkg/package.json's exports map, each export with
// its declaration and its doc comment (examples included), read from the entry's own
// .d.ts and the files it re-exports. TypeDoc would be the usual tool, but it runs on
// TypeScript's JavaScript API, which the TypeScript 7 the repository builds with no
// longer has; the declarations wasm-bindgen and the hand-written entries emit are regular
// enough (one top-level `export` per declaration, its doc comment right above) to read
// directly. tests/docs/docs-site.test.mjs checks every runtime and type export of every
// entry has its section.
//
//   node scripts/gen-api-docs.mjs            writes docs/reference/api/*.md
//   import { apiPages } from this module     the pages as { file: text }, written nowhere
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The entries of the exports map: `[name, subpath, types file]`, the code entries only. */
export function entries(pkgDir = join(root, 'pkg')) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const out = [];
  for (const [key, target] of Object.entries(manifest.exports)) {
    if (key.endsWith('.wasm') || key.includes('*') || key === './package.json') continue;
    // A conditional entry (`.`, `./devtools`) is documented by its Node ES module declarations.
    const types = target.node ? target.node.import.types : target.types;
    out.push([key === '.' ? 'stepline' : `stepline/${key.slice(2)}`, key, join(pkgDir, types)]);
  }
  return out;
}

/** Top-level declarations of a .d.ts and the files it re-exports: `{ name, kind, doc, code, members }`. */
export function declarations(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  let doc = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('/**')) {
      const start = i;
      while (!lines[i].includes('*/')) i++;
      doc = lines.slice(start, i + 1);
      continue;
    }
    const reexport = /^export \* from '(.+)\.js';/.exec(line);
    if (reexport) {
      out.push(...declarations(resolve(dirname(file), `${reexport[1]}.d.ts`), seen));
      doc = null;
      continue;
    }
    const named = /^export (type )?\{([^}]+)\} from '(.+)\.js';/.exec(line);
    if (named && !/^export \{ default \}/.test(line)) {
      // `export type { A, B } from './echo.js'`: declared there; listed here with a pointer.
      const from = named[3].replace(/^\.\//, '');
      for (const name of named[2].split(',').map((n) => n.trim()).filter(Boolean)) {
        if (!out.some((d) => d.name === name)) out.push({ name, kind: named[1] ? 'type' : 'const', doc: null, code: line, members: [], from });
      }
      doc = null;
      continue;
    }
    if (/^export \{ default \} from/.test(line) && !out.some((d) => d.name === 'default')) {
      out.push({ name: 'default', kind: 'function', doc: null, code: line, members: [] });
      doc = null;
      continue;
    }
    const decl = /^export (?:declare )?(default )?(function|class|interface|type|const|enum|abstract class) (\w+)/.exec(line);
    if (!decl) {
      if (line.trim() !== '' && !line.startsWith('//') && !line.startsWith(' *')) doc = null;
      continue;
    }
    // The declaration runs to its closing `}` at column 0 (class, interface) or to the first
    // line at column 0 ending in `;` (function, type, const).
    const start = i;
    if (/[{]\s*$/.test(line) && !line.includes('}')) {
      while (i < lines.length && lines[i] !== '}' && !lines[i].startsWith('};')) i++;
    } else {
      while (i < lines.length - 1 && !/;\s*$/.test(lines[i])) i++;
    }
    const body = lines.slice(start, i + 1);
    const name = decl[1] ? 'default' : decl[3];
    const kind = decl[2];
    const members = kind === 'class' || kind === 'interface' ? classMembers(body) : [];
    // A class's members are documented one by one; its code shows the signatures only.
    const code = kind === 'class' ? stripDocs(body).join('\n') : body.join('\n');
    const same = out.find((d) => d.name === name);
    if (!same) out.push({ name, kind, doc, code, members: kind === 'class' ? members : [], own: members });
    else if (kind === 'function') same.code += `\n${body.join('\n')}`; // overloads
    // An interface beside a class of its name adds methods written in JavaScript
    // (`Session.getSnapshot`, pkg-template/view.js): they are the class's members.
    else if (same.kind === 'class' && kind === 'interface') same.members.push(...members);
    else if (same.kind === 'interface' && kind === 'class') Object.assign(same, { kind, doc, code, members: [...members, ...same.own] });
    doc = null;
  }
  return out;
}

function stripDocs(body) {
  const out = [];
  let inDoc = false;
  for (const l of body) {
    if (/^\s*\/\*\*/.test(l)) inDoc = !l.includes('*/');
    else if (inDoc) { if (l.includes('*/')) inDoc = false; }
    else if (!/^\s*\/\/ /.test(l)) out.push(l);
  }
  return out;
}

/** The documented members of a class body: `{ name, doc, code }`. */
function classMembers(body) {
  const members = [];
  const pad = /^\s*/.exec(body.find((l, k) => k > 0 && l.trim() !== '') ?? '  ')[0];
  const docStart = new RegExp(`^${pad}\\/\\*\\*`);
  const memberStart = new RegExp(`^${pad}\\S`);
  for (let i = 1; i < body.length - 1; i++) {
    if (!docStart.test(body[i])) continue;
    const start = i;
    while (!body[i].includes('*/')) i++;
    const doc = body.slice(start, i + 1);
    const sig = [];
    i++;
    while (i < body.length - 1 && !docStart.test(body[i])) {
      sig.push(body[i]);
      if (/;\s*$/.test(body[i]) && memberStart.test(sig[0])) break;
      i++;
    }
    const head = (sig[0] ?? '').trim();
    const m = /^(?:static |readonly |get |set |private |\[)*(\w+)?/.exec(head);
    const name = head.startsWith('constructor') ? 'constructor' : m?.[1] ?? head;
    if (sig.length) members.push({ name, doc, code: sig.map((l) => (l.startsWith(pad) ? l.slice(pad.length) : l)).join('\n') });
  }
  return members;
}

/** Doc comment lines to Markdown; prose is escaped for VitePress's Vue templates. */
function docText(doc) {
  if (!doc) return '';
  const text = doc.map((l) => l.replace(/^\s*\/\*\*\s?/, '').replace(/\s*\*\/\s*$/, '').replace(/^\s*\* ?/, '')).join('\n').trim();
  const out = [];
  let fence = false;
  let bareExample = false; // an @example whose code has no fence of its own
  for (let line of text.split('\n')) {
    if (bareExample && /^@/.test(line)) {
      out.push('```');
      bareExample = false;
    }
    if (!fence && !bareExample && /^@example\s*$/.test(line)) {
      out.push('', '**Example**', '');
      const next = text.split('\n')[text.split('\n').indexOf(line) + 1] ?? '';
      if (!/^\s*```/.test(next)) {
        out.push('```js');
        bareExample = true;
      }
      continue;
    }
    if (bareExample) { out.push(line); continue; }
    if (/^\s*```/.test(line)) {
      fence = !fence;
      out.push(line);
      continue;
    }
    if (fence) { out.push(line); continue; }
    line = line
      .replace(/^@example\s*(.*)$/, (_, t) => `\n**Example**${t ? ` ${t}` : ''}\n`)
      .replace(/^@param\s+(?:\{.*\}\s+)?(\S+)\s*-?\s*/, '- `$1`: ')
      .replace(/^@returns?\s*/, '- returns: ')
      .replace(/^@throws\s*/, '- throws: ')
      .replace(/^@deprecated\s*/, '**Deprecated.** ');
    // Outside code spans, `<` would open an HTML tag and `{{` a Vue interpolation.
    out.push(line.split(/(`[^`]*`)/).map((part, k) => (k % 2 ? part : part.replace(/</g, '&lt;').replace(/\{\{/g, '&#123;&#123;'))).join(''));
  }
  if (fence || bareExample) out.push('```');
  return out.join('\n');
}

const KIND_ORDER = ['function', 'class', 'abstract class', 'const', 'enum', 'interface', 'type'];
const KIND_TITLE = { function: 'Functions', class: 'Classes', 'abstract class': 'Classes', const: 'Constants', enum: 'Enums', interface: 'Interfaces', type: 'Types' };

/** The reference pages: `{ 'index.md': text, '<entry>.md': text, … }`. */
export function apiPages(pkgDir = join(root, 'pkg')) {
  const pages = {};
  const index = ['# JS API reference', '',
    'Generated by `scripts/gen-api-docs.mjs` from the built package\'s declarations (`npm run docs:build` runs it after `npm run build`):',
    'every export of every entry of the package\'s exports map, with its doc comment and examples.', '',
    '| entry | page |', '|---|---|'];
  for (const [entry, , types] of entries(pkgDir)) {
    const slug = entry === 'stepline' ? 'stepline' : entry.slice('stepline/'.length);
    index.push(`| \`${entry}\` | [${entry}](./${slug}) |`);
    const decls = declarations(types);
    const page = [`# ${entry}`, '', `\`import … from '${entry}'\`: ${decls.length} exports, from \`${types.slice(pkgDir.length + 1)}\`.`, ''];
    for (const kind of KIND_ORDER) {
      const group = decls.filter((d) => d.kind === kind);
      if (group.length === 0 || (kind === 'abstract class' && decls.some((d) => d.kind === 'class'))) continue;
      page.push(`## ${KIND_TITLE[kind]}`, '');
      for (const d of group) {
        if (d.from) {
          page.push(`### ${d.name}`, '', `Re-exported from \`${d.from}\`: [${d.name}](./${d.from.replace(/\.d\.ts$|\.js$/, '')}#${d.name.toLowerCase()}).`, '');
          continue;
        }
        page.push(`### ${d.name}`, '', '```ts', d.code, '```', '');
        const text = docText(d.doc);
        if (text) page.push(text, '');
        for (const m of d.members) {
          page.push(`#### ${d.name}.${m.name}`, '', '```ts', m.code, '```', '');
          const mt = docText(m.doc);
          if (mt) page.push(mt, '');
        }
      }
    }
    pages[`${slug}.md`] = page.join('\n');
  }
  pages['index.md'] = `${index.join('\n')}\n`;
  return pages;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!existsSync(join(root, 'pkg', 'package.json'))) {
    console.error('gen-api-docs: pkg/ is missing; run npm run build first');
    process.exit(1);
  }
  const dir = join(root, 'docs', 'reference', 'api');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const pages = apiPages();
  for (const [file, text] of Object.entries(pages)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true }); // entries such as devtools-overlay/react
    writeFileSync(join(dir, file), text);
  }
  console.log(`gen-api-docs: wrote ${Object.keys(pages).length} pages to docs/reference/api/`);
}
