#!/usr/bin/env node
// Generates the package's TypeScript declarations and JSON Schemas from the Rust
// types that declare every shape (src/schema.rs, feature `schema`):
//
//   schemas/stepline.schema.json      every shape, under $defs by its TypeScript name
//   src/wasm/generated/types.d.ts     the same shapes as TypeScript (json-schema-to-typescript),
//                                     shipped in the package's .d.ts by src/wasm/types.rs
//   schemas/snapshot.schema.json      the published slim snapshot schema, which snapshotSchema()
//                                     returns (stepline::schema::snapshot)
//   schemas/envelopes/<type>.schema.json
//                                     one self-contained schema per envelope type, cut from
//                                     the bundle
//   pkg-template/view.js              its block between the `@generated` lines: the view's,
//                                     an execution's and a step's fields in order, as object literals
//
//   npm run gen             writes both
//   npm run gen -- --check  exits 1 when either is not what the Rust types generate now
//                           (run by the lint layer of `npm test`)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

const SCHEMA_FILE = join(root, 'schemas', 'stepline.schema.json');
const TYPES_FILE = join(root, 'src', 'wasm', 'generated', 'types.d.ts');
const SNAPSHOT_FILE = join(root, 'schemas', 'snapshot.schema.json');
const ENVELOPES_DIR = join(root, 'schemas', 'envelopes');
const VIEW_FILE = join(root, 'pkg-template', 'view.js');

/** The schema bundle (or with `snapshot`, the published snapshot schema), as the Rust declarations generate it now. */
function rustBundle(...args) {
  const text = execFileSync('cargo', ['run', '--quiet', '--features', 'schema', '--bin', 'stepline-schemas', '--', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  });
  return JSON.parse(text);
}

/**
 * The bundle as json-schema-to-typescript should read it (the JSON Schema itself is
 * already right): a `$ref` with a sibling description becomes `allOf: [{$ref}]` (else
 * the generator declares a copy of the type per documented field), a schema that
 * says nothing of its type is `unknown` (else it becomes an object), an object
 * without listed properties is a record (else `{}`), and a `readOnly` array of named
 * items is a readonly array (the view's shared, immutable lists).
 */
function forTypeScript(schema) {
  if (Array.isArray(schema)) return schema.map(forTypeScript);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? byName(v) : forTypeScript(v)]));
  if (out.$ref && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  if (out.readOnly && out.type === 'array' && out.items?.$ref) {
    return { ...out, tsType: `readonly ${out.items.$ref.split('/').pop()}[]` };
  }
  const shaped = ['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'properties', 'items', 'tsType'];
  if (!shaped.some((k) => k in out)) return { ...out, tsType: 'unknown' };
  if (out.type === 'object' && !out.properties && !('additionalProperties' in out)) {
    return { ...out, additionalProperties: true };
  }
  return out;
}

/** [`forTypeScript`] of each schema of a name → schema map. */
function byName(map) {
  return Object.fromEntries(Object.entries(map).map(([name, s]) => [name, forTypeScript(s)]));
}

/** Every definition of the bundle as an exported TypeScript declaration. */
export async function typesOf(bundle) {
  bundle = { ...bundle, $defs: byName(bundle.$defs) };
  const names = Object.keys(bundle.$defs).sort();
  // One root that names every definition, so each is emitted once under its own name.
  const rootSchema = {
    title: 'StepLineShapes',
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { $ref: `#/$defs/${n}` }])),
    additionalProperties: false,
    $defs: Object.fromEntries(names.map((n) => [n, { title: n, ...bundle.$defs[n] }])),
  };
  const ts = await compile(rootSchema, 'StepLineShapes', {
    bannerComment: '',
    additionalProperties: false,
    declareExternallyReferenced: true,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: true,
    style: { printWidth: 110, singleQuote: false },
  });
  const body = ts
    .replace(/export interface StepLineShapes \{[\s\S]*?\n\}\n/, '')
    // The generator's note on where each definition came from says nothing to a user.
    .replace(/\n *\*\n *\* This (?:interface|type) was referenced by `StepLineShapes`'s JSON-Schema\n *\* via the `definition` "\w+"\./g, '')
    .replace(/\/\*\*\n *\* This (?:interface|type) was referenced by `StepLineShapes`'s JSON-Schema\n *\* via the `definition` "\w+"\.\n *\*\/\n/g, '')
    // One-line doc comments on one line.
    .replace(/\/\*\*\n( *)\* ([^\n]*)\n *\*\//g, '/** $2 */')
    .replace(/\n\}\n(?=\/\*\*|export)/g, '\n}\n\n');
  return `// Generated by scripts/gen-types.mjs from the Rust declarations (src/schema.rs). Do not edit.\n\n${body.trim()}\n`;
}

/**
 * `{ "agent.status": schema, ... }`: for each variant of the bundle's `Envelope`, a schema of
 * that envelope type alone, with the definitions it references.
 */
export function envelopeSchemas(bundle) {
  const schemas = {};
  for (const { $ref } of bundle.$defs.Envelope.oneOf) {
    const name = $ref.split('/').pop();
    const def = bundle.$defs[name];
    const type = def.properties.type.const;
    const defs = {};
    const visit = (node) => {
      if (!node || typeof node !== 'object') return;
      if (typeof node.$ref === 'string') {
        const ref = node.$ref.split('/').pop();
        if (!(ref in defs)) { defs[ref] = bundle.$defs[ref]; visit(bundle.$defs[ref]); }
      }
      for (const v of Object.values(node)) visit(v);
    };
    visit(def);
    schemas[type] = withoutRustFormats({
      $schema: bundle.$schema,
      $id: `https://stepline.dev/schemas/envelopes/${type}.schema.json`,
      title: name,
      description: def.description,
      $ref: `#/$defs/${name}`,
      $defs: { [name]: def, ...defs },
    });
  }
  return schemas;
}

/**
 * Without schemars' Rust number formats (`int64`, `uint`, …): they say nothing `type: integer`
 * and `minimum` do not, and Ajv's default strict mode refuses a format it does not know.
 */
function withoutRustFormats(node) {
  if (Array.isArray(node)) return node.map(withoutRustFormats);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node)
    .filter(([k, v]) => !(k === 'format' && /^u?int(8|16|32|64|128)?$|^(float|double)$/.test(v)))
    .map(([k, v]) => [k, withoutRustFormats(v)]));
}

