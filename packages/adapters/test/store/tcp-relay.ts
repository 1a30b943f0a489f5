/**
 * A TCP relay on 127.0.0.1 in front of a real server, for the odd network behaviour stores must
 * survive: a server that accepts and never answers, replies that stop coming, and connections
 * cut under a live client. A real socket, not a mock, as STYLE.md asks.
 */
import { connect, createServer, type Socket } from 'node:net';
import { afterEach } from 'vitest';

/** A running relay. */
export interface TcpRelay {
  /** The port the relay listens on. */
  port: number;
  /** Stops passing the server's replies back, on open and future connections alike. */
  mute(): void;
  /** Passes replies again (those withheld while muted are lost). */
  unmute(): void;
  /** Cuts every open connection, as a server restart or a network fault would. */
  dropConnections(): void;
  /** Stops listening and cuts every connection. */
  close(): Promise<void>;
}

/**
 * Starts a relay to `target`; without a target it is a server that accepts connections and never
 * says a word.
 */
export async function startTcpRelay(target?: { host: string; port: number }): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let isMuted = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A cut connection errors on the other side; the test only cares that it is gone.
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (!target) return;
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!isMuted) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay has no TCP port');
  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: address.port,
    mute: () => {
      isMuted = true;
    },
    unmute: () => {
      isMuted = false;
    },
    dropConnections,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * For a describe block whose tests each start a relay: returns the function that starts one,
 * and closes every relay started by a test when that test ends, even when it fails.
 */
export function relaysClosedAfterEach(): (target?: {
  host: string;
  port: number;
}) => Promise<TcpRelay> {
  const started: TcpRelay[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((relay) => relay.close()));
  });
  return async (target) => {
    const relay = await startTcpRelay(target);
    started.push(relay);
    return relay;
  };
}
