/**
 * The one door into a session's Chromium: every CDP client of the session (the caller's
 * Playwright, the session's code, the server's own connection for actions and profiles) is a peer
 * of this relay, which alone holds the browser's debugging pipe.
 *
 * A pipe is one CDP connection, and each client expects a connection of its own. The relay gives
 * each client its own session on the browser target (`Target.attachToBrowserTarget`): the
 * client's browser-level commands go out on that session, the sessions it attaches to pages are
 * recorded as its own, message ids are renumbered so that clients cannot collide, and each answer
 * and event goes back only to the client it belongs to. Every command passes {@link checkCdpCommand}
 * first.
 */
import { checkCdpCommand, type SessionPolicy } from './cdp-policy.ts';
import type { ChromiumPipe } from './chromium-pipe.ts';

/** A client's end of the relay. */
export interface CdpPeer {
  /** Passes one message of the client (a CDP command as JSON text) to the browser. */
  send(message: string): void;
  /** Detaches the client; its page sessions go with it. */
  close(): void;
}

interface Client {
  /** Its session on the browser target; commands without a sessionId go there. */
  browserSession: string | undefined;
  /** Messages sent before that session existed. */
  waiting: string[];
  deliver: (message: string) => void;
  onClose: () => void;
  closed: boolean;
}

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: unknown;
}

type Pending =
  | { client: Client; id: number; method: string; sessionId: string | undefined }
  | { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void };

/** CDP's error code for a command the server refuses (as Chromium's own refusals use). */
const refusedCode = -32000;
/** How long Chromium gets to close before it is killed. */
const closeGraceMs = 3000;

/** Multiplexes one piped Chromium among any number of CDP clients, under the session policy. */
export class CdpRelay {
  readonly #pipe: ChromiumPipe;
  readonly #policy: SessionPolicy;
  readonly #pending = new Map<number, Pending>();
  /** Which client each CDP session (browser or page) belongs to. */
  readonly #owners = new Map<string, Client>();
  readonly #clients = new Set<Client>();
  #nextId = 1;

  constructor(pipe: ChromiumPipe, policy: SessionPolicy) {
    this.#pipe = pipe;
    this.#policy = policy;
    pipe.onMessage((message) => this.#fromBrowser(message));
    void pipe.exited.then(() => {
      for (const pending of this.#pending.values()) {
        if ('reject' in pending) pending.reject(new Error('Chromium exited'));
      }
      this.#pending.clear();
      for (const client of [...this.#clients]) this.#detach(client);
    });
  }

  /** Sends a command of the relay's own and waits for its answer. */
  call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      if (!this.#pipe.isRunning) {
        reject(new Error('Chromium exited'));
        return;
      }
      const id = this.#nextId++;
      this.#pending.set(id, { resolve, reject });
      this.#pipe.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * Connects a client: `deliver` gets each message meant for it, `onClose` is called once when
   * the browser goes away or the client is detached.
   */
  attach(deliver: (message: string) => void, onClose: () => void): CdpPeer {
    const client: Client = {
      browserSession: undefined,
      waiting: [],
      deliver,
      onClose,
      closed: false,
    };
    this.#clients.add(client);
    this.call('Target.attachToBrowserTarget')
      .then((result) => {
        const sessionId = String(result['sessionId']);
        if (client.closed) {
          void this.call('Target.detachFromTarget', { sessionId }).catch(() => undefined);
          return;
        }
        client.browserSession = sessionId;
        this.#owners.set(sessionId, client);
        for (const message of client.waiting.splice(0)) this.#fromClient(client, message);
      })
      .catch(() => this.#detach(client));
    return {
      send: (message) => {
        if (client.closed) return;
        if (client.browserSession === undefined) client.waiting.push(message);
        else this.#fromClient(client, message);
      },
      close: () => this.#detach(client),
    };
  }

  /** Detaches every client and ends Chromium (asked to close first, killed after a grace time). */
  async close(): Promise<void> {
    for (const client of [...this.#clients]) this.#detach(client);
    if (this.#pipe.isRunning) {
      void this.call('Browser.close').catch(() => undefined);
      const timer = new Promise((resolve) => setTimeout(resolve, closeGraceMs).unref());
      await Promise.race([this.#pipe.exited, timer]);
    }
    await this.#pipe.kill();
  }

  #fromClient(client: Client, text: string): void {
    let message: CdpMessage;
    try {
      message = JSON.parse(text) as CdpMessage;
    } catch {
      return;
    }
    const { id, method, sessionId } = message;
    if (typeof id !== 'number' || typeof method !== 'string') return;
    const answer = (body: Record<string, unknown>) =>
      client.deliver(JSON.stringify({ id, ...body, ...(sessionId ? { sessionId } : {}) }));
    if (sessionId !== undefined && this.#owners.get(sessionId) !== client) {
      answer({ error: { code: refusedCode, message: 'Session with given id not found.' } });
      return;
    }
    const verdict = checkCdpCommand(method, message.params ?? {}, this.#policy);
    if (!verdict.allowed) {
      answer({ error: { code: refusedCode, message: verdict.reason } });
      return;
    }
    const relayId = this.#nextId++;
    this.#pending.set(relayId, { client, id, method, sessionId });
    this.#pipe.send(
      JSON.stringify({
        id: relayId,
        method,
        params: verdict.params,
        sessionId: sessionId ?? client.browserSession,
      }),
    );
  }

  #fromBrowser(text: string): void {
    let message: CdpMessage;
    try {
      message = JSON.parse(text) as CdpMessage;
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if ('resolve' in pending) {
        if (message.error) pending.reject(new Error(JSON.stringify(message.error)));
        else pending.resolve(message.result ?? {});
        return;
      }
      if (pending.client.closed) return;
      // Sessions a client attaches by command are its own, like those auto-attached for it.
      const attached = message.result?.['sessionId'];
      if (typeof attached === 'string') this.#owners.set(attached, pending.client);
      const { sessionId: _relayed, ...rest } = message;
      pending.client.deliver(
        JSON.stringify({
          ...rest,
          id: pending.id,
          ...(pending.sessionId ? { sessionId: pending.sessionId } : {}),
        }),
      );
      return;
    }
    const owner = message.sessionId === undefined ? undefined : this.#owners.get(message.sessionId);
    if (!owner || owner.closed) return;
    const child = message.params?.['sessionId'];
    if (message.method === 'Target.attachedToTarget' && typeof child === 'string') {
      this.#owners.set(child, owner);
    }
    if (message.sessionId === owner.browserSession) {
      const { sessionId: _browserSession, ...event } = message;
      owner.deliver(JSON.stringify(event));
    } else {
      owner.deliver(text);
    }
    if (message.method === 'Target.detachedFromTarget' && typeof child === 'string') {
      this.#owners.delete(child);
    }
  }

  #detach(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.#clients.delete(client);
    for (const [sessionId, owner] of this.#owners) {
      if (owner !== client) continue;
      this.#owners.delete(sessionId);
      // Releases targets that wait for this client (waitForDebuggerOnStart) as well.
      if (this.#pipe.isRunning) {
        void this.call('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      }
    }
    client.onClose();
  }
}
