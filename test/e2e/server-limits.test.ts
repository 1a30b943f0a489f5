/**
 * Per-team limits of the /v2 server over real HTTP: request rate (429 + Retry-After), scrapes at
 * once (queued, marked in metadata), and credits (crawls capped to what is left, then 402).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer, type ServerOptions } from '@trawl/http';

const fixture = inject('fixtureUrl');
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function start(limits: NonNullable<ServerOptions['limits']>) {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-limits-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse('team-a:key-a,team-b:key-b'),
    logLevel: 'silent',
    limits,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(async () => {
    await app.close();
    for (const job of app.jobs.running) await job.cancel();
    await store.close();
  });
  return async (method: string, path: string, body?: unknown, key = 'key-a') => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Record<string, unknown> & {
        data?: Record<string, unknown> & { metadata?: Record<string, unknown> };
      },
    };
  };
}

describe('per-team limits', () => {
  it('429 with Retry-After past the rate, per team and per kind of call', async () => {
    const call = await start({ ratePerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await call('GET', '/v2/crawl/active')).status).toBe(200);
    const refused = await call('GET', '/v2/crawl/active');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      success: false,
      code: 'RATE_LIMITED',
      error: expect.stringMatching(
        /^Rate limit exceeded\. Consumed \(req\/min\): 3, Remaining \(req\/min\): 0\. Please retry after \d+s, resets at \d{4}-/,
      ),
    });
    // Another team, and another kind of call, have their own budgets.
    expect((await call('GET', '/v2/crawl/active', undefined, 'key-b')).status).toBe(200);
    expect((await call('GET', '/v2/team/credit-usage')).status).toBe(200);
  });

  it('queues scrapes beyond the team concurrency and says so in their metadata', async () => {
    const call = await start({ teamConcurrency: 1 });
    const [first, second] = await Promise.all([
      call('POST', '/v2/scrape', { url: `${fixture}/slow?ms=400` }),
      call('POST', '/v2/scrape', { url: `${fixture}/slow?ms=400&second=1` }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const limited = [first, second].filter(
      (answer) => answer.body.data?.metadata?.['concurrencyLimited'],
    );
    expect(limited).toHaveLength(1);
    expect(limited[0]?.body.data?.metadata?.['concurrencyQueueDurationMs']).toBeGreaterThan(0);
  });

  it('caps a crawl to the credits left, then answers 402', async () => {
    const call = await start({ teamCredits: 3 });
    expect(
      (await call('POST', '/v2/scrape', { url: `${fixture}/articles/plain.html` })).status,
    ).toBe(200);
    expect((await call('GET', '/v2/team/credit-usage')).body.data).toMatchObject({
      remainingCredits: 2,
      planCredits: 3,
    });
    const started = await call('POST', '/v2/crawl', { url: `${fixture}/`, limit: 50 });
    const id = String(started.body['id']);
    let status = await call('GET', `/v2/crawl/${id}`);
    for (let i = 0; i < 100 && status.body['status'] === 'scraping'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await call('GET', `/v2/crawl/${id}`);
    }
    expect(status.body).toMatchObject({ status: 'completed', creditsUsed: 2, total: 2 });
    for (let i = 0; i < 50; i++) {
      const usage = await call('GET', '/v2/team/credit-usage');
      if (usage.body.data?.['remainingCredits'] === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(
      await call('POST', '/v2/scrape', { url: `${fixture}/articles/plain.html` }),
    ).toMatchObject({
      status: 402,
      body: {
        success: false,
        code: 'PAYMENT_REQUIRED',
        error: expect.stringMatching(/^Insufficient credits to perform this request\./),
      },
    });
    expect((await call('POST', '/v2/crawl', { url: `${fixture}/` })).status).toBe(402);
    // The other team has its own credits.
    expect((await call('POST', '/v2/map', { url: `${fixture}/`, limit: 1 }, 'key-b')).status).toBe(
      200,
    );
  });
});
