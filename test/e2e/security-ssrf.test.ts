/**
 * SSRF through IPv4-mapped IPv6 and other address spellings, as the attack,
 * against `trawl serve` as a process with private addresses refused (its default).
 *
 * `http://[::ffff:127.0.0.1]:PORT/` is written `[::ffff:7f00:1]` once the URL is parsed, which
 * the earlier guard did not unwrap: scrape, map, crawl, batch scrape, monitor targets and webhook
 * receivers all reached loopback that way. The "internal service" here is a loopback server of
 * the test that counts every connection it gets; it must get none.
 *
 * The browser engine's redirects, sub-resources, workers and WebSockets need an allowed first
 * hop, which a loopback-only machine can only give with the guard's `allowedAddresses`
 * exemption: that part is a library-level test, packages/core/test/browser/guard-proxy.test.ts.
 * DNS rebinding of webhooks: packages/core/test/defaults/webhook-rebinding.test.ts.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './serve-process.ts';

const key = 'fc-ssrf-test';
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

let server: ServeProcess;
let api: string;
/** The internal service: counts connections, answers a secret. */
let internal: Server;
let internalPort: number;
let connections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  internal = createServer((_req, res) => res.end('<html><body>INTERNAL_SECRET</body></html>'));
  internal.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  internal.listen(0, '127.0.0.1');
  await once(internal, 'listening');
  internalPort = (internal.address() as AddressInfo).port;

  server = await startServe({
    TRAWL_API_KEYS: key,
    TRAWL_WEBHOOK_RETRIES: '0',
    // Served, Trawl refuses private targets unless told otherwise: the default is under test.
    TRAWL_ALLOW_PRIVATE_ADDRESSES: undefined,
    TRAWL_ALLOW_PRIVATE_TARGETS: undefined,
  });
  api = server.url;
}, 60_000);

afterAll(async () => {
  await server.stop();
  for (const socket of sockets) socket.destroy();
  internal.close();
});

/** The attack URLs: the internal service, spelled so that the old guard let it pass. */
const attacks = () => [
  `http://[::ffff:127.0.0.1]:${internalPort}/`,
  `http://[::ffff:7f00:1]:${internalPort}/`,
];
/** More spellings of loopback, for the scrape endpoint. */
const spellings = () => [
  ...attacks(),
  `http://[0:0:0:0:0:ffff:7f00:1]:${internalPort}/`,
  `http://[::127.0.0.1]:${internalPort}/`,
  `http://2130706433:${internalPort}/`,
  `http://0x7f.1:${internalPort}/`,
  `http://017700000001:${internalPort}/`,
  `http://127.1:${internalPort}/`,
  `http://[64:ff9b::7f00:1]:${internalPort}/`,
  `http://[2002:7f00:1::]:${internalPort}/`,
  `http://[::ffff:a9fe:a9fe]/latest/meta-data/`,
];

const post = (path: string, body: unknown) =>
  fetch(`${api}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
const getJson = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${api}${path}`, { headers })).json()) as T;

/** Polls `read` until `done` says so; bounded. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 300 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe('trawl serve refuses loopback written as IPv4-mapped IPv6 (and every other spelling)', () => {
  it('scrape: 403 URL_BLOCKED for every spelling, HTTP and browser engine', async () => {
    for (const url of spellings()) {
      for (const options of [{}, { waitFor: 10 }]) {
        const response = await post('/v2/scrape', { url, ...options });
        expect(response.status, url).toBe(403);
        expect(await response.json(), url).toMatchObject({ success: false, code: 'URL_BLOCKED' });
      }
    }
    expect(connections).toBe(0);
  });

  it('map: 403 URL_BLOCKED', async () => {
    for (const url of attacks()) {
      const response = await post('/v2/map', { url });
      expect(response.status, url).toBe(403);
      expect(await response.json(), url).toMatchObject({ success: false, code: 'URL_BLOCKED' });
    }
    expect(connections).toBe(0);
  });

  it('crawl and batch scrape: every page refused with URL_BLOCKED, nothing fetched', async () => {
    for (const url of attacks()) {
      const crawl = (await (await post('/v2/crawl', { url, limit: 5 })).json()) as { id: string };
      const crawled = await until(
        () => getJson<{ status: string }>(`/v2/crawl/${crawl.id}`),
        (status) => status.status !== 'scraping',
      );
      expect(crawled, url).toMatchObject({ status: 'completed', data: [] });
      const crawlErrors = await getJson<{ errors: { code?: string; error: string }[] }>(
        `/v2/crawl/${crawl.id}/errors`,
      );
      expect(crawlErrors.errors.length, url).toBeGreaterThan(0);
      expect(JSON.stringify(crawlErrors.errors), url).toContain('URL_BLOCKED');

      const batch = (await (await post('/v2/batch/scrape', { urls: [url] })).json()) as {
        id: string;
      };
      const batched = await until(
        () => getJson<{ status: string }>(`/v2/batch/scrape/${batch.id}`),
        (status) => status.status !== 'scraping',
      );
      expect(batched, url).toMatchObject({ status: 'completed', data: [] });
      const batchErrors = await getJson<{ errors: unknown[] }>(
        `/v2/batch/scrape/${batch.id}/errors`,
      );
      expect(JSON.stringify(batchErrors.errors), url).toContain('URL_BLOCKED');
    }
    expect(connections).toBe(0);
  });

  it('monitor target: the check reports the page as refused, nothing fetched', async () => {
    const created = (await (
      await post('/v2/monitor', {
        name: 'SSRF',
        schedule: { text: 'daily' },
        targets: [{ type: 'scrape', urls: attacks() }],
      })
    ).json()) as { data: { id: string } };
    const monitorId = created.data.id;
    const run = (await (await post(`/v2/monitor/${monitorId}/run`, {})).json()) as {
      data: { id: string };
    };
    const check = await until(
      () => getJson<{ data: { status: string } }>(`/v2/monitor/${monitorId}/checks/${run.data.id}`),
      (answer) => !['queued', 'running'].includes(answer.data.status),
    );
    const pages = (check.data as unknown as { pages: { status: string; error: string }[] }).pages;
    expect(pages).toHaveLength(2);
    for (const page of pages) {
      expect(page.status).toBe('error');
      expect(page.error).toMatch(/private or reserved address .*127\.0\.0\.1/);
    }
    expect(JSON.stringify(check)).not.toContain('INTERNAL_SECRET');
    expect(connections).toBe(0);
  });

  it('webhook receiver: never called, and the delivery log says why', async () => {
    for (const url of attacks()) {
      const crawl = (await (
        await post('/v2/crawl', {
          url: `http://[::ffff:7f00:1]:${internalPort}/start`,
          limit: 1,
          webhook: { url: `${url}hook` },
        })
      ).json()) as { id: string };
      const log = await until(
        () =>
          getJson<{ deliveries: { delivered: boolean; error?: string }[] }>(
            `/v2/crawl/${crawl.id}/webhooks`,
          ),
        (answer) => answer.deliveries.length >= 2,
      );
      expect(log.deliveries.length, url).toBeGreaterThan(0);
      for (const delivery of log.deliveries) {
        expect(delivery.delivered, url).toBe(false);
        expect(delivery.error, url).toMatch(/private|reserved|loopback/);
      }
    }
    expect(connections).toBe(0);
  });
});
