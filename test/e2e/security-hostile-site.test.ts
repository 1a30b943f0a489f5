/**
 * A hostile site against a real `trawl serve` (its own process, its memory read from /proc): a
 * robots.txt built to stall rule matching, redirect loops, dripped and endless bodies, header
 * floods, gzip/brotli/zstd bombs and stacked codings, infinite URL spaces, millions of elements
 * and a million levels, JSON-LD nested or widened without end, a lying charset.
 * While each attack runs `/health` answers within 1 s; each ends with its documented code (or a
 * page) within its timeout; the server's peak memory stays under 1 GB; and another team's
 * request is served normally afterwards.
 */
import { describe, expect, it } from 'vitest';
import { hostileHarness } from './hostile-harness.ts';

const { site, scrapeWatched, crawlWatched, server } = hostileHarness();

describe('a hostile site against a real server', () => {
  it('crawls 8 long-path pages past a robots.txt of 20,000 near-miss wildcard rules', async () => {
    const { status } = await crawlWatched(
      { url: `${site().url}/`, limit: 8, sitemap: 'skip' },
      60_000,
    );
    expect({ ...status, data: (status['data'] as unknown[]).length }).toMatchObject({
      status: 'completed',
      data: 8,
    });
    expect(status['data']).toHaveLength(8);
  }, 90_000);

  it('ends an endless calendar at the crawl limit, past sitemap indexes nested deep and wide and a 2 GiB gzip sitemap', async () => {
    const { id, status } = await crawlWatched({ url: `${site().url}/calendar`, limit: 10 });
    expect(status['status']).toBe('completed');
    expect(status['data']).toHaveLength(10);
    const errors = (await server().call('GET', `/v2/crawl/${id}/errors`)).body;
    expect(JSON.stringify(errors)).toContain('sitemap-bomb.xml.gz');
  }, 60_000);

  it('ends a crawl of session ids in every link at the crawl limit', async () => {
    const { status } = await crawlWatched({
      url: `${site().url}/session`,
      limit: 10,
      sitemap: 'skip',
    });
    expect(status['status']).toBe('completed');
    expect(status['data']).toHaveLength(10);
  }, 60_000);

  it.each([
    ['/redirect-loop', 'FETCH_FAILED'],
    ['/redirect-chain', 'FETCH_FAILED'],
  ])(
    'ends %s with %s',
    async (path, code) => {
      const answer = await scrapeWatched(path);
      expect(answer.body).toMatchObject({ success: false, code });
      expect(answer.body['error']).toContain('redirects');
    },
    60_000,
  );

  it('ends a body dripped one byte a second with SCRAPE_TIMEOUT at its timeout', async () => {
    const answer = await scrapeWatched('/drip', { timeout: 1_000 });
    expect(answer).toMatchObject({ status: 408, body: { success: false, code: 'SCRAPE_TIMEOUT' } });
  }, 60_000);

  it.each(['/endless', '/huge-text', '/bomb/gzip.html', '/bomb/br.html', '/bomb/zstd.html'])(
    'ends %s with 413 CONTENT_TOO_LARGE',
    async (path) => {
      const answer = await scrapeWatched(path, { timeout: 30_000 });
      expect(answer).toMatchObject({
        status: 413,
        body: { success: false, code: 'CONTENT_TOO_LARGE' },
      });
    },
    60_000,
  );

  it.each(['/encoded/br', '/encoded/zstd', '/encoded/gzip-br'])(
    'reads a page sent as %s',
    async (path) => {
      const answer = await scrapeWatched(path);
      expect(answer.status).toBe(200);
      expect((answer.body['data'] as { markdown: string }).markdown).toContain('Paragraph 11');
    },
    60_000,
  );

  it('reads a page that refreshes to itself as the page it is, over HTTP', async () => {
    const answer = await scrapeWatched('/meta-refresh-loop');
    expect(answer.status).toBe(200);
    expect((answer.body['data'] as { markdown: string }).markdown).toContain('Refresh');
  }, 60_000);

  it.each(['/many-cookies', '/huge-header'])(
    'ends %s with FETCH_FAILED',
    async (path) => {
      const answer = await scrapeWatched(path);
      expect(answer.body).toMatchObject({ success: false, code: 'FETCH_FAILED' });
    },
    60_000,
  );

  // Once skipped (/health waited 1.2–3.8 s, probed from the process that also served the 8 MB
  // page). Profiled since, the server's own share is a main-thread GC of the page's buffers:
  // 50–350 ms at a load average of 20 (bench/hostile.ts).
  it('scrapes a page whose title and description are 4 MB each, cut short', async () => {
    const answer = await scrapeWatched('/huge-title');
    expect(answer.status).toBe(200);
    const metadata = (answer.body['data'] as { metadata: Record<string, string> }).metadata;
    expect(metadata['title']).toMatch(/^T{4096}…$/);
    expect(metadata['description']).toMatch(/^d{4096}…$/);
  }, 60_000);

  // Two million elements, and a million unclosed levels: the conversion thread stops at the
  // page's deadline (attributes of megabytes, which convert in ~10 s, are in bench/hostile.ts).
  it.each(['/many-elements', '/deep-nesting'])(
    'ends %s with SCRAPE_TIMEOUT at its timeout',
    async (path) => {
      const started = Date.now();
      const answer = await scrapeWatched(path, { timeout: 2_000 });
      expect(answer).toMatchObject({ status: 408, body: { code: 'SCRAPE_TIMEOUT' } });
      expect(Date.now() - started).toBeLessThan(5_000);
    },
    60_000,
  );

  it('ends a page whose charset lies (UTF-16 declared, Latin-1 sent) with 415', async () => {
    const answer = await scrapeWatched('/lying-charset');
    expect(answer).toMatchObject({
      status: 415,
      body: { success: false, code: 'UNSUPPORTED_FILE_TYPE' },
    });
  }, 60_000);

  // JSON-LD nested 100,000 deep, and a million offers in a 12 MB block.
  it.each(['/jsonld-deep', '/jsonld-wide'])(
    'reads the product and menu of %s without stalling',
    async (path) => {
      const answer = await scrapeWatched(path, { formats: ['product', 'menu', 'markdown'] });
      expect(answer.status).toBe(200);
      // The block is skipped whole: no product, and the warning says so.
      const data = answer.body['data'] as Record<string, unknown>;
      expect(data['product']).toBeUndefined();
      expect(data['menu']).toBeUndefined();
      expect(data['warning']).toBeTruthy();
    },
    60_000,
  );
});
