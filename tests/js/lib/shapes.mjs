// Checks values the API returned against the shapes generated from the Rust
// declarations (pkg/schemas/stepline.schema.json), with Ajv, and records which
// declared properties were seen, so a declared field that no run ever returns
// is found as surely as a returned field that is not declared.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';

const root = new URL('../../../', import.meta.url);

/** The schema bundle the package ships. */
export const bundle = JSON.parse(readFileSync(new URL('pkg/schemas/stepline.schema.json', root), 'utf8'));

/**
 * The return type of every exported function and method, read from the
 * package's declarations: `{ "slimSnapshot": "SlimResult", "Session.ingest": "IngestResult", ... }`.
 * The devtools entry's, which declare the whole API (`stepline`'s is a part of it).
 */
export function declaredReturns() {
  const dts = readFileSync(new URL('pkg/devtools-node/stepline.d.ts', root), 'utf8');
  const returns = {};
  // A class's methods declared beside it (`export interface Session { getSnapshot(): … }`,
  // merged into the class: a method written in JavaScript) are its methods too.
  const classNames = new Set([...dts.matchAll(/^export class (\w+)/gm)].map((m) => m[1]));
  let owner = null;
  for (const line of dts.split('\n')) {
    const cls = /^export (?:class|interface) (\w+)/.exec(line);
    if (cls && (line.startsWith('export class') || classNames.has(cls[1]))) { owner = cls[1]; continue; }
    if (/^}/.test(line)) { owner = null; continue; }
    const fn = /^export function (\w+)\(.*\):\s*(.+);$/.exec(line);
    if (fn) { returns[fn[1]] = fn[2]; continue; }
    const method = owner && /^\s+(?:static )?(\w+)\(.*\):\s*(.+);$/.exec(line);
    if (method) returns[`${owner}.${method[1]}`] = method[2];
    const getter = owner && /^\s+(?:readonly )?(\w+):\s*(.+);$/.exec(line);
    if (getter) returns[`${owner}.${getter[1]}`] = getter[2];
  }
  return returns;
}

/** Splits a type expression at its top-level `|`. */
function alternatives(type) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if ('(<{['.includes(c)) depth++;
    else if (')>}]'.includes(c)) depth--;
    else if (c === '|' && depth === 0) { parts.push(type.slice(start, i).trim()); start = i + 1; }
  }
  parts.push(type.slice(start).trim());
  return parts.filter(Boolean);
}

const PRIMITIVES = { string: { type: 'string' }, number: { type: 'number' }, boolean: { type: 'boolean' }, null: { type: 'null' }, unknown: true, any: true };

/**
 * A JSON Schema for a declared TypeScript return type, or `null` when the
 * type is not data (a class instance, a function, `void`).
 * Throws when it names a type the generated declarations do not have.
 */
export function schemaOfType(type, classes) {
  const parts = alternatives(type).map((part) => {
    if (part.endsWith('[]')) {
      const items = schemaOfType(part.slice(0, -2).replace(/^\((.*)\)$/, '$1'), classes);
      return items && { type: 'array', items };
    }
    if (part in PRIMITIVES) return PRIMITIVES[part];
    if (part === 'void' || part === 'undefined' || part.includes('=>') || classes.has(part)) return null;
    if (part === 'Uint8Array') return null;
    if (!(part in bundle.$defs)) throw new Error(`the declared type ${part} is not generated from a Rust declaration`);
    return { $ref: `${bundle.$id}#/$defs/${part}` };
  });
  if (parts.some((p) => p === null)) return null;
  return parts.length === 1 ? parts[0] : { anyOf: parts };
}

/** Validates values against declared types and records what it saw. */
export class ShapeChecker {
  constructor() {
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    this.ajv.addSchema(bundle);
    this.validators = new Map();
    this.branches = new Map();
    /** `Def.property` → times seen. */
    this.seen = new Map();
    /** The definitions reached from a checked value. */
    this.reached = new Set();
    this.failures = [];
    this.checked = 0;
  }

  /** Checks `value` against `schema`; failures are kept with `where`. */
  check(schema, value, where) {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) this.validators.set(key, (validate = this.ajv.compile({ $id: `check-${this.validators.size}`, ...schema })));
    this.checked++;
    if (!validate(value)) {
      const errors = validate.errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`);
      this.failures.push(`${where}: ${errors.join('; ')}`);
      return;
    }
    this.walk(schema, value, null);
  }

  /** Records every declared property present in `value`, following `schema`. */
  walk(schema, value, def) {
    if (!schema || schema === true || typeof schema !== 'object') return;
    if (schema.$ref) {
      const name = schema.$ref.split('/$defs/')[1];
      this.reached.add(name);
      this.walk(bundle.$defs[name], value, name);
      return;
    }
    for (const branch of schema.allOf ?? []) this.walk(branch, value, def);
    // Only the branches of a union the value is: a status envelope says nothing of the
    // properties of a step's.
    for (const key of ['anyOf', 'oneOf']) {
      for (const branch of schema[key] ?? []) if (this.matches(branch, value)) this.walk(branch, value, def);
    }
    if (Array.isArray(value) && schema.items) {
      for (const item of value) this.walk(schema.items, item, def);
      return;
    }
    if (value && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
      for (const [prop, sub] of Object.entries(schema.properties)) {
        if (!(prop in value)) continue;
        if (def) this.seen.set(`${def}.${prop}`, (this.seen.get(`${def}.${prop}`) ?? 0) + 1);
        this.walk(sub, value[prop], null);
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        for (const [prop, v] of Object.entries(value)) if (!(prop in schema.properties)) this.walk(schema.additionalProperties, v, def);
      }
    }
  }

  /** Whether `value` is valid against `branch` (a schema inside the bundle). */
  matches(branch, value) {
    const key = JSON.stringify(branch);
    let validate = this.branches.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $id: `branch-${this.branches.size}`, $defs: bundle.$defs, ...branch });
      this.branches.set(key, validate);
    }
    return validate(value);
  }

  /** The declared properties of the reached definitions that no value had. */
  neverSeen() {
    const missing = [];
    for (const name of this.reached) {
      for (const prop of Object.keys(propertiesOf(bundle.$defs[name]))) {
        if (!this.seen.has(`${name}.${prop}`)) missing.push(`${name}.${prop}`);
      }
    }
    return missing.sort();
  }
}

/** The properties an object definition declares, through its branches. */
function propertiesOf(schema) {
  const props = { ...(schema.properties ?? {}) };
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const branch of schema[key] ?? []) if (!branch.$ref) Object.assign(props, propertiesOf(branch));
  }
  return props;
}
