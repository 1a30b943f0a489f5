/**
 * The /v2 server driven by the official SDK (@mendable/firecrawl-js), as users run it: scrape,
 * map, crawls (start + status with pagination, the waiter, cancel, errors, active), batch scrape
 * and account calls, with a key and keyless, plus its error cases, against local sites.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';

const fixture = inject('fixtureUrl');
const key = 'fc-test-key-team-a';
const otherKey = 'fc-test-key-team-b';

async function startServer(keys: ApiKeys) {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-server-')), 'trawl.db'),
  });
  // Tests fetch 127.0.0.1, which a served Trawl refuses unless allowed.
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys,
    logLevel: 'silent',
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    app,
    close: async () => {
      await app.close();
      for (const job of app.jobs.running) await job.cancel();
      await store.close();
    },
  };
}

let site: ArticleSite;
beforeAll(async () => {
  site = await startArticleSite(40);
});
afterAll(() => site.close());

/** The suite runs twice: against a server with team keys, and against a keyless one. */
const modes = [
  { name: 'with a key', keys: `team-a:${key},team-b:${otherKey}`, apiKey: key, team: 'team-a' },
  // The SDK sends no Authorization header at all without a key (and polls instead of watching).
  { name: 'keyless', keys: undefined, apiKey: '', team: 'default' },
];

