// The backend side of a live run for tests and demos: publishes stepline
// envelopes to a Pusher-protocol server (sockudo from ./sockudo.mjs) with the
// official `pusher` server library, the way a Laravel app would, and signs
// private-channel subscriptions for the panel's /broadcasting/auth.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Pusher from 'pusher';

const pkg = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pkg', 'index.mjs')).href;

/** A `pusher` client for a server from startSockudo(). */
function client({ appId, key, secret, host, port }) {
  return new Pusher({ appId, key, secret, host, port: String(port), useTLS: false });
}

/**
 * `{ pusher, publish(envelope, { channel?, private?, eventName? }) }`. publish
 * triggers an event on `agent.<session_id>` (or `private-agent.<session_id>`,
 * or the given channel) with the envelope as data, as instructor-php v2's
 * Laravel transport does, and resolves with the HTTP status. The event name is
 * `eventName` (publish's, else publisher's), else the transport's default
 * `instructor.agent.event` (stepline's defaultEventName(), read from pkg/ when
 * first needed: the demo builds pkg/ after importing this); a v1.22-style
 * backend passes `eventName: envelope.type`. A refusal rejects with an Error
 * carrying `status` and `body` (the server's response text, e.g. sockudo's 413
 * "payload_too_large").
 */
export function publisher(server, { eventName: defaultName } = {}) {
  const pusher = client(server);
  async function publish(envelope, { channel, private: isPrivate = false, eventName } = {}) {
    const target = channel ?? `${isPrivate ? 'private-' : ''}agent.${envelope.session_id}`;
    const event = eventName ?? defaultName ?? (await import(pkg)).defaultEventName();
    let res;
    try {
      res = await pusher.trigger(target, event, envelope);
    } catch (cause) {
      // pusher's RequestError inherits from one shared Error instance (its stack
      // and instanceof are not useful), so wrap it in a plain Error.
      const status = cause?.status;
      const body = cause?.body ?? '';
      const why = status ? `HTTP ${status}: ${body}` : (cause?.error?.message ?? cause?.message ?? String(cause));
      const error = new Error(`publishing ${envelope.type} as ${event} to ${target} failed: ${why}`, { cause });
      error.status = status;
      error.body = body;
      throw error;
    }
    // Read the body so the keep-alive socket is released.
    await res.text();
    return res.status;
  }
  return { pusher, publish };
}

/** `(socketId, channelName) => { auth }`: the signed answer for a private channel. */
export function authorizer(server) {
  const pusher = client(server);
  return (socketId, channelName) => pusher.authorizeChannel(socketId, channelName);
}
