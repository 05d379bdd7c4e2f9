// Type test for `stepline/echo`: subscribeToAgent takes a real laravel-echo instance
// (`Echo<'reverb'>`, `Echo<'pusher'>`) and either build's Session, and its state is typed
// down to the steps. The `Events` augmentation makes laravel-echo's event map give an
// Envelope for the official name. Wrong options and fields must not type-check.
import type Echo from 'laravel-echo';
import type { ConnectionStatus } from 'laravel-echo';
import { Session, type Envelope, type ReconcileReport, type StepView } from 'stepline';
import { Session as LiveSession } from 'stepline/live';
import { agentChannelName, createAgentFeed, subscribeToAgent, type AgentRunState, type ResyncReason } from 'stepline/echo';

export function follow(echo: Echo<'reverb'>, sessionId: string): AgentRunState {
  const run = subscribeToAgent(
    echo,
    {
      sessionId,
      resync: async (reason: ResyncReason) => (await fetch(`/agents/${sessionId}/events?why=${reason}`)).json() as Promise<unknown[]>,
      finalState: () => fetch(`/agents/${sessionId}/state`).then((r) => r.text()),
    },
    new Session({ sessionId }),
  );
  const stop: () => void = run.subscribe(() => {});
  stop();
  const state = run.getSnapshot();
  const steps: readonly StepView[] = state.view.executions[0]?.steps ?? [];
  const connection: ConnectionStatus = state.connection;
  const catchingUp: boolean = state.catchingUp;
  const report: ReconcileReport | null = state.report;
  const duplicates: number | undefined = state.lastResync?.duplicates;
  void [steps, connection, catchingUp, report, duplicates];
  run.unsubscribe();
  return state;
}

export function followLive(echo: Echo<'pusher'>, sessionId: string): void {
  const run = subscribeToAgent(echo, { sessionId, private: true, eventName: 'acme.agent' }, new LiveSession({ sessionId }));
  void run.resync('manual');
  // @ts-expect-error resync reasons are a closed union
  void run.resync('because');
  // @ts-expect-error the option is sessionId, not session_id
  subscribeToAgent(echo, { session_id: sessionId }, new LiveSession());
  // @ts-expect-error the state has no `steps`: they are under view.executions[n]
  void run.getSnapshot().steps;
  // @ts-expect-error connection is laravel-echo's ConnectionStatus, not any string
  const up: typeof run extends { getSnapshot(): { connection: infer C } } ? C : never = 'online';
  void up;
}

// A feed without Echo, as the React and Vue adapters use it.
const feed = createAgentFeed(new Session(), { eventName: 'acme.agent' });
feed.receive('.acme.agent', {});
feed.connectionChanged('reconnecting');
// @ts-expect-error not a laravel-echo connection status
feed.connectionChanged('offline');
const channelName: string = agentChannelName({ sessionId: 'sess-1' });

// laravel-echo's global Events map (echo-react/-vue read it): the official name, with and
// without Echo's leading dot, carries an Envelope, and the envelope narrows on `type`.
type AgentEvent = Events['.instructor.agent.event'];
export function describe(event: AgentEvent, bare: Events['instructor.agent.event']): string {
  const same: Envelope = bare;
  void same;
  switch (event.type) {
    case 'agent.step.started':
      return `step ${event.payload.step_number}`;
    default:
      return event.type;
  }
}
// @ts-expect-error the payload is an Envelope, not any object
const notAnEnvelope: AgentEvent = { hello: 'world' };

export { channelName, notAnEnvelope };
