#!/usr/bin/env node
// The stepline command line: slim a persisted agent state, validate slim snapshots,
// replay a recorded run. A thin shell over the package's own API (slimSnapshot,
// validateSnapshot, Session, diagnose, exportOtlp, version), through the devtools entry,
// which holds the whole API; everything it decides about the data, the wasm core decides.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import * as stepline from '../devtools.mjs';

const USAGE = `Usage:
  stepline slim <state.json> [--preset minimal|standard|full] [--max-bytes N] [--json]
  stepline validate <snapshot.json>... [--json]
  stepline replay <events.jsonl> [--snapshot final.json] [--json]
  stepline summary <recording.jsonl>... [--json]
  stepline otel <recording.jsonl> [--service-name N] [-o out.json]
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
  replay    Replay a recorded run into a live session view: a JSONL file with one envelope
            per line, an optional {"stepline_recording": 1, "session_id"?} header line
            first and {"stepline_snapshot": {...}} lines holding final slim snapshots.
            Prints the view (status, each execution's steps with type, finish reason,
            tools and usage, text length, missing steps and chunks, envelope counts),
            lines that could not be ingested ("line <n> <code>: <message>"), the
            diagnostics of known producer bugs and, given a final snapshot, the
            reconciliation of the stream against it. Exits 1 if a line could not be
            ingested or the stream disagrees with the snapshot; differences the
            reference producer causes by design (cause reference_exception_path) are
            listed but do not count.
              --snapshot F   reconcile against the slim snapshot in F (default: the
                             recording's last stepline_snapshot line, if any)
              --json         print one line {view, diagnostics, reconciliation, errors}
                             instead (reconciliation is null without a snapshot)
  summary   Load recordings (JSONL of envelopes from any number of sessions, as saved by
            RunLog.save() or Session.toRecording()) into one run log and print its
            summary: sessions by status and stop reason, steps, tool calls by name with
            failures, tokens, step and tool durations (p50, p95, max), errors. Lines
            that cannot be read are listed as "<file>:<line> <code>: <message>", and
            make the exit status 1.
              --json         print one line {summary, errors} instead
  otel      Export a recording (as Session.toRecording() or RunLog.save() writes it) as
            OpenTelemetry spans: an OTLP/HTTP JSON ExportTraceServiceRequest (GenAI
            semantic conventions 1.40.0; invoke_agent per execution, chat per step,
            execute_tool per tool call), ready to POST to a collector's /v1/traces.
            Prints the JSON to stdout, or writes it to the -o file and prints a
            one-line count of the spans to stderr.
              --service-name N  the resource's service.name (default stepline)
              -o, --output F    write the JSON to F instead of stdout

A file named - is read from standard input.
Exit status: 0 success, 1 invalid input or an error, 2 bad usage or a file that
cannot be read (validate lists those among its results instead).`;

const PRESETS = ['minimal', 'standard', 'full'];

class UsageError extends Error {}
/** A failure that is not the library's: printed as `error: <message>`, exit status 1 unless `exitCode` says otherwise. */
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
    // Exit status 2, like bad usage: the command was pointed at something that is not there.
    throw Object.assign(new CliError(`cannot read ${file === '-' ? 'standard input' : file}: ${reason}`), { reason, exitCode: 2 });
  }
}


