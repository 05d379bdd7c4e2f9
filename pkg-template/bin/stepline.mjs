#!/usr/bin/env node
// The stepline command line: slim a persisted agent state, validate slim snapshots.
// A thin shell over the package's own API (slimSnapshot, validateSnapshot, version);
// everything it decides about the data, the wasm core decides.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import * as stepline from '../index.mjs';

const USAGE = `Usage:
  stepline slim <state.json> [--preset minimal|standard|full] [--max-bytes N] [--json]
  stepline validate <snapshot.json>... [--json]
  stepline --version
  stepline --help

Commands:
  slim      Slim a persisted AgentState (the producer's toArray JSON) into a slim snapshot.
            Prints the snapshot as indented JSON to stdout and a one-line summary to stderr.
              --preset P     minimal, standard (the default) or full
              --max-bytes N  tighten the limits until the encoded snapshot fits in N bytes
              --json         print one compact line {snapshot, bytes, truncation} instead
  validate  Check slim snapshots. Prints "ok <file>" or "invalid <file>", then one line
            per problem: "  <path> <code>: <message>" (warnings start with "warning");
            "unreadable <file>: <reason>" for a file that cannot be read.
            Exits 1 if any file is invalid or unreadable.
              --json         print [{file, valid, errors, warnings}] instead

A file named - is read from standard input.
Exit status: 0 success, 1 invalid input or an error, 2 bad usage.`;

const PRESETS = ['minimal', 'standard', 'full'];

class UsageError extends Error {}
/** A failure that is not the library's: printed as `error: <message>`, exit status 1. */
class CliError extends Error {}

/** Prints to stdout; a closed pipe (`stepline slim big.json | head`) is not an error. */
function out(text) {
  process.stdout.write(`${text}\n`);
}

process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const READ_ERRORS = { ENOENT: 'no such file', EISDIR: 'is a directory', EACCES: 'permission denied' };
let stdinText = null;

/** Reads a file as UTF-8 text; `-` is standard input (read once, shared by every `-`). */
function readInput(file) {
  try {
    if (file !== '-') return readFileSync(file, 'utf8');
    stdinText ??= readFileSync(0, 'utf8');
    return stdinText;
  } catch (error) {
    const reason = READ_ERRORS[error.code] ?? error.message;
    throw Object.assign(new CliError(`cannot read ${file === '-' ? 'standard input' : file}: ${reason}`), { reason });
  }
}


function parse(args, options) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error.message.split('\n')[0]);
  }
}

function requireApi(name) {
  if (typeof stepline[name] !== 'function') {
    throw new CliError(`this build of stepline (${stepline.version()}) has no ${name}()`);
  }
  return stepline[name];
}

