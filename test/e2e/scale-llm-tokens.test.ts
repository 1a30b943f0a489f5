/**
 * LLM tokens of a crawl in a split deployment : the pages of a crawl
 * asking for the json format are scraped by workers that do not own the crawl, and every token
 * they spend is counted on the team's day and charged, as on one process.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { servicesMissing, SplitDeployment } from './split-deployment.ts';

const missing = await servicesMissing();
if (missing) console.warn(`split-deployment tests skipped: ${missing}`);

describe.skipIf(missing !== undefined)('LLM tokens of a crawl run by workers', () => {
  let site: ArticleSite;
  let model: FakeOpenAi;
  let deployment: SplitDeployment;
  beforeAll(async () => {
    site = await startArticleSite(12);
    model = await startFakeOpenAi();
    model.respond = () => ({ content: '{"title":"An article"}' });
    deployment = await new SplitDeployment({
      TRAWL_LLM_BASE_URL: model.baseUrl,
      TRAWL_LLM_MODEL: 'fake',
    }).open();
  });
  afterAll(async () => {
    await deployment.close();
    await model.close();
    await site.close();
  });

  it('counts every page token on the team, whichever worker scraped the page', async () => {
    const api = await deployment.startApi();
    // Two workers: one owns the crawl, and both scrape its pages.
    await Promise.all([deployment.startWorker(2), deployment.startWorker(2)]);
    const firecrawl = new Firecrawl({ apiKey: deployment.apiKey, apiUrl: api.url });
    const job = await firecrawl.crawl(`${site.url}/`, {
      limit: 10,
      pollInterval: 1,
      scrapeOptions: {
        formats: [
          { type: 'json', schema: { type: 'object', properties: { title: { type: 'string' } } } },
        ],
      },
    });
    expect(job.status).toBe('completed');
    expect(job.data).toHaveLength(10);
    const pageTokens = job.data.reduce(
      (sum, doc) => sum + Number((doc.metadata as { llmTokens?: number }).llmTokens ?? 0),
      0,
    );
    expect(pageTokens).toBeGreaterThan(0);
    // Charged when each page ends, so the day's total is there once the crawl has completed.
    // Read raw: the SDK keeps only the hosted fields, and today's total is Trawl's own.
    const usage = await deployment.call('GET', '/v2/team/token-usage');
    expect(usage['data']).toMatchObject({ tokensUsedToday: pageTokens });
  }, 180_000);
});
