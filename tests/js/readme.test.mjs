// Every code block of README.md, pkg-template/README.md (the package README the
// build copies to pkg/README.md) and the docs site's pages (docs/) runs here against the built package, as written:
// the blocks are read from the files now, never from a copy. Each JavaScript block is
//   - run as an ES module (CommonJS if it uses `require` and no `import`; `jsx` blocks
//     compiled with React's automatic runtime), with only the context it leaves out
//     (readme/contexts.mjs: `sessionId`, an Echo channel, a stored state, …), in a
//     temporary folder inside node_modules so `stepline` resolves through the real
//     exports map; a line `expr; // <JSON literal>` is checked to give that value, and
//     a check that never ran fails;
//   - type-checked as TypeScript under `strict`, the way a TypeScript user pastes it,
//     against the package's own declarations (one tsc run for all blocks).
// Not run, and said so by a skipped test: `sh` blocks (commands typed at a terminal;
// the CLI has its own tests in cli.test.mjs), `text` blocks (diagrams) and `php` blocks
// (the Laravel side; the JavaScript that calls those routes runs here against a fetch
// answering with the same shapes, readme/context.mjs `laravelApp`). `json`
// blocks are quoted results: each must be claimed by the example before it (`output`
// in its context) and is compared with what that example returns. A block in any other
// language, or without one, fails: say what it is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { CONTEXTS } from './readme/contexts.mjs';
import { FAKE_REACT } from './readme/context.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The docs site's pages too, but not the design seeds (source material, cited by tests) nor
// the generated API reference (its examples are the declarations' doc comments).
const DOCS_SKIPPED = /^docs\/(seeds|reference\/api|\.vitepress)\//;
const FILES = ['README.md', 'pkg-template/README.md', ...readdirSync(join(root, 'docs'), { recursive: true })
  .map((f) => `docs/${f.split('\\').join('/')}`)
  .filter((f) => f.endsWith('.md') && !DOCS_SKIPPED.test(f))
  .sort()];
const NOT_RUN = {
  sh: 'shell commands typed at a terminal, not run here (the CLI is tested in cli.test.mjs)',
  text: 'a diagram, not code',
  php: 'server-side Laravel code; the JS that calls these routes runs here against a test server that returns the same shapes',
};
const RUN = new Set(['js', 'jsx']);

/** The fenced blocks of a Markdown file: `{ file, line, lang, code }`. */
function extractBlocks(file) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks = [];
  let open = null;
  lines.forEach((text, i) => {
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)\s*$/.exec(text);
    if (open === null) {
      if (fence) open = { fence: fence[1], lang: fence[2], line: i + 1, body: [] };
    } else if (fence && fence[2] === '' && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length) {
      blocks.push({ file, line: open.line, lang: open.lang, code: open.body.join('\n') });
      open = null;
    } else {
      open.body.push(text);
    }
  });
  assert.equal(open, null, `${file}: the code block opened at line ${open?.line} is never closed`);
  return blocks;
}

const blocks = FILES.flatMap(extractBlocks);
const name = (b) => `${b.file}:${b.line} (${b.lang || 'no language'})`;
const isCommonJs = (code) => /\brequire\(/.test(code) && !/^\s*(import|export)\b/m.test(code);

/** The context of each block, and of each json block the example it belongs to. */
const contextOf = new Map();
const outputOwner = new Map();
for (const context of CONTEXTS) {
  const owners = blocks.filter((b) => b.file === context.file && b.code.includes(context.match));
  assert.equal(owners.length, 1, `context ${JSON.stringify(context.match)} matches ${owners.length} blocks of ${context.file}, not one`);
  contextOf.set(owners[0], context);
  if (context.output) {
    const next = blocks[blocks.indexOf(owners[0]) + 1];
    assert.ok(next?.lang === 'json', `${name(owners[0])} claims the next block as its output, but that is not a json block`);
    outputOwner.set(next, owners[0]);
  }
}

// `expr; // "value"` (or a number, true, false, null): the line is checked to give that value.
const LITERAL = String.raw`"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null`;
const CHECKED_LINE = new RegExp(String.raw`^(\s*)(.+?);\s*//\s*(${LITERAL})(?=\s|$)`);
const NOT_AN_EXPRESSION = /^(const|let|var|import|export|return|if|for|while|switch|case|throw|function|class)\b|[^=!<>]=[^=>]/;

let nextCheck = 0;
const checks = new Map(); // id -> { block, line, ran }

/** Brackets closed in order: a whole expression, not the tail of a call across lines. */
function balanced(text) {
  const open = [];
  for (const c of text.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '')) {
    if ('([{'.includes(c)) open.push(c);
    else if (')]}'.includes(c) && open.pop() !== '([{'[')]}'.indexOf(c)]) return false;
  }
  return open.length === 0;
}

