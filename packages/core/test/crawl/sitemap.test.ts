/**
 * Sitemap discovery against the fixture site: guessed and robots-listed locations, indexes,
 * gzip files, broken and missing sitemaps, loops and the bounds on files and URLs.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { HttpFetcher, resolveEngineConfig } from '@trawl/core';
// Relative `.js` on purpose: a `.ts` specifier into the core project fails tsc (TS2878,
// rewriteRelativeImportExtensions across project references), and vite resolves `.js` to the
// `.ts` source. The crawl modules are not on the public surface yet.
import { loadRobots } from '../../src/crawl/robots.js';
import { isSitemapUrl, loadSitemaps, parseSitemapXml } from '../../src/crawl/sitemap.js';

const site = inject('fixtureUrl');
const config = resolveEngineConfig();
const fetcher = new HttpFetcher();
afterAll(() => fetcher.close());

const at = (path: string) => `${site}${path}`;
const deps = { fetcher, config };

/** The page URLs of `/sitemap-a.xml`, as the loader must resolve and dedupe them. */
const sitemapAUrls = [
  at('/articles/plain.html'),
  at('/tables.html?a=1&b=2'),
  at('/docs/'),
  at('/tags.html'),
  at('/images.html'),
];
const sitemapBUrls = [at('/pii.html'), at('/canonical.html')];

describe('loadSitemaps', () => {
  it('finds /sitemap.xml from the site root without reporting the guesses that miss', async () => {
    const result = await loadSitemaps(new URL(at('/')), deps);
    expect(result.sitemaps).toEqual([at('/sitemap.xml')]);
    expect(result.urls).toContain(at('/articles/plain.html'));
    expect(result.urls).toContain(at('/docs/'));
    expect(result.urls.some((url) => url.includes('/private/'))).toBe(false);
    expect(result.errors).toEqual([]);
  });

  it('tries <start path>/sitemap.xml before /sitemap.xml and skips a 404 there silently', async () => {
    const result = await loadSitemaps(new URL(at('/docs/guide.html')), deps);
    expect(result.sitemaps).toEqual([at('/sitemap.xml')]);
    expect(result.errors).toEqual([]);
  });

  it('reads robots-listed sitemaps once even when a guess names the same file', async () => {
    const robots = await loadRobots(new URL(site), deps);
    const result = await loadSitemaps(new URL(at('/')), {
      ...deps,
      robotsSitemaps: robots.sitemaps,
    });
    expect(result.sitemaps).toEqual([at('/sitemap.xml')]);
  });

  it('follows an index to plain and gzip sitemaps, skipping broken, missing and looping ones', async () => {
    const result = await loadSitemaps(new URL(at('/sitemap-index.xml')), deps);
    expect(result.sitemaps).toEqual([
      at('/sitemap-index.xml'),
      at('/sitemap-a.xml'),
      at('/sitemap-b.xml.gz'),
    ]);
    expect(result.urls).toEqual([...sitemapAUrls, ...sitemapBUrls]);
    expect(result.errors).toEqual([
      {
        url: at('/sitemap-broken.xml'),
        error: expect.stringMatching(/^Not a sitemap/) as string,
        code: 'UNSUPPORTED_FILE_TYPE',
      },
      { url: at('/sitemap-missing.xml'), error: 'HTTP 404', code: 'UNSUPPORTED_FILE_TYPE' },
    ]);
  });

  it('trims, decodes entities and CDATA, resolves relative locs and keeps only http(s) pages', async () => {
    const result = await loadSitemaps(new URL(at('/sitemap-a.xml')), deps);
    expect(result.urls).toEqual(sitemapAUrls);
  });

  it('gunzips a .xml.gz sitemap served as application/gzip', async () => {
    const result = await loadSitemaps(new URL(at('/sitemap-b.xml.gz')), deps);
    expect(result.urls).toEqual(sitemapBUrls);
    expect(result.errors).toEqual([]);
  });

  it('records a sitemap that is not XML as an error and returns no URLs', async () => {
    const result = await loadSitemaps(new URL(at('/sitemap-broken.xml')), deps);
    expect(result.urls).toEqual([]);
    expect(result.sitemaps).toEqual([]);
    expect(result.errors).toHaveLength(1);
  });

  it('stops after maxSitemaps files', async () => {
    const result = await loadSitemaps(new URL(at('/sitemap-index.xml')), {
      ...deps,
      maxSitemaps: 2,
    });
    expect(result.sitemaps).toEqual([at('/sitemap-index.xml'), at('/sitemap-a.xml')]);
    expect(result.urls).toEqual(sitemapAUrls);
  });

  it('stops collecting at maxUrls', async () => {
    const result = await loadSitemaps(new URL(at('/sitemap-index.xml')), { ...deps, maxUrls: 3 });
    expect(result.urls).toEqual(sitemapAUrls.slice(0, 3));
  });

  it('reports an unreachable host as an error instead of throwing', async () => {
    const result = await loadSitemaps(new URL('http://127.0.0.1:1/'), deps);
    expect(result.urls).toEqual([]);
    expect(result.errors.map((entry) => entry.url)).toEqual(['http://127.0.0.1:1/sitemap.xml']);
  });
});

describe('parseSitemapXml', () => {
  it('reads namespace-prefixed sitemap elements', () => {
    const xml =
      '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://example.com/a.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
    expect(parseSitemapXml(xml)).toEqual({
      kind: 'sitemapindex',
      locs: ['https://example.com/a.xml'],
    });
  });

  it('returns undefined for a document whose root is not a sitemap', () => {
    expect(parseSitemapXml('<rss><channel><link>https://example.com/</link></channel></rss>')).toBe(
      undefined,
    );
  });

  it('names .xml and .xml.gz URLs as sitemaps and nothing else', () => {
    expect(isSitemapUrl(new URL('https://example.com/sitemap.xml'))).toBe(true);
    expect(isSitemapUrl(new URL('https://example.com/s/news.XML.gz'))).toBe(true);
    expect(isSitemapUrl(new URL('https://example.com/page.html?f=a.xml'))).toBe(false);
  });
});
