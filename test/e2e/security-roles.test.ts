/**
 * Every role of a process refuses private addresses by default wherever its requests come from
 * a network (`trawl serve`, `trawl serve --role api`, `trawl worker`), and the CLI fetches them
 * as its user asks. Written as the attack on a split deployment on the machine's PostgreSQL and
 * Redis: the worker once built its settings apart from `trawl serve` and kept the library's
 * default, so a key holder's crawl, batch scrape (`[::ffff:7f00:1]` too), monitor check and crawl
 * webhook reached the internal network although `/v2/scrape` was refused.
 *
 * The "internal service" is a loopback server of the test that counts every connection; no
 * process but the CLI may make one.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServe } from './serve-process.ts';
import { servicesMissing, SplitDeployment } from './split-deployment.ts';

const missing = await servicesMissing();
if (missing) console.warn(`split-deployment tests skipped: ${missing}`);
const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');

/** The guard at its default: the variables that would allow private addresses, taken out. */
const guardDefault = {
  TRAWL_ALLOW_PRIVATE_ADDRESSES: undefined,
  TRAWL_ALLOW_PRIVATE_TARGETS: undefined,
  TRAWL_WEBHOOK_RETRIES: '0',
};

let internal: Server;
let internalPort: number;
let connections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  internal = createServer((_req, res) =>
    res.end('<html><body><a href="/more">more</a>INTERNAL_SECRET</body></html>'),
  );
  internal.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  internal.listen(0, '127.0.0.1');
  await once(internal, 'listening');
  internalPort = (internal.address() as AddressInfo).port;
});

afterAll(() => {
  for (const socket of sockets) socket.destroy();
  internal.close();
});

/** The internal service, as written plainly and as IPv4-mapped IPv6. */
const targets = () => [
  `http://127.0.0.1:${internalPort}/secret`,
  `http://[::ffff:7f00:1]:${internalPort}/secret`,
];

describe('trawl serve and the CLI', () => {
  it('trawl serve refuses a private address by default', async () => {
    const server = await startServe({ ...guardDefault });
    try {
      for (const url of targets()) {
        const response = await fetch(`${server.url}/v2/scrape`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url }),
        });
        expect(response.status, url).toBe(403);
        expect(await response.json()).toMatchObject({ code: 'URL_BLOCKED' });
      }
      expect(connections).toBe(0);
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('the CLI fetches a private address as its user asks', async () => {
    const before = connections;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=development', bin, 'scrape', targets()[0]!, '--no-cache'],
      {
        env: {
          ...process.env,
          ...withoutGuardVariables(),
          TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-roles-')),
        },
        timeout: 60_000,
      },
    );
    expect(stdout).toContain('INTERNAL_SECRET');
    expect(connections).toBeGreaterThan(before);
    connections = before;
  }, 90_000);
});

/** The test's environment without the variables that would set the guard. */
function withoutGuardVariables(): Record<string, string | undefined> {
  return { TRAWL_ALLOW_PRIVATE_ADDRESSES: undefined, TRAWL_ALLOW_PRIVATE_TARGETS: undefined };
}

describe.skipIf(missing !== undefined)('a split deployment at the guard default', () => {
  let deployment: SplitDeployment;
  const call = (method: string, path: string, body?: unknown) =>
    deployment.call(method, path, body);
  /** Polls a job until it has left `scraping` (a worker ran it); bounded. */
  const finished = (path: string) =>
    vi.waitFor(
      async () => {
        const status = await call('GET', path);
        expect(status['status']).not.toBe('scraping');
        return status;
      },
      { timeout: 60_000, interval: 200 },
    );

  beforeAll(async () => {
    deployment = await new SplitDeployment(guardDefault).open();
    await deployment.startApi();
    await deployment.startWorker(4);
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
  });

  it('the API process refuses a private address (403 URL_BLOCKED)', async () => {
    for (const url of targets()) {
      expect(await call('POST', '/v2/scrape', { url }), url).toMatchObject({
        success: false,
        code: 'URL_BLOCKED',
      });
    }
    expect(connections).toBe(0);
  });

  it('the worker refuses a crawl and a batch scrape of private addresses', async () => {
    for (const url of targets()) {
      const crawl = await call('POST', '/v2/crawl', { url, limit: 3 });
      expect(crawl['success'], url).toBe(true);
      expect(await finished(`/v2/crawl/${String(crawl['id'])}`)).toMatchObject({
        status: 'completed',
        data: [],
      });
      const crawlErrors = await call('GET', `/v2/crawl/${String(crawl['id'])}/errors`);
      expect(JSON.stringify(crawlErrors), url).toContain('URL_BLOCKED');

      const batch = await call('POST', '/v2/batch/scrape', { urls: [url] });
      expect(batch['success'], url).toBe(true);
      expect(await finished(`/v2/batch/scrape/${String(batch['id'])}`)).toMatchObject({
        status: 'completed',
        data: [],
      });
      const batchErrors = await call('GET', `/v2/batch/scrape/${String(batch['id'])}/errors`);
      expect(JSON.stringify(batchErrors), url).toContain('URL_BLOCKED');
    }
    expect(connections).toBe(0);
  }, 120_000);

  it('the worker refuses a monitor check of private addresses', async () => {
    const created = await call('POST', '/v2/monitor', {
      name: 'Internal',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: targets() }],
    });
    const monitorId = String((created['data'] as { id: string }).id);
    const run = await call('POST', `/v2/monitor/${monitorId}/run`, {});
    const checkId = String((run['data'] as { id: string }).id);
    const check = await vi.waitFor(
      async () => {
        const answer = await call('GET', `/v2/monitor/${monitorId}/checks/${checkId}`);
        expect(['queued', 'running']).not.toContain((answer['data'] as { status: string }).status);
        return answer['data'] as { pages: { status: string; error?: string }[] };
      },
      { timeout: 60_000, interval: 250 },
    );
    expect(check.pages).toHaveLength(2);
    for (const page of check.pages) {
      expect(page.status).toBe('error');
      expect(page.error).toMatch(/private or reserved address/);
    }
    expect(JSON.stringify(check)).not.toContain('INTERNAL_SECRET');
    expect(connections).toBe(0);
  }, 90_000);

  it('the worker never calls a private webhook receiver', async () => {
    const crawl = await call('POST', '/v2/crawl', {
      url: `http://127.0.0.1:${internalPort}/start`,
      limit: 1,
      webhook: { url: `http://127.0.0.1:${internalPort}/hook`, headers: { 'x-internal': '1' } },
    });
    const crawlId = String(crawl['id']);
    await finished(`/v2/crawl/${crawlId}`);
    const log = await vi.waitFor(
      async () => {
        const answer = await call('GET', `/v2/crawl/${crawlId}/webhooks`);
        const deliveries = answer['deliveries'] as { delivered: boolean; error?: string }[];
        expect(deliveries.length).toBeGreaterThanOrEqual(2);
        return deliveries;
      },
      { timeout: 60_000, interval: 250 },
    );
    for (const delivery of log) {
      expect(delivery.delivered).toBe(false);
      expect(delivery.error).toMatch(/private|reserved|loopback/);
    }
    expect(connections).toBe(0);
  }, 90_000);
});
