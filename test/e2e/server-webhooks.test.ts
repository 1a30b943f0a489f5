/**
 * Crawl and batch-scrape webhooks, received by a real HTTP server on 127.0.0.1: the events,
 * envelope and headers the hosted service sends, the HMAC signature of the raw body, event
 * filters, retries with backoff, and the delivery log.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore, webhookSigningKey } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';

const secret = 'whsec-test';
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: {
    success: boolean;
    type: string;
    id: string;
    webhookId: string;
    data: { metadata?: { sourceURL?: string } }[];
    error?: string;
    metadata?: Record<string, unknown>;
  };
}

let site: ArticleSite;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Per path: how many deliveries to refuse with 500 before accepting. */
const failuresLeft = new Map<string, number>();
let api: string;
let closeServer: () => Promise<void>;
let idle: () => Promise<void>;

beforeAll(async () => {
  site = await startArticleSite(12);
  receiver = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const left = failuresLeft.get(path) ?? 0;
      if (left > 0) {
        failuresLeft.set(path, left - 1);
        res.writeHead(500).end();
        return;
      }
      received.push({ path, headers: req.headers, raw, body: JSON.parse(raw) as Received['body'] });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-webhooks-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(undefined),
    logLevel: 'silent',
    webhooks: { secret, retries: 3, retryBaseMs: 20 },
  });
  api = await app.listen({ port: 0, host: '127.0.0.1' });
  idle = () => app.webhooks.idle();
  closeServer = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(async () => {
  await closeServer();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await site.close();
});

async function post(path: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(`${api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string };
}

async function finished(path: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const status = (await (await fetch(`${api}${path}`)).json()) as { status: string };
    if (status.status !== 'scraping') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await idle();
}

const at = (path: string) => received.filter((delivery) => delivery.path === path);

describe('webhooks', () => {
  it('sends started, one page event per page, then completed, signed, with the caller headers and metadata', async () => {
    const { id } = await post('/v2/crawl', {
      url: `${site.url}/`,
      limit: 5,
      webhook: {
        url: `${receiverUrl}/all`,
        headers: { 'x-receiver-token': 'abc', 'x-firecrawl-event': 'forged' },
        metadata: { pipeline: 'nightly' },
      },
    });
    await finished(`/v2/crawl/${id}`);
    const deliveries = at('/all');
    expect(deliveries.map((delivery) => delivery.body.type)).toEqual([
      'crawl.started',
      ...Array.from({ length: 5 }, () => 'crawl.page'),
      'crawl.completed',
    ]);
    for (const delivery of deliveries) {
      expect(delivery.body).toMatchObject({ id, success: true, metadata: { pipeline: 'nightly' } });
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/json',
        'x-receiver-token': 'abc',
        'x-firecrawl-event': delivery.body.type,
        'x-firecrawl-job-id': id,
        'x-firecrawl-webhook-id': delivery.body.webhookId,
        'x-firecrawl-delivery-mode': 'direct',
      });
      const expected = createHmac('sha256', webhookSigningKey(secret, 'default'))
        .update(delivery.raw)
        .digest('hex');
      const signature = String(delivery.headers['x-firecrawl-signature']).replace(/^sha256=/, '');
      expect(timingSafeEqual(Buffer.from(signature, 'hex'), Buffer.from(expected, 'hex'))).toBe(
        true,
      );
    }
    const pages = deliveries.filter((delivery) => delivery.body.type === 'crawl.page');
    expect(new Set(pages.map((page) => page.body.data[0]?.metadata?.sourceURL)).size).toBe(5);
    expect(deliveries.at(-1)?.body.data).toEqual([]);
  });

  it('sends failed pages with success false and the URL, and honours the events filter', async () => {
    const { id } = await post('/v2/batch/scrape', {
      urls: [`${site.url}/articles/1`, 'http://127.0.0.1:1/refused'],
      webhook: { url: `${receiverUrl}/filtered`, events: ['page'] },
    });
    await finished(`/v2/batch/scrape/${id}`);
    const deliveries = at('/filtered');
    expect(deliveries.map((delivery) => delivery.body.type)).toEqual([
      'batch_scrape.page',
      'batch_scrape.page',
    ]);
    const failed = deliveries.find((delivery) => !delivery.body.success);
    expect(failed?.body).toMatchObject({
      success: false,
      error: expect.stringMatching(/refused/i),
      data: [{ metadata: { sourceURL: 'http://127.0.0.1:1/refused' } }],
    });
  });

  it('retries a failing receiver with backoff and logs each delivery', async () => {
    failuresLeft.set('/flaky', 2);
    const { id } = await post('/v2/crawl', {
      url: `${site.url}/articles/3`,
      limit: 1,
      webhook: { url: `${receiverUrl}/flaky`, events: ['started'] },
    });
    await finished(`/v2/crawl/${id}`);
    expect(at('/flaky').map((delivery) => delivery.body.type)).toEqual(['crawl.started']);
    const log = (await (await fetch(`${api}/v2/crawl/${id}/webhooks`)).json()) as {
      success: boolean;
      deliveries: { event: string; attempts: number; delivered: boolean; status: number }[];
    };
    expect(log.deliveries).toEqual([
      expect.objectContaining({
        event: 'crawl.started',
        attempts: 3,
        delivered: true,
        status: 200,
      }),
    ]);

    failuresLeft.set('/down', 100);
    const gaveUp = await post('/v2/crawl', {
      url: `${site.url}/articles/4`,
      limit: 1,
      webhook: { url: `${receiverUrl}/down`, events: ['completed'] },
    });
    await finished(`/v2/crawl/${gaveUp.id}`);
    const failedLog = (await (await fetch(`${api}/v2/crawl/${gaveUp.id}/webhooks`)).json()) as {
      deliveries: { attempts: number; delivered: boolean; error: string }[];
    };
    expect(failedLog.deliveries).toEqual([
      expect.objectContaining({ attempts: 4, delivered: false, error: 'answered HTTP 500' }),
    ]);
  });
});
