// The few extension APIs the extension's scripts use (no @types/chrome in the
// workspace): runtime messaging and ports, tabs.connect/query/sendMessage (none
// of which needs the "tabs" permission: only a tab's url and title would), and
// the DevTools panel API.
declare namespace chrome {
  namespace runtime {
    interface MessageSender { tab?: { id?: number } }
    interface Port {
      name: string;
      sender?: MessageSender;
      postMessage(message: unknown): void;
      disconnect(): void;
      onMessage: { addListener(cb: (message: unknown, port: Port) => void): void };
      onDisconnect: { addListener(cb: (port: Port) => void): void };
    }
    const lastError: { message?: string } | undefined;
    const id: string;
    function sendMessage(message: unknown): Promise<unknown>;
    const onConnect: { addListener(cb: (port: Port) => void): void };
    const onMessage: { addListener(cb: (message: unknown, sender: MessageSender, reply: (answer: unknown) => void) => boolean | void): void };
  }
  namespace tabs {
    interface Tab { id?: number }
    function query(filter: object): Promise<Tab[]>;
    function sendMessage(tabId: number, message: unknown): Promise<unknown>;
    function connect(tabId: number, info: { name: string }): runtime.Port;
  }
  namespace devtools {
    namespace inspectedWindow { const tabId: number }
    namespace panels { function create(title: string, icon: string, page: string): void }
  }
}
