/**
 * crawl() against a multi-host link graph: each option of `POST /v2/crawl` changes the set of
 * pages crawled exactly as spec (b) says, and bad input becomes per-URL errors, not a crash.
 */
import { describe, expect, it } from 'vitest';
import {
  crawl,
  MemoryStore,
  TrawlError,
  type CrawlOptions,
  type Document,
  type JobErrors,
  type JobProgress,
  type JobSummary,
} from '@trawl/core';
import { openGraphFixture } from './graph-fixture.ts';

const { graph, fetcher, site } = await openGraphFixture();

interface CrawlResult {
  urls: string[];
  documents: Document[];
  errors: JobErrors;
  summary: JobSummary;
  progress: JobProgress[];
}

/** Runs a crawl to the end and returns its document URLs (sorted, relative to site.test). */
async function run(start: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  graph.reset();
  const job = crawl(
    start,
    { scrapeOptions: { timeout: 5000 }, ...options },
    {
      fetchers: [fetcher],
      store: new MemoryStore(),
    },
  );
  const progress: JobProgress[] = [];
  job.on('progress', (update) => progress.push(update));
  const documents: Document[] = [];
  for await (const document of job) documents.push(document);
  const summary = await job.done;
  const urls = documents.map((document) => short(document.metadata.sourceURL ?? '')).sort();
  return { urls, documents, errors: await job.errors(), summary, progress };
}

/** `http://site.test:PORT/x` → `/x`; other hosts keep their name: `docs.site.test/x`. */
function short(url: string): string {
  const parsed = new URL(url);
  const path = `${parsed.pathname}${parsed.search}`;
  return parsed.hostname === 'site.test' ? path : `${parsed.hostname}${path}`;
}

const sorted = (urls: string[]) => [...urls].sort();

/** What a default crawl from the home page stores. */
const everything = [
  '/',
  '/about',
  '/blog-archive',
  '/blog/',
  '/blog/a',
  '/blog/b?ref=x',
  '/blog/b?ref=y',
  '/blog/c',
  '/blog/old',
  '/deep/1',
  '/deep/2',
  '/deep/3',
  '/deep/4',
  '/files/report.pdf',
  '/hidden/from-sitemap',
];
const without = (...drop: string[]) => everything.filter((url) => !drop.includes(url));

describe('crawl: the default crawl', () => {
  it('takes every in-scope page once and reports the rest', async () => {
    const result = await run(`${site}/`);
    expect(result.urls).toEqual(sorted(everything));
    expect(result.summary.status).toBe('completed');
    expect(result.errors.robotsBlocked.map(short)).toEqual(['/private/secret']);
    const errors = Object.fromEntries(
      result.errors.errors.map((error) => [short(error.url), error.code]),
    );
    expect(errors).toEqual({
      '/missing': 'SCRAPE_HTTP_ERROR',
      '/broken': 'SCRAPE_HTTP_ERROR',
      '/loop-a': 'FETCH_FAILED',
      '/offsite': 'CRAWL_URL_DENIED',
      '/files/minutes.doc': 'UNSUPPORTED_FILE_TYPE',
    });
    // Fragments, www., trailing slashes and index.html never cost a request of their own; the
    // second request of /about is the end of the /moved redirect.
    const paths = graph.requests;
    expect(paths.filter((r) => r.path === '/about')).toHaveLength(2);
    expect(paths.some((r) => r.host === 'www.site.test' || r.path === '/index.html')).toBe(false);
    expect(paths.some((r) => r.path.endsWith('.png') || r.path.endsWith('.css'))).toBe(false);
    // The only other host touched is where /offsite redirects (then refused as out of scope).
    expect(paths.filter((r) => r.host !== 'site.test').map((r) => `${r.host}${r.path}`)).toEqual([
      'other.test/landing',
    ]);
  });

  it('counts a redirect to a page already taken, and a canonical duplicate, once', async () => {
    const result = await run(`${site}/`);
    const about = result.documents.filter((doc) => doc.metadata.url === `${site}/about`);
    expect(about).toHaveLength(1);
    expect(result.urls).not.toContain('/moved');
    expect(result.urls).not.toContain('/about-copy');
  });

  it('reports progress up to completed === total and pages through results in order', async () => {
    const result = await run(`${site}/`);
    const last = result.progress.at(-1);
    expect(last?.completed).toBe(last?.total);
    expect(result.summary.progress.scraped).toBe(everything.length);
    expect(result.summary.warning).toMatch(/robots\.txt/);
  });
});

