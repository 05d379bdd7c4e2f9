// Type test for the live entry (`stepline/live`): init first, then a Session read the way
// React's useSyncExternalStore does. What only the full package has must not type-check.
import init, { Session, SteplineError, decodeEnvelope, type SessionView } from 'stepline/live';

await init();
const session = new Session({ sessionId: 'sess-1', maxTextBytes: 1024 });
const unsubscribe: () => void = session.subscribe(() => {});
const view: SessionView = session.getSnapshot();
const status: string = decodeEnvelope('{}').type;
unsubscribe();
// @ts-expect-error reconcile needs the snapshot reader, which only the full package has
session.reconcile({});
// @ts-expect-error diagnose runs the detectors, which only stepline/devtools has
session.diagnose();
const isError: boolean = new Error() instanceof SteplineError;

export { view, status, isError };

// React's useSyncExternalStore takes these unbound (the entry binds them to their session).
const subscribeToRun: (onStoreChange: () => void) => () => void = session.subscribe;
const readRun: () => SessionView = session.getSnapshot;
export { subscribeToRun, readRun };

// Which Pusher event names carry envelopes (the Laravel transport's name, a configured one, agent.*).
import { defaultEventName, isAgentEventName } from 'stepline/live';
const transportEvent: string = defaultEventName();
const carries: boolean = isAgentEventName('.instructor.agent.event') && isAgentEventName('acme.agent', { eventName: 'acme.agent' });
const configured: string | undefined = undefined;
const either: boolean = isAgentEventName('agent.status', { eventName: configured });
// @ts-expect-error: the configured name is a string
isAgentEventName('agent.status', { eventName: 5 });
export { transportEvent, carries, either };