function plural(n, word) {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** Messages and steps in the input state, for the summary ("50 of 65 messages"). */
function inputCounts(text) {
  try {
    const state = JSON.parse(text);
    const store = state?.messageStore;
    const section = Array.isArray(store?.sections) ? store.sections.find((s) => s?.name === 'messages') : null;
    const messages = section ? section.messages : store?.messages;
    return {
      messages: Array.isArray(messages) ? messages.length : null,
      steps: Array.isArray(state?.steps) ? state.steps.length : null,
    };
  } catch {
    return { messages: null, steps: null };
  }
}

function slimSummary(result, counts, preset) {
  const { snapshot, bytes, truncation } = result;
  const kept = (n, total, word) => (total != null && total !== n ? `${n.toLocaleString('en-US')} of ${plural(total, word)}` : plural(n, word));
  const messages = Array.isArray(snapshot.messages) ? snapshot.messages.length : 0;
  const steps = Array.isArray(snapshot.steps) ? snapshot.steps.length : 0;
  let line = `slim: ${plural(bytes, 'byte')}, ${kept(messages, counts.messages, 'message')}, ${kept(steps, counts.steps, 'step')} (preset ${preset})`;
  if (truncation) {
    line += `; to fit --max-bytes dropped ${plural(truncation.messagesDropped, 'message')} and ${plural(truncation.stepsDropped, 'step')}`
      + `, content limit ${plural(truncation.contentLimit, 'byte')}`;
  }
  return line;
}

function slimCommand(args) {
  const { values, positionals } = parse(args, {
    preset: { type: 'string' },
    'max-bytes': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('slim takes exactly one state file (or - for stdin)');
  const config = {};
  const preset = values.preset ?? 'standard';
  if (!PRESETS.includes(preset)) throw new UsageError(`--preset must be one of ${PRESETS.join(', ')}, not ${JSON.stringify(preset)}`);
  if (values.preset !== undefined) config.preset = preset;
  if (values['max-bytes'] !== undefined) {
    const raw = values['max-bytes'];
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`--max-bytes must be a whole number of bytes, not ${JSON.stringify(raw)}`);
    config.maxBytes = Number(raw);
  }

  const [file] = positionals;
  const text = readInput(file);
  const result = requireApi('slimSnapshot')(text, config);
  if (values.json) out(JSON.stringify(result));
  else out(JSON.stringify(result.snapshot, null, 2));
  process.stderr.write(`${slimSummary(result, inputCounts(text), preset)}\n`);
  return 0;
}

function issueLine(issue, marker = '') {
  return `  ${marker}${issue.path || '(root)'} ${issue.code}: ${issue.message}`;
}

function validateCommand(args) {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  if (positionals.length === 0) throw new UsageError('validate takes one or more snapshot files (or - for stdin)');
  const validate = requireApi('validateSnapshot');
  const reports = [];
  for (const file of positionals) {
    let text;
    try {
      text = readInput(file);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      reports.push({ file, valid: false, errors: [{ path: '', code: 'unreadable', message: error.reason }], warnings: [], unreadable: error.reason });
      continue;
    }
    try {
      const { valid, errors, warnings } = validate(text);
      reports.push({ file, valid, errors, warnings });
    } catch (error) {
      // Input the validator cannot even read (not JSON, too large, too deep) is invalid too.
      if (!(error instanceof stepline.SteplineError)) throw error;
      reports.push({ file, valid: false, errors: [{ path: error.path ?? '', code: error.code, message: error.message }], warnings: [] });
    }
  }

  if (values.json) {
    out(JSON.stringify(reports.map(({ file, valid, errors, warnings }) => ({ file, valid, errors, warnings }))));
  } else {
    for (const report of reports) {
      if (report.unreadable) {
        out(`unreadable ${report.file}: ${report.unreadable}`);
        continue;
      }
      out(`${report.valid ? 'ok' : 'invalid'} ${report.file}`);
      for (const issue of report.errors) out(issueLine(issue));
      for (const issue of report.warnings) out(issueLine(issue, 'warning '));
    }
  }
  return reports.every((r) => r.valid) ? 0 : 1;
}

function main(argv) {
  const [command, ...rest] = argv;
  const end = rest.indexOf('--');
  const flags = end === -1 ? rest : rest.slice(0, end);
  if (command === '--help' || command === '-h' || command === 'help' || flags.includes('--help') || flags.includes('-h')) {
    out(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    out(stepline.version());
    return 0;
  }
  if (command === undefined) throw new UsageError('');
  if (command === 'slim') return slimCommand(rest);
  if (command === 'validate') return validateCommand(rest);
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    // No arguments at all: the whole usage. A mistake: the mistake and the synopsis.
    const text = error.message ? `stepline: ${error.message}\n\n${USAGE.split('\n\n')[0]}\n\nRun stepline --help for details.` : USAGE;
    process.stderr.write(`${text}\n`);
    process.exitCode = 2;
  } else if (error instanceof stepline.SteplineError) {
    const where = error.path == null ? '' : ` at ${error.path || '(root)'}`;
    process.stderr.write(`error: ${error.code}${where}: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
