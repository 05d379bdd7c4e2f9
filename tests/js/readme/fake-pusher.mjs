// pusher-js as laravel-echo drives it, with the server in this process instead of a
// socket: the README's adapter examples run with the real laravel-echo,
// @laravel/echo-react and @laravel/echo-vue on top of it (readme.test.mjs resolves
// `pusher-js` here). What the examples rely on is pusher-js's contract: a channel is
// subscribed when the server acknowledges it (`pusher:subscription_succeeded`, also to
// `bind_global` callbacks), a connection that drops loses its subscriptions and events
// broadcast meanwhile, and on reconnecting every channel is subscribed again. The real
// protocol over a real server (sockudo) is what tests/browser covers.

const clients = new Set();
let sockets = 0;

class Emitter {
  constructor() {
    this.callbacks = new Map();
    this.globals = [];
  }

  bind(event, callback) {
    this.callbacks.set(event, [...(this.callbacks.get(event) ?? []), callback]);
    return this;
  }

  unbind(event, callback) {
    if (event === undefined) this.callbacks.clear();
    else if (callback === undefined) this.callbacks.delete(event);
    else this.callbacks.set(event, (this.callbacks.get(event) ?? []).filter((c) => c !== callback));
    return this;
  }

  bind_global(callback) {
    this.globals.push(callback);
    return this;
  }

  unbind_global(callback) {
    this.globals = callback === undefined ? [] : this.globals.filter((c) => c !== callback);
    return this;
  }

  emit(event, data) {
    for (const callback of this.callbacks.get(event) ?? []) callback(data);
    for (const callback of this.globals) callback(event, data);
  }
}

class Connection extends Emitter {
  constructor() {
    super();
    this.state = 'initialized';
    this.socket_id = null;
  }

  set(state) {
    const previous = this.state;
    this.state = state;
    this.socket_id = state === 'connected' ? `${++sockets}.${sockets}` : null;
    this.emit('state_change', { previous, current: state });
    this.emit(state);
  }
}

export default class Pusher {
  constructor(key, options) {
    this.key = key;
    this.options = options;
    this.channels = { channels: {} };
    this.connection = new Connection();
    this.connection.set('connecting');
    clients.add(this);
    queueMicrotask(() => this.connected());
  }

  connected() {
    if (!clients.has(this)) return;
    this.connection.set('connected');
    for (const channel of Object.values(this.channels.channels)) this.acknowledge(channel);
  }

  acknowledge(channel) {
    queueMicrotask(() => {
      if (this.connection.state !== 'connected' || this.channels.channels[channel.name] !== channel) return;
      channel.subscribed = true;
      channel.emit('pusher:subscription_succeeded', {});
    });
  }

  subscribe(name) {
    let channel = this.channels.channels[name];
    if (!channel) {
      channel = Object.assign(new Emitter(), { name, subscribed: false });
      this.channels.channels[name] = channel;
      if (this.connection.state === 'connected') this.acknowledge(channel);
    }
    return channel;
  }

  unsubscribe(name) {
    delete this.channels.channels[name];
  }

  disconnect() {
    clients.delete(this);
    this.connection.set('disconnected');
  }
}

/** The Pusher-protocol server the fake clients are connected to. */
export const server = {
  /** An event on a channel, to every client subscribed to it now (nothing is kept). */
  broadcast(channel, event, data) {
    for (const client of clients) {
      const subscription = client.channels.channels[channel];
      if (client.connection.state === 'connected' && subscription?.subscribed) subscription.emit(event, structuredClone(data));
    }
  },
  /** The server went away: every connection is down, its subscriptions gone. */
  stop() {
    for (const client of clients) {
      for (const channel of Object.values(client.channels.channels)) channel.subscribed = false;
      client.connection.set('unavailable');
    }
  },
  /** The server is back: each client reconnects and subscribes to its channels again. */
  start() {
    for (const client of clients) client.connected();
  },
  /** How many clients are subscribed to `channel` now (acknowledged by the server). */
  subscribers(channel) {
    return [...clients].filter((c) => c.connection.state === 'connected' && c.channels.channels[channel]?.subscribed).length;
  },
  /** Clients still connected (an example that leaves its channel or disconnects is gone). */
  get clients() {
    return clients.size;
  },
  reset() {
    clients.clear();
  },
};
