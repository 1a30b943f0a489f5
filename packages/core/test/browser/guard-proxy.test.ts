/**
 * The browser engine under the private-address guard, as the attack: a page on
 * an allowed host redirects, or reaches by any request, to a loopback service; the service must
 * never see a connection.
 *
 * This machine has only loopback, so the "allowed" host is the fixture site at 127.0.0.1, made
 * reachable by the guard's `allowedAddresses` exemption (an option of the fetchers, given here
 * in `context.fetchers`). The secret service listens on another loopback address, 127.0.0.2,
 * which no exemption covers, and is attacked in plain and in IPv4-mapped form.
 */
import { lookup as dnsLookup } from 'node:dns';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  BrowserFetcher,
  BrowserPool,
  HttpFetcher,
  resolveEngineConfig,
  scrape,
  type EngineContext,
  type ScrapeOptions,
  type TrawlError,
} from '@trawl/core';
import { chromiumMissing } from './chromium.ts';

const site = inject('fixtureUrl');
/** DNS, except `internal.test`, a name that resolves to the internal service's address. */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (hostname !== 'internal.test') return dnsLookup(hostname, options, callback);
  if (options.all) callback(null, [{ address: '127.0.0.2', family: 4 }]);
  else callback(null, '127.0.0.2', 4);
};
const guard = { allowedAddresses: ['127.0.0.1'], lookup };
const pool = new BrowserPool({ idleCloseMs: 0 });
const guarded: EngineContext = {
  fetchers: [new HttpFetcher({ guard }), new BrowserFetcher(pool, { guard })],
  config: resolveEngineConfig({ allowPrivateAddresses: false }),
};
const open: EngineContext = {
  fetchers: guarded.fetchers ?? [],
  config: resolveEngineConfig({ allowPrivateAddresses: true }),
};

/** The service an attacker wants to reach: counts every connection and request it gets. */
let secret: Server;
let connections = 0;
const sockets = new Set<Socket>();
let port = 0;
beforeAll(async () => {
  secret = createServer((_req, res) => res.end('SECRET_INTERNAL_DATA'));
  secret.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  secret.on('upgrade', (_req, socket: Socket) => socket.end());
  secret.listen(0, '127.0.0.2');
  await once(secret, 'listening');
  port = (secret.address() as AddressInfo).port;
});
afterAll(async () => {
  await pool.close();
  for (const socket of sockets) socket.destroy();
  secret.close();
});

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected the scrape to fail');
    },
    (error: unknown) => error as TrawlError,
  );
const browserOptions: ScrapeOptions[] = [
  { maxAge: 0, waitFor: 50 },
  { maxAge: 0, actions: [{ type: 'wait', milliseconds: 50 }] },
];

describe.skipIf(chromiumMissing)('the browser engine with private addresses refused', () => {
  const targets = () => [
    `http://127.0.0.2:${port}/admin`,
    `http://[::ffff:7f00:2]:${port}/admin`,
    `http://[::ffff:127.0.0.2]:${port}/admin`,
    `https://[::ffff:7f00:2]:${port}/admin`,
    // A name: the guard proxy resolves it (Chromium does not, behind a proxy) and refuses.
    `http://internal.test:${port}/admin`,
    `https://internal.test:${port}/admin`,
  ];

  it('refuses a redirect from an allowed host to a loopback address (waitFor, actions)', async () => {
    for (const target of targets()) {
      for (const options of browserOptions) {
        const before = connections;
        const failure = await failureOf(
          scrape(`${site}/redirect?to=${encodeURIComponent(target)}`, options, guarded),
        );
        expect(failure.code, target).toBe('URL_BLOCKED');
        // Refused at the redirect, not at the allowed first hop.
        expect(failure.message, target).toMatch(/127\.0\.0\.2|internal\.test/);
        expect(connections - before, target).toBe(0);
      }
    }
  });

  it('lets the allowed host itself render', async () => {
    const doc = await scrape(`${site}/articles/plain.html`, browserOptions[0], guarded);
    expect(doc.metadata.statusCode).toBe(200);
    expect(doc.markdown?.length).toBeGreaterThan(100);
  });

  it('gives a page no way to reach a loopback address: images, styles, frames, fetch, WebSocket, worker', async () => {
    for (const origin of [`http://127.0.0.2:${port}`, `http://[::ffff:7f00:2]:${port}`]) {
      const before = connections;
      const doc = await scrape(
        `${site}/reach.html?target=${encodeURIComponent(origin)}`,
        { maxAge: 0, waitFor: 500 },
        guarded,
      );
      // The page's scripts ran (a no-cors fetch resolves on the guard's own 403 answer too);
      // what counts is that the service saw no connection at all.
      expect(doc.markdown).toMatch(/fetch:\w+/);
      expect(doc.markdown).toMatch(/worker:\w+/);
      expect(doc.markdown).toContain('ws:failed');
      expect(connections - before, origin).toBe(0);
    }
  });

  it('refuses a page whose script navigates to a loopback address', async () => {
    const before = connections;
    const origin = `http://[::ffff:7f00:2]:${port}`;
    const failure = await failureOf(
      scrape(
        `${site}/reach.html?navigate=1&target=${encodeURIComponent(origin)}`,
        { maxAge: 0, actions: [{ type: 'wait', milliseconds: 500 }] },
        guarded,
      ),
    );
    expect(failure.code).toBe('URL_BLOCKED');
    expect(failure.message).toContain('127.0.0.2');
    expect(connections - before).toBe(0);
  });

  it('with private addresses allowed, the same page does reach the service (the test can see it)', async () => {
    const before = connections;
    const doc = await scrape(
      `${site}/reach.html?target=${encodeURIComponent(`http://127.0.0.2:${port}`)}`,
      { maxAge: 0, waitFor: 500 },
      open,
    );
    expect(doc.markdown).toContain('fetch:reached');
    expect(connections - before).toBeGreaterThan(0);
  });

  it('chains to the configured proxy with the guard on, HTTP and HTTPS (CONNECT)', async () => {
    for (const base of [site, inject('fixtureHttpsUrl')]) {
      const doc = await scrape(
        `${base}/echo.html`,
        { maxAge: 0, waitFor: 1, proxy: 'basic' },
        {
          ...guarded,
          config: resolveEngineConfig({
            allowPrivateAddresses: false,
            proxyUrl: inject('fixtureProxyUrl'),
          }),
        },
      );
      expect(doc.markdown, base).toContain('via-proxy: yes');
    }
  });
});