describe.each(modes)('the official SDK against trawl serve, $name', (mode) => {
  const keyed = mode.apiKey !== '';
  let server: Awaited<ReturnType<typeof startServer>>;
  let firecrawl: Firecrawl;
  beforeAll(async () => {
    server = await startServer(ApiKeys.parse(mode.keys));
    firecrawl = new Firecrawl({ apiKey: mode.apiKey, apiUrl: server.url });
  });
  afterAll(() => server.close());

  it('scrapes a page to markdown with metadata', async () => {
    const doc = await firecrawl.scrape(`${fixture}/articles/heavy-boilerplate.html`, {
      formats: ['markdown', 'links'],
    });
    expect(doc.markdown).toMatch(/^# How a regional rail operator rebuilt its timetable engine/);
    expect(doc.links?.length).toBeGreaterThan(0);
    expect(doc.metadata?.statusCode).toBe(200);
  });

  it('maps a site, ranked by search', async () => {
    const result = await firecrawl.map(`${site.url}/`, { search: 'articles 17', limit: 5 });
    expect(result.links).toHaveLength(5);
    expect(result.links[0]?.url).toBe(`${site.url}/articles/17`);
  });

  it('crawls with the waiter and reads every page, following next pages', async () => {
    const job = await firecrawl.crawl(`${site.url}/`, { limit: 30, pollInterval: 1, timeout: 60 });
    expect(job.status).toBe('completed');
    expect(job.completed).toBe(30);
    expect(job.total).toBe(30);
    expect(job.data).toHaveLength(30);
    expect(new Set(job.data.map((doc) => doc.metadata?.sourceURL)).size).toBe(30);
  });

  it('starts a crawl and pages its status through absolute next URLs', async () => {
    const started = await firecrawl.startCrawl(`${site.url}/`, { sitemap: 'skip' });
    expect(started.url).toBe(`${server.url}/v2/crawl/${started.id}`);
    await waitFor(async () => (await firecrawl.getCrawlStatus(started.id)).status === 'completed');
    const response = await fetch(`${server.url}/v2/crawl/${started.id}?limit=15`, {
      headers: keyed ? { authorization: `Bearer ${key}` } : {},
    });
    const first = (await response.json()) as { data: unknown[]; next?: string };
    expect(first.data).toHaveLength(15);
    expect(first.next).toBe(`${server.url}/v2/crawl/${started.id}?skip=15&limit=15`);
    const all = await firecrawl.getCrawlStatus(started.id);
    expect(all.data).toHaveLength(site.urls.length);
    expect(all.creditsUsed).toBe(site.urls.length);
    expect(Date.parse(all.expiresAt ?? '')).toBeGreaterThan(Date.now());
  });

  it('lists active crawls, cancels one, and reads crawl errors', async () => {
    const slow = await startArticleSite(200, 50);
    try {
      const started = await firecrawl.startCrawl(`${slow.url}/`, { maxConcurrency: 1 });
      const active = await firecrawl.getActiveCrawls();
      expect(active.crawls.map((crawl) => crawl.id)).toContain(started.id);
      expect(active.crawls.find((crawl) => crawl.id === started.id)).toMatchObject({
        teamId: mode.team,
        url: `${slow.url}/`,
      });
      expect(await firecrawl.cancelCrawl(started.id)).toBe(true);
      expect((await firecrawl.getCrawlStatus(started.id)).status).toBe('cancelled');
      expect((await firecrawl.getActiveCrawls()).crawls.map((crawl) => crawl.id)).not.toContain(
        started.id,
      );
    } finally {
      await slow.close();
    }
    const failing = await firecrawl.crawl(`${site.url}/articles/999`, { pollInterval: 1 });
    const errors = await firecrawl.getCrawlErrors(failing.id ?? '');
    expect(errors.errors).toEqual([
      expect.objectContaining({ url: `${site.url}/articles/999`, code: 'SCRAPE_HTTP_ERROR' }),
    ]);
    expect(errors.robotsBlocked).toEqual([]);
  });

  it('watches a crawl over the WebSocket: every document once, then done', async () => {
    const started = await firecrawl.startCrawl(`${site.url}/`, { limit: 25, maxConcurrency: 2 });
    const watcher = firecrawl.watcher(started.id, { kind: 'crawl', pollInterval: 1 });
    const documents: string[] = [];
    const snapshots: string[] = [];
    watcher.on('document', (doc: { metadata?: { sourceURL?: string } }) =>
      documents.push(doc.metadata?.sourceURL ?? ''),
    );
    watcher.on('snapshot', (snapshot: { status: string }) => snapshots.push(snapshot.status));
    const done = new Promise<{ status: string; completed: number }>((resolve, reject) => {
      watcher.on('done', resolve);
      watcher.on('error', (error: { error: string }) => reject(new Error(error.error)));
    });
    await watcher.start();
    const finished = await done;
    expect(finished).toMatchObject({ status: 'completed', completed: 25 });
    expect(snapshots[0]).toBe('scraping');
    expect(documents).toHaveLength(25);
    expect(new Set(documents).size).toBe(25);
  });

  it.runIf(keyed)(
    'closes the watcher socket of a job the key does not own, and refuses a wrong key',
    async () => {
      const started = await firecrawl.startCrawl(`${site.url}/`, { limit: 2 });
      const socket = new WebSocket(
        `${server.url.replace('http', 'ws')}/v2/crawl/${started.id}`,
        otherKey,
      );
      const closed = await new Promise<CloseEvent>((resolve) =>
        socket.addEventListener('close', resolve),
      );
      expect(closed.code).toBe(1008);
      const refused = new WebSocket(
        `${server.url.replace('http', 'ws')}/v2/crawl/${started.id}`,
        'fc-wrong',
      );
      const failed = await new Promise<string>((resolve) => {
        refused.addEventListener('error', () => resolve('error'));
        refused.addEventListener('open', () => resolve('open'));
      });
      expect(failed).toBe('error');
    },
  );

  it('batch scrapes a list of URLs, reporting invalid ones', async () => {
    const urls = [`${site.url}/articles/1`, `${site.url}/articles/2`, 'not a url'];
    const started = await firecrawl.startBatchScrape(urls, { options: { formats: ['markdown'] } });
    expect(started.invalidURLs).toEqual(['not a url']);
    const job = await firecrawl.batchScrape(urls.slice(0, 2), { pollInterval: 1 });
    expect(job.status).toBe('completed');
    expect(job.data.map((doc) => doc.markdown?.split('\n')[0]).sort()).toEqual([
      '# Article 1',
      '# Article 2',
    ]);
  });

  it('records every scrape, map, crawl and batch scrape for its team', async () => {
    const doc = await firecrawl.scrape(`${site.url}/articles/5`);
    const scrapeId = String(doc.metadata?.scrapeId);
    expect(await server.app.records.get(mode.team, scrapeId)).toMatchObject({
      endpoint: 'scrape',
      status: 'completed',
      creditsUsed: 1,
      url: `${site.url}/articles/5`,
      finishedAt: expect.any(String),
    });
    expect(await server.app.records.get('team-b', scrapeId)).toBeUndefined();
    const job = await firecrawl.crawl(`${site.url}/`, { limit: 4, pollInterval: 1 });
    for (let i = 0; i < 50; i++) {
      if ((await server.app.records.get(mode.team, job.id ?? ''))?.status !== 'scraping') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await server.app.records.get(mode.team, job.id ?? '')).toMatchObject({
      endpoint: 'crawl',
      status: 'completed',
      creditsUsed: 4,
    });
    await expect(firecrawl.scrape('http://127.0.0.1:1/')).rejects.toMatchObject({ status: 500 });
  });

  it('sends feedback with feedback() and searchFeedback(): refunds, duplicates, errors', async () => {
    const doc = await firecrawl.scrape(`${site.url}/articles/6`);
    const jobId = String(doc.metadata?.scrapeId);
    const request = {
      endpoint: 'scrape' as const,
      jobId,
      rating: 'bad' as const,
      issues: ['missing_content'],
      note: 'The article body is cut off.',
      metadata: { formats: ['markdown'] },
    };
    const result = await firecrawl.feedback(request);
    expect(result).toEqual({
      success: true,
      feedbackId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      creditsRefunded: 1,
      creditsRefundedToday: expect.any(Number),
      dailyRefundCap: 50,
      dailyCapReached: false,
      alreadySubmitted: false,
    });
    expect(await firecrawl.feedback({ ...request, rating: 'partial' })).toMatchObject({
      feedbackId: result.feedbackId,
      creditsRefunded: 0,
      alreadySubmitted: true,
    });
    const mapped = await firecrawl.map(`${site.url}/`, { limit: 3 });
    expect(
      await firecrawl.feedback({
        endpoint: 'map',
        jobId: mapped.id ?? '',
        rating: 'partial',
        url: `${site.url}/`,
      }),
    ).toMatchObject({ success: true, creditsRefunded: 0, alreadySubmitted: false });

    // No search endpoint yet: a search job recorded and charged as a search route would.
    const search = await server.app.records.start(mode.team, 'search', 'article six');
    await server.app.records.finish(search.id, { status: 'completed', creditsUsed: 2 });
    await server.app.ledger.debit(mode.team, 2, { endpoint: 'search', jobId: search.id });
    expect(
      await firecrawl.searchFeedback(search.id, {
        rating: 'bad',
        missingContent: [{ topic: 'article seven', description: 'the next part was not found' }],
        querySuggestions: 'article six and seven',
      }),
    ).toMatchObject({ success: true, creditsRefunded: 2, dailyRefundCap: 100 });

    // The SDK's error keeps `details`, whose entry carries the feedback code.
    await expect(
      firecrawl.feedback({ ...request, jobId: '0190a6a4-2222-7000-8000-000000000002' }),
    ).rejects.toMatchObject({
      status: 404,
      message: 'scrape job not found for this team.',
      details: [expect.objectContaining({ path: ['jobId'], code: 'JOB_NOT_FOUND' })],
    });
    await expect(
      firecrawl.searchFeedback(search.id, { rating: 'good', querySuggestions: 'x' }),
    ).rejects.toMatchObject({ status: 400, message: 'Invalid request body' });
  });

  it('answers the account calls', async () => {
    expect((await firecrawl.getCreditUsage()).remainingCredits).toBeGreaterThan(0);
    const concurrency = await firecrawl.getConcurrency();
    expect(concurrency.maxConcurrency).toBeGreaterThan(0);
  });

  it.runIf(keyed)(
    'keeps teams apart: another team gets 404 for a crawl it does not own',
    async () => {
      const started = await firecrawl.startCrawl(`${site.url}/`, { limit: 2 });
      const other = new Firecrawl({ apiKey: otherKey, apiUrl: server.url });
      await expect(other.getCrawlStatus(started.id)).rejects.toMatchObject({ status: 404 });
      await expect(other.cancelCrawl(started.id)).rejects.toMatchObject({ status: 404 });
      expect((await other.getActiveCrawls()).crawls).toEqual([]);
    },
  );

  it('refuses a bad key with 401 (when keyed) and a bad body with 400 naming the field', async () => {
    if (keyed) {
      const wrong = new Firecrawl({ apiKey: 'fc-wrong', apiUrl: server.url });
      await expect(wrong.scrape(`${site.url}/`)).rejects.toMatchObject({
        status: 401,
        message: 'Unauthorized: Invalid token',
      });
    }
    await expect(
      firecrawl.startCrawl(`${site.url}/`, { includePaths: ['(unclosed'] }),
    ).rejects.toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    await expect(firecrawl.map(`${site.url}/`, { limit: 0 })).rejects.toMatchObject({
      status: 400,
    });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