/**
 * view.js with its generated block rewritten: a copy function per published view object,
 * an object literal of the shape's fields in the order the core writes them. V8 freezes
 * an object made by a literal through a cached map transition; a spread or
 * `Object.assign` copy of 30 fields pays about 1.5 µs a freeze (bench/findings.md).
 */
function viewFile(bundle) {
  const current = readFileSync(VIEW_FILE, 'utf8');
  const begin = '// @generated by scripts/gen-types.mjs from SessionView, ExecutionView and StepView (src/schema.rs); do not edit\n';
  const end = '// @generated end\n';
  const from = current.indexOf(begin);
  const to = current.indexOf(end);
  if (from < 0 || to < from) throw new Error(`gen: ${VIEW_FILE} has no generated block (\`${begin.trim()}\` ... \`${end.trim()}\`)`);
  const copier = (name, def, arg) => {
    const fields = Object.keys(bundle.$defs[def].properties);
    return `const ${name} = (${arg}) => ({\n${fields.map((f) => `  ${f}: ${arg}.${f},`).join('\n')}\n});\n`;
  };
  const block = copier('copyView', 'SessionView', 'v') + copier('copyExecution', 'ExecutionView', 'e') + copier('copyStep', 'StepView', 's');
  return current.slice(0, from) + begin + block + current.slice(to);
}

const bundle = rustBundle();
const schemaText = `${JSON.stringify(bundle, null, 2)}\n`;
const typesText = await typesOf(bundle);
const envelopeFiles = Object.entries(envelopeSchemas(bundle))
  .map(([type, schema]) => [join(ENVELOPES_DIR, `${type}.schema.json`), `${JSON.stringify(schema, null, 2)}\n`]);

const snapshotText = `${JSON.stringify(rustBundle('snapshot'), null, 2)}\n`;

const stale = [];
for (const [file, text] of [[SCHEMA_FILE, schemaText], [TYPES_FILE, typesText], [SNAPSHOT_FILE, snapshotText], [VIEW_FILE, viewFile(bundle)], ...envelopeFiles]) {
  let current = null;
  try { current = readFileSync(file, 'utf8'); } catch { /* not written yet */ }
  if (current === text) continue;
  if (check) stale.push(file.slice(root.length + 1));
  else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    console.log(`gen: wrote ${file.slice(root.length + 1)}`);
  }
}
if (stale.length) {
  console.error(`gen: ${stale.join(', ')} ${stale.length > 1 ? 'are' : 'is'} not what the Rust declarations generate; run \`npm run gen\``);
  process.exit(1);
}
if (check) console.log(`gen: schemas and TypeScript match the Rust declarations (${Object.keys(bundle.$defs).length} shapes)`);
