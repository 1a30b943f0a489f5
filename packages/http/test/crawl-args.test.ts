import { describe, expect, it } from 'vitest';
import { parseCrawlArgs } from '../src/cli/crawl.js';

const url = 'https://example.com/docs';

describe('trawl crawl flags', () => {
  it('give the hosted defaults when no flag is set (markdown, main content only)', () => {
    expect(parseCrawlArgs([url]).options).toEqual({
      scrapeOptions: {
        formats: ['markdown'],
        onlyMainContent: true,
        removeBase64Images: true,
        blockAds: true,
      },
    });
  });

  it('map to every /v2/crawl option', () => {
    const { options } = parseCrawlArgs([
      url,
      ...['--limit', '250', '--max-depth', '3'],
      ...['--include', '^/docs/', '--include', '^/guides/', '--exclude', '/v1/'],
      ...['--full-url', '--entire-domain', '--subdomains', '--external', '--ignore-query'],
      ...['--no-dedupe-similar', '--sitemap', 'only', '--ignore-robots'],
      ...['--robots-agent', 'MyBot', '--delay', '1.5', '--concurrency', '4'],
      ...['--zero-data-retention', '--prompt', 'only the API reference'],
    ]);
    expect(options).toMatchObject({
      limit: 250,
      maxDiscoveryDepth: 3,
      includePaths: ['^/docs/', '^/guides/'],
      excludePaths: ['/v1/'],
      regexOnFullURL: true,
      crawlEntireDomain: true,
      allowSubdomains: true,
      allowExternalLinks: true,
      ignoreQueryParameters: true,
      deduplicateSimilarURLs: false,
      sitemap: 'only',
      ignoreRobotsTxt: true,
      robotsUserAgent: 'MyBot',
      delay: 1.5,
      maxConcurrency: 4,
      zeroDataRetention: true,
      prompt: 'only the API reference',
    });
  });

  it('apply the page flags to every page as scrapeOptions', () => {
    const { options } = parseCrawlArgs([
      url,
      ...['--formats', 'markdown, links,html', '--no-main-content', '--include-tags', 'article'],
      ...['--exclude-tags', '.ads,#nav', '--timeout', '15000', '--mobile'],
      ...['--header', 'X-Token: abc', '--language', 'de-DE', '--country', 'DE'],
      ...['--max-age', '0', '--redact-pii', '--insecure', '--proxy', 'basic'],
    ]);
    expect(options?.scrapeOptions).toEqual({
      formats: ['markdown', 'links', 'html'],
      onlyMainContent: false,
      includeTags: ['article'],
      excludeTags: ['.ads', '#nav'],
      timeout: 15000,
      mobile: true,
      headers: { 'X-Token': 'abc' },
      location: { country: 'DE', languages: ['de-DE'] },
      maxAge: 0,
      redactPII: true,
      skipTlsVerification: true,
      proxy: 'basic',
      removeBase64Images: true,
      blockAds: true,
    });
    expect(parseCrawlArgs([url, '--no-cache']).options?.scrapeOptions).toMatchObject({
      maxAge: 0,
      storeInCache: false,
    });
  });

  it('take a job id instead of a URL with --resume', () => {
    expect(parseCrawlArgs(['--resume', 'abc', '--out', 'site'])).toMatchObject({
      url: undefined,
      options: undefined,
      values: { resume: 'abc', out: 'site' },
    });
  });

  it('refuse malformed flag values and argument counts with a usage error', () => {
    const refusals: [string[], RegExp][] = [
      [[url, '--limit', '1e3x'], /--limit takes a whole number of pages/],
      [[url, '--max-depth', '1.5'], /--max-depth takes a whole number/],
      [[url, '--delay', 'soon'], /--delay takes a number of seconds/],
      [[url, '--concurrency', ''], /--concurrency takes a whole number/],
      [
        [url, '--formats', 'markdown,screenshot'],
        /--format takes markdown, html, rawHtml, links, images \(got 'screenshot'\)/,
      ],
      [[url, '--header', 'no-colon'], /--header takes 'Name: value'/],
      [[], /give exactly one URL \(got 0\)/],
      [[url, url], /give exactly one URL \(got 2\)/],
      [['--resume', 'abc', url], /--resume takes the job id instead of a URL/],
    ];
    for (const [args, message] of refusals) {
      expect(() => parseCrawlArgs(args), args.join(' ')).toThrow(message);
    }
    expect(() => parseCrawlArgs([url, '--bogus'])).toThrow(/unknown option '--bogus'/);
  });
});
