/**
 * The v1 interface, translated onto v2: v1 bodies and answers (format `content`, `maxDepth`,
 * `ignoreSitemap`, map links as bare URLs, `/v1/` next links, a batch
 * read at `/v1/crawl/{id}` as firecrawl-py's v1 waiter does), with v2's key and credits.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';

const site = inject('fixtureUrl');
const key = 'fc-v1-key';
let url: string;
let close: () => Promise<void>;

interface Answer {
  success?: boolean;
  id?: string;
  url?: string;
  status?: string;
  next?: string;
  code?: string;
  links?: unknown[];
  data?: { markdown?: string; screenshot?: string; metadata?: object }[] & {
    markdown?: string;
    links?: string[];
  };
}

async function call(method: string, path: string, body?: unknown, auth = key) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

async function finished(path: string): Promise<Answer> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const answer = await call('GET', path);
    if (answer.body.status !== 'scraping') return answer.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} did not finish`);
}

beforeAll(async () => {
  const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'trawl-v1-')), 't.db') });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse(`team-v1:${key}`),
    logLevel: 'silent',
    limits: { teamCredits: 1000 },
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(() => close());

describe('the v1 interface', () => {
  it('scrapes with v1 formats, needs the same key as v2 and spends its credits', async () => {
    const remaining = async () =>
      (
        (await call('GET', '/v2/team/credit-usage')).body as {
          data?: { remainingCredits?: number };
        }
      ).data?.remainingCredits;
    const before = await remaining();
    const answer = await call('POST', '/v1/scrape', {
      url: `${site}/docs/configuration.html`,
      formats: ['content', 'links'],
      parsePDF: true,
      origin: 'python-sdk@3.3.2',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data?.markdown).toContain('Configuration reference');
    expect(answer.body.data?.links?.length).toBeGreaterThan(0);
    expect(await remaining()).toBeLessThan(before ?? 0);
    expect((await call('POST', '/v1/scrape', { url: site }, 'fc-wrong')).status).toBe(401);
  });

  it('maps to bare URLs, honouring ignoreSitemap', async () => {
    const answer = await call('POST', '/v1/map', {
      url: `${site}/`,
      ignoreSitemap: true,
      limit: 5,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.links?.length).toBeGreaterThan(0);
    for (const link of answer.body.links ?? []) expect(typeof link).toBe('string');
  });

  it('crawls: v1 url, status with v1 next links, errors, cancel', async () => {
    const started = await call('POST', '/v1/crawl', {
      url: `${site}/docs/`,
      limit: 3,
      maxDepth: 2,
      ignoreSitemap: true,
      scrapeOptions: { formats: ['markdown'] },
    });
    expect(started.status).toBe(200);
    expect(started.body.url).toBe(`${url}/v1/crawl/${started.body.id}`);
    const status = await finished(`/v1/crawl/${started.body.id}?limit=1`);
    expect(status.status).toBe('completed');
    expect(status.data).toHaveLength(1);
    expect(status.next).toMatch(new RegExp(`/v1/crawl/${started.body.id}\\?skip=1`));
    expect((await call('GET', `/v1/crawl/${started.body.id}/errors`)).status).toBe(200);
    const other = await call('POST', '/v1/crawl', { url: `${site}/`, limit: 40, delay: 1 });
    const cancelled = await call('DELETE', `/v1/crawl/${other.body.id}`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
  });

  it('batch scrapes, readable at /v1/batch/scrape/{id} and /v1/crawl/{id}', async () => {
    const started = await call('POST', '/v1/batch/scrape', {
      urls: [`${site}/docs/install.html`],
      formats: ['markdown'],
    });
    expect(started.status).toBe(200);
    expect(started.body.url).toBe(`${url}/v1/batch/scrape/${started.body.id}`);
    const status = await finished(`/v1/batch/scrape/${started.body.id}`);
    expect(status.data?.[0]?.markdown).toBeTruthy();
    expect((await finished(`/v1/crawl/${started.body.id}`)).status).toBe('completed');
  });

  it('answers v2 refusals as they are', async () => {
    const answer = await call('POST', '/v1/scrape', { url: 'not a url', formats: ['nonsense'] });
    expect(answer.status).toBe(400);
    expect(answer.body.success).toBe(false);
  });
});