function parse(args, options) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // Node's own text for this one ends `as in '-- "--x"` (a quote left open): say it here.
    const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /^Unknown option '(.*?)'\./.exec(error.message);
    if (unknown) throw new UsageError(`unknown option '${unknown[1]}' (a file whose name starts with '-' goes after '--': -- ${unknown[1]})`);
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
    // v1.22 keeps the store at the top; v2 (instructor-php packages/agents) in `context`.
    const store = state?.messageStore ?? state?.context?.messageStore;
    const section = Array.isArray(store?.sections) ? store.sections.find((s) => s?.name === 'messages') : null;
    const messages = section ? section.messages : store?.messages;
    return {
      messages: Array.isArray(messages) ? messages.length : null,
      steps: Array.isArray(state?.steps) ? state.steps.length
        : Array.isArray(state?.execution?.stepExecutions) ? state.execution.stepExecutions.length : null,
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

// ---------------------------------------------------------------------------------------
// replay

const HEADER_KEY = 'stepline_recording';
const SNAPSHOT_KEY = 'stepline_snapshot';
/** Envelope lines handed to Session.ingestJsonl at once (by characters). */
const CHUNK_CHARS = 256 * 1024;
/** Recordings above this size show a progress bar (on a terminal only). */
const PROGRESS_BYTES = 1024 * 1024;

/** `{line, error: {code, path, message}}`, the shape Session.ingestJsonl reports. */
function lineError(line, code, path, message) {
  return { line, error: { code, path, message } };
}

function parseJson(text) {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error };
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** "an array", "a string", "null": as the core names JSON types in its messages. */
const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/**
 * A one-line progress bar on stderr for `total` units of work (characters of the
 * recording, `bytes` long); `update` redraws only when the percentage moves.
 */
function progressBar(total, bytes, label) {
  const size = `${(bytes / 1e6).toFixed(1)} MB`;
  let shown = -1;
  const width = 30;
  return {
    update(done) {
      const pct = Math.min(100, Math.floor((done / total) * 100));
      if (pct === shown) return;
      shown = pct;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}% of ${size}`);
    },
    done() {
      if (shown !== -1) process.stderr.write('\r\x1b[2K');
    },
  };
}

/**
 * Reads a recording into a new Session. Returns the session, the envelope lines it took
 * (their text, in file order) with their line numbers, the recording's last snapshot
 * (or null) and the lines that failed, by file line number.
 */
function replayRecording(text, file) {
  const Session = stepline.Session;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const total = Buffer.byteLength(text);
  const bar = process.stderr.isTTY && total > PROGRESS_BYTES ? progressBar(text.length, total, `replay ${file === '-' ? 'stdin' : file}`) : null;

  let session = null;
  const errors = [];
  const envelopes = [];
  const envelopeLines = [];
  let snapshot = null;
  let snapshotLines = 0;
  let sawFirst = false;

  // Lines waiting for the next ingestJsonl, and their numbers in the file.
  let chunk = [];
  let chunkLines = [];
  let chunkChars = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    session ??= new Session();
    const result = session.ingestJsonl(chunk.join('\n'));
    const failed = new Set();
    for (const { line, error } of result.errors) {
      failed.add(line - 1);
      errors.push({ line: chunkLines[line - 1], error });
    }
    for (let i = 0; i < chunk.length; i += 1) {
      if (failed.has(i)) continue;
      envelopes.push(chunk[i]);
      envelopeLines.push(chunkLines[i]);
    }
    chunk = [];
    chunkLines = [];
    chunkChars = 0;
  };

  let start = 0;
  let number = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    number += 1;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') continue;
    const first = !sawFirst;
    sawFirst = true;
    // Only a line that names a header or snapshot key (possibly \u-escaped) can be one;
    // the others go to the core as they are, and it reports those that are not JSON.
    const { value } = line.includes('stepline_') || line.includes('\\u') ? parseJson(line) : {};
    if (isObject(value) && Object.hasOwn(value, HEADER_KEY)) {
      const sessionId = value.session_id;
      if (!first) {
        errors.push(lineError(number, 'invalid_value', `/${HEADER_KEY}`, 'expected the recording header on the first line only'));
      } else if (value[HEADER_KEY] !== 1) {
        errors.push(lineError(number, 'invalid_value', `/${HEADER_KEY}`, `expected recording format 1, found ${JSON.stringify(value[HEADER_KEY])}`));
      } else if (sessionId != null && typeof sessionId !== 'string') {
        errors.push(lineError(number, 'invalid_type', '/session_id', `expected "session_id" as a string, found ${typeName(sessionId)}`));
      } else {
        session = new Session(sessionId == null ? {} : { sessionId });
      }
      continue;
    }
    if (isObject(value) && Object.hasOwn(value, SNAPSHOT_KEY)) {
      snapshotLines += 1;
      if (isObject(value[SNAPSHOT_KEY])) snapshot = value[SNAPSHOT_KEY];
      else errors.push(lineError(number, 'invalid_type', `/${SNAPSHOT_KEY}`, `expected the snapshot as an object, found ${typeName(value[SNAPSHOT_KEY])}`));
      continue;
    }
    chunk.push(line);
    chunkLines.push(number);
    chunkChars += line.length;
    if (chunkChars >= CHUNK_CHARS) {
      flush();
      bar?.update(start);
    }
  }
  flush();
  bar?.update(text.length);
  bar?.done();
  errors.sort((a, b) => a.line - b.line);
  return { session: session ?? new Session(), envelopes, envelopeLines, snapshot, snapshotLines, errors };
}

/** The final snapshot of --snapshot: a slim snapshot, or a recording's snapshot line. */
function readSnapshotFile(file) {
  const text = readInput(file);
  const { value, error } = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const name = file === '-' ? 'standard input' : file;
  if (error) throw new CliError(`${name} is not JSON: ${error.message}`);
  const snapshot = isObject(value) && isObject(value[SNAPSHOT_KEY]) ? value[SNAPSHOT_KEY] : value;
  if (!isObject(snapshot)) throw new CliError(`${name} is not a snapshot: expected a JSON object`);
  return snapshot;
}

const tokens = (usage) => (usage ? `${plural(usage.total ?? 0, 'token')} (${(usage.input ?? 0).toLocaleString('en-US')} in, ${(usage.output ?? 0).toLocaleString('en-US')} out)` : 'no usage');
const statusText = (status, stateStatus) => `${status ?? 'no status'}${stateStatus ? ` (state ${stateStatus})` : ''}`;

/** Characters as people count them (code points, not UTF-16 units). */
function codePoints(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n -= 1;
        i += 1;
      }
    }
  }
  return n;
}

/** A list of numbers with runs collapsed: 3, 5-9, 12. */
function ranges(numbers, limit = 20) {
  const parts = [];
  for (let i = 0; i < numbers.length; i += 1) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j += 1;
    parts.push(j > i ? `${numbers[i]}-${numbers[j]}` : `${numbers[i]}`);
    i = j;
  }
  return parts.length > limit ? `${parts.slice(0, limit).join(', ')}, …` : parts.join(', ');
}

function stepLine(step) {
  const parts = [step.type ?? 'type unknown', `finish ${step.finish_reason ?? 'unknown'}`];
  const failed = step.tools.filter((t) => t.status === 'failed').length;
  parts.push(`${plural(step.tools.length, 'tool')}${failed ? ` (${failed} failed)` : ''}`);
  parts.push(step.usage ? tokens(step.usage) : 'no usage');
  if (step.duration_ms != null) parts.push(`${step.duration_ms.toLocaleString('en-US')} ms`);
  if (step.errors) parts.push(plural(step.errors, 'error'));
  if (!step.seen.completed) parts.push('not completed');
  if (!step.seen.started) parts.push('start not seen');
  return `    step ${step.number}: ${parts.join(', ')}`;
}

function printView(view, file, replayed) {
  const { envelopes, snapshotLines, errors } = replayed;
  out(`replay ${file}: ${plural(envelopes.length, 'envelope')} ingested, ${plural(errors.length, 'line')} refused, ${plural(snapshotLines, 'snapshot line')}`);
  out(`session ${view.session_id ?? '(none)'}: ${statusText(view.status, view.state_status)}, ${plural(view.executions.length, 'execution')}, ${tokens(view.usage)}`);
  const { applied, duplicates, rejected } = view.counts;
  out(`  envelopes: ${applied.toLocaleString('en-US')} applied, ${plural(duplicates, 'duplicate')}, ${rejected.toLocaleString('en-US')} rejected`);
  const foreign = Object.entries(view.rejected_sessions);
  if (foreign.length) out(`  rejected (other sessions): ${foreign.map(([id, n]) => `${id} ${n}`).join(', ')}`);
  for (const w of view.warnings) out(`  warning ${w.path || '(root)'} ${w.code}: ${w.message}`);
  for (const exec of view.executions) {
    out(`  execution ${exec.execution_id ?? '(none)'}: ${statusText(exec.status, exec.state_status)}, ${plural(exec.steps.length, 'step')}, ${tokens(exec.usage)}, text ${plural(codePoints(exec.text), 'character')}`);
    if (exec.error) out(`    error: ${exec.error}`);
    for (const step of exec.steps) out(stepLine(step));
    // The view lists the first missing numbers and counts them all.
    const missing = (list, count, word) => `${ranges(list)} (${plural(count ?? list.length, word)})`;
    if (exec.missing_steps.length) out(`    missing steps: ${missing(exec.missing_steps, exec.missing_step_count, 'step')}`);
    if (exec.missing_chunks.length) out(`    missing chunks: ${missing(exec.missing_chunks, exec.missing_chunk_count, 'chunk')}`);
  }
}

/** `/envelopes/3/payload` names the 4th envelope given to diagnose: say which line that was. */
function diagnosticLine(d, envelopeLines) {
  const m = /^\/envelopes\/(\d+)(?:\/|$)/.exec(d.path ?? '');
  const line = m ? envelopeLines[Number(m[1])] : undefined;
  return `  ${d.severity} ${d.code} at ${d.path || '(root)'}${line ? ` (line ${line})` : ''}: ${d.message}`;
}

function replayCommand(args) {
  const { values, positionals } = parse(args, {
    snapshot: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('replay takes exactly one recording (JSONL; or - for stdin)');
  const [file] = positionals;
  if (values.snapshot === '') throw new UsageError('--snapshot needs a file name');
  if (file === '-' && values.snapshot === '-') throw new UsageError('the recording and --snapshot cannot both be read from stdin');
  requireApi('diagnose');
  if (typeof stepline.Session !== 'function') throw new CliError(`this build of stepline (${stepline.version()}) has no Session`);

  const text = readInput(file);
  const given = values.snapshot === undefined ? null : readSnapshotFile(values.snapshot);

  const replayed = replayRecording(text, file);
  const { session, envelopes, envelopeLines, snapshot: recorded, errors } = replayed;
  const snapshot = given ?? recorded;
  const view = session.getSnapshot();
  // diagnose({envelopes, snapshot}), with the envelopes as the JSON text they arrived in.
  const diagnostics = stepline.diagnose(`{"envelopes":[${envelopes.join(',')}],"snapshot":${JSON.stringify(snapshot)}}`);
  const reconciliation = snapshot ? session.reconcile(snapshot) : null;
  const failing = reconciliation ? reconciliation.differences.filter((d) => d.cause == null) : [];
  const disagrees = reconciliation && !reconciliation.consistent && failing.length > 0;
  const status = disagrees || errors.length > 0 ? 1 : 0;

  if (values.json) {
    out(JSON.stringify({ view, diagnostics, reconciliation, errors }));
    return status;
  }

  printView(view, file, replayed);
  if (errors.length) {
    out(`line errors: ${errors.length}`);
    for (const { line, error } of errors) out(`  line ${line} ${error.code}${error.path ? ` at ${error.path}` : ''}: ${error.message}`);
  }
  out(`diagnostics: ${diagnostics.length || 'none'}`);
  for (const d of diagnostics) out(diagnosticLine(d, envelopeLines));
  if (reconciliation) {
    const source = given ? values.snapshot : 'the recorded snapshot';
    const { differences } = reconciliation;
    const byReference = differences.length - failing.length;
    const verdict = reconciliation.consistent
      ? 'consistent'
      : `inconsistent, ${plural(differences.length, 'difference')}${byReference ? ` (${byReference} caused by the reference)` : ''}`;
    out(`reconciliation against ${source}: ${verdict}`);
    const { window } = reconciliation;
    // A slim snapshot lists only the run's last steps; the ones before are not compared.
    if (window?.outside_step_count) {
      const compared = window.listed ? `steps ${window.first_step}..${window.last_step} compared` : 'no steps listed';
      out(`  snapshot window: ${compared}; ${plural(window.outside_step_count, 'streamed step')} before it outside the window, kept as streamed`);
    }
    for (const d of differences) {
      out(`  ${d.kind} at ${d.path || '(root)'}: ${d.message}${d.cause ? ` (cause: ${d.cause})` : ''}`);
    }
  } else {
    out('reconciliation: no snapshot (pass --snapshot, or record a stepline_snapshot line)');
  }
  return status;
}

/** `stepline summary`: every recording into one RunLog, then its computed summary. */
function summaryCommand(args) {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  if (positionals.length === 0) throw new UsageError('summary takes one or more recording files (or - for stdin)');
  const log = new stepline.RunLog();
  const errors = [];
  for (const file of positionals) {
    const text = readInput(file);
    for (const { line, error } of log.ingestJsonl(text).errors) errors.push({ file, line, ...error });
  }
  const summary = log.summary();
  const status = errors.length > 0 ? 1 : 0;
  if (values.json) {
    out(JSON.stringify({ summary, errors }));
    return status;
  }
  // Thousands separators, as `replay` prints its figures.
  const n = (x) => (typeof x === 'number' ? x.toLocaleString('en-US') : String(x));
  const counts = (o) => Object.entries(o).map(([k, c]) => `${k} ${n(c)}`).join(', ') || '-';
  const ms = (d) => (d.count === 0 ? '-' : `p50 ${n(d.p50)} ms, p95 ${n(d.p95)} ms, max ${n(d.max)} ms (${n(d.count)})`);
  out(`sessions     ${n(summary.sessions)} (${counts(summary.by_status)})`);
  out(`stop reasons ${counts(summary.by_stop_reason)}`);
  out(`executions   ${n(summary.executions)}, steps ${n(summary.steps)}`);
  out(`tokens       ${n(summary.tokens.total)} (input ${n(summary.tokens.input)}, output ${n(summary.tokens.output)})`);
  out(`step time    ${ms(summary.durations.step_ms)}`);
  out(`tool time    ${ms(summary.durations.tool_ms)}`);
  const tools = Object.entries(summary.tool_calls);
  out(`tool calls   ${tools.length === 0 ? '-' : tools.map(([name, t]) => `${name} ${n(t.count)}${t.failed ? ` (${n(t.failed)} failed)` : ''}`).join(', ')}`);
  out(`errors       ${n(summary.errors.steps_with_errors)} steps, ${n(summary.errors.failed_tools)} tools, ${n(summary.errors.run_errors)} runs`);
  out(`envelopes    ${n(summary.duplicates)} duplicates, ${n(summary.rejected)} rejected`);
  for (const e of errors) out(`${e.file}:${e.line} ${e.code}: ${e.message}`);
  return status;
}

function otelCommand(args) {
  const { values, positionals } = parse(args, {
    'service-name': { type: 'string' },
    output: { type: 'string', short: 'o' },
  });
  if (positionals.length !== 1) throw new UsageError('otel takes one recording file (or - for stdin)');
  const session = stepline.Session.fromRecording(readInput(positionals[0]));
  const request = session.exportOtlp({ serviceName: values['service-name'] });
  const text = JSON.stringify(request);
  if (values.output === undefined) {
    out(text);
    return 0;
  }
  try {
    writeFileSync(values.output, `${text}\n`);
  } catch (error) {
    throw new CliError(`cannot write ${values.output}: ${READ_ERRORS[error.code] ?? error.message}`);
  }
  const spans = request.resourceSpans.reduce((n, r) => n + r.scopeSpans.reduce((m, s) => m + s.spans.length, 0), 0);
  process.stderr.write(`wrote ${plural(spans, 'span')} to ${values.output}\n`);
  return 0;
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
  if (command === 'replay') return replayCommand(rest);
  if (command === 'summary') return summaryCommand(rest);
  if (command === 'otel') return otelCommand(rest);
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
    process.exitCode = error.exitCode ?? 1;
  } else {
    throw error;
  }
}
