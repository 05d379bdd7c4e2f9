// The context each README example leaves out, and nothing else: variables a reader
// already has (`sessionId`, an Echo channel, a stored `state`, a `row`), declared for the
// type check (`declare`, TypeScript) and given values for the run (`setup`, JavaScript,
// with `__ctx` = ./context.mjs). `after` is the test's own check that the example did
// what its text says (run only, never type-checked); `output` claims the next block as
// the example's quoted result, compared with what `outputOf` returns.
//
// `match` finds the one block a context belongs to (a string it contains). A block
// without a context must run on its own; a context that matches no block, or more than
// one, fails the test, so an edited example cannot silently lose its check.
export const CONTEXTS = [
  // The adapter examples run on the real laravel-echo (and @laravel/echo-react/-vue) over
  // an in-process pusher-js server (readme/fake-pusher.mjs) that drops and comes back;
  // `fetch` is the Laravel app of the README's routes (`laravelApp`), answering from a
  // v2.7 reference run it broadcasts. Each checks what the README's prose says: a late
  // page lists the missing steps while catching up, then the resync fills them; after
  // a reconnect the view is an uninterrupted page's.
  {
    file: 'docs/web/laravel-front-ends.md',
    match: 'render(view, { connection, catchingUp });',
    declare: `
import type { SessionView } from 'stepline';
import type __Echo from 'laravel-echo';
declare const echo: __Echo<'reverb'>;
declare const sessionId: string;
declare function render(view: SessionView, status: { connection: string; catchingUp: boolean }): void;`,
    setup: `
import __Echo from 'laravel-echo';
__ctx.pusherServer.reset();
const echo = new __Echo({ broadcaster: 'reverb', key: 'app-key', Pusher: __ctx.Pusher });
const sessionId = 'sess-echo';
const __app = __ctx.laravelApp(__ctx.pusherServer, 'tool call then answer [debug]', sessionId);
const fetch = (url) => __app.fetch(url);
const __rendered = [];
const render = (view, status) => __rendered.push({ view, ...status });
__app.broadcast(6); // step 1, before the page subscribed: in the server's log only
__app.hold();`,
    after: `
const __server = __ctx.pusherServer;
await __ctx.until(() => __server.subscribers('agent.sess-echo') === 1, 'the page subscribed');
__app.broadcast(1); // step 2 starts: the first event the page sees
assert.equal(__rendered.at(-1).catchingUp, true);
assert.deepEqual(__rendered.at(-1).view.executions[0].missing_steps, [1]);
__app.release();
await __ctx.until(() => !run.getSnapshot().catchingUp, 'the late resync ends');
assert.deepEqual(run.getSnapshot().view.executions[0].missing_steps, []);
assert.deepEqual(run.getSnapshot().lastResync, { reason: 'late', applied: 6, duplicates: 1, errors: 0 });
__server.stop();
assert.equal(run.getSnapshot().connection, 'failed');
__app.broadcast(2); // while the connection is down
__server.start();
await __ctx.until(() => run.getSnapshot().lastResync.reason === 'reconnect' && !run.getSnapshot().catchingUp, 'the reconnect resync ends');
__app.broadcast();
const __final = run.getSnapshot();
const __reference = await __ctx.uninterruptedView(__app.envelopes, sessionId);
assert.deepEqual(__final.view.executions, __reference.executions);
assert.deepEqual(__final.view.warnings, __reference.warnings);
assert.equal(__final.connection, 'connected');
assert.equal(__final.resyncs, 2);
assert.deepEqual(__rendered.at(-1).view, __final.view);
assert.deepEqual(__app.requests, ['/agents/sess-echo/events', '/agents/sess-echo/events']);
run.unsubscribe();
assert.equal(__server.subscribers('agent.sess-echo'), 0);`,
  },
  {
    file: 'docs/getting-started/laravel-reverb.md',
    match: "import { useAgentRun } from 'stepline/react';",
    declare: 'declare const sessionId: string;',
    setup: `
__ctx.pusherServer.reset();
const sessionId = 'sess-react';
const __app = __ctx.laravelApp(__ctx.pusherServer, 'tool call then answer [debug]', sessionId);
const fetch = (url) => __app.fetch(url);`,
    after: `
import { __mount } from 'react';
const __server = __ctx.pusherServer;
const __text = (page) => __ctx.textOf(page.output);
const __reference = __mount(AgentRun); // on the channel before the run starts
await __ctx.until(() => __server.subscribers('agent.sess-react') === 1 && /Waiting for the agent/.test(__text(__reference)), 'connected and waiting');
__app.broadcast(6);
__app.hold();
const __late = __mount(AgentRun); // joins after step 1
assert.match(__text(__late), /Waiting for the agent/);
__app.broadcast(1);
assert.match(__text(__late), /step 1 missing, catching up…/);
assert.doesNotMatch(__text(__reference), /missing/);
__app.release();
await __ctx.until(() => !/missing/.test(__text(__late)), 'the late page filled step 1');
__app.broadcast();
await __ctx.until(() => /Stopped: /.test(__text(__late)), 'the run ended');
assert.equal(__text(__late), __text(__reference));
const __view = (await __ctx.uninterruptedView(__app.envelopes, sessionId)).executions.at(-1);
for (const step of __view.steps) assert.ok(__text(__late).includes(\`\${step.type}: \`), \`step \${step.number} shown\`);
assert.ok(__text(__late).includes(\`Stopped: \${__view.end_reason ?? __view.status}\`));
assert.deepEqual(__app.requests, ['/agents/sess-react/events']);
__late.unmount();
assert.equal(__server.subscribers('agent.sess-react'), 1, 'the channel stays while a component uses it');
__reference.unmount();
assert.equal(__server.subscribers('agent.sess-react'), 0);`,
  },
  {
    file: 'docs/web/laravel-front-ends.md',
    match: "import { useAgentRun } from 'stepline/vue';",
    setup: `
__ctx.pusherServer.reset();
const __app = __ctx.laravelApp(__ctx.pusherServer, 'FakeAgentDriver: replays the last step when exhausted, steps limit 3 [standard]', 'sess-vue');
const fetch = (url) => __app.fetch(url);`,
    after: `
import { createRenderer as __createRenderer } from 'vue';
const __server = __ctx.pusherServer;
const __root = { tag: 'root', props: {}, children: [] };
__ctx.vueTestRenderer(__createRenderer).createApp(AgentRun, { sessionId: 'sess-vue' }).mount(__root);
const __text = () => __ctx.textOf(__root);
const __busy = () => __root.children[0]?.props['aria-busy'];
await __ctx.until(() => __server.subscribers('agent.sess-vue') === 1, 'the page subscribed');
assert.equal(__text(), 'Waiting for the agent…');
__app.broadcast(5); // step 1
__server.stop();
__app.broadcast(4); // step 2, while the connection is down
__app.hold();
__server.start();
await __ctx.until(() => __busy() === true, 'catching up after the reconnect');
__app.broadcast(1); // step 3 starts during the resync
await __ctx.until(() => __text().includes('step 2 missing'), 'step 2 shown as missing');
__app.release();
await __ctx.until(() => __busy() === false && !__text().includes('missing'), 'step 2 filled');
__app.broadcast();
await __ctx.until(() => __text().includes('Stopped: '), 'the run ended');
const __view = (await __ctx.uninterruptedView(__app.envelopes, 'sess-vue')).executions.at(-1);
assert.equal(__root.children[0].children[0].children.length, __view.steps.length);
for (const step of __view.steps) assert.ok(__text().includes(\`\${step.type}: \${step.tools.map((t) => t.name).join(', ')}\`), \`step \${step.number} shown\`);
assert.ok(__text().endsWith(\`Stopped: \${__view.end_reason ?? __view.status}\`));`,
  },
  {
    file: 'docs/web/resync.md',
    match: 'finalState: () => fetch(`/agents/${sessionId}/state`)',
    declare: `
import type __Echo from 'laravel-echo';
declare const echo: __Echo<'reverb'>;
declare const sessionId: string;`,
    setup: `
import __Echo from 'laravel-echo';
__ctx.pusherServer.reset();
const echo = new __Echo({ broadcaster: 'reverb', key: 'app-key', Pusher: __ctx.Pusher });
const sessionId = 'sess-final';
const __app = __ctx.laravelApp(__ctx.pusherServer, 'tool call then answer [debug]', sessionId);
const fetch = (url) => __app.fetch(url);
const __logged = [];
const console = { log: (...args) => __logged.push(args) };`,
    after: `
const __server = __ctx.pusherServer;
await __ctx.until(() => __server.subscribers('agent.sess-final') === 1, 'the page subscribed');
__app.broadcast(3);
__server.stop();
__app.broadcast(4);
__server.start();
await __ctx.until(() => run.getSnapshot().resyncs === 1 && !run.getSnapshot().catchingUp, 'the reconnect resync');
__app.broadcast();
await __ctx.until(() => run.getSnapshot().report !== null, 'the reconcile report');
const { report, view } = run.getSnapshot();
assert.equal(report.consistent, true);
assert.deepEqual(report.differences, []);
assert.deepEqual(view.executions, (await __ctx.uninterruptedView(__app.envelopes, sessionId)).executions);
assert.deepEqual(__app.requests, ['/agents/sess-final/events', '/agents/sess-final/state']);
assert.deepEqual(__logged.at(-1), ['the stream matches the stored state']);
assert.ok(__logged.some(([what, reason, applied]) => what === 'resynced' && reason === 'reconnect' && applied === 4));
run.unsubscribe();`,
  },
  {
    file: 'docs/node/parse.md',
    match: 'parseAgentState(row.state_json)',
    declare: 'declare const row: { state_json: string };',
    setup: "const row = { state_json: JSON.stringify(__ctx.referenceTurn('tool call then final answer [debug]').finalState) };",
    after: `
assert.equal(state.steps.length, 2);
assert.equal(state.executionStartedAt, null);
assert.deepEqual(__readme.logged.map((line) => line.slice(1, 4)), [['tool_execution', 'tool_calls', 150], ['final_response', 'stop', 162]]);`,
  },
  {
    file: 'docs/node/inference.md',
    match: 'normalizeInferenceResponse(await res.json())',
    declare: `
declare const res: Response;
declare const conversation: unknown[];
declare function run(name: string, args: unknown): Promise<unknown>;`,
    setup: `
const res = new Response(__ctx.openaiFixture('tool-call-with-text.json'));
const conversation = [];
const __calls = [];
const run = async (name, args) => { __calls.push([name, args]); };`,
    after: `
assert.equal(conversation.length, 1);
assert.equal(conversation[0].role, 'assistant');
assert.ok(__calls.length > 0 && __calls.every(([name]) => typeof name === 'string'));`,
  },
  {
    file: 'docs/node/inference.md',
    match: 'new InferenceStreamAccumulator()',
    declare: `
declare const sseText: string;
declare function render(text: string): void;`,
    setup: `
const sseText = __ctx.openaiFixture('streamed-tool-calls.sse');
const __rendered = [];
const render = (text) => __rendered.push(text);`,
    after: `
assert.ok(response.toolCalls.length > 0);
for (const text of __rendered) assert.doesNotMatch(text, /[{}]/, 'no argument fragments in the text');`,
  },
  {
    file: 'docs/node/inference.md',
    match: 'messages.filter(isAssistant);',
    declare: `
import type { MessageLike } from 'stepline';
declare const messages: MessageLike[];
declare const message: MessageLike;`,
    setup: `
const messages = __ctx.referenceTurn('tool call then final answer [debug]').finalState.messageStore.sections[0].messages;
const message = messages[0];`,
  },
  {
    file: 'docs/node/continuation.md',
    match: "evaluateContinuation(state, { defaults: { maxSteps: 20 } },",
    declare: `
declare const state: object;
declare const turnStartedAt: number;`,
    setup: `
const state = __ctx.stateOnStep(20);
const turnStartedAt = Date.now() - 42_000;`,
    output: 'outcome',
    after: `
// The quoted output elides evaluations; none of them may stop the run as well.
assert.deepEqual(outcome.evaluations.filter((e) => e.decision === 'forbid').map((e) => e.criterion.split('\\\\').pop()), ['StepsLimit']);`,
  },
  {
    file: 'docs/node/continuation.md',
    match: "{ kind: 'steps_limit', max: 10 },",
    // The import is the previous example's.
    declare: `
import { evaluateContinuation } from 'stepline';
declare const state: object;`,
    setup: `
import { evaluateContinuation } from 'stepline';
const state = __ctx.stateOnStep(20);`,
  },
  {
    file: 'docs/node/continuation.md',
    match: 'replayContinuation(state, { defaults: { maxSteps: 5 } })',
    declare: 'declare const state: object;',
    setup: 'const state = __ctx.stateOnStep(20);',
  },
  {
    file: 'docs/node/snapshots.md',
    match: 'validateSnapshot(untrusted)',
    declare: `
declare const stateJson: string;
declare const untrusted: unknown;`,
    setup: `
const stateJson = JSON.stringify(__ctx.stateOnStep(20));
const untrusted = structuredClone(__ctx.referenceTurn('tool call then final answer [debug]').slim);
untrusted.execution.started_at = 'yesterday';`,
    after: `
assert.equal(truncation, null);
assert.ok(bytes <= 64_000);
assert.equal(resumed.executionStartedAt, null);
assert.equal(valid, false);
assert.deepEqual(errors.map((e) => [e.path, e.code]), [['/execution/started_at', 'invalid_timestamp']]);`,
  },
  {
    file: 'docs/web/envelopes.md',
    match: 'decodeEnvelope(raw);',
    declare: `
declare const received: unknown[];
declare const message: unknown;
declare const jsonl: string;
declare function append(text: string): void;
declare function showTool(name: string, args: unknown): void;
declare function setStatus(status: string): void;`,
    setup: `
const __shown = [];
const append = (text) => __shown.push(['text', text]);
const showTool = (name, args) => __shown.push(['tool', name, args]);
const setStatus = (status) => __shown.push(['status', status]);
const __envelopes = __ctx.envelopesOf('tool call then final answer [debug]');
const received = __envelopes;
const message = __envelopes[0];
const jsonl = __envelopes.map((e) => JSON.stringify(e)).join('\\n') + '\\n{broken';`,
    after: `
assert.deepEqual(__shown.filter(([kind]) => kind === 'tool'), [['tool', 'search', { query: 'weather in Paris' }]]);
assert.deepEqual(__shown.filter(([kind]) => kind === 'status').map(([, s]) => s), ['processing', 'completed']);
assert.equal(r.ok, true);
assert.equal(envelopes.length, __envelopes.length);
assert.deepEqual(errors.map((e) => e.line), [__envelopes.length + 1]);`,
  },
  {
    file: 'docs/web/envelopes.md',
    match: 'listenToAll((event, data) =>',
    declare: `
declare const sessionId: string;
declare const eventName: string | undefined;
declare const echo: { channel(name: string): { listenToAll(callback: (event: string, data: object) => void): unknown } };`,
    setup: `
const sessionId = 'sess-e2e';
const eventName = undefined;
const echo = __ctx.fakeEcho();`,
    after: `
const __run = __ctx.envelopesOf('tool call then final answer [debug]', sessionId);
const __half = Math.floor(__run.length / 2);
// The first half as the v2 transport sends it, the rest named after each type as v1.22 apps did.
echo.deliver('agent.sess-e2e', __run.slice(0, __half));
echo.deliver('agent.sess-e2e', __run.slice(__half), { event: (e) => e.type });
// An envelope-shaped payload under an app's own event class is not read.
echo.deliver('agent.sess-e2e', __ctx.envelopesOf('steps limit 2 with a driver that always calls tools [default]', sessionId).slice(0, 1), { event: 'App\\\\Events\\\\OrderShipped' });
const __view = session.getSnapshot();
assert.deepEqual(__view.counts, { applied: __run.length, duplicates: 0, rejected: 0 });
assert.equal(__view.executions[0].steps.length, 2);`,
  },
  {
    file: 'docs/web/envelopes.md',
    match: 'new EnvelopeEncoder(',
    declare: 'declare const pusher: { trigger(channel: string, event: string, data: unknown): Promise<unknown> };',
    setup: `
const __sent = [];
const pusher = { trigger: async (channel, event, data) => { __sent.push([channel, event, data.type]); } };`,
    after: `
assert.deepEqual(__sent, [['agent.sess-1', 'instructor.agent.event', 'agent.tool.started']]);
assert.equal(enc.currentStatus, 'idle');`,
  },
  {
    file: 'docs/web/rendering-steps.md',
    match: "subscribeToAgent(echo, { sessionId: 'sess-1' }, session);",
    declare: `
import type { ExecutionView } from 'stepline';
import type __Echo from 'laravel-echo';
declare const echo: __Echo<'reverb'>;
declare function Turn(props: { turn: ExecutionView }): null;`,
    setup: `
import __Echo from 'laravel-echo';
__ctx.pusherServer.reset();
const echo = new __Echo({ broadcaster: 'reverb', key: 'app-key', Pusher: __ctx.Pusher });
const Turn = () => null;`,
    after: `
import { __fake as __react } from 'react';
assert.deepEqual(Run(), []);
await __ctx.until(() => __ctx.pusherServer.subscribers('agent.sess-1') === 1, 'the channel is subscribed');
const __subscribed = __react.subscriptions;
const __notified = __react.notifications;
for (const e of __ctx.envelopesOf('two turns on one adapter (multi-turn) [default]', 'sess-1')) __ctx.pusherServer.broadcast('agent.sess-1', 'instructor.agent.event', e);
const __turns = Run();
assert.ok(__react.notifications > __notified, 'the subscribed listener was called');
assert.equal(__react.subscriptions, __subscribed, 'the same subscribe function on every render');
assert.ok(__turns.length >= 1);
assert.deepEqual(__turns.map((t) => t.key), session.getSnapshot().executions.map((e) => e.execution_id));`,
  },
  {
    file: 'docs/web/reconcile.md',
    match: 'session.reconcile(await fetchSlimSnapshot())',
    declare: `
import type { Session, SlimSnapshot } from 'stepline';
declare const session: Session;
declare function fetchSlimSnapshot(): Promise<SlimSnapshot>;`,
    setup: `
import { Session as __Session } from 'stepline';
const __turn = __ctx.referenceTurn('tool call then final answer [debug]');
const session = new __Session({ sessionId: 'sess-e2e' });
for (const e of __ctx.envelopesOf('tool call then final answer [debug]')) session.ingest(e);
const fetchSlimSnapshot = async () => __turn.slim;`,
    after: `
assert.deepEqual(differences, []);
assert.equal(consistent, true);
assert.equal(view.executions.length, 1);`,
  },
  {
    file: 'docs/node/bulk-replay.md',
    match: 'log.ingestJsonl(fs.readFileSync(',
    setup: `
import { writeFileSync as __write } from 'node:fs';
__write('workers.jsonl', ['tool call then final answer [debug]', 'steps limit 2 with a driver that always calls tools [default]']
  .flatMap((name, i) => __ctx.envelopesOf(name, 'worker-' + i)).map((e) => JSON.stringify(e)).join('\\n'));`,
    after: `
import { RunLog as __RunLog } from 'stepline';
assert.equal(log.summary().sessions, 2);
assert.deepEqual(__RunLog.load(fs.readFileSync('day.jsonl', 'utf8')).summary(), log.summary());`,
  },
  {
    file: 'docs/web/reconcile.md',
    match: 'session.ingestFinalState(storedState)',
    declare: `
import type { Session } from 'stepline';
declare const session: Session;
declare const storedState: object;
declare const fs: typeof import('node:fs');`,
    setup: `
import * as fs from 'node:fs';
import { Session as __Session } from 'stepline';
const __name = 'tool throws (exception escapes ToolExecutor), default policy [debug]';
let __id = 0;
const storedState = JSON.parse(JSON.stringify(__ctx.referenceTurn(__name).finalState), (_, v) => (v === '<uuid>' ? \`9e000000-0000-4000-8000-\${String(++__id).padStart(12, '0')}\` : v));
const session = new __Session();
for (const e of __ctx.envelopesOf(__name)) session.ingest(e);`,
    after: `
const __again = __Session.fromRecording(fs.readFileSync('run.jsonl', 'utf8'));
assert.equal(__again.toRecording(), session.toRecording(), 'the recording keeps the final state where it arrived');
assert.equal(__again.recordedSnapshots().length, 1);
assert.equal(report.view.executions[0].status, 'failed');`,
  },
  {
    file: 'docs/devtools/compare.md',
    match: 'compareRuns(withTools, direct)',
    declare: `
import { compareRuns, type Session } from 'stepline/devtools';
declare const withTools: Session;
declare const direct: Session;`,
    setup: `
import { Session as __Session, compareRuns } from 'stepline/devtools';
const withTools = new __Session();
for (const e of __ctx.envelopesOf('tool call then final answer [debug]')) withTools.ingest(e);
const direct = new __Session();
for (const e of __ctx.envelopesOf('direct final answer (1 step) [default]')) direct.ingest(e);`,
    after: `
assert.equal(c.divergence.execution, 0);
assert.equal(c.divergence.step, 1);
assert.ok(c.divergence.differs.includes('tools'));
assert.equal(c.totals.usage_delta, c.totals.usage_b - c.totals.usage_a);
assert.deepEqual(compareRuns(withTools, withTools).divergence, null);`,
  },
  {
    file: 'docs/node/cost.md',
    match: "session.cost({ 'gpt-4o': { input: 2.5, output: 10 } });",
    declare: `
import type { Session } from 'stepline/devtools';
import { pricesFromState } from 'stepline/devtools';
declare const session: Session;
declare const v2State: object;`,
    setup: `
import { Session as __Session, pricesFromState } from 'stepline/devtools';
const session = new __Session();
for (const e of __ctx.envelopesOf('tool call then final answer [debug]')) session.ingest(e);
// A v2.7 final state as the reference stores it: a model and no pricing ([]).
const v2State = { agentId: 'a0000000-0000-4000-8000-000000000001', executionCount: 1, execution: null,
  llmConfig: { model: 'fake-model', driver: 'openai', pricing: [] } };`,
    after: `
assert.equal(run.currency, 'USD');
assert.equal(run.model, 'gpt-4o');
assert.ok(Math.abs(run.cost - 0.001095) < 1e-12);`,
  },
  {
    file: 'docs/devtools/otlp.md',
    match: "session.exportOtlp({ serviceName: 'support-agent' })",
    declare: `
import type { Session } from 'stepline/devtools';
declare const session: Session;`,
    setup: `
import { Session as __Session } from 'stepline/devtools';
const session = new __Session();
for (const e of __ctx.envelopesOf('tool call then final answer [debug]')) session.ingest(e);
const __posted = [];
const fetch = async (url, init) => { __posted.push({ url, init }); return { ok: true }; };`,
    after: `
assert.deepEqual(body.resourceSpans[0].scopeSpans[0].spans.map((s) => s.name), ['invoke_agent', 'chat', 'execute_tool search', 'chat']);
assert.equal(__posted.length, 1);
assert.deepEqual(JSON.parse(__posted[0].init.body), body);`,
  },
  {
    file: 'docs/devtools/diagnostics.md',
    match: 'diagnose({ envelopes, snapshot, state, includeToolResults: false })',
    declare: `
import type { SlimSnapshot } from 'stepline';
declare const envelopes: object[];
declare const snapshot: SlimSnapshot;
declare const state: object;`,
    setup: `
const __turn = __ctx.referenceTurn('tool throws (exception escapes ToolExecutor), default policy [debug]');
const envelopes = __turn.envelopes.map(({ envelope }) => envelope);
const snapshot = __turn.slim;
const state = __turn.finalState;`,
  },
  {
    file: 'pkg-template/README.md',
    match: 'subscribeToAgent(echo, {',
    declare: `
import type __Echo from 'laravel-echo';
declare const echo: __Echo<'reverb'>;`,
    setup: `
import __Echo from 'laravel-echo';
__ctx.pusherServer.reset();
const echo = new __Echo({ broadcaster: 'reverb', key: 'app-key', Pusher: __ctx.Pusher });
const __app = __ctx.laravelApp(__ctx.pusherServer, 'tool call then answer [debug]', 'sess-1');
const fetch = (url) => __app.fetch(url);
const __logged = [];
const console = { log: (...args) => __logged.push(args) };`,
    after: `
await __ctx.until(() => __ctx.pusherServer.subscribers('agent.sess-1') === 1, 'the page subscribed');
__app.broadcast(3);
__ctx.pusherServer.stop();
__app.broadcast(4);
__ctx.pusherServer.start();
await __ctx.until(() => run.getSnapshot().resyncs === 1 && !run.getSnapshot().catchingUp, 'the reconnect resync');
__app.broadcast();
assert.deepEqual(run.getSnapshot().view.executions, (await __ctx.uninterruptedView(__app.envelopes, 'sess-1')).executions);
assert.deepEqual(__logged.at(-1), [1]);
run.unsubscribe();`,
  },
  {
    file: 'pkg-template/README.md',
    match: "import { useAgentRun } from 'stepline/react';",
    setup: `
__ctx.pusherServer.reset();
const __app = __ctx.laravelApp(__ctx.pusherServer, 'tool call then answer [debug]', 'sess-1');
const fetch = (url) => __app.fetch(url);`,
    after: `
import { __mount } from 'react';
__app.broadcast(6); // step 1, before the page subscribed
__app.hold();
const __page = __mount(Run);
await __ctx.until(() => __ctx.pusherServer.subscribers('agent.sess-1') === 1, 'the page subscribed');
assert.equal(__ctx.textOf(__page.output), '0 steps');
__app.broadcast(1);
assert.equal(__ctx.textOf(__page.output), 'catching up…');
__app.release();
await __ctx.until(() => __ctx.textOf(__page.output) === '2 steps', 'step 1 filled in');
__page.unmount();`,
  },
  {
    file: 'pkg-template/README.md',
    match: "import { useAgentRun } from 'stepline/vue';",
    setup: `
__ctx.pusherServer.reset();
const __app = __ctx.laravelApp(__ctx.pusherServer, 'FakeAgentDriver: replays the last step when exhausted, steps limit 3 [standard]', 'sess-1');
const fetch = (url) => __app.fetch(url);`,
    after: `
import { createRenderer as __createRenderer } from 'vue';
const __root = { tag: 'root', props: {}, children: [] };
const __page = __ctx.vueTestRenderer(__createRenderer).createApp(Run).mount(__root);
await __ctx.until(() => __ctx.pusherServer.subscribers('agent.sess-1') === 1, 'the page subscribed');
__app.broadcast(5);
await __ctx.until(() => __ctx.textOf(__root) === '1 steps', 'step 1 shown');
__ctx.pusherServer.stop();
__app.broadcast(8); // steps 2 and 3, while the connection is down
__app.hold();
__ctx.pusherServer.start();
await __ctx.until(() => __ctx.textOf(__root) === 'catching up…', 'catching up');
__app.release();
await __ctx.until(() => __ctx.textOf(__root) === '3 steps', 'steps 2 and 3 filled in');`,
  },
  {
    file: 'docs/node/snapshots.md',
    match: "replayGuards(state, [{ kind: 'steps_limit', max: 1 }])",
    declare: 'declare const state: object;',
    setup: `
import { readFileSync as __readV2 } from 'node:fs';
const __v2runs = JSON.parse(__readV2(new URL('../../tests/vectors/instructor-php-v2.7/agent-runs.json', import.meta.url), 'utf8'));
let __n = 0;
const state = JSON.parse(JSON.stringify(__v2runs.find((r) => r.name === 'steps limit 2 reached (model always calls tools) [standard]').expected[0].finalState),
  (_, v) => (v === '<uuid>' ? \`9e000000-0000-4000-8000-\${String(++__n).padStart(12, '0')}\` : v));`,
    after: `
assert.equal(snapshot.step_count, 2);
assert.equal(whatIf.stopsBeforeStep, 2);`,
  },
  {
    file: 'docs/web/reconcile.md',
    match: 'for (const d of session.reconcile(slimSnapshot(finalState).snapshot).differences)',
    declare: `
import type { Session } from 'stepline';
declare const session: Session;
declare const finalState: object;`,
    setup: `
import { readFileSync as __readRuns } from 'node:fs';
import { Session as __Session } from 'stepline';
const __runs = JSON.parse(__readRuns(new URL('../../tests/vectors/instructor-php-v2.7/agent-runs.json', import.meta.url), 'utf8'));
const __run = __runs.find((r) => r.name === 'steps limit 2 reached (model always calls tools) [standard]').expected[0];
let __id = 0;
const finalState = JSON.parse(JSON.stringify(__run.finalState), (_, v) => (v === '<uuid>' ? \`9e000000-0000-4000-8000-\${String(++__id).padStart(12, '0')}\` : v));
const session = new __Session({ sessionId: 'sess-1' });
for (const { envelope } of __run.envelopes) session.ingest(envelope);
const __logged = [];
const console = { log: (...args) => __logged.push(args.join(' ')) };`,
    after: `
assert.deepEqual(__logged.map((l) => l.split(' by design')[0]), ['extra_step /stream/steps/3']);
assert.match(__logged[0], /before-step hook/);`,
  },
  // README.md's quick starts. The React one mounts the component on the in-process
  // server and checks it lists the run's steps once the run ended.
  {
    file: 'README.md',
    match: 'export function Steps()',
    declare: 'declare const sessionId: string;',
    setup: `
const sessionId = 'sess-quick';
import { configureEcho as __configureEcho } from '@laravel/echo-react';
__ctx.pusherServer.reset();
const __app = __ctx.laravelApp(__ctx.pusherServer, 'tool call then answer [debug]', 'sess-quick');
const fetch = (url) => __app.fetch(url);
__configureEcho({ broadcaster: 'reverb' });`,
    after: `
import { __mount } from 'react';
const __page = __mount(Steps);
await __ctx.until(() => __ctx.pusherServer.subscribers('agent.sess-quick') === 1, 'the page subscribed');
__app.broadcast();
const __view = (await __ctx.uninterruptedView(__app.envelopes, 'sess-quick')).executions.at(-1);
await __ctx.until(() => __view.steps.every((s) => __ctx.textOf(__page.output).includes(s.type)), 'every step listed');
assert.equal(__ctx.textOf(__page.output), __view.steps.map((s) => s.type).join(''));
__page.unmount();`,
  },
  {
    file: 'README.md',
    match: 'slimSnapshot(row.state_json, { preset',
    declare: 'declare const row: { state_json: string };',
    setup: "const row = { state_json: JSON.stringify(__ctx.referenceTurn('tool call then final answer [debug]').finalState) };",
    after: `
assert.equal(valid, true);
assert.match(__readme.logged[0][0], /^stored \\d+ bytes$/);`,
  },
];