/** The block with its checked lines turned into assertions. */
function withChecks(block) {
  return block.code.split('\n').map((text, i) => {
    const m = CHECKED_LINE.exec(text);
    if (!m || NOT_AN_EXPRESSION.test(m[2].trim()) || !balanced(m[2])) return text;
    const id = nextCheck++;
    checks.set(id, { block, line: block.line + 1 + i, ran: false, text: text.trim() });
    return `${m[1]}__readme.check(${id}, (${m[2].trim()}), ${m[3]});`;
  }).join('\n');
}

/**
 * What a json block shows: its values exactly, where a trailing "… …" string stands for more
 * items and a "…" string value for a string that changes from run to run (a time).
 */
function assertShows(actual, shown, path = '') {
  if (shown === '…') {
    assert.equal(typeof actual, 'string', `${path}: expected a string`);
  } else if (Array.isArray(shown)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array`);
    const last = shown.at(-1);
    const elided = typeof last === 'string' && last.startsWith('…');
    const listed = elided ? shown.slice(0, -1) : shown;
    if (elided) assert.ok(actual.length >= listed.length, `${path}: fewer items than shown`);
    else assert.equal(actual.length, shown.length, `${path}: length`);
    listed.forEach((item, i) => assertShows(actual[i], item, `${path}/${i}`));
  } else if (shown !== null && typeof shown === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object`);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(shown).sort(), `${path}: keys`);
    for (const key of Object.keys(shown)) assertShows(actual[key], shown[key], `${path}/${key}`);
  } else {
    assert.deepEqual(actual, shown, `${path || '/'}`);
  }
}

const work = mkdtempSync(join(root, 'node_modules', '.stepline-readme-'));
const startDir = process.cwd();
// The examples' `react` is the stand-in written below and their `pusher-js` the
// in-process server's client (readme/fake-pusher.mjs), also where stepline/react,
// @laravel/echo-react and @laravel/echo-vue import them from the real node_modules.
register(pathToFileURL(join(root, 'tests', 'js', 'readme', 'resolve-hooks.mjs')), {
  data: {
    react: pathToFileURL(join(work, 'node_modules', 'react', 'index.js')).href,
    'react/jsx-runtime': pathToFileURL(join(work, 'node_modules', 'react', 'jsx-runtime.js')).href,
    'pusher-js': pathToFileURL(join(root, 'tests', 'js', 'readme', 'fake-pusher.mjs')).href,
  },
});
after(() => {
  process.chdir(startDir);
  rmSync(work, { recursive: true, force: true });
});

before(() => {
  writeFileSync(join(work, 'package.json'), '{ "type": "module", "private": true }\n');
  const react = join(work, 'node_modules', 'react');
  mkdirSync(react, { recursive: true });
  for (const [file, text] of Object.entries(FAKE_REACT)) writeFileSync(join(react, file), text);
  // Examples read and write files by relative name (`fs.readFileSync('workers.jsonl')`).
  process.chdir(work);
});

const contextUrl = pathToFileURL(join(root, 'tests', 'js', 'readme', 'context.mjs')).href;
const fileBase = (b) => `${b.file.replace(/\W+/g, '_')}_${b.line}`;