describe('crawl: scope options', () => {
  it('crawlEntireDomain false keeps to children of the start path, by string prefix', async () => {
    expect((await run(`${site}/blog/`, { sitemap: 'skip' })).urls).toEqual(
      sorted(['/blog/', '/blog/a', '/blog/b?ref=x', '/blog/b?ref=y', '/blog/c']),
    );
    // '/blog' is a string prefix of '/blog-archive' too, as the hosted service does it.
    expect((await run(`${site}/blog`, { sitemap: 'skip' })).urls).toEqual(
      sorted([
        '/blog',
        '/blog-archive',
        '/blog/a',
        '/blog/b?ref=x',
        '/blog/b?ref=y',
        '/blog/c',
        '/blog/old',
      ]),
    );
  });

  it('crawlEntireDomain true follows parents and siblings', async () => {
    expect((await run(`${site}/blog/`, { crawlEntireDomain: true })).urls).toEqual(
      sorted(everything),
    );
  });

  it('excludePaths removes matching paths, anywhere in the path', async () => {
    expect((await run(`${site}/`, { excludePaths: ['blog'] })).urls).toEqual(
      without(
        '/blog/',
        '/blog/a',
        '/blog/b?ref=x',
        '/blog/b?ref=y',
        '/blog/c',
        '/blog-archive',
        '/blog/old',
      ),
    );
  });

  it('includePaths keeps matching paths; the start URL fails them yet its links are followed', async () => {
    const result = await run(`${site}/`, { includePaths: ['^/blog/'] });
    expect(result.urls).toEqual(
      sorted(['/blog/', '/blog/a', '/blog/b?ref=x', '/blog/b?ref=y', '/blog/c']),
    );
    expect(result.errors.errors.find((error) => short(error.url) === '/')?.code).toBe(
      'CRAWL_URL_DENIED',
    );
  });

  it('includePaths that nothing matches gives zero pages and says why', async () => {
    const result = await run(`${site}/`, { includePaths: ['^/nothing-here'] });
    expect(result.urls).toEqual([]);
    expect(result.summary.status).toBe('completed');
    expect(result.errors.errors.map((error) => [short(error.url), error.code])).toContainEqual([
      '/',
      'CRAWL_URL_DENIED',
    ]);
  });

  it('regexOnFullURL matches patterns against the query string too', async () => {
    expect((await run(`${site}/`, { excludePaths: ['ref=y'] })).urls).toEqual(sorted(everything));
    expect((await run(`${site}/`, { excludePaths: ['ref=y'], regexOnFullURL: true })).urls).toEqual(
      without('/blog/b?ref=y'),
    );
  });

  it('ignoreQueryParameters fetches a path once whatever its query', async () => {
    const result = await run(`${site}/`, { ignoreQueryParameters: true });
    expect(result.urls).toEqual(sorted([...without('/blog/b?ref=x', '/blog/b?ref=y'), '/blog/b']));
  });

  it('deduplicateSimilarURLs false keeps www., trailing-slash and index.html variants apart', async () => {
    const result = await run(`${site}/`, { deduplicateSimilarURLs: false });
    // The www. host is the same site, so its relative links make a second copy of it.
    const www = [...without('/hidden/from-sitemap'), '/about/', '/index.html'].map(
      (path) => `www.site.test${path}`,
    );
    expect(result.urls).toEqual(sorted([...everything, '/index.html', ...www]));
  });

  it('allowSubdomains follows links to subdomains of the site', async () => {
    expect((await run(`${site}/`, { allowSubdomains: true })).urls).toEqual(
      sorted([...everything, 'docs.site.test/', 'docs.site.test/guide']),
    );
  });

  it('allowExternalLinks goes one hop out, never to a bare home page', async () => {
    expect((await run(`${site}/`, { allowExternalLinks: true })).urls).toEqual(
      sorted([...everything, 'other.test/page', '/offsite']),
    );
  });
});

describe('crawl: depth, limit and sitemaps', () => {
  it('limit counts the URLs taken, in discovery order', async () => {
    expect((await run(`${site}/`, { limit: 3 })).urls).toEqual(sorted(['/', '/blog/', '/blog/a']));
  });

  it('maxDiscoveryDepth: 0 is the start page and the sitemap, 1 adds its links', async () => {
    expect((await run(`${site}/`, { maxDiscoveryDepth: 0, sitemap: 'skip' })).urls).toEqual(['/']);
    expect((await run(`${site}/`, { maxDiscoveryDepth: 0 })).urls).toEqual(
      sorted(['/', '/blog/a', '/hidden/from-sitemap']),
    );
    expect((await run(`${site}/`, { maxDiscoveryDepth: 1, sitemap: 'skip' })).urls).toEqual(
      sorted([
        '/',
        '/blog/',
        '/blog/a',
        '/blog/b?ref=x',
        '/blog-archive',
        '/about',
        '/deep/1',
        '/files/report.pdf',
      ]),
    );
  });

  it('sitemap skip finds only linked pages; only takes the sitemap and the start URL', async () => {
    expect((await run(`${site}/`, { sitemap: 'skip' })).urls).toEqual(
      without('/hidden/from-sitemap'),
    );
    expect((await run(`${site}/`, { sitemap: 'only' })).urls).toEqual(
      sorted(['/', '/blog/a', '/hidden/from-sitemap']),
    );
  });
});

