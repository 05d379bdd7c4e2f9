// A stand-in for a laravel-echo `Echo` instance over pusher-js, holding only what
// stepline/echo touches: channel/private/leaveChannel, connector.onConnectionChange and
// connectionStatus; channels with listenToAll/stopListeningToAll and a pusher-js
// `subscription` (bind/unbind/subscribed). The tests drive it: `emit` an event as
// laravel-echo hands it over, `subscribe` a channel (pusher:subscription_succeeded, as
// pusher-js fires it again after every reconnect), `setStatus` the connection.

export class FakePusherChannel {
  subscribed = false;
  bindings = new Map(); // event -> Set of callbacks

  bind(event, callback) {
    if (!this.bindings.has(event)) this.bindings.set(event, new Set());
    this.bindings.get(event).add(callback);
    return this;
  }

  unbind(event, callback) {
    this.bindings.get(event)?.delete(callback);
    return this;
  }

  fire(event, data) {
    for (const callback of [...(this.bindings.get(event) ?? [])]) callback(data);
  }

  /** Callbacks still bound, over every event. */
  get bound() {
    return [...this.bindings.values()].reduce((n, set) => n + set.size, 0);
  }
}

export class FakeChannel {
  listeners = new Set();
  subscription = new FakePusherChannel();

  constructor(name) {
    this.name = name;
  }

  listenToAll(callback) {
    this.listeners.add(callback);
    return this;
  }

  stopListeningToAll(callback) {
    if (callback) this.listeners.delete(callback);
    else this.listeners.clear();
    return this;
  }

  subscribed(callback) {
    this.subscription.bind('pusher:subscription_succeeded', callback);
    return this;
  }

  error(callback) {
    this.subscription.bind('pusher:subscription_error', callback);
    return this;
  }

  /** An event as laravel-echo's listenToAll hands it over: Echo's leading dot, then the data. */
  emit(name, data) {
    for (const listener of [...this.listeners]) listener(name, structuredClone(data));
  }

  /** The subscription succeeded (the first time, or again after a reconnect). */
  succeed() {
    this.subscription.subscribed = true;
    this.subscription.fire('pusher:subscription_succeeded', {});
  }

  /** The connection dropped: pusher-js marks its channels unsubscribed. */
  drop() {
    this.subscription.subscribed = false;
  }

  refuse(error) {
    this.subscription.fire('pusher:subscription_error', error);
  }
}

export class FakeEcho {
  channels = new Map(); // full name (private- prefixed) -> FakeChannel
  left = [];
  status = 'connecting';
  statusListeners = new Set();

  connector = {
    onConnectionChange: (callback) => {
      this.statusListeners.add(callback);
      return () => this.statusListeners.delete(callback);
    },
  };

  channel(name) {
    return this.#join(name);
  }

  private(name) {
    return this.#join(`private-${name}`);
  }

  leaveChannel(name) {
    this.left.push(name);
    this.channels.delete(name);
  }

  connectionStatus() {
    return this.status;
  }

  setStatus(status) {
    this.status = status;
    for (const callback of [...this.statusListeners]) callback(status);
  }

  #join(name) {
    if (!this.channels.has(name)) this.channels.set(name, new FakeChannel(name));
    return this.channels.get(name);
  }
}