/** Runs one block; resolves to what it logged. */
async function runBlock(block) {
  const context = contextOf.get(block) ?? {};
  const logged = [];
  const state = {
    logged,
    outputs: {},
    check(id, actual, expected) {
      const c = checks.get(id);
      c.ran = true;
      assert.deepEqual(actual, expected, `${block.file}:${c.line}: \`${c.text}\``);
    },
  };
  globalThis.__readme = state;
  const base = join(work, fileBase(block));
  if (isCommonJs(block.code)) {
    assert.equal(block.lang, 'js');
    writeFileSync(`${base}.cjs`, `${context.setup ?? ''}\n${withChecks(block)}\n${context.after ?? ''}\n`);
  } else {
    let source = [
      "import assert from 'node:assert/strict';",
      `import * as __ctx from ${JSON.stringify(contextUrl)};`,
      'const __readme = globalThis.__readme;',
      context.setup ?? '',
      withChecks(block),
      context.after ?? '',
      context.output ? `__readme.outputs.value = ${context.output};` : '',
    ].join('\n');
    if (block.lang === 'jsx') {
      // Vite's own JSX transform (a dev dependency), React's automatic runtime.
      const { transformWithOxc } = await import('vite');
      source = (await transformWithOxc(source, `${base}.jsx`, { jsx: { runtime: 'automatic' } })).code;
    }
    writeFileSync(`${base}.mjs`, source);
  }
  const log = console.log;
  console.log = (...args) => logged.push(args);
  try {
    if (isCommonJs(block.code)) createRequire(import.meta.url)(`${base}.cjs`);
    else await import(pathToFileURL(`${base}.mjs`).href);
  } finally {
    console.log = log;
    delete globalThis.__readme;
  }
  for (const c of checks.values()) {
    if (c.block === block) assert.ok(c.ran, `${block.file}:${c.line}: \`${c.text}\` never ran`);
  }
  return state;
}

const results = new Map();
for (const block of blocks) {
  if (block.lang in NOT_RUN) {
    test(`${name(block)}: not run`, { skip: NOT_RUN[block.lang] }, () => {});
  } else if (block.lang === 'json') {
    test(`${name(block)}: the output its example returns`, async () => {
      const owner = outputOwner.get(block);
      assert.ok(owner, `${name(block)} is quoted output, but no example claims it (set \`output\` in its context)`);
      const state = await (results.get(owner) ?? runBlock(owner));
      assertShows(JSON.parse(JSON.stringify(state.outputs.value)), JSON.parse(block.code));
    });
  } else if (RUN.has(block.lang)) {
    test(`${name(block)}: runs against the built package`, async () => {
      const run = runBlock(block);
      results.set(block, run);
      await run;
    });
  } else {
    test(`${name(block)}: has a language this test knows`, () => {
      assert.fail(`${name(block)}: mark it js or jsx (run), json (quoted output), sh or text (not run)`);
    });
  }
}

test('every context belongs to a block and every block of the READMEs is accounted for', () => {
  assert.ok(blocks.length >= 20, `only ${blocks.length} code blocks found`);
  assert.equal(contextOf.size, CONTEXTS.length);
});

test('the TypeScript a user pastes from each example type-checks under strict', () => {
  const dir = join(work, 'types');
  mkdirSync(dir, { recursive: true });
  const files = new Map();
  for (const block of blocks.filter((b) => RUN.has(b.lang))) {
    const context = contextOf.get(block) ?? {};
    const ext = isCommonJs(block.code) ? 'cts' : block.lang === 'jsx' ? 'tsx' : 'mts';
    const file = `${fileBase(block)}.${ext}`;
    // CommonJS: `require` as Node's types declare it; a .cts file is checked as CommonJS.
    writeFileSync(join(dir, file), `${context.declare ?? ''}\n${block.code}\nexport {};\n`);
    files.set(file, block);
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      moduleDetection: 'force',
      target: 'es2022',
      // dom: the browser entries' init() takes a Response or a URL; disposable: the handle classes.
      lib: ['es2022', 'dom', 'esnext.disposable'],
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
      jsx: 'react-jsx',
      skipLibCheck: true,
    },
    files: [...files.keys()],
  }, null, 2));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  const errors = `${r.stdout}${r.stderr}`.split('\n').filter((l) => /error TS\d+/.test(l)).map((l) => {
    // "<file>(line,col): error TSnnnn: …" -> the README line it comes from.
    const m = /^(.*?)\((\d+),(\d+)\): (.*)$/.exec(l);
    const block = m && files.get(m[1].split(/[\\/]/).pop());
    if (!block) return l;
    const context = contextOf.get(block) ?? {};
    const declared = (context.declare ?? '').split('\n').length;
    const line = Number(m[2]) - declared;
    return line >= 1 ? `${block.file}:${block.line + line}: ${m[4]}` : `${name(block)}, its declared context: ${m[4]}`;
  });
  assert.deepEqual(errors, [], `tsc exited with ${r.status}:\n${errors.join('\n')}`);
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
