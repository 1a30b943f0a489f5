/**
 * The split deployment as real processes: `trawl serve --role api` and `trawl worker`
 * processes over the machine's PostgreSQL (a fresh database per file) and Redis (a fresh BullMQ
 * prefix per deployment), crawling the fixture article site on 127.0.0.1.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';
import { servicesMissing, SplitDeployment } from './split-deployment.ts';

const missing = await servicesMissing();
if (missing) console.warn(`split-deployment tests skipped: ${missing}`);

/** Reads every document URL of a crawl through the API, following `next`. */
async function crawledUrls(deployment: SplitDeployment, id: string): Promise<string[]> {
  const urls: string[] = [];
  let path: string | undefined = `/v2/crawl/${id}?limit=1000`;
  while (path) {
    const page = await deployment.call('GET', path);
    const data = page['data'] as { metadata: { sourceURL: string } }[];
    urls.push(...data.map((doc) => doc.metadata.sourceURL));
    const next = page['next'] as string | undefined;
    path = next ? next.slice(next.indexOf('/v2/')) : undefined;
  }
  return urls;
}

describe.skipIf(missing !== undefined)('a split deployment (API process + trawl workers)', () => {
  let deployment: SplitDeployment;
  afterEach(async () => {
    await deployment.close();
  });

  describe('crawling a 2,200-page site with a limit of 2,000', () => {
    let site: ArticleSite;
    beforeAll(async () => {
      site = await startArticleSite(2200);
    });
    afterAll(() => site.close());

    it('stores exactly 2,000 distinct pages with one API process and three workers', async () => {
      deployment = await new SplitDeployment().open();
      const api = await deployment.startApi();
      await Promise.all([1, 2, 3].map(() => deployment.startWorker()));
      const firecrawl = new Firecrawl({ apiKey: deployment.apiKey, apiUrl: api.url });
      const job = await firecrawl.crawl(`${site.url}/`, {
        limit: 2000,
        maxConcurrency: 30,
        pollInterval: 1,
        timeout: 240,
      });
      expect(job.status).toBe('completed');
      expect(job.total).toBe(2000);
      const urls = job.data.map((doc) => doc.metadata?.sourceURL ?? '');
      expect(urls).toHaveLength(2000);
      expect(new Set(urls).size).toBe(2000);
      const known = new Set(site.urls);
      expect(urls.filter((url) => !known.has(url))).toEqual([]);
    }, 300_000);
  });

  describe('crawling a 2,000-page site while processes are killed', () => {
    let site: ArticleSite;
    beforeAll(async () => {
      site = await startArticleSite(2000, 5);
    });
    afterAll(() => site.close());

    it('completes with every page exactly once after kill -9 of the owning worker and of the API process', async () => {
      deployment = await new SplitDeployment().open();
      await deployment.startApi();
      // The first worker alone takes the crawl's unit: killing it kills the crawl's owner.
      const owner = await deployment.startWorker();
      const started = await deployment.call('POST', '/v2/crawl', {
        url: `${site.url}/`,
        limit: 5000,
        maxConcurrency: 20,
      });
      const id = started['id'] as string;
      const completed = async () =>
        (await deployment.call('GET', `/v2/crawl/${id}?limit=1`))['completed'] as number;
      await vi.waitFor(async () => expect(await completed()).toBeGreaterThan(100), {
        timeout: 60_000,
        interval: 200,
      });
      await Promise.all([deployment.startWorker(), deployment.startWorker()]);
      await vi.waitFor(async () => expect(await completed()).toBeGreaterThan(500), {
        timeout: 120_000,
        interval: 200,
      });
      await owner.kill();
      const before = await completed();
      // Another worker takes the crawl over once the lease (2 s here) expires.
      await vi.waitFor(async () => expect(await completed()).toBeGreaterThan(before + 200), {
        timeout: 120_000,
        interval: 500,
      });
      await deployment.api?.kill();
      await deployment.startApi();
      const status = async () => deployment.call('GET', `/v2/crawl/${id}?limit=1`);
      await vi.waitFor(async () => expect((await status())['status']).toBe('completed'), {
        timeout: 180_000,
        interval: 1000,
      });
      const urls = await crawledUrls(deployment, id);
      // The home page shows article 0 under its own URL: the site has pages + 1 URLs.
      expect(urls).toHaveLength(new Set(urls).size);
      expect([...urls].sort()).toEqual([...site.urls].sort());
      expect(await status()).toMatchObject({ completed: 2001, total: 2001 });
    }, 420_000);
  });

  describe('the official SDK', () => {
    let site: ArticleSite;
    beforeAll(async () => {
      site = await startArticleSite(60);
    });
    afterAll(() => site.close());

    it('crawls, batch scrapes, reads status, errors, active crawls and the queue, and cancels', async () => {
      deployment = await new SplitDeployment().open();
      const api = await deployment.startApi();
      await Promise.all([deployment.startWorker(), deployment.startWorker()]);
      const firecrawl = new Firecrawl({ apiKey: deployment.apiKey, apiUrl: api.url });

      const crawl = await firecrawl.crawl(`${site.url}/`, { limit: 25, pollInterval: 1 });
      expect(crawl).toMatchObject({ status: 'completed', total: 25, completed: 25 });
      expect(new Set(crawl.data.map((doc) => doc.metadata?.sourceURL)).size).toBe(25);
      expect(crawl.data[0]?.markdown).toContain('Article');
      const errors = await firecrawl.getCrawlErrors(crawl.id ?? '');
      expect(errors).toMatchObject({ errors: [], robotsBlocked: [] });

      const urls = site.urls.slice(1, 6);
      const batch = await firecrawl.batchScrape(urls, { options: { formats: ['markdown'] } });
      expect(batch.status).toBe('completed');
      expect(batch.data.map((doc) => doc.metadata?.sourceURL).sort()).toEqual([...urls].sort());
      const batchStatus = await firecrawl.getBatchScrapeStatus(batch.id ?? '');
      expect(batchStatus).toMatchObject({ status: 'completed', completed: 5, total: 5 });

      // A slow crawl stays running long enough to be listed and cancelled.
      const running = await firecrawl.startCrawl(`${site.url}/`, { limit: 60, delay: 1 });
      await vi.waitFor(
        async () => {
          const active = await firecrawl.getActiveCrawls();
          expect(active.crawls.map((entry) => entry.id)).toContain(running.id);
        },
        { timeout: 20_000, interval: 200 },
      );
      const queue = await firecrawl.getQueueStatus();
      expect(queue).toMatchObject({ success: true });
      expect(queue.jobsInQueue).toBe(queue.activeJobsInQueue + queue.waitingJobsInQueue);
      expect(await firecrawl.cancelCrawl(running.id)).toBe(true);
      const cancelled = await firecrawl.getCrawlStatus(running.id);
      expect(cancelled.status).toBe('cancelled');
      await vi.waitFor(
        async () => {
          const active = await firecrawl.getActiveCrawls();
          expect(active.crawls.map((entry) => entry.id)).not.toContain(running.id);
        },
        { timeout: 20_000, interval: 200 },
      );
      const after = (await firecrawl.getCrawlStatus(running.id)).completed;
      // Cancelled means stopped everywhere: no worker stores another page of it.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect((await firecrawl.getCrawlStatus(running.id)).completed).toBe(after);
    }, 240_000);
  });
});
