/**
 * Monitor webhooks, received by a real HTTP server on 127.0.0.1: `monitor.page` once per page of
 * every check (same pages too) and `monitor.check.completed` once per check, with the reference's
 * envelope and `X-Firecrawl-*` headers, signed with TRAWL_WEBHOOK_SECRET, retried with backoff
 * (delivered after failing twice), filtered by `events`, logged, and reported in the check's
 * `notificationStatus.webhook`.
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
import { startChangingSite, type ChangingSite } from '../fixture-site/changing-site.ts';

const secret = 'whsec-monitors';
interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: {
    success: boolean;
    type: string;
    id: string;
    webhookId: string;
    data: Record<string, unknown>[];
    error?: string;
    metadata?: Record<string, string>;
  };
}

let site: ChangingSite;
let receiver: Server;
let receiverUrl: string;
const received: Delivery[] = [];
const refused: string[] = [];
/** Per event type: deliveries to refuse with 500 before accepting. */
const failuresLeft = new Map<string, number>();
let api: string;
let close: () => Promise<void>;

beforeAll(async () => {
  site = await startChangingSite({
    '/a': { title: 'A', text: 'Alpha' },
    '/b': { title: 'B', text: 'Beta' },
  });
  receiver = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw) as Delivery['body'];
      const left = failuresLeft.get(body.type) ?? 0;
      if (left > 0) {
        failuresLeft.set(body.type, left - 1);
        refused.push(body.type);
        res.writeHead(500).end();
        return;
      }
      received.push({ path: req.url ?? '', headers: req.headers, raw, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-monitor-hooks-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(undefined),
    logLevel: 'silent',
    webhooks: { secret, retries: 3, retryBaseMs: 20 },
  });
  api = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(async () => {
  await close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await site.close();
});

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

interface Check {
  id: string;
  status: string;
  notificationStatus: { webhook?: Record<string, unknown> };
}

/** Runs a check and waits until its record carries the webhook's outcome. */
async function runCheck(monitorId: string): Promise<Check> {
  const started = await call<Check>('POST', `/v2/monitor/${monitorId}/run`, {});
  for (let attempt = 0; attempt < 300; attempt++) {
    const [latest] = await call<Check[]>('GET', `/v2/monitor/${monitorId}/checks?limit=1`);
    if (latest?.id === started.id && latest.notificationStatus.webhook) return latest;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the check did not finish');
}

const signed = (delivery: Delivery) => {
  const expected = createHmac('sha256', webhookSigningKey(secret, 'default'))
    .update(delivery.raw)
    .digest('hex');
  const signature = String(delivery.headers['x-firecrawl-signature']).replace(/^sha256=/, '');
  return timingSafeEqual(Buffer.from(signature, 'hex'), Buffer.from(expected, 'hex'));
};

describe('monitor webhooks', () => {
  it('sends a signed monitor.page per page and one monitor.check.completed, after failing twice', async () => {
    const monitor = await call<{ id: string }>('POST', '/v2/monitor', {
      name: 'Hooked',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}/a`, `${site.url}/b`] }],
      webhook: {
        url: `${receiverUrl}/hooks`,
        headers: { 'x-receiver-token': 'abc' },
        metadata: { team: 'pricing' },
      },
    });
    await runCheck(monitor.id);
    received.length = 0;
    site.set('/a', { title: 'A', text: 'Alpha two' });
    failuresLeft.set('monitor.check.completed', 2);
    const check = await runCheck(monitor.id);
    const deliveries = received.filter((delivery) => delivery.body.id === check.id);
    expect(deliveries.map((delivery) => delivery.body.type)).toEqual([
      'monitor.page',
      'monitor.page',
      'monitor.check.completed',
    ]);
    expect(refused).toEqual(['monitor.check.completed', 'monitor.check.completed']);
    for (const delivery of deliveries) {
      expect(signed(delivery)).toBe(true);
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/json',
        'x-receiver-token': 'abc',
        'x-firecrawl-event': delivery.body.type,
        'x-firecrawl-job-id': check.id,
        'x-firecrawl-webhook-id': delivery.body.webhookId,
        'x-firecrawl-delivery-mode': 'direct',
      });
      expect(delivery.body.metadata).toEqual({ team: 'pricing' });
    }
    const pages = deliveries.filter((delivery) => delivery.body.type === 'monitor.page');
    const byUrl = Object.fromEntries(
      pages.map((delivery) => [delivery.body.data[0]?.['url'], delivery]),
    );
    expect(byUrl[`${site.url}/a`]?.body).toMatchObject({
      success: true,
      data: [
        {
          monitorId: monitor.id,
          checkId: check.id,
          status: 'changed',
          error: null,
          isMeaningful: null,
          judgment: null,
          diff: { text: expect.stringContaining('+Alpha two') as unknown },
        },
      ],
    });
    expect(byUrl[`${site.url}/a`]?.headers['x-firecrawl-scrape-id']).toBe(
      byUrl[`${site.url}/a`]?.body.data[0]?.['currentScrapeId'],
    );
    expect(byUrl[`${site.url}/b`]?.body.data[0]).toMatchObject({ status: 'same', diff: null });
    expect(deliveries.at(-1)?.body).toMatchObject({
      success: true,
      data: [
        {
          monitorId: monitor.id,
          checkId: check.id,
          status: 'completed',
          summary: { totalPages: 2, same: 1, changed: 1, new: 0, removed: 0, error: 0 },
        },
      ],
    });
    expect(check.notificationStatus.webhook).toMatchObject({
      attempted: true,
      success: true,
      delivered: true,
      attempts: 3,
      statusCode: 200,
    });
    const log = (await (
      await fetch(`${api}/v2/monitor/${monitor.id}/checks/${check.id}/webhooks`)
    ).json()) as {
      deliveries: { event: string; attempts: number; delivered: boolean }[];
    };
    expect(log.deliveries.map((entry) => [entry.event, entry.attempts, entry.delivered])).toEqual([
      ['monitor.page', 1, true],
      ['monitor.page', 1, true],
      ['monitor.check.completed', 3, true],
    ]);
  });

  it('sends an error page with success false, and honours the events filter', async () => {
    site.set('/c', { title: 'C', text: 'Gamma', status: 500 });
    const monitor = await call<{ id: string }>('POST', '/v2/monitor', {
      name: 'Only pages',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}/c`] }],
      webhook: { url: `${receiverUrl}/pages-only`, events: ['monitor.page'] },
    });
    const check = await runCheck(monitor.id);
    expect(check.status).toBe('failed');
    const deliveries = received.filter((delivery) => delivery.body.id === check.id);
    expect(deliveries.map((delivery) => delivery.body.type)).toEqual(['monitor.page']);
    expect(deliveries[0]?.body).toMatchObject({
      success: false,
      data: [
        {
          status: 'error',
          error: expect.stringContaining('500') as unknown,
          currentScrapeId: null,
        },
      ],
    });
    expect(check.notificationStatus.webhook).toMatchObject({ attempted: false });
  });

  it('reports a webhook that never answers 2xx as failed, after its retries', async () => {
    const monitor = await call<{ id: string }>('POST', '/v2/monitor', {
      name: 'Broken receiver',
      schedule: { text: 'daily' },
      targets: [{ type: 'scrape', urls: [`${site.url}/a`] }],
      webhook: `${receiverUrl}/broken`,
    });
    failuresLeft.set('monitor.page', 4);
    failuresLeft.set('monitor.check.completed', 4);
    const check = await runCheck(monitor.id);
    expect(check.status).toBe('completed');
    expect(check.notificationStatus.webhook).toMatchObject({
      attempted: true,
      success: false,
      delivered: false,
      attempts: 4,
      statusCode: 500,
      error: 'answered HTTP 500',
    });
  });
});