describe('crawl: robots.txt and politeness', () => {
  it('ignoreRobotsTxt crawls what robots.txt disallows', async () => {
    const result = await run(`${site}/`, { ignoreRobotsTxt: true });
    expect(result.urls).toEqual(sorted([...everything, '/private/secret']));
    expect(result.errors.robotsBlocked).toEqual([]);
  });

  it('robotsUserAgent picks the robots.txt group of that agent', async () => {
    const result = await run(`${site}/`, { robotsUserAgent: 'StrictBot' });
    expect(result.urls).toEqual(
      without('/blog/a', '/blog/b?ref=x', '/blog/b?ref=y', '/blog/c', '/blog/old', '/blog/'),
    );
    expect(result.errors.robotsBlocked.map(short)).toContain('/blog/a');
  });

  it('an HTML page served as robots.txt allows everything, and an HTML sitemap is an error', async () => {
    const result = await run(graph.origin('oddrobots.test'));
    expect(result.urls).toEqual(sorted(['oddrobots.test/', 'oddrobots.test/inner']));
    expect(result.errors.errors.map((error) => error.error).join(' ')).toMatch(/sitemap/i);
  });

  it('maxConcurrency bounds the requests in flight', async () => {
    await run(`${site}/`, { maxConcurrency: 2 });
    expect(graph.peakConcurrency()).toBeLessThanOrEqual(2);
    await run(`${site}/`);
    expect(graph.peakConcurrency()).toBeGreaterThan(2);
  });

  it('delay scrapes one page at a time, delay seconds apart', async () => {
    const result = await run(`${site}/blog/`, { sitemap: 'skip', delay: 0.2 });
    expect(result.urls).toHaveLength(5);
    expect(graph.peakConcurrency()).toBe(1);
    const starts = graph.requests
      .filter((r) => r.path.startsWith('/blog/'))
      .map((r) => r.startedAt);
    for (let i = 1; i < starts.length; i++) {
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(190);
    }
  });

  it("robots.txt's Crawl-delay applies when no delay is given", async () => {
    const result = await run(graph.origin('slow.test'), { sitemap: 'skip' });
    expect(result.urls).toEqual(sorted(['slow.test/', 'slow.test/next']));
    const [first, second] = graph.requests.filter((r) => r.path === '/' || r.path === '/next');
    expect(second!.startedAt - first!.startedAt).toBeGreaterThanOrEqual(990);
  });

  it('retries a 429 after its Retry-After', async () => {
    const result = await run(`${site}/retry`, {
      crawlEntireDomain: true,
      sitemap: 'skip',
      includePaths: ['^/(retry|limited)$'],
    });
    expect(result.urls).toEqual(['/limited', '/retry']);
    const limited = graph.requests.filter((r) => r.path === '/limited');
    expect(limited).toHaveLength(2);
    expect(limited[1]!.startedAt - limited[0]!.startedAt).toBeGreaterThanOrEqual(990);
  });
});

describe('crawl: page options, retention and the job', () => {
  it('scrapeOptions apply to every page', async () => {
    const result = await run(`${site}/blog/`, {
      sitemap: 'skip',
      scrapeOptions: { formats: ['html'], excludeTags: ['ul'] },
    });
    expect(result.documents).toHaveLength(5);
    for (const doc of result.documents) {
      expect(doc.markdown).toBeUndefined();
      expect(doc.html).toBeDefined();
      expect(doc.html).not.toContain('<ul>');
    }
  });

  it('zeroDataRetention deletes each document once delivered', async () => {
    const store = new MemoryStore();
    const job = crawl(
      `${site}/blog/`,
      { sitemap: 'skip', zeroDataRetention: true },
      {
        fetchers: [fetcher],
        store,
      },
    );
    let delivered = 0;
    for await (const _ of job) delivered += 1;
    expect(delivered).toBe(5);
    expect((await job.results()).data).toEqual([]);
    expect(await store.list('page-cache')).toEqual([]);
  });

  it('accepts prompt and says it needs an LLM', async () => {
    const result = await run(`${site}/blog/c`, { prompt: 'only blog posts', sitemap: 'skip' });
    expect(result.urls).toEqual(['/blog/c']);
    expect(result.summary.warning).toMatch(/LLM/);
  });

  it('a start URL that 404s ends the crawl with one error and no pages', async () => {
    const result = await run(`${site}/missing`, { sitemap: 'skip' });
    expect(result.urls).toEqual([]);
    expect(result.summary.status).toBe('completed');
    expect(result.errors.errors).toMatchObject([{ code: 'SCRAPE_HTTP_ERROR' }]);
  });

  it('refuses an invalid regex before starting, naming the field', () => {
    try {
      crawl(`${site}/`, { excludePaths: ['('] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TrawlError);
      expect((error as TrawlError).code).toBe('BAD_REQUEST');
      expect((error as TrawlError).details).toMatchObject([{ path: ['excludePaths', 0] }]);
    }
  });

  it('cancel() stops the crawl with status cancelled', async () => {
    const job = crawl(
      `${site}/`,
      { delay: 0.2 },
      { fetchers: [fetcher], store: new MemoryStore() },
    );
    for await (const _ of job) {
      await job.cancel();
    }
    const summary = await job.done;
    expect(summary.status).toBe('cancelled');
    expect(summary.progress.scraped).toBeLessThan(everything.length);
  });
});
