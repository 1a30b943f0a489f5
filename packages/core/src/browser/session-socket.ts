/**
 * The loopback WebSocket through which Playwright (the session's code, the server's own
 * connection, a library user's `connectOverCDP`) reaches a session's relay: Playwright speaks CDP
 * only over a WebSocket or a pipe it launched itself.
 *
 * It leads to the relay, never to Chromium, so it is under the session policy; and each session's
 * path carries that session's secret token, so knowing the port gives another process nothing.
 */
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData } from 'ws';
import type { CdpRelay } from './cdp-relay.ts';

/** What the socket needs to know of a session. */
export interface SocketSession {
  token: string;
  relay: CdpRelay;
}

/** Largest CDP message taken (screenshots of long pages are big). */
const maxPayloadBytes = 256 * 1024 * 1024;

/** One loopback WebSocket server for all sessions of a registry, started on first use. */
export class SessionSocket {
  readonly #find: (id: string) => SocketSession | undefined;
  #server: Promise<WebSocketServer> | undefined;

  constructor(find: (id: string) => SocketSession | undefined) {
    this.#find = find;
  }

  /** The URL a CDP client of session `id` connects to. */
  async urlOf(id: string, token: string): Promise<string> {
    const server = await this.#start();
    const { port } = server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}/session/${id}?token=${encodeURIComponent(token)}`;
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    const server = await this.#server;
    this.#server = undefined;
    if (!server) return;
    for (const socket of server.clients) socket.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #start(): Promise<WebSocketServer> {
    this.#server ??= new Promise((resolve, reject) => {
      const server = new WebSocketServer({
        host: '127.0.0.1',
        port: 0,
        maxPayload: maxPayloadBytes,
        perMessageDeflate: false,
      });
      server.once('listening', () => resolve(server));
      server.once('error', reject);
      server.on('connection', (socket, request) => {
        const url = new URL(request.url ?? '/', 'ws://127.0.0.1');
        const id = /^\/session\/([\w-]+)$/.exec(url.pathname)?.[1] ?? '';
        const session = this.#find(id);
        if (!session || !sameSecret(url.searchParams.get('token') ?? '', session.token)) {
          socket.close(1008, 'Unknown browser session or wrong token');
          return;
        }
        const peer = session.relay.attach(
          (message) => socket.send(message),
          () => socket.close(1000),
        );
        socket.on('message', (data: RawData) => peer.send(rawText(data)));
        socket.on('close', () => peer.close());
        socket.on('error', () => peer.close());
      });
    });
    return this.#server;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}
