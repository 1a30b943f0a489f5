/**
 * A small forward proxy in this process that every request of a guarded browser context goes
 * through: navigations and each redirect hop, sub-resources, fetches of
 * workers, WebSockets. Request interception (`page.route`) sees none of redirects' later hops,
 * and neither workers' nor WebSockets' traffic reliably; a proxy sees every connection Chromium
 * opens, because Chromium resolves no name itself when it has one.
 *
 * Plain HTTP arrives as an absolute-URI request and is forwarded; HTTPS and WebSockets arrive as
 * `CONNECT host:port` and are tunnelled. Either way the target is checked by the address guard
 * and connected to through the guard's lookup, so the address checked is the one connected to.
 * A refusal is answered 403 (marked `x-trawl-blocked`) and recorded, so that the fetcher can
 * report URL_BLOCKED rather than a network error.
 *
 * With an upstream proxy (the request's `proxyUrl`), connections are chained to it; the upstream
 * resolves names then, so the guard checks the literal and its own resolution of the name.
 * Chromium is told `<-loopback>` so that it does not bypass the proxy for loopback targets.
 */
import { once } from 'node:events';
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  assertPublicUrl,
  guardedLookup,
  resolvePublic,
  type AddressGuardOptions,
} from '../internal/address-guard.ts';

/** Options of a guard proxy. */
export interface GuardProxyOptions extends AddressGuardOptions {
  /** Proxy to chain to (http:// or https://, credentials in the URL); unset: connect direct. */
  upstream?: string | undefined;
}

/** A running guard proxy. */
export interface GuardProxy {
  /** `http://127.0.0.1:PORT`: Chromium's proxy server. */
  url: string;
  /** Playwright's `proxy` option for a context that must go through this proxy. */
  contextProxy: { server: string; bypass: string };
  /** Why each refused target was refused, in order. */
  refusals: readonly string[];
  /** Stops listening and ends every connection and tunnel. Idempotent. */
  close(): Promise<void>;
}

/**
 * Chromium switches of a browser whose contexts are guarded: WebRTC may not send UDP around the
 * proxy (STUN/TURN to a private address would otherwise bypass it).
 */
