/**
 * A minimal forward HTTP proxy for testing the engine's `proxy` option.
 *
 * Plain HTTP requests arrive with an absolute URI and are re-sent with `x-fixture-proxy: 1`
 * added, so a page like `/echo.html` shows that the proxy was used. HTTPS goes through CONNECT,
 * where the proxy cannot touch headers; it records the local port of each tunnel instead, and the
 * fixture site reports `viaProxy` for requests that arrive from one of those ports.
 *
 * Only loopback targets are allowed: the machine has no other network, and a test that points
 * the proxy elsewhere by mistake should fail at once rather than hang.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** A running proxy. */
export interface ForwardProxy {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Stops listening and destroys every open connection and tunnel. */
  close(): Promise<void>;
}

/** Header added to every request forwarded over plain HTTP. */
export const proxyHeader = 'x-fixture-proxy';

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and must not be forwarded.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardableHeaders(raw: readonly string[]): string[] {
  const headers: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!hopByHop.has(name.toLowerCase())) headers.push(name, raw[i + 1] ?? '');
  }
  return headers;
}

/**
 * Starts the proxy on 127.0.0.1 at a free port.
 *
 * @param tunnelPorts receives the local port of every live CONNECT tunnel's upstream socket, and
 *   loses it when the tunnel closes.
 */
export async function startForwardProxy(tunnelPorts: Set<number>): Promise<ForwardProxy> {
  // Tunnels leave the HTTP server's bookkeeping once CONNECT is answered, so closeAllConnections()
  // cannot see them; they are tracked here instead.
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('proxy expects an absolute URI\n');
      return;
    }
    if (target.protocol !== 'http:' || !loopbackHosts.has(target.hostname)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('proxy only forwards to loopback\n');
      return;
    }
    const headers = forwardableHeaders(req.rawHeaders);
    headers.push(proxyHeader, '1');
    const upstream = request({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      // A fresh socket per request keeps the proxy stateless and its shutdown simple.
      agent: false,
    });
    upstream.on('socket', track);
    upstream.on('response', (response: IncomingMessage) => {
      res.writeHead(response.statusCode ?? 502, forwardableHeaders(response.rawHeaders));
      response.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('upstream failed\n');
    });
    // A client that gives up should not leave the upstream request running.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const host = match?.[1];
    if (!host || !match[2] || !loopbackHosts.has(host)) {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), host.replace(/^\[|\]$/g, ''));
    track(upstream);
    upstream.once('connect', () => {
      const port = upstream.localPort;
      if (port !== undefined) {
        tunnelPorts.add(port);
        upstream.once('close', () => tunnelPorts.delete(port));
      }
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (client.writable && !upstream.remotePort) {
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      } else {
        client.destroy();
      }
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