export const guardedChromiumArgs: readonly string[] = [
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * Switches that put a whole browser behind the proxy: set at launch, they hold for every context
 * (a session's policy refuses a context proxy of its own), and loopback is not exempt (Chromium
 * bypasses proxies for it unless told `<-loopback>`).
 */
export function launchProxyArgs(proxy: GuardProxy): string[] {
  return [
    `--proxy-server=${proxy.contextProxy.server}`,
    `--proxy-bypass-list=${proxy.contextProxy.bypass}`,
    ...guardedChromiumArgs,
  ];
}

/** Marks the proxy's own refusals among the answers Chromium receives. */
export const blockedHeader = 'x-trawl-blocked';

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded.
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

/** Starts a guard proxy on 127.0.0.1 at a free port. */
export async function startGuardProxy(options: GuardProxyOptions = {}): Promise<GuardProxy> {
  const upstream = options.upstream ? new URL(options.upstream) : undefined;
  const lookup = guardedLookup(options);
  const refusals: string[] = [];
  const sockets = new Set<Socket>();
  // Its own pool: a kept-alive socket of the process's global agent was never checked here.
  const agent = new HttpAgent({ keepAlive: true });

  /** The target's refusal, or undefined when it may be reached. */
  const check = async (target: URL): Promise<string | undefined> => {
    try {
      assertPublicUrl(target, options);
      // Direct connections are checked by their own lookup; an upstream resolves for itself.
      if (upstream) await resolvePublic(target.hostname, options);
      return undefined;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'URL_BLOCKED') return undefined;
      return (error as Error).message;
    }
  };
  const refuse = (reason: string) => {
    refusals.push(reason);
    return reason;
  };

  const server = createServer((req, res) => {
    void forward(req, res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end('A proxy request needs an absolute http:// URL');
      return;
    }
    const reason = await check(target);
    if (reason) return answerBlocked(res, refuse(reason));
    const headers = forwardedHeaders(req.headers);
    const outgoing = upstream
      ? (upstream.protocol === 'https:' ? httpsRequest : httpRequest)({
          host: bare(upstream.hostname),
          port: upstream.port || (upstream.protocol === 'https:' ? 443 : 80),
          method: req.method,
          path: target.href,
          headers: { ...headers, ...proxyAuthorization(upstream) },
        })
      : httpRequest({
          host: bare(target.hostname),
          port: target.port || 80,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
          lookup,
          agent,
        });
    // A page closed mid-answer: stop fetching for it.
    res.on('close', () => outgoing.destroy());
    outgoing.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, forwardedHeaders(answer.headers));
      answer.pipe(res);
    });
    outgoing.on('error', (error) => {
      if (res.headersSent) return res.destroy();
      if ((error as { code?: unknown }).code === 'URL_BLOCKED') {
        return answerBlocked(res, refuse(error.message));
      }
      res.writeHead(502, { 'content-type': 'text/plain' }).end(error.message);
    });
    req.pipe(outgoing);
  }

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void tunnel(req.url ?? '', client, head);
  });

  async function tunnel(authority: string, client: Socket, head: Buffer): Promise<void> {
    // `host:port` as CONNECT gives it; a URL would drop port 80 as the default of http:.
    const parts = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
    let target: URL;
    try {
      target = new URL(`http://${parts?.[1] ?? ''}/`);
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const reason = await check(target);
    if (reason) return endBlocked(client, refuse(reason));
    const port = Number(parts?.[2]);
    let remote: Socket;
    try {
      remote = upstream
        ? await tunnelThroughUpstream(upstream, authority)
        : await openSocket(connect({ host: bare(target.hostname), port, lookup }));
    } catch (error) {
      if ((error as { code?: unknown }).code === 'URL_BLOCKED') {
        return endBlocked(client, refuse((error as Error).message));
      }
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    sockets.add(remote);
    remote.once('close', () => sockets.delete(remote));
    remote.on('error', () => client.destroy());
    client.on('close', () => remote.destroy());
    remote.on('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) remote.write(head);
    remote.pipe(client);
    client.pipe(remote);
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    contextProxy: { server: url, bypass: '<-loopback>' },
    refusals,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      });
      return closing;
    },
  };
}

function answerBlocked(res: ServerResponse, reason: string): void {
  res
    .writeHead(403, { 'content-type': 'text/plain; charset=utf-8', [blockedHeader]: '1' })
    .end(reason);
}

function endBlocked(client: Socket, reason: string): void {
  const body = Buffer.from(reason);
  client.end(
    `HTTP/1.1 403 Forbidden\r\n${blockedHeader}: 1\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\n\r\n${reason}`,
  );
}

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) kept[name] = value;
  }
  return kept;
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

function proxyAuthorization(upstream: URL): Record<string, string> {
  if (!upstream.username) return {};
  const credentials = `${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

async function openSocket(socket: Socket, event = 'connect'): Promise<Socket> {
  await once(socket, event);
  return socket;
}

/** Opens a CONNECT tunnel to `authority` through the upstream proxy. */
async function tunnelThroughUpstream(upstream: URL, authority: string): Promise<Socket> {
  const host = bare(upstream.hostname);
  const secure = upstream.protocol === 'https:';
  const port = Number(upstream.port || (secure ? 443 : 80));
  const socket = secure
    ? await openSocket(tlsConnect({ host, port, servername: host }), 'secureConnect')
    : await openSocket(connect({ host, port }));
  const auth = proxyAuthorization(upstream)['proxy-authorization'];
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${auth ? `proxy-authorization: ${auth}\r\n` : ''}\r\n`,
  );
  // Read the upstream's answer head; bytes after it already belong to the tunnel.
  let received = Buffer.alloc(0);
  while (!received.includes('\r\n\r\n')) {
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    received = Buffer.concat([received, chunk]);
    if (received.length > 16_384) break;
  }
  const end = received.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(received.toString('latin1'))?.[1];
  if (end < 0 || status !== '200') {
    socket.destroy();
    throw new Error(`The upstream proxy refused CONNECT ${authority} (${status ?? 'no answer'})`);
  }
  // Held until piped, so that nothing the target sends early is dropped.
  socket.pause();
  const rest = received.subarray(end + 4);
  if (rest.length > 0) socket.unshift(rest);
  return socket;
}
